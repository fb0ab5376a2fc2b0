"""The games of the package in TextArena (``pip install textarena``; tested with 0.7.4).

:func:`register_textarena` registers every game under its PettingZoo id,
``"mcts_envs/<game>-v0"`` (plus TextArena's ``-train`` and ``-raw`` wrapper variants), so
TextArena's own loop plays it::

    import textarena as ta
    from mcts_envs.text.textarena import register_textarena

    register_textarena()
    env = ta.make("mcts_envs/tictactoe-v0")
    env.reset(num_players=2, seed=0)
    done = False
    while not done:
        player_id, observation = env.get_observation()
        done, info = env.step(action=agents[player_id](observation))
    rewards, game_info = env.close()

Each env is a :class:`TextArenaGame` over a :class:`~mcts_envs.text.TextEnv`: the prompt of
TextArena's ``PROMPT`` observation is the game card's rules, each turn's ``GAME_BOARD``
observation the text env's prompt (position, opponent's moves, legal moves, the retry error);
answers are read by the text env's parser and its invalid-answer policy (default ``"lose"``),
not by TextArena's ``set_invalid_move``. The outcome goes to TextArena's ``set_winner`` /
``set_draw`` (a forfeit marks the forfeiting player's ``invalid_move`` in ``game_info``).
"""

from __future__ import annotations

from typing import Any

from mcts_envs.core.errors import InvalidOptionError, require_optional
from mcts_envs.core.registry import get_entry, list_games
from mcts_envs.text.env import TextEnv


def _textarena() -> Any:
    return require_optional("textarena", "textarena")


def textarena_id(game: str) -> str:
    """The TextArena id of ``game``: its PettingZoo id, e.g. ``"mcts_envs/tictactoe-v0"``."""
    return get_entry(game).pettingzoo_id


def register_textarena() -> list[str]:
    """Register every game with TextArena (again: no change) and return their ids.

    The default id wraps the env in TextArena's ``DEFAULT_WRAPPERS`` (the whole conversation
    as one string, answers bracketed), ``-train`` in ``BOARDGAME_WRAPPERS`` (prompt, messages
    and the latest board) and ``-raw`` in none.

    Raises:
        OptionalDependencyError: if textarena is not installed.
    """
    _textarena()
    from textarena.envs import BOARDGAME_WRAPPERS, DEFAULT_WRAPPERS
    from textarena.envs.registration import ENV_REGISTRY, register_with_versions

    ids = []
    for name in list_games():
        env_id = textarena_id(name)
        if env_id not in ENV_REGISTRY:
            register_with_versions(
                id=env_id,
                entry_point=TextArenaGame,
                wrappers={"default": DEFAULT_WRAPPERS, "-train": BOARDGAME_WRAPPERS},
                game=name,
            )
        ids.append(env_id)
    return ids


def _base_class() -> type:
    try:
        import textarena
    except ImportError:  # the class is defined without textarena; using it needs textarena
        return object
    return textarena.Env


class TextArenaGame(_base_class()):
    """A TextArena ``Env`` playing one game of the package through a :class:`TextEnv`.

    Args:
        game: the game's name.
        invalid: the text env's invalid-answer policy (``"lose"``, ``"retry"`` or ``"raise"``).
        retries: answers that may be retried per decision (with ``invalid="retry"``).
        show_legal_moves: list the legal moves in each turn's prompt.
        **options: other :class:`TextEnv` options (``max_cycles``, game options).

    Raises:
        InvalidOptionError: as :class:`TextEnv`.
        OptionalDependencyError: if textarena is not installed.
    """

    def __init__(
        self,
        game: str,
        invalid: str = "lose",
        retries: int = 0,
        show_legal_moves: bool = True,
        **options: Any,
    ):
        _textarena()
        self.text_env = TextEnv(
            game, invalid=invalid, retries=retries, show_legal_moves=show_legal_moves, **options
        )

    def reset(self, num_players: int, seed: int | None = None) -> None:
        """Start a game; ``seed`` seeds the chance draws (and, as TextArena does, ``random``).

        Raises:
            InvalidOptionError: unless ``num_players`` is 2.
        """
        ta = _textarena()
        if num_players != 2:
            raise InvalidOptionError(
                f"{self.text_env.game.info.name} is a two-player game; num_players must be 2, "
                f"got {num_players!r}"
            )
        self.text_env.reset(seed=seed)
        self.state = ta.TwoPlayerState(num_players=2, seed=seed)
        self.state.reset(
            game_state={"state_json": self._state_json()},
            player_prompt_function=self._rules_prompt,
        )
        self._seat_to_move()
        self._observe_turn()

    def _state_json(self) -> dict[str, Any]:
        return self.text_env.game.to_json(self.text_env.game_state)

    def _rules_prompt(self, player_id: int, game_state: dict[str, Any]) -> str:
        agent = self.text_env.possible_agents[player_id]
        return (
            f"You are Player {player_id} ({agent}) in {self.text_env.game.info.name}.\n"
            f"Rules of {self.text_env.game.info.name}:\n{self.text_env.rules()}"
        )

    def _seat_to_move(self) -> None:
        agent = self.text_env.agent_selection
        self.state.manually_set_current_player_id(self.text_env.possible_agents.index(agent))

    def _observe_turn(self) -> None:
        ta = _textarena()
        agent = self.text_env.agent_selection
        self.state.add_observation(
            to_id=self.text_env.possible_agents.index(agent),
            message=str(self.text_env.prompt(agent, include_rules=False)),
            observation_type=ta.ObservationType.GAME_BOARD,
        )

    def step(self, action: str) -> tuple[bool, dict[str, Any]]:
        """Play the current player's answer ``action``; returns TextArena's ``(done, info)``."""
        ta = _textarena()
        player_id = self.state.current_player_id
        self.state.add_observation(
            from_id=player_id, message=action, observation_type=ta.ObservationType.PLAYER_ACTION
        )
        env = self.text_env
        env.step(action)
        answer = env.record()["answers"][-1]
        if answer["move"] is not None:
            self.state.add_observation(
                message=f"Player {player_id} played {answer['move']}.",
                observation_type=ta.ObservationType.GAME_ACTION_DESCRIPTION,
            )
        self.state.game_state["state_json"] = self._state_json()
        outcome = env.outcome()
        if outcome is None:
            self._seat_to_move()
            self._observe_turn()
        else:
            self._finish(outcome)
        return self.state.step(rotate_player=False)

    def _finish(self, outcome: dict[str, Any]) -> None:
        forfeit = self.text_env.record().get("forfeit")
        if forfeit is not None:
            self.state.game_info[forfeit["seat"]]["invalid_move"] = True
            reason = f"{outcome['reason']}: {forfeit['message']}"
            self.state.set_winner(player_id=1 - forfeit["seat"], reason=reason)
        elif outcome["returns"] is None or outcome["returns"][0] == outcome["returns"][1]:
            self.state.set_draw(reason=outcome["reason"])
        else:
            winner = 0 if outcome["returns"][0] > outcome["returns"][1] else 1
            self.state.set_winner(player_id=winner, reason=outcome["reason"])

    def get_board_str(self) -> str:
        """The position as the text env shows it (TextArena's render wrappers call this)."""
        return str(self.text_env.prompt(self.text_env.agent_selection, include_rules=False))

    def close(self) -> tuple[dict[int, int] | None, dict[int, dict[str, Any]]]:
        """TextArena's ``(rewards, game_info)`` (closes the text env too)."""
        self.text_env.close()
        return self.state.close()
