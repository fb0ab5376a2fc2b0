"""alpha-beta: compiled minimax search with iterative deepening, a transposition table and expectimax.

Values are from ``player_0``'s view in [-1, 1]: ``player_0`` maximises, ``player_1`` minimises
(turns need not alternate: each node goes by ``current_player``). Terminal states are worth
``returns[0]``, shrunk by :data:`MATE_STEP` per ply from the root so that quicker wins (and slower
losses) are preferred; at the depth limit a position is worth
``HEURISTIC_SCALE * (heuristic(s, 0) - heuristic(s, 1))``, strictly inside the terminal values.
Chance nodes are expectimax nodes (the probability-weighted mean of their outcomes, searched with a
full window) and do not count as a ply of depth.

The search is one recursive ``@njit`` function taking the game's compiled kernels as arguments, so
it runs compiled for every built-in game, and it is kept in numba's disk cache: a new process loads
it instead of compiling it (the kernels' identities are pinned by
:class:`~mcts_envs.core.game.KernelGame`). Two things keep it cacheable: the clock is read through a
named libc symbol (:func:`mcts_envs.core.numba_compat.clock_seconds`), not a ctypes function
pointer, which numba cannot cache; and the recursion is compiled for one signature only (the root
passes ``ply`` as an ``int64``, not the literal ``1``: a cached recursion whose entry signature
differs from the recursive one crashed on load). Move ordering: the transposition-table move (the
best move of the previous, shallower iteration) first, then the children by the mover's static
heuristic. The transposition table is a fixed-size array table (always-replace) of
:data:`BYTES_PER_ENTRY` bytes per entry, indexed by the low bits of the game's 64-bit ``hash_state``
kernel, salted, and verified by the whole salted hash (two distinct positions share an entry with
probability about ``2**-64``); it stores bounds, depths and moves, never states. The table is
allocated zeroed (the operating system maps its pages on first use, so even the largest table costs
nothing up front) and never rewritten: a new salt empties it (``keep_table=False``). A time budget
is checked inside the compiled search every :data:`CLOCK_EVERY` nodes and every :data:`CLOCK_EVERY`
children in move ordering (where the platform's monotonic clock is reachable; elsewhere each
deepening iteration gets a node limit estimated from the measured node rate); an iteration that runs
out is discarded.

The compiled search releases the GIL (``nogil``), so other Python threads run while it searches,
and it reads a stop flag (a one-element ``int64`` array, :func:`new_stop_flag`) at the same
cadence as the clock: another thread sets ``flag[0] = 1`` to end the search within
:data:`CLOCK_EVERY` nodes, and :meth:`AlphaBetaAgent.search` then answers with the best move of
the last completed iteration (how a UAI engine's ``stop`` is served).
"""

from __future__ import annotations

import contextlib
import mmap
import time
from collections.abc import Callable
from typing import Any, NamedTuple

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
from mcts_envs.agents.move_order import sort_best_first
from mcts_envs.agents.result import SearchResult
from mcts_envs.core.game import CHANCE, TERMINAL, Game
from mcts_envs.core.numba_cache import njit
from mcts_envs.core.numba_compat import HAS_CLOCK, clock_seconds
from mcts_envs.core.seeding import check_seed

#: Value lost per ply of distance to a decided result (prefers quick wins and slow losses).
MATE_STEP = 1e-5
#: Values beyond this magnitude are decided results (win/loss), adjusted for distance.
DECISIVE = 0.95
#: Heuristic values are scaled into [-HEURISTIC_SCALE, HEURISTIC_SCALE], inside the decided ones.
HEURISTIC_SCALE = 0.9
#: Depth searched when neither ``depth`` nor ``seconds`` is given.
DEFAULT_DEPTH = 4
#: Flag bit of table entries whose subtree ended within the depth searched (exact at any depth).
SOLVED_BIT = 4
INFINITY = 1e9
#: Largest ``depth`` option (the recursion is bounded by the game length long before).
MAX_DEPTH = 1000
#: Largest ``table_size`` option (entries).
MAX_TABLE_SIZE = 1 << 24
EXACT, LOWER, UPPER = 0, 1, 2
#: Indices of the ``int64`` ``stats`` array shared by the search calls: nodes visited, node
#: limit, aborted flag, action buffer size, two words of scratch for reading the clock (4, 5)
#: and the table's salt (XORed into every state hash).
NODES, NODE_LIMIT, ABORTED, BUFFER, CLOCK, SALT = 0, 1, 2, 3, 4, 6
STATS_SIZE = 7

