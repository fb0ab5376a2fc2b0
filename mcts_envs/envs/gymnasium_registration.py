"""Gymnasium ids of the single-agent views, registered when ``mcts_envs`` is imported without
importing any game (``gymnasium.make`` imports it).

Each id has an ``entry_point``, the one-game env (:class:`~mcts_envs.envs.single_agent.
SingleAgentEnv`: ``gymnasium.make``, and ``make_vec`` in ``"sync"`` / ``"async"`` mode), and a
``vector_entry_point``, the batched env (:func:`~mcts_envs.rl.vector_env.make_learner_vector_env`,
a :class:`~mcts_envs.rl.vector_env.LearnerVectorEnv` on the compiled ``VectorGame``): what
``gymnasium.make_vec`` gives by default, and with ``vectorization_mode="vector_entry_point"``."""

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
                vector_entry_point="mcts_envs.rl.vector_env:make_learner_vector_env",
                kwargs={"game": game},
            )
        ids[env_id] = game
    return ids
