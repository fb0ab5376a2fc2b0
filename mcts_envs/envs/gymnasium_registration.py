"""Gymnasium ids of the single-agent views (:mod:`mcts_envs.envs.single_agent`), registered when
``mcts_envs`` is imported without importing any game (``gymnasium.make`` imports it)."""

from __future__ import annotations

import gymnasium

from mcts_envs.core.registry import env_name, list_games

#: Words spelled differently in the camel-case ids.
_ID_WORDS = {"tictactoe": "TicTacToe", "ultimate": "Ultimate"}


def gymnasium_id(game: str) -> str:
    """The Gymnasium id of ``game``'s single-agent view, e.g. ``"mcts_envs/TicTacToe-v0"``.

    Raises:
        UnknownGameError: if no game has that name.
    """
    name, version = env_name(game).rsplit("_v", 1)
    camel = "".join(_ID_WORDS.get(part, part.capitalize()) for part in name.split("_"))
    return f"mcts_envs/{camel}-v{version}"


def register_gymnasium_envs() -> dict[str, str]:
    """Register every game's :class:`~mcts_envs.envs.single_agent.SingleAgentEnv` with
    ``gymnasium.make`` (by entry point: nothing is imported); returns id -> game."""
    ids = {}
    for game in list_games():
        env_id = gymnasium_id(game)
        if env_id not in gymnasium.registry:
            gymnasium.register(
                id=env_id,
                entry_point="mcts_envs.envs.single_agent:SingleAgentEnv",
                kwargs={"game": game},
            )
        ids[env_id] = game
    return ids