#: Nodes (and children ordered, in move ordering) between two looks at the clock and the stop
#: flag inside the compiled search.
CLOCK_EVERY = 16
#: Step between successive table salts (odd: 2**64 salts before one repeats; never 0 before).
SALT_STEP = 0x9E3779B97F4A7C15 - (1 << 64)  # as an int64


def new_stop_flag() -> np.ndarray:
    """A stop flag for :meth:`AlphaBetaAgent.search` (and minimax2): ``int64[1]``, 0 (run on);
    another thread sets element 0 to a non-zero value to stop the search."""
    return np.zeros(1, np.int64)


#: The flag of searches nobody stops (never written).
_NEVER_STOP = new_stop_flag()


class Table(NamedTuple):
    """The transposition table: one entry per slot, indexed by the low bits of the salted state
    hash and verified by the whole 64-bit salted hash (no states are stored)."""

    hashes: np.ndarray  # int64: the state's salted hash (0: empty, as allocated)
    values: np.ndarray  # float64: value or bound, player 0's view (decided results by ply)
    depths: np.ndarray  # int16: depth searched below the entry
    flags: np.ndarray  # int8: EXACT / LOWER / UPPER, plus SOLVED_BIT
    moves: np.ndarray  # int32: best move found (-1: none)

    #: The dtypes of the fields, in order.
    DTYPES = (np.int64, np.float64, np.int16, np.int8, np.int32)


#: Bytes per table entry (hash, value, depth, flag, move).
BYTES_PER_ENTRY = 8 + 8 + 2 + 1 + 4


def lazy_zeros(size: int, dtype: Any) -> np.ndarray:
    """``size`` zeros of ``dtype`` in fresh anonymous memory that the operating system maps in
    small pages as they are first touched: nothing is written up front, and no first touch is
    slow. (NumPy asks Linux for 2 MB huge pages for large arrays; zeroing one when a table
    probe first touches it took 2.6 ms under load, and a search probes up to 16 new ones
    between two looks at the clock.)"""
    nbytes = max(size * np.dtype(dtype).itemsize, 1)
    memory = mmap.mmap(-1, nbytes)
    with contextlib.suppress(AttributeError, OSError):  # no madvise (Windows, old kernels)
        memory.madvise(mmap.MADV_NOHUGEPAGE)
    return np.frombuffer(memory, dtype, count=size)


def new_table(size: int) -> Table:
    """An empty table of ``size`` entries (a power of two): ``BYTES_PER_ENTRY * size`` bytes,
    all zero and mapped on first use (:func:`lazy_zeros`): writing the largest table (386 MB)
    up front took 0.2-1 s of a decision's budget. A salted hash is 0 with probability
    ``2**-64``, so 0 marks an empty slot."""
    return Table(*(lazy_zeros(size, dtype) for dtype in Table.DTYPES))


@njit(cache=True)
def _to_table(value, ply):
    if value > DECISIVE:
        return value + MATE_STEP * ply
    if value < -DECISIVE:
        return value - MATE_STEP * ply
    return value


@njit(cache=True)
def _from_table(value, ply):
    if value > DECISIVE:
        return value - MATE_STEP * ply
    if value < -DECISIVE:
        return value + MATE_STEP * ply
    return value


@njit(cache=True, nogil=True)
def _time_is_up(stats, deadline, stop):
    """Look at ``stop[0]`` and the clock now: True (and ``stats[ABORTED]`` set) once the stop
    flag is set or the deadline (``deadline[0]``, perf_counter seconds; 0 for none) passed."""
    if stop[0] != 0 or (deadline[0] > 0.0 and clock_seconds(stats[CLOCK:]) > deadline[0]):
        stats[ABORTED] = 1
    return stats[ABORTED] != 0


