"""alpha-beta: iterative deepening over the compiled principal variation search of
:mod:`mcts_envs.agents.players.alphabeta_search`, for every game.

The agent owns a transposition table that survives between moves (``keep_table``), the search's
working memory (killer moves and history scores included) and the time management: a move's
budget (``seconds``) is a hard deadline inside the compiled search, and with
``iteration_stop`` no new iteration starts when the last one's time, grown by the ratio of the
last two, would not fit in what is left. An iteration that runs out still counts its root
move if one completed with a full window and raised alpha (the previous best is searched
first, so that move is proven at least as good at the new depth). Each root search of depth 3
or more starts with an aspiration window of ``aspiration`` around the previous iteration's
value, widened (times :data:`ASPIRATION_GROWTH`) on the side that fails.

The compiled search releases the GIL (``nogil``), so other Python threads run while it searches,
and it reads a stop flag (a one-element ``int64`` array, :func:`new_stop_flag`) every
:data:`CLOCK_EVERY` nodes: another thread sets ``flag[0] = 1`` to end the search, and
:meth:`AlphaBetaAgent.search` then answers with the best move found so far (how a UAI engine's
``stop`` is served). The search is kept in numba's disk cache (the kernels' identities are
pinned by :class:`~mcts_envs.core.game.KernelGame`; the clock is read through a named libc
symbol, :func:`mcts_envs.core.numba_compat.clock_seconds`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from mcts_envs.agents.base import (
    MAX_SECONDS,
    MIN_SECONDS,
    ForwardModelAgent,
    check_decision,
    check_number,
    decision_state,
    game_and_state,
    search_buffer_size,
)
from mcts_envs.agents.players.alphabeta_options import (
    MINIMAX_EQUIVALENT,
    PLAIN_SEARCH,
    options_text,
)
from mcts_envs.agents.players.alphabeta_search import (
    ABORTED,
    BYTES_PER_ENTRY,
    CLOCK_EVERY,
    DECISIVE,
    DEEPER_TABLE,
    FUTILITY_MARGIN,
    GAME_EVALUATION,
    HEURISTIC_SCALE,
    HISTORY,
    IIR,
    INFINITY,
    KILLERS,
    LMP,
    LMR,
    MATE_STEP,
    NODE_LIMIT,
    NODES,
    NULL_MOVE,
    PARAMS,
    PVS,
    QUIESCENCE,
    ROOT_BEST,
    ROOT_COUNT,
    ROOT_FIRST,
    SALT,
    STATS_SIZE,
    Table,
    Workspace,
    new_table,
    new_workspace,
    order_keys,
    search_root,
    time_is_up,
)
from mcts_envs.agents.result import SearchResult
from mcts_envs.core.errors import InvalidOptionError
from mcts_envs.core.game import Game
from mcts_envs.core.numba_compat import HAS_CLOCK, clock_seconds
from mcts_envs.core.seeding import check_seed

__all__ = [
    "ABORTED",
    "BYTES_PER_ENTRY",
    "CLOCK_EVERY",
    "HAS_CLOCK",
    "HEURISTIC_SCALE",
    "MATE_STEP",
    "MINIMAX_EQUIVALENT",
    "PLAIN_SEARCH",
    "STATS_SIZE",
    "AlphaBetaAgent",
    "Table",
    "clock_seconds",
    "new_stop_flag",
    "new_table",
    "options_text",
    "order_keys",
    "search_root",
    "time_is_up",
]

#: Depth searched when neither ``depth`` nor ``seconds`` is given.
DEFAULT_DEPTH = 4
#: Largest ``depth`` option (the recursion is bounded by the game length long before).
MAX_DEPTH = 1000
#: Largest ``quiescence`` option (plies).
MAX_QUIESCENCE = 32
#: Largest ``table_size`` option (entries).
MAX_TABLE_SIZE = 1 << 24
#: Step between successive table salts (odd: 2**64 salts before one repeats; never 0 before).
SALT_STEP = 0x9E3779B97F4A7C15 - (1 << 64)  # as an int64
#: Aspiration windows start at this depth; a window that fails grows by this factor.
ASPIRATION_MIN_DEPTH = 3
ASPIRATION_GROWTH = 4.0
#: The ratio of one iteration's time to the previous one's assumed before two are measured,
#: and the range the measured ratio is kept in (time management, ``iteration_stop``).
ITERATION_GROWTH = (3.0, 1.5, 10.0)
#: ``evaluation`` option values: the game's search evaluation (its heuristic where it has
#: none), or its heuristic.
EVALUATIONS = ("game", "heuristic")


def new_stop_flag() -> np.ndarray:
    """A stop flag for :meth:`AlphaBetaAgent.search` (and minimax2): ``int64[1]``, 0 (run on);
    another thread sets element 0 to a non-zero value to stop the search."""
    return np.zeros(1, np.int64)


#: The flag of searches nobody stops (never written).
_NEVER_STOP = new_stop_flag()


class AlphaBetaAgent(ForwardModelAgent):
    """Compiled alpha-beta: iterative deepening, principal variation search with aspiration
    windows, a transposition table kept between moves, killer and history move ordering,
    late-move reductions and pruning, null-move pruning and quiescence where the game allows
    them (see :mod:`~mcts_envs.agents.players.alphabeta_search`), expectimax at chance nodes.

    Budget: ``depth`` plies (chance nodes do not count), or ``seconds`` of wall-clock time, or
    both (whichever ends first). With neither, ``depth`` is 4. Deepening stops early once the
    game tree is searched to the end (the value is then exact: Tic-Tac-Toe is solved from the
    empty board). Equal-valued moves are tried in an order shuffled by the seeded generator, so
    the seed decides between them.

    Args:
        seed: seed of the tie-breaking generator.
        depth: maximum search depth in plies (``None``: unlimited when ``seconds`` is given).
        seconds: wall-clock budget per move (``None``: no time limit).
        table_size: transposition-table entries (rounded up to a power of two).
        keep_table: keep the table and the history scores between moves (cleared by
            ``reset()``); off, every move is searched afresh.
        evaluation: ``"game"`` (the game's search evaluation, e.g. Ataxx's material, mobility,
            holes, stability and tempo; the heuristic where a game has none) or
            ``"heuristic"`` (the game's heuristic difference).
        pvs: principal variation search (null windows after the first move).
        aspiration: half-width of the first aspiration window around the previous
            iteration's value (0: none).
        killers: killer-move ordering.
        history: history-score ordering.
        lmr: late-move reductions.
        late_move_pruning: late-move pruning at shallow nodes off the principal variation.
        null_move: null-move pruning (games whose search kernels allow it).
        quiescence: plies of quiescence search (captures only) beyond the depth, in games
            with captures (0: none).
        deeper_table: a table entry searched deeper answers a shallower search (off: only the
            same depth, which keeps plain minimax values).
        internal_reduction: a node without a table move is searched shallower.
        futility: reverse futility pruning's margin per ply in units of material (games whose
            search evaluation has a material unit, e.g. Ataxx stones; 0: off).
        iteration_stop: with ``seconds``, start no iteration that is predicted not to finish.
    """

    name = "alphabeta"

    def __init__(
        self,
        *,
        seed: int | None = None,
        depth: int | None = None,
        seconds: float | None = None,
        table_size: int = 1 << 16,
        keep_table: bool = True,
        evaluation: str = "game",
        pvs: bool = True,
        aspiration: float = 0.0,
        killers: bool = True,
        history: bool = False,
        lmr: bool = True,
        late_move_pruning: bool = True,
        null_move: bool = True,
        quiescence: int = 0,
        deeper_table: bool = True,
        internal_reduction: bool = False,
        futility: float = 2.0,
        iteration_stop: bool = False,
    ) -> None:
        depth = check_number("alphabeta", "depth", depth, 1, MAX_DEPTH, integer=True, optional=True)
        seconds = check_number(
            "alphabeta", "seconds", seconds, MIN_SECONDS, MAX_SECONDS, integer=False, optional=True
        )
        table_size = check_number(
            "alphabeta", "table_size", table_size, 1, MAX_TABLE_SIZE, integer=True
        )
        if evaluation not in EVALUATIONS:
            raise InvalidOptionError(
                f"alphabeta: evaluation must be one of {', '.join(EVALUATIONS)}, got {evaluation!r}"
            )
        self.aspiration = check_number(
            "alphabeta", "aspiration", aspiration, 0.0, 1.0, integer=False
        )
        self.futility = check_number("alphabeta", "futility", futility, 0.0, 100.0, integer=False)
        switches = {
            "keep_table": keep_table,
            "pvs": pvs,
            "killers": killers,
            "history": history,
            "lmr": lmr,
            "late_move_pruning": late_move_pruning,
            "null_move": null_move,
            "deeper_table": deeper_table,
            "internal_reduction": internal_reduction,
            "iteration_stop": iteration_stop,
        }
        for option, value in switches.items():
            if not isinstance(value, bool | np.bool_):
                raise InvalidOptionError(
                    f"alphabeta: {option} must be true or false, got {value!r}"
                )
        self.seed = check_seed(seed)
        self.depth = DEFAULT_DEPTH if depth is None and seconds is None else depth
        self.seconds = seconds
        self.table_size = 1 << max(0, int(table_size - 1).bit_length())
        self.evaluation = evaluation
        self.keep_table = bool(keep_table)
        self.pvs = bool(pvs)
        self.killers = bool(killers)
        self.history = bool(history)
        self.lmr = bool(lmr)
        self.late_move_pruning = bool(late_move_pruning)
        self.null_move = bool(null_move)
        self.quiescence = check_number(
            "alphabeta", "quiescence", quiescence, 0, MAX_QUIESCENCE, integer=True
        )
        self.deeper_table = bool(deeper_table)
        self.internal_reduction = bool(internal_reduction)
        self.iteration_stop = bool(iteration_stop)
        self._generator = np.random.default_rng(self.seed)
        self._table: Table | None = None
        self._workspace: Workspace | None = None
        self._table_game: str | None = None
        self._salt = SALT_STEP  # XORed into the state hashes of the current table's entries
        self.last_result: SearchResult | None = None

    @property
    def table_bytes(self) -> int:
        """Memory of the transposition table: ``BYTES_PER_ENTRY * table_size`` (1.5 MB by
        default, at most 386 MB), whatever the game (no states are stored)."""
        return BYTES_PER_ENTRY * self.table_size

    def reset(self) -> None:
        """Clear the transposition table and the history scores (a new game starts)."""
        self._table = None
        self._workspace = None
        self._table_game = None

    def prepare(self, game: Game) -> None:
        """Compile the search for ``game`` (or load it from numba's disk cache) with a depth-1
        search of a position with a player to move; touches neither this agent's generator nor
        its table. Prints nothing."""
        probe = AlphaBetaAgent(seed=0, depth=1, table_size=16)
        probe.search(game, decision_state(game))

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["_table"] = None  # caches, not part of the agent (never pickled with it)
        state["_workspace"] = None
        state["_table_game"] = None
        return state

    def _params(self, game: Game) -> np.ndarray:
        """The search's switches and margins for ``game``
        (:data:`~mcts_envs.agents.players.alphabeta_search.PARAMS`)."""
        params = np.zeros(len(PARAMS), np.float64)
        for index, on in (
            (PVS, self.pvs),
            (KILLERS, self.killers),
            (HISTORY, self.history),
            (LMR, self.lmr),
            (LMP, self.late_move_pruning),
            (NULL_MOVE, self.null_move),
            (GAME_EVALUATION, self.evaluation == "game"),
            (DEEPER_TABLE, self.deeper_table),
            (IIR, self.internal_reduction),
        ):
            params[index] = 1.0 if on else 0.0
        params[QUIESCENCE] = self.quiescence
        search_kernels = game.search_kernels
        if self.evaluation == "game" and search_kernels.has_evaluation:
            unit = HEURISTIC_SCALE * search_kernels.material_unit
            params[FUTILITY_MARGIN] = self.futility * unit
        return params

    def _tables(self, game: Game) -> tuple[Table, Workspace]:
        """The table and workspace for a search of ``game``: new ones for a new game, else the
        kept ones, the table emptied by a new salt unless ``keep_table`` (its entries then
        match no hash; rewriting a large table would cost a decision hundreds of
        milliseconds)."""
        table_key = f"{game.info.name}/{game.info.state_size}"
        if self._table is None or self._workspace is None or self._table_game != table_key:
            self._table = new_table(self.table_size)
            self._workspace = new_workspace(
                search_buffer_size(game), game.info.state_size, game.info.num_actions
            )
            self._table_game = table_key
        elif not self.keep_table:
            self._salt = (self._salt + SALT_STEP + (1 << 63)) % (1 << 64) - (1 << 63)
        return self._table, self._workspace

    def search(
        self,
        env_or_game: Any,
        state: np.ndarray | None = None,
        *,
        stop: np.ndarray | None = None,
        on_iteration: Callable[[SearchResult], None] | None = None,
    ) -> SearchResult:
        """Search the position (an env, or a game and a state) within the budget: the best
        action and its value for the mover. A time budget is checked inside the compiled
        search (every 16 nodes) and covers the whole decision; a search always returns a
        legal action (the first of a shuffled order if not even depth 1 completes). Under a time
        budget, a position with a single legal move is answered after the depth-1 iteration (a
        few nodes): the move is forced, and the result's value and depth are that iteration's
        (a depth budget searches to its depth, so values stay those of minimax at that depth).

        The compiled search releases the GIL. ``stop`` (a :func:`new_stop_flag`) ends the
        search within :data:`CLOCK_EVERY` nodes once another thread sets it, except depth 1,
        which always completes (a few nodes per legal move); the answer is then the best move
        found so far. ``on_iteration`` is called (in this thread) with the result so far after
        every completed iteration (it is then :attr:`last_result`, so
        :meth:`principal_variation` gives its line).

        Raises:
            IllegalActionError: if no player is to move (terminal or chance node).
        """
        start = time.perf_counter()
        game, state = game_and_state(env_or_game, state)
        state, player = check_decision("alpha-beta", game, state)
        table, workspace = self._tables(game)
        actions = self._generator.permutation(game.legal_actions(state))
        workspace.root_moves[: len(actions)] = actions
        workspace.killers.fill(-1)
        if self.keep_table:
            workspace.history[:] *= 0.5  # the last move's scores count, half as much
        else:
            workspace.history[:] = 0.0  # every move searched afresh
        workspace.params[:] = self._params(game)
        deadline = workspace.deadline
        deadline[0] = 0.0 if self.seconds is None else start + self.seconds
        stop = _NEVER_STOP if stop is None else stop
        stats = workspace.stats
        max_depth = self.depth if self.depth is not None else 1 << 20
        if len(actions) == 1 and self.seconds is not None:
            max_depth = 1  # a forced move on the clock: answered at once
        best_action, best_value, reached, solved, total_nodes = int(actions[0]), 0.0, 0, False, 0
        node_rate = None
        iteration_seconds: list[float] = []
        for depth in range(1, max_depth + 1):
            if depth > 1 and stop[0] != 0:
                break
            if self.seconds is not None and depth > 1:
                remaining = deadline[0] - time.perf_counter()
                if remaining <= 0 or (
                    self.iteration_stop and _predicted(iteration_seconds) > remaining
                ):
                    break
            stats.fill(0)
            stats[NODE_LIMIT] = np.iinfo(np.int64).max
            stats[ROOT_COUNT] = len(actions)
            stats[SALT] = self._salt
            stats[ROOT_FIRST] = best_action if depth > 1 else -1
            if self.seconds is not None and depth > 1 and node_rate is not None and not HAS_CLOCK:
                stats[NODE_LIMIT] = max(1, int(node_rate * (deadline[0] - time.perf_counter())))
            search = workspace._replace(stop=_NEVER_STOP if depth == 1 else stop)
            iteration_start = time.perf_counter()
            value, iteration_solved, candidate = self._root_search(
                game, state, depth, best_value, table, search
            )
            total_nodes += int(stats[NODES])
            elapsed = time.perf_counter() - iteration_start
            if stats[ABORTED]:
                if candidate >= 0:  # a root move proven at least as good at this depth
                    best_action = candidate
                break
            iteration_seconds.append(elapsed)
            if elapsed > 0:
                node_rate = stats[NODES] / elapsed
            best_action, best_value, reached, solved = candidate, value, depth, iteration_solved
            if on_iteration is not None:
                self.last_result = self._result(
                    best_action, best_value, player, total_nodes, start, depth, solved
                )
                on_iteration(self.last_result)
            if solved:
                break
        self.last_result = self._result(
            best_action, best_value, player, total_nodes, start, reached, solved
        )
        return self.last_result

    def _root_search(
        self,
        game: Game,
        state: np.ndarray,
        depth: int,
        previous: float,
        table: Table,
        workspace: Workspace,
    ) -> tuple[float, bool, int]:
        """One iteration: ``(value for the mover, solved, best root move)``; the move is the
        best one proven so far when the search was aborted (-1: none), and
        ``stats[NODES]`` sums every window tried. An aspiration window around ``previous``
        (from depth :data:`ASPIRATION_MIN_DEPTH`) grows on the side that fails."""
        stats = workspace.stats
        kernels, search_kernels = game.kernels, game.search_kernels
        delta = self.aspiration
        if delta > 0 and depth >= ASPIRATION_MIN_DEPTH and abs(previous) < DECISIVE:
            low, high = previous - delta, previous + delta
        else:
            low, high = -INFINITY, INFINITY
        nodes, candidate = 0, -1
        while True:
            value, solved = search_root(
                state, depth, low, high, kernels, search_kernels, table, workspace
            )
            nodes += int(stats[NODES])
            aborted = bool(stats[ABORTED])
            if not aborted and value <= low and low > -INFINITY:
                delta *= ASPIRATION_GROWTH
                low = -INFINITY if delta >= 1.0 else max(value - delta, -INFINITY)
            elif not aborted and value >= high and high < INFINITY:
                candidate = int(stats[ROOT_BEST])  # better than the previous best
                stats[ROOT_FIRST] = candidate
                delta *= ASPIRATION_GROWTH
                high = INFINITY if delta >= 1.0 else min(value + delta, INFINITY)
            else:
                if int(stats[ROOT_BEST]) >= 0:
                    candidate = int(stats[ROOT_BEST])
                stats[NODES] = nodes
                return value, solved, candidate
            stats[NODES] = 0

    @staticmethod
    def _result(
        action: int, value: float, player: int, nodes: int, start: float, depth: int, solved: bool
    ) -> SearchResult:
        """The :class:`SearchResult` of a search so far (``value``: the mover's view)."""
        mover_value = float(value)
        return SearchResult(
            action=action,
            value=mover_value,
            player=player,
            actions=np.array([action], np.int64),
            visits=np.zeros(1),
            probabilities=np.ones(1),
            action_values=np.array([mover_value]),
            nodes=nodes,
            seconds=time.perf_counter() - start,
            depth=depth,
            solved=bool(solved),
        )

    def act_state(self, game: Game, state: np.ndarray) -> int:
        return self.search(game, state).action

    def policy(self, env_or_game: Any, state: np.ndarray | None = None) -> tuple[np.ndarray, float]:
        """One-hot on the best move; the searched value for the player to move, in [-1, 1]."""
        game, state = game_and_state(env_or_game, state)
        result = self.search(game, state)
        return result.policy(game.info.num_actions), result.value

    def principal_variation(self, game: Game, state: np.ndarray, max_length: int) -> list[int]:
        """The expected line from ``state`` after :meth:`search` of it: the best action, then
        the transposition table's best move of each position reached while the table holds
        one (a legal move of a player; the line stops at chance nodes and the end of the
        game), at most ``max_length`` moves. Entries may have been overwritten by other
        positions' (the table is always-replace), so the line can be shorter than the depth."""
        result = self.last_result
        if result is None or self._table is None or max_length < 1:
            return []
        table = self._table
        line = [int(result.action)]
        state = game.apply(state, line[0])
        while len(line) < max_length and game.current_player(state) >= 0:
            key = int(game.kernels.hash_state(state)) ^ self._salt
            slot = key & (len(table.hashes) - 1)
            move = int(table.moves[slot])
            if table.hashes[slot] != key or move not in game.legal_actions(state):
                break
            line.append(move)
            state = game.apply(state, move)
        return line


def _predicted(iteration_seconds: list[float]) -> float:
    """The predicted time of the next iteration: the last one's times the ratio of the last two
    (:data:`ITERATION_GROWTH`: assumed before two are measured, else kept in its range)."""
    if not iteration_seconds:
        return 0.0
    assumed, low, high = ITERATION_GROWTH
    growth = assumed
    if len(iteration_seconds) >= 2 and iteration_seconds[-2] > 0:
        growth = min(high, max(low, iteration_seconds[-1] / iteration_seconds[-2]))
    return iteration_seconds[-1] * growth
