"""The text env: any game of the package as a PettingZoo AEC env with ``str`` in and ``str`` out.

:class:`TextEnv` wraps the game's own AEC env (``mcts_envs.make(game, raw=True)``): turns, chance
draws, rewards, truncation and records all come from it; this module only writes prompts, reads
answers (:mod:`mcts_envs.text.parser`) and applies the invalid-answer policy.
"""

from __future__ import annotations

import json
import re
import string
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from mcts_envs.core.board_text import labelled_grid
from mcts_envs.core.constants import CHANCE
from mcts_envs.core.errors import (
    ActionTypeError,
    EnvUsageError,
    IllegalActionError,
    InvalidOptionError,
    ResetRequiredError,
)
from mcts_envs.core.registry import get_entry, make
from mcts_envs.core.seeding import check_seed
from mcts_envs.records import bounded
from mcts_envs.text.history import MoveHistory
from mcts_envs.text.parser import legal_move_names, parse_move

#: The invalid-answer policies (see :class:`TextEnv`).
INVALID_POLICIES = ("raise", "lose", "retry")
#: Characters of prompts and of sampled answers: printable ASCII (other characters of a quoted
#: answer are written as backslash escapes).
CHARSET = frozenset(string.printable)
#: Longest prompt (the observation space's ``max_length``; a Tantrix prompt listing every legal
#: move stays far below it).
MAX_PROMPT_LENGTH = 1 << 20
#: Longest answer read; a longer one is an invalid answer (the action space's ``max_length``).
MAX_ANSWER_LENGTH = 1 << 15
#: Sections of the game card shown with its summary in the first prompt.
RULE_SECTIONS = ("Turn structure", "Move notation")
#: How a prompt asks for the answer.
ANSWER_INSTRUCTION = "Answer with your move inside the answer tag, e.g. <move>{example}</move>."


def legal_moves_line(names: list[str]) -> str:
    """The legal moves' names in one line: separated by ``", "``, or by ``"; "`` when a name
    holds a comma (Tantrix's ``#5@0 at (0,0)``), so that the list splits back unambiguously."""
    return ("; " if any("," in name for name in names) else ", ").join(names)


class Prompt(str):
    """A prompt: a plain ``str`` that also carries the ``Text`` space's NumPy ``dtype``.

    PettingZoo's ``api_test`` compares each observation's ``dtype`` with its space's; a bare
    ``str`` has none. Everything else treats a prompt as the ``str`` it is.
    """

    __slots__ = ()
    dtype = np.dtype(str)


def game_card_rules(game_name: str) -> str:
    """The rules summary of a game's card (the registry entry's :attr:`card
    <mcts_envs.core.registry.RegistryEntry.card>`: its env module's opening docstring).

    The paragraphs between the card's table and its first section, then the sections named in
    :data:`RULE_SECTIONS` (with their headings); markdown backticks and the sentence about the
    Python API of the notation removed.
    """
    lines = get_entry(game_name).card.splitlines()
    summary: list[str] = []
    sections: dict[str, list[str]] = {}
    current: list[str] | None = summary
    seen_table = False
    for line in lines[1:]:
        if line.startswith("|"):
            seen_table = True
            continue
        if line.startswith("### "):
            current = sections.setdefault(line[4:].strip(), [])
            continue
        if seen_table and current is not None:
            current.append(line)
    parts = ["\n".join(summary).strip()]
    for name in RULE_SECTIONS:
        if name in sections:
            parts.append(f"{name}:\n" + "\n".join(sections[name]).strip())
    text = "\n\n".join(part for part in parts if part).replace("`", "")
    return _API_SENTENCE.sub("", text).strip()


#: The card's sentence about the Python and CLI API of the notation (not for a player).
_API_SENTENCE = re.compile(r"\s*game\.action_to_string\(.*?in it\.", re.DOTALL)


def ascii_text(text: str) -> str:
    """``text`` with every character outside :data:`CHARSET` written as a backslash escape."""
    if all(char in CHARSET for char in text):
        return text
    return "".join(
        char if char in CHARSET else char.encode("unicode_escape").decode("ascii") for char in text
    )


def labelled_board(rows: list[str]) -> str:
    """A square board of one-character cells with the files and ranks of the move notation
    (:func:`mcts_envs.core.board_text.labelled_grid`); boards of 6 or 9 cells show their 3x3
    blocks."""
    size = len(rows)
    return "\n".join(labelled_grid(rows, block=3 if size > 3 and size % 3 == 0 else 0))