@njit(cache=True, nogil=True)
def _out_of_budget(stats, deadline, stop):
    """Count a node; True (and ``stats[ABORTED]`` set) once the node limit is passed, or, looked
    at every :data:`CLOCK_EVERY` nodes, the deadline or the stop flag (:func:`_time_is_up`)."""
    stats[NODES] += 1
    if stats[NODES] > stats[NODE_LIMIT]:
        stats[ABORTED] = 1
    elif stats[NODES] % CLOCK_EVERY == 0:
        _time_is_up(stats, deadline, stop)
    return stats[ABORTED] != 0


@njit(cache=True, nogil=True)  # kernels as arguments: cached as KernelGame pins their identities
def alphabeta(state, depth, ply, alpha, beta, k, table, stats, deadline, stop):
    """Fail-soft alpha-beta value of ``state`` (``player_0``'s view) and whether it is exact.

    ``k`` is the game's :class:`~mcts_envs.core.game.GameKernels`, ``table`` the
    :class:`Table`. Returns ``(value, solved)``: ``solved`` is True when no depth limit was
    reached below, i.e. the value (or bound) holds at any depth. Sets ``stats[ABORTED]`` and
    returns garbage once the node limit or ``deadline[0]`` (perf_counter seconds) is passed or
    ``stop[0]`` is set.
    """
    if _out_of_budget(stats, deadline, stop):
        return 0.0, False
    player = k.current_player(state)
    if player == TERMINAL:
        result = np.zeros(2, np.float64)
        k.returns(state, result)
        value = result[0]
        if value > 0.0:
            value -= MATE_STEP * ply
        elif value < 0.0:
            value += MATE_STEP * ply
        return value, True
    key = k.hash_state(state) ^ stats[SALT]
    slot = key & (table.hashes.shape[0] - 1)
    table_move = -1
    if table.hashes[slot] == key:
        table_move = table.moves[slot]
        stored_depth = table.depths[slot]
        solved = (table.flags[slot] & SOLVED_BIT) != 0
        # Same depth: the same search. A solved entry holds at any greater depth too (the
        # subtree ended within its depth). Never a deeper result at a shallower depth: the
        # search then equals plain depth-limited minimax exactly.
        if stored_depth == depth or (solved and depth >= stored_depth):
            value = _from_table(table.values[slot], ply)
            flag = table.flags[slot] & ~SOLVED_BIT
            if (
                flag == EXACT
                or (flag == LOWER and value >= beta)
                or (flag == UPPER and value <= alpha)
            ):
                return value, solved
    if depth <= 0:
        # int64 players, not literals: one compiled version of the heuristic for every caller
        mine, theirs = k.heuristic(state, np.int64(0)), k.heuristic(state, np.int64(1))
        return HEURISTIC_SCALE * (mine - theirs), False

    size = max(stats[BUFFER], 1)
    actions = np.empty(size, np.int64)
    weights = np.empty(size, np.float64)
    chance = player == CHANCE
    if chance:  # expectimax: probability-weighted mean, full window, no ply of depth
        count = k.chance_outcomes(state, actions, weights)
        low, high, next_depth = -INFINITY, INFINITY, depth
    else:
        count = k.legal_actions(state, actions)
        _order_moves(
            state, player, depth, table_move, k, actions, weights, count, stats, deadline, stop
        )
        if stats[ABORTED]:
            return 0.0, False
        low, high, next_depth = alpha, beta, depth - 1
    maximizing = player == 0
    best = 0.0 if chance else (-INFINITY if maximizing else INFINITY)
    best_move = -1 if chance else actions[0]
    solved = True
    for i in range(count):
        child = state.copy()
        k.apply_action(child, actions[i])
        value, child_solved = alphabeta(
            child, next_depth, ply + 1, low, high, k, table, stats, deadline, stop
        )
        if stats[ABORTED]:
            return 0.0, False
        solved = solved and child_solved
        if chance:
            best += weights[i] * value
            continue
        if (maximizing and value > best) or (not maximizing and value < best):
            best = value
            best_move = actions[i]
        if maximizing and best > low:
            low = best
        elif not maximizing and best < high:
            high = best
        if low >= high:
            break
    flag = EXACT if chance or alpha < best < beta else (UPPER if best <= alpha else LOWER)
    table.hashes[slot] = key
    table.values[slot] = _to_table(best, ply)
    table.depths[slot] = min(depth, 32767)
    table.flags[slot] = flag | SOLVED_BIT if solved else flag
    table.moves[slot] = best_move
    return best, solved


