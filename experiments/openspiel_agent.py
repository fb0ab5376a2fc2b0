"""OpenSpiel's C++ ``MCTSBot`` as an agent on our Ultimate Tic-Tac-Toe and Connect Four
(experiment-local).

Connect Four: OpenSpiel's ``connect_four`` has our encoding (action = column 0-6, the first
player ``x``), so a move is one decision with the same action.

Encodings: our action is ``board * 9 + cell`` (boards and cells row-major, ``Discrete(81)``).
OpenSpiel's ``ultimate_tic_tac_toe`` has 9 actions: when the mover may play on any local board
(its state prints ``Forced board: any``), the move is two decisions of the same player, first
the board and then the cell; otherwise one decision, the cell on the forced board. The agent
keeps an OpenSpiel state in step with the game (``restart`` / ``inform``); a decision asks the
bot once or twice (board, then cell) and both calls count toward the move's time, since the
tournament times the whole ``act_state`` call.

Importing this module registers the kind ``openspiel_mcts`` (options ``simulations``, ``seconds``,
``uct_c``, ``rollouts``, ``solve``) with :func:`mcts_envs.agents.spec.register_agent`. Needs ``pyspiel``
(``pip install 'mcts-envs[bench]'``).
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from mcts_envs.agents.base import MAX_SECONDS, MIN_SECONDS, ForwardModelAgent
from mcts_envs.agents.spec import register_agent
from mcts_envs.core.errors import IllegalActionError, InvalidOptionError, require_optional
from mcts_envs.core.game import Game
from mcts_envs.core.registry import make_game
from mcts_envs.core.seeding import check_seed

NAME = "openspiel_mcts"
OPENSPIEL_GAME = "ultimate_tic_tac_toe"
#: Our games the agent plays -> OpenSpiel's game of the same rules.
OPENSPIEL_GAMES = {"ultimate_tictactoe": OPENSPIEL_GAME, "connect_four": "connect_four"}
#: ``max_simulations`` when only a time budget is given (OpenSpiel's C++ takes an int).
UNLIMITED = 2**31 - 1
#: OpenSpiel's tree memory limit per decision (MB); far above what 1 s of search uses.
MEMORY_MB = 1000
#: The least time a decision gets (the cell decision of a free move whose board decision
#: overran its half): OpenSpiel's clock needs a positive limit.
MIN_DECISION_SECONDS = 1e-3
#: Simulations after which OpenSpiel's root has children: its search expands a node on the
#: node's second visit, so a search its clock stopped after one simulation (a process
#: descheduled on a loaded machine) has no move to give; it is done again with this many.
ROOT_EXPANDED = 2


def free_move(os_state: Any) -> bool:
    """Whether the OpenSpiel state asks its mover to choose a local board first."""
    return str(os_state).rstrip().endswith("Forced board: any")


def to_openspiel(action: int, free: bool) -> list[int]:
    """Our ``board * 9 + cell`` as OpenSpiel decisions: ``[board, cell]`` on a free move,
    ``[cell]`` otherwise.

    Raises:
        IllegalActionError: for an action outside 0..80.
    """
    if not 0 <= int(action) < 81:
        raise IllegalActionError(f"an Ultimate Tic-Tac-Toe action is 0..80, got {action!r}")
    board, cell = divmod(int(action), 9)
    return [board, cell] if free else [cell]


def from_openspiel(board: int, cell: int) -> int:
    """Our action of OpenSpiel's local ``board`` and ``cell`` (each 0..8)."""
    return int(board) * 9 + int(cell)


def forced_board(os_state: Any) -> int:
    """The local board the mover must play on (OpenSpiel's printout), or -1 if free."""
    line = str(os_state).rstrip().rsplit("\n", 1)[-1]
    tail = line.split(":")[-1].strip()
    return -1 if tail == "any" else int(tail)


def apply_ours(os_state: Any, action: int) -> None:
    """Apply our ``action`` to an OpenSpiel state (one or two decisions).

    Raises:
        IllegalActionError: if OpenSpiel does not allow the move (the states are out of step).
    """
    free = free_move(os_state)
    if not free and forced_board(os_state) != action // 9:
        raise IllegalActionError(
            f"action {action} is on board {action // 9}, OpenSpiel forces {forced_board(os_state)}"
        )
    for decision in to_openspiel(action, free):
        if decision not in os_state.legal_actions():
            raise IllegalActionError(f"OpenSpiel does not allow {decision} for our {action}")
        os_state.apply_action(decision)