class TextEnv(AECEnv):
    """A game as text: the observation is a prompt (``str``), the action an answer (``str``).

    * agents, turns, chance draws, rewards and truncation are those of the game's own env
      (``mcts_envs.make(game, raw=True)``, in ``env.base_env``);
    * ``observe(agent)`` is a prompt (:meth:`prompt`): for the agent on move, the rules summary
      (only before its first answer of the game), the position (a board with coordinates, the
      side to move, the move number, clocks, hands, bag and scores as the game has them, and its
      text record), the opponent's moves since the agent's last turn and the chance outcomes
      (Tantrix's draws) since then, the legal moves (if ``show_legal_moves``), the error of its
      last answer when asked again, and how to answer; for the other agent, the position and
      who is to move;
    * the move number is the position's own (both players' decisions before it, counted from
      the game's start: :func:`~mcts_envs.text.history.moves_played`), so it is right after a
      jump; the moves reported are those played since the position the game was started or set
      up in (:meth:`set_game_state`, or the base env's): before the agent's first move from a
      set-up position the prompt says that earlier moves are not known;
    * ``step(answer)`` reads the move with :func:`~mcts_envs.text.parser.parse_move` (the
      ``<move>...</move>`` tag, else the last legal move named);
    * ``infos[agent]`` holds the base env's infos plus ``legal_moves`` (the move strings of the
      agent on move, else ``[]``) and ``state_json`` (``game.to_json`` of the position);
    * :meth:`record` is the base env's game record plus ``answers`` (every answer, invalid ones
      with their ``error``) and, after a forfeit, ``forfeit``.

    The invalid-answer policy (``invalid``):

    * ``"raise"``: :class:`~mcts_envs.core.errors.IllegalActionError`; nothing changes but the
      record, which keeps the answer;
    * ``"lose"``: the mover forfeits: reward -1 for it, +1 for the other, the game ends (both
      agents terminated; the record's ``returns`` is ``null`` and ``forfeit`` names the seat);
    * ``"retry"``: the same agent is asked again, with the error in its next prompt, up to
      ``retries`` times for one decision; the next invalid answer forfeits as ``"lose"``.

    Args:
        game: a game name (``"tictactoe"``) or env name (``"tictactoe_v0"``).
        invalid: ``"raise"``, ``"lose"`` or ``"retry"``.
        retries: answers that may be retried per decision (only with ``invalid="retry"``).
        show_legal_moves: list the legal moves in the prompt (``infos`` always have them).
        seed: seed of the first ``reset()`` called without one (chance draws), so a text env
            built with a seed plays reproducibly; ``None``: fresh entropy.
        render_mode: ``None`` or ``"ansi"`` (``render()`` returns the prompt of the agent on move).
        max_cycles: truncate once an agent has made this many moves (PettingZoo's cycles, as the
            base env).
        **game_options: the game's options (see its game card).

    Raises:
        InvalidOptionError: for an unknown policy, a bad ``retries``, a bad render mode or an
            unknown game option.
        UnknownGameError: for an unknown game.
        InvalidSeedError: for a bad seed.
    """

    def __init__(
        self,
        game: str,
        invalid: str = "lose",
        retries: int = 0,
        show_legal_moves: bool = True,
        seed: int | None = None,
        render_mode: str | None = None,
        max_cycles: int | None = None,
        **game_options: Any,
    ):
        super().__init__()
        if invalid not in INVALID_POLICIES:
            raise InvalidOptionError(
                f"invalid={invalid!r} is not a policy; allowed: {', '.join(INVALID_POLICIES)}"
            )
        if isinstance(retries, bool) or not isinstance(retries, int) or retries < 0:
            raise InvalidOptionError(f"retries must be a non-negative int, got {retries!r}")
        if retries and invalid != "retry":
            raise InvalidOptionError(
                f"retries={retries} needs invalid='retry' (with invalid={invalid!r} an invalid "
                "answer is never retried)"
            )
        if render_mode not in (None, "ansi"):
            raise InvalidOptionError(f"render_mode {render_mode!r}; allowed: None, 'ansi'")
        self.base_env = make(
            game, raw=True, render_mode="ansi", max_cycles=max_cycles, **game_options
        )
        self.game = self.base_env.game
        self.invalid = invalid
        self.retries = retries
        self.show_legal_moves = bool(show_legal_moves)
        self.render_mode = render_mode
        self._first_seed = check_seed(seed)
        self.metadata = {
            "name": f"text_{self.base_env.metadata['name']}",
            "render_modes": ["ansi"],
            "is_parallelizable": False,
        }
        self.possible_agents = list(self.base_env.possible_agents)
        observation_space = spaces.Text(
            max_length=MAX_PROMPT_LENGTH, min_length=1, charset="".join(sorted(CHARSET))
        )
        action_space = spaces.Text(
            max_length=MAX_ANSWER_LENGTH, min_length=0, charset="".join(sorted(CHARSET))
        )
        self.observation_spaces = dict.fromkeys(self.possible_agents, observation_space)
        self.action_spaces = dict.fromkeys(self.possible_agents, action_space)
        self._rules = game_card_rules(game)
        self._board_text = self.base_env._definition.renderer_factory(self.game).text
        self._history = MoveHistory(self.game)
        self._history_start: np.ndarray | None = None  # the base env's start position followed
        self._history_offset = 0  # actions of _history before the base env's start position
        self._infos: dict[str, dict[str, Any]] = {}
        self._started = False
        self._new_game()

    def _new_game(self) -> None:
        """Forget the answers and the invalid-answer state (a new start position)."""
        self._answers: list[dict[str, Any]] = []
        self._failed = 0  # invalid answers for the current decision
        self._retry_error: str | None = None
        self._forfeit: dict[str, Any] | None = None

    # -- spaces and the base env's bookkeeping ------------------------------------------------
    def observation_space(self, agent: str) -> spaces.Space:
        """``Text`` (printable ASCII, up to :data:`MAX_PROMPT_LENGTH` characters)."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        """``Text`` (its samples are printable ASCII; ``step`` reads any ``str``)."""
        return self.action_spaces[agent]

    @property
    def agents(self) -> list[str]:
        return self.base_env.agents

    @property
    def agent_selection(self) -> str:
        return self.base_env.agent_selection

    @property
    def rewards(self) -> dict[str, float]:
        return self.base_env.rewards

    @property
    def _cumulative_rewards(self) -> dict[str, float]:
        return self.base_env._cumulative_rewards

    @property
    def terminations(self) -> dict[str, bool]:
        return self.base_env.terminations

    @property
    def truncations(self) -> dict[str, bool]:
        return self.base_env.truncations

    @property
    def infos(self) -> dict[str, dict[str, Any]]:
        """``infos[agent]``: the base env's infos plus ``legal_moves`` and ``state_json``."""
        if self._started:
            self._sync()
        return self._infos

    @infos.setter
    def infos(self, value: dict[str, dict[str, Any]]) -> None:
        self._infos = value

    @property
    def game_state(self) -> np.ndarray:
        """The current forward-model state (``game.to_json`` / ``to_text`` describe it)."""
        self._require_reset("game_state")
        return self.base_env.game_state

    def _require_reset(self, what: str) -> None:
        if not self._started:
            raise ResetRequiredError(f"{self.metadata['name']}: call reset() before {what}")

    # -- episode ------------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start a new game; ``seed`` seeds the chance draws (the constructor's ``seed`` is used
        by the first reset without one).

        Raises:
            InvalidSeedError: if ``seed`` is not ``None`` or a non-negative int.
        """
        seed = check_seed(seed)
        if seed is None and not self._started:
            seed = self._first_seed
        self.base_env.reset(seed=seed)
        self._started = True
        self._sync()

    def set_game_state(self, state: np.ndarray) -> None:
        """Start a game from position ``state`` (a state of ``env.game``, e.g. from
        ``game.from_text`` or ``game.from_json``): the base env's ``set_game_state`` (chance
        nodes sampled through, the record starting there), the answers cleared.

        The prompts then give the position's own move number and say that the moves before it
        are not known; setting the base env's position directly has the same effect.

        Raises:
            ResetRequiredError: (an ``EnvUsageError``) before ``reset()``.
            EnvUsageError: once every agent has left a finished game.
            StateTypeError: if ``state`` is not a state array of this game.
            InvalidStateError: if ``state`` is not a valid position (nothing changes).
        """
        self._require_reset("set_game_state()")
        self.base_env.set_game_state(state)
        self._sync()

    def _sync(self) -> None:
        """Follow the base env: after its ``reset`` or ``set_game_state`` (a new start position)
        start a new game of answers and history; name the actions played since the last call
        and update ``infos`` if any."""
        base = self.base_env
        history = self._history
        known = len(history.moves) - self._history_offset
        if self._history_start is not base._initial_state or len(base.history) < known:
            self._history_start = base._initial_state
            self._history_offset = known = 0
            history.restart(base._initial_state)
            self._new_game()
        elif len(base.history) == known:
            return
        for action in base.history[known:]:
            history.inform(action)
        self._update_infos()

    def follow(self, history: MoveHistory) -> None:
        """Start a game at the end of ``history`` (a game of this env's game followed elsewhere,
        e.g. by an agent through ``restart``/``inform``), knowing its moves: the prompts then
        report the moves and chance outcomes of ``history`` as if the game had been played
        through this env from ``history.start`` (move number, the opponent's last moves, the
        rules only for an agent that has not moved in it). The answers and the record start at
        the end of ``history``, as after :meth:`set_game_state`; ``history`` is not changed.

        Raises:
            ResetRequiredError: (an ``EnvUsageError``) before ``reset()``.
            EnvUsageError: once every agent has left a finished game.
            InvalidOptionError: if ``history`` follows another game.
            InvalidStateError: if its position is not a valid position (nothing changes).
        """
        self._require_reset("follow()")
        if history.game.info.name != self.game.info.name:
            raise InvalidOptionError(
                f"{self.metadata['name']}: the history follows {history.game.info.name}, "
                f"not {self.game.info.name}"
            )
        self.base_env.set_game_state(history.state)
        self._history = history.copy()
        self._history_start = self.base_env._initial_state
        self._history_offset = len(self._history.moves)
        self._new_game()
        for action in self.base_env.history:  # chance outcomes sampled from its position
            self._history.inform(action)
        self._update_infos()

    @property
    def _on_move(self) -> str | None:
        """The agent to decide, or ``None`` when the game is over."""
        if not self.base_env.agents:
            return None
        agent = self.base_env.agent_selection
        if self.base_env.terminations[agent] or self.base_env.truncations[agent]:
            return None
        return agent

    def step(self, action: str | None) -> None:
        """Read the answer ``action`` of ``agent_selection`` and play its move.

        A terminated or truncated agent steps with ``None``, as in every AEC env.

        Raises:
            ActionTypeError: if a live agent's answer is not a str (nothing changes).
            IllegalActionError: with ``invalid="raise"``, if the answer names no legal move (the
                record keeps the answer; nothing else changes).
            ResetRequiredError: (an ``EnvUsageError``) before ``reset()``.
            EnvUsageError: once every agent has left.
        """
        self._require_reset("step()")
        self._sync()
        if not self.base_env.agents:
            raise EnvUsageError(
                f"{self.metadata['name']}: the game is over and every agent has left; "
                "call reset() to start a new game"
            )
        agent = self._on_move
        if agent is None:
            self.base_env.step(action)  # the dead agent's step: it leaves
            self._update_infos()
            return
        if not isinstance(action, str):
            raise ActionTypeError(
                f"{self.metadata['name']}: an answer is a str, got {type(action).__name__}"
            )
        state = self.base_env.game_state
        names = self._legal_names()
        entry: dict[str, Any] = {
            "seat": self.possible_agents.index(agent),
            "move_number": self._history.move_number(),
            "answer": action[:MAX_ANSWER_LENGTH],
        }
        try:
            if len(action) > MAX_ANSWER_LENGTH:
                raise IllegalActionError(
                    f"{self.game.info.name}: the answer has {len(action)} characters, "
                    f"more than {MAX_ANSWER_LENGTH}"
                )
            move = parse_move(self.game, state, action, names)
        except IllegalActionError as error:
            entry |= {"move": None, "error": bounded(str(error), 600)}
            self._answers.append(entry)
            self._invalid(agent, entry)
            return
        name = self.game.action_to_string(state, move)
        self._answers.append(entry | {"move": name, "error": None})
        self._failed = 0
        self._retry_error = None
        self.base_env.step(move)
        self._sync()

    def _invalid(self, agent: str, entry: dict[str, Any]) -> None:
        """Apply the policy to an invalid answer of ``agent`` (already in the record)."""
        if self.invalid == "raise":
            raise IllegalActionError(entry["error"])
        base = self.base_env
        if self.invalid == "retry" and self._failed < self.retries:
            self._failed += 1
            self._retry_error = entry["error"]
            base.rewards = dict.fromkeys(base.agents, 0.0)
            base._cumulative_rewards[agent] = 0.0
            self._update_infos()
            return
        self._forfeit = {
            "seat": entry["seat"],
            "reason": "invalid move",
            "line": bounded(entry["answer"], 300),
            "message": entry["error"],
        }
        base._cumulative_rewards[agent] = 0.0
        base.terminations = dict.fromkeys(base.agents, True)
        base.rewards = {other: (-1.0 if other == agent else 1.0) for other in base.agents}
        base._accumulate_rewards()
        base._deads_step_first()
        self._update_infos()

    def _legal_names(self) -> dict[str, int]:
        if self._names_key is not self.base_env.game_state:
            self._names_key = self.base_env.game_state
            agent = self._on_move
            state = self.base_env.game_state
            self._names = legal_move_names(self.game, state) if agent is not None else {}
        return self._names

    _names_key: Any = None
    _names: dict[str, int] = {}

    def _update_infos(self) -> None:
        base_infos = self.base_env.infos
        state_json = self.game.to_json(self.base_env.game_state)
        legal = list(self._legal_names())
        on_move = self._on_move
        self._infos = {
            agent: dict(base_infos.get(agent, {}))
            | {"legal_moves": legal if agent == on_move else [], "state_json": state_json}
            for agent in self.base_env.agents
        }

    # -- prompts ------------------------------------------------------------------------------
    def rules(self) -> str:
        """The rules summary and move notation from the game card (the first prompt's head)."""
        return self._rules

    def observe(self, agent: str) -> Prompt:
        """The prompt of ``agent`` (see :meth:`prompt`)."""
        return self.prompt(agent)

    def prompt(self, agent: str, include_rules: bool | None = None) -> Prompt:
        """The text ``agent`` sees now (printable ASCII; a :class:`Prompt`, i.e. a ``str``).

        Args:
            agent: ``"player_0"`` or ``"player_1"``.
            include_rules: start with the rules summary; ``None``: only while ``agent`` is on
                move and has not yet answered (or moved) in this game.

        Raises:
            ResetRequiredError: (an ``EnvUsageError``) before ``reset()``.
            KeyError: for an unknown agent.
        """
        self._require_reset("observe()")
        if agent not in self.possible_agents:
            raise KeyError(f"unknown agent {agent!r}; agents: {', '.join(self.possible_agents)}")
        self._sync()
        seat = self.possible_agents.index(agent)
        on_move = self._on_move
        if include_rules is None:
            include_rules = (
                agent == on_move
                and not any(answer["seat"] == seat for answer in self._answers)
                and not self._history.decided(seat)
            )
        history = self._history
        state = history.state
        obj = self.game.to_json(state)
        parts = []
        if include_rules:
            parts.append(f"Rules of {self.game.info.name}:\n{self._rules}")
        parts.append(
            f"You are {agent} ({self._side(obj, seat)}); your opponent is "
            f"{self.possible_agents[1 - seat]} ({self._side(obj, 1 - seat)})."
        )
        number = history.move_number()
        before = f"before move {number}" if number is not None else "(move number not known)"
        parts.append(f"Position {before}:\n{self._position(obj, state)}")
        parts.extend(self._past(history, seat))
        if on_move is None:
            parts.append(self._outcome_text())
        elif agent != on_move:
            parts.append(f"{on_move} is to move; wait for your turn.")
        else:
            names = list(self._legal_names())
            if self.show_legal_moves:
                parts.append(f"Legal moves ({len(names)}): {legal_moves_line(names)}")
            if self._retry_error is not None:
                left = self.retries - self._failed
                parts.append(
                    f"Your last answer was invalid: {self._retry_error}\n"
                    f"Try again ({left} more invalid answer{'s' if left != 1 else ''} allowed "
                    "before you forfeit)."
                )
            parts.append(f"You are to move. {ANSWER_INSTRUCTION.format(example=names[0])}")
        return Prompt(ascii_text("\n\n".join(parts)))

    def _past(self, history: MoveHistory, seat: int) -> list[str]:
        """The lines on what happened before the position, for ``seat``: the opponent's moves
        since its last decision, the chance outcomes since then, or that no move was played or
        that the moves before a set-up position are not known."""
        since, known = history.since_last_turn(seat)
        opponent = [move.name for move in since if move.player == 1 - seat]
        chance = [move.name for move in since if move.player == CHANCE]
        from_start = known or history.start_moves == 0
        lines = []
        if opponent:
            if len(opponent) == 1:
                label = "Your opponent's last move"
            elif from_start:
                label = "Your opponent's moves"
            else:
                label = "Your opponent's moves since the game was set up in this position"
            lines.append(f"{label}: {', '.join(opponent)}")
        elif not history.decided(1 - seat) and not known:
            if history.start_moves == 0:
                lines.append("No move has been played yet.")
            else:
                start = history.start_moves
                lines.append(
                    "The game was set up in this position: the moves before it are not known."
                    if start is None
                    else f"The game was set up at move {start + 1}: the moves before it are "
                    "not known."
                )
        if chance:
            if known:
                label = "since your last move"
            elif history.start_moves == 0:
                label = "so far"
            else:
                label = "since the game was set up"
            lines.append(f"Chance outcomes {label} (in order): {', '.join(chance)}")
        return lines

    def _side(self, obj: dict[str, Any], seat: int) -> str:
        if "colors" in obj:
            return f"{obj['colors'][seat]} lines"
        sides = self.game.json_schema()["properties"]["to_move"]["enum"]
        return f"plays {sides[seat]}"

    def _position(self, obj: dict[str, Any], state: np.ndarray) -> str:
        """The position: a square board of rows with files and ranks (the notation of the grid
        games), another board (Connect Four's columns are numbered) as the game's own text
        picture, each followed by the facts of the JSON state; else the text picture alone."""
        board = obj.get("board")
        if isinstance(board, list) and board and all(isinstance(row, str) for row in board):
            facts = [
                f"{key}: {json.dumps(value)}"
                for key, value in obj.items()
                if key not in ("game", "board")
            ]
            square = all(len(row) == len(board) for row in board)
            shown = labelled_board(board) if square else self._board_text(state)
            picture = shown + "\n" + "\n".join(facts)
        else:
            picture = self._board_text(state)
        return f"{picture}\nRecord: {self.game.to_text(state)}"

    def _outcome_text(self) -> str:
        outcome = self.outcome()
        if outcome is None:  # pragma: no cover - only called at the end
            return ""
        return f"The game is over: {outcome['reason']}."

    def outcome(self) -> dict[str, Any] | None:
        """``None`` while the game goes on, else ``{"returns": [r0, r1] or None, "reason"}``.

        ``returns`` are +1 / -1 / 0 (a forfeit: -1 for the seat that forfeited); ``None`` for
        a game truncated by ``max_cycles``.
        """
        self._require_reset("outcome()")
        if self._forfeit is not None:
            seat = self._forfeit["seat"]
            returns = [1.0, 1.0]
            returns[seat] = -1.0
            return {
                "returns": returns,
                "reason": f"{self.possible_agents[seat]} forfeited by an invalid answer",
            }
        state = self.base_env.game_state
        if self.game.is_terminal(state):
            returns = [float(r) for r in self.game.returns(state)]
            if returns[0] == returns[1]:
                reason = "draw"
            else:
                reason = f"{self.possible_agents[int(np.argmax(returns))]} wins"
            return {"returns": returns, "reason": reason}
        if any(self.base_env.truncations.values()):
            return {"returns": None, "reason": "truncated (move limit)"}
        return None

    # -- records and rendering ----------------------------------------------------------------
    def record(self) -> dict[str, Any]:
        """The base env's game record plus ``answers`` (every answer: ``seat``,
        ``move_number``, ``answer``, ``move`` (or ``None``), ``error`` (or ``None``)) and, after a
        forfeit, ``forfeit`` (``{"seat", "reason", "line", "message"}``, ``returns`` ``null``).

        Raises:
            ResetRequiredError: (an ``EnvUsageError``) before ``reset()``.
        """
        self._require_reset("record()")
        record = self.base_env.record()
        record["answers"] = [dict(answer) for answer in self._answers]
        if self._forfeit is not None:
            record["returns"] = None
            record["forfeit"] = dict(self._forfeit)
        return record

    def render(self) -> str | None:
        """The prompt of the agent on move (``render_mode="ansi"``)."""
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi'")
            return None
        return self.prompt(self.base_env.agent_selection)

    def close(self) -> None:
        """Close the base env."""
        self.base_env.close()

    def __str__(self) -> str:
        return self.metadata["name"]


def env(
    game: str,
    invalid: str = "lose",
    retries: int = 0,
    show_legal_moves: bool = True,
    seed: int | None = None,
    **kwargs: Any,
) -> TextEnv:
    """The text env of ``game`` (see :class:`TextEnv` for the arguments and the policy)."""
    return TextEnv(
        game,
        invalid=invalid,
        retries=retries,
        show_legal_moves=show_legal_moves,
        seed=seed,
        **kwargs,
    )