@njit(cache=True, nogil=True)
def _order_moves(state, player, depth, table_move, k, actions, keys, count, stats, deadline, stop):
    """Sort ``actions[:count]`` best first for ``player``: the table move, then by the mover's
    static heuristic of the child (from depth 2; stable for equal keys). Every
    :data:`CLOCK_EVERY` children scored it looks at the clock and the stop flag
    (:func:`_time_is_up`) and returns at once, unsorted, once ``stats[ABORTED]`` is set."""
    for i in range(count):
        keys[i] = 0.0
        if depth >= 2:
            if i % CLOCK_EVERY == CLOCK_EVERY - 1 and _time_is_up(stats, deadline, stop):
                return
            child = state.copy()
            k.apply_action(child, actions[i])
            keys[i] = k.heuristic(child, player)
        if actions[i] == table_move:
            keys[i] = INFINITY
    sort_best_first(actions, keys, count)


@njit(cache=True, nogil=True)  # kernels as arguments: cached as KernelGame pins their identities
def search_root(state, depth, actions, k, table, stats, deadline, stop):
    """Search the root ``actions`` in the given order; ``(best index, value, solved)``.

    The value is from ``player_0``'s view and exact for the best action (full window at the root).
    Releases the GIL while it runs; ``stop`` as in :func:`alphabeta`.
    """
    maximizing = k.current_player(state) == 0
    best = -INFINITY if maximizing else INFINITY
    best_index = 0
    low, high = -INFINITY, INFINITY
    solved = True
    for i in range(actions.shape[0]):
        child = state.copy()
        k.apply_action(child, actions[i])
        # ply as an int64, not the literal 1: alphabeta then has one signature (the recursive
        # one); a cached copy compiled for two (literal at the root) crashed on load.
        value, child_solved = alphabeta(
            child, depth - 1, np.int64(1), low, high, k, table, stats, deadline, stop
        )
        if stats[ABORTED]:
            return 0, 0.0, False
        solved = solved and child_solved
        if maximizing and value > best:
            best = value
            best_index = i
            low = best
        elif not maximizing and value < best:
            best = value
            best_index = i
            high = best
    return best_index, best, solved