class OpenSpielMCTS(ForwardModelAgent):
    """OpenSpiel's C++ ``MCTSBot`` with random rollouts, following our game.

    Budget: ``simulations`` per OpenSpiel decision, ``seconds`` per whole move, or both (the
    first reached ends a decision). A time budget uses the bot's own wall clock
    (``max_wall_clock_time``), checked between simulations inside the C++ search; on a free
    move the board decision gets half of ``seconds`` and the cell decision the rest of the
    move's time, so the whole move (both decisions) takes ``seconds``, the budget our MCTS gets
    for one decision of the same move.

    Args:
        seed: seeds the rollout evaluator and, through a generator, each decision's bot.
        simulations: ``max_simulations`` per OpenSpiel decision (a free move makes two);
            ``None`` for time only.
        seconds: wall-clock seconds per whole move (default ``None``: simulations only).
        uct_c: OpenSpiel's UCT constant (2 in its examples).
        rollouts: random rollouts per leaf.
        solve: OpenSpiel's MCTS-Solver switch.

    Raises:
        InvalidOptionError: for a budget that is missing, not a number or out of range.
    """

    name = NAME

    def __init__(
        self,
        *,
        seed: int | None = None,
        simulations: int | None = 1000,
        seconds: float | None = None,
        uct_c: float = 2.0,
        rollouts: int = 1,
        solve: bool = True,
    ) -> None:
        if simulations is None and seconds is None:
            raise InvalidOptionError(f"{NAME}: give a budget: simulations, seconds or both")
        if simulations is not None and (
            isinstance(simulations, bool) or not isinstance(simulations, int) or simulations < 1
        ):
            raise InvalidOptionError(
                f"{NAME}: simulations must be an int >= 1 or none, got {simulations!r}"
            )
        if seconds is not None and (
            isinstance(seconds, bool)
            or not isinstance(seconds, int | float)
            or not MIN_SECONDS <= seconds <= MAX_SECONDS
        ):
            raise InvalidOptionError(
                f"{NAME}: seconds must be a number in [{MIN_SECONDS}, {MAX_SECONDS}] or none, "
                f"got {seconds!r}"
            )
        self.pyspiel = require_optional("pyspiel", "bench")
        self.seed = check_seed(seed)
        self.simulations = UNLIMITED if simulations is None else int(simulations)
        self.seconds = None if seconds is None else float(seconds)
        self.uct_c = float(uct_c)
        self.solve = bool(solve)
        self._generator = np.random.default_rng(self.seed)
        self.evaluator = self.pyspiel.RandomRolloutEvaluator(
            int(rollouts), int(self._generator.integers(0, 2**31 - 1))
        )
        self._follow("ultimate_tictactoe")
        #: The last move: OpenSpiel simulations (both decisions of a free move) and seconds.
        self.last_search: dict[str, Any] = {}

    def _follow(self, game_name: str) -> None:
        """Play ``game_name`` (a key of :data:`OPENSPIEL_GAMES`) from its initial position."""
        self.game_name = game_name
        self.os_game = self.pyspiel.load_game(OPENSPIEL_GAMES[game_name])
        self.os_state = self.os_game.new_initial_state()
        self._initial = make_game(game_name).initial_state()

    def prepare(self, game: Game) -> None:
        """Follow ``game`` (Ultimate Tic-Tac-Toe until told otherwise).

        Raises:
            InvalidOptionError: for a game without an OpenSpiel peer here.
        """
        name = game.info.name
        if name not in OPENSPIEL_GAMES:
            raise InvalidOptionError(
                f"{NAME} plays {', '.join(OPENSPIEL_GAMES)} (OpenSpiel's game of the same "
                f"rules), not {name}"
            )
        if name != self.game_name:
            self._follow(name)

    def _bot(self, seconds: float | None, simulations: int | None = None) -> Any:
        """A bot for one decision (fresh tree, as OpenSpiel's ``step`` builds one anyway)."""
        return self.pyspiel.MCTSBot(
            self.os_game,
            self.evaluator,
            self.uct_c,
            self.simulations if simulations is None else simulations,
            MEMORY_MB,
            self.solve,
            int(self._generator.integers(0, 2**31 - 1)),
            False,
            self.pyspiel.ChildSelectionPolicy.UCT,
            -1.0 if seconds is None else max(seconds, MIN_DECISION_SECONDS),
        )

    def _decide(self, os_state: Any, seconds: float | None) -> tuple[int, int]:
        """One OpenSpiel decision: ``(action, simulations)``, as ``MCTSBot.step`` picks it
        (the root's best child), with the root's visit count."""
        root = self._bot(seconds).mcts_search(os_state)
        best = root.best_child()
        if best is None:  # the clock stopped it before the root's second visit (a loaded machine)
            root = self._bot(None, simulations=ROOT_EXPANDED).mcts_search(os_state)
            best = root.best_child()
        return int(best.action), int(root.explore_count)

    def restart(self, state: np.ndarray) -> None:
        """Start from ``state``: only the initial position is supported (OpenSpiel cannot load
        an arbitrary position; play from the start and ``inform`` every move).

        Raises:
            InvalidOptionError: for any other position.
        """
        self.os_state = self.os_game.new_initial_state()
        if not np.array_equal(np.asarray(state), self._initial):
            raise InvalidOptionError(f"{NAME} follows games from the initial position only")

    def reset(self) -> None:
        self.os_state = self.os_game.new_initial_state()

    def inform(self, action: int) -> None:
        if self.game_name == "ultimate_tictactoe":
            apply_ours(self.os_state, int(action))
        elif int(action) in self.os_state.legal_actions():  # the same encoding
            self.os_state.apply_action(int(action))
        else:
            raise IllegalActionError(f"OpenSpiel does not allow {action} here")

    def act_state(self, game: Game, state: np.ndarray) -> int:
        """Ask the bot for a move (board then cell on a free move); both decisions share the
        move's time budget and are timed as one move."""
        start = time.perf_counter()
        os_state = self.os_state.clone()
        if self.game_name != "ultimate_tictactoe":  # one decision, the same encoding
            action, simulations = self._decide(os_state, self.seconds)
        elif free_move(os_state):
            board, first = self._decide(
                os_state, None if self.seconds is None else self.seconds / 2
            )
            os_state.apply_action(board)
            left = None if self.seconds is None else self.seconds - (time.perf_counter() - start)
            cell, second = self._decide(os_state, left)
            action, simulations = from_openspiel(board, cell), first + second
        else:
            cell, simulations = self._decide(os_state, self.seconds)
            action = from_openspiel(forced_board(os_state), cell)
        self.last_search = {"simulations": simulations, "seconds": time.perf_counter() - start}
        return action


register_agent(NAME, OpenSpielMCTS)