class AlphaBetaAgent(ForwardModelAgent):
    """Compiled alpha-beta with iterative deepening, move ordering, a transposition table, expectimax.

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
        keep_table: keep the table between moves (cleared by ``reset()``).
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
    ) -> None:
        depth = check_number("alphabeta", "depth", depth, 1, MAX_DEPTH, integer=True, optional=True)
        seconds = check_number(
            "alphabeta", "seconds", seconds, MIN_SECONDS, MAX_SECONDS, integer=False, optional=True
        )
        table_size = check_number(
            "alphabeta", "table_size", table_size, 1, MAX_TABLE_SIZE, integer=True
        )
        self.seed = check_seed(seed)
        self.depth = DEFAULT_DEPTH if depth is None and seconds is None else depth
        self.seconds = seconds
        self.table_size = 1 << max(0, int(table_size - 1).bit_length())
        self.keep_table = keep_table
        self._generator = np.random.default_rng(self.seed)
        self._table: Table | None = None
        self._table_game: str | None = None
        self._salt = SALT_STEP  # XORed into the state hashes of the current table's entries
        self.last_result: SearchResult | None = None

    @property
    def table_bytes(self) -> int:
        """Memory of the transposition table: ``BYTES_PER_ENTRY * table_size`` (1.5 MB by
        default, at most 386 MB), whatever the game (no states are stored)."""
        return BYTES_PER_ENTRY * self.table_size

    def reset(self) -> None:
        """Clear the transposition table (a new game starts)."""
        self._table = None
        self._table_game = None

    def prepare(self, game: Game) -> None:
        """Compile the search for ``game`` (or load it from numba's disk cache) with a depth-1
        search of a position with a player to move; touches neither this agent's generator nor
        its table. Prints nothing."""
        probe = AlphaBetaAgent(seed=0, depth=1, table_size=16)
        probe.search(game, decision_state(game))

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["_table"] = None  # a cache, not part of the agent (never pickled with it)
        state["_table_game"] = None
        return state

    def _tables(self, game: Game) -> Table:
        """The table for a search of ``game``: a new one for a new game, else the kept one,
        emptied by a new salt unless ``keep_table`` (its entries then match no hash; rewriting
        a large table would cost a decision hundreds of milliseconds)."""
        table_key = f"{game.info.name}/{game.info.state_size}"
        if self._table is None or self._table_game != table_key:
            self._table = new_table(self.table_size)
            self._table_game = table_key
        elif not self.keep_table:
            self._salt = (self._salt + SALT_STEP + (1 << 63)) % (1 << 64) - (1 << 63)
        return self._table

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
        of the last completed iteration. ``on_iteration`` is called (in this
        thread) with the result so far after every completed iteration (it is then
        :attr:`last_result`, so :meth:`principal_variation` gives its line).

        Raises:
            IllegalActionError: if no player is to move (terminal or chance node).
        """
        start = time.perf_counter()
        game, state = game_and_state(env_or_game, state)
        state, player = check_decision("alpha-beta", game, state)
        table = self._tables(game)
        actions = self._generator.permutation(game.legal_actions(state))
        deadline = np.zeros(1)
        if self.seconds is not None:
            deadline[0] = start + self.seconds
        max_depth = self.depth if self.depth is not None else 1 << 20
        if len(actions) == 1 and self.seconds is not None:
            max_depth = 1  # a forced move on the clock: answered at once
        stop = _NEVER_STOP if stop is None else stop
        best_action, best_value, reached, solved, total_nodes = int(actions[0]), 0.0, 0, False, 0
        node_rate = None
        for depth in range(1, max_depth + 1):
            if depth > 1 and stop[0] != 0:
                break
            stats = np.zeros(STATS_SIZE, np.int64)
            stats[NODE_LIMIT] = np.iinfo(np.int64).max
            stats[BUFFER] = search_buffer_size(game)
            stats[SALT] = self._salt
            if self.seconds is not None and depth > 1:
                remaining = deadline[0] - time.perf_counter()
                if remaining <= 0:
                    break
                if node_rate is not None and not HAS_CLOCK:  # no clock inside: estimate
                    stats[NODE_LIMIT] = max(1, int(node_rate * remaining))
            iteration_start = time.perf_counter()
            index, value, iteration_solved = search_root(
                state,
                depth,
                actions,
                game.kernels,
                table,
                stats,
                deadline,
                _NEVER_STOP if depth == 1 else stop,  # depth 1 (cheap) always completes
            )
            total_nodes += int(stats[NODES])
            if stats[ABORTED]:
                break
            elapsed = time.perf_counter() - iteration_start
            if elapsed > 0:
                node_rate = stats[NODES] / elapsed
            best_action, best_value, reached, solved = (
                int(actions[index]),
                value,
                depth,
                iteration_solved,
            )
            # previous best first in the next iteration
            actions = np.concatenate(([actions[index]], np.delete(actions, index)))
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

    @staticmethod
    def _result(
        action: int, value: float, player: int, nodes: int, start: float, depth: int, solved: bool
    ) -> SearchResult:
        """The :class:`SearchResult` of a search so far (``value``: player 0's view)."""
        mover_value = float(value if player == 0 else -value)
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
