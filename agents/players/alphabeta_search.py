"""The compiled search of alpha-beta: principal variation search on a transposition table, for
every game through its kernels.

Values are fail-soft and from the view of the player named ``view`` (negamax: a node whose mover
is not ``view`` searches in its mover's view and negates); turns need not alternate. Terminal
states are worth ``returns[view]``, shrunk by :data:`MATE_STEP` per ply from the root so that
quicker wins (and slower losses) are preferred; at the depth limit a position is worth
``HEURISTIC_SCALE`` times the game's evaluation for the mover (its
:class:`~mcts_envs.core.search_kernels.SearchKernels` ``evaluation``, or the heuristic difference
``h(s, p) - h(s, 1 - p)``), strictly inside the terminal values (a chance node at the depth limit:
``player_0``'s static value). Chance nodes are expectimax nodes (probability-weighted mean, full
window) and do not count as a ply of depth.

What the search does, each part switched by an entry of the ``params`` array (:data:`PARAMS`,
set by :class:`~mcts_envs.agents.players.alphabeta.AlphaBetaAgent`'s options):

* **principal variation search**: the first move with the full window, the others with a null
  window around alpha, searched again with the full window when they beat it;
* **move ordering**: the table's move, then the killer moves of the ply (the last two moves that
  cut off there), then by the game's material gain (games with captures) or by the mover's
  heuristic of the child, then by the history score of the move (raised by cut-offs, lowered for
  the moves tried before them, bounded by :data:`HISTORY_LIMIT`); the next move is picked from
  the rest when needed, so a cut-off pays for no full sort;
* **late-move reductions**: late moves of a node of depth :data:`LMR_MIN_DEPTH` or more are
  searched shallower (:data:`LMR_TABLE`), and again at full depth when they beat alpha;
* **late-move pruning**: at shallow nodes off the principal variation, moves after the first
  ``LMP_BASE + LMP_FACTOR * depth**2`` are not searched;
* **null-move pruning** (games whose ``null_move`` allows it): off the principal variation, a
  node whose static value reaches beta passes the turn and searches ``NULL_REDUCTION`` plies
  shallower; a result still at or above beta cuts off (verified by a reduced search without the
  null move from depth :data:`NULL_VERIFY_DEPTH`);
* **quiescence** (games with captures): at the depth limit, the mover may stand pat on the
  static value or play a capturing move, up to ``params[QUIESCENCE]`` plies further;
* **internal iterative reduction**: a node without a table move searches shallower;
* **reverse futility pruning** (a margin per ply, from the game's material unit): off the
  principal variation, a shallow node whose static value beats beta by the margin returns it;
* **table cut-offs**: an entry searched at least as deep (or, with ``deeper_table`` off, exactly as
  deep, which keeps the values of plain depth-limited minimax) answers within its bound.

With the reductions, pruning, null move and quiescence off, the evaluation the heuristic and
``deeper_table`` off, the value is exactly that of plain depth-limited expectiminimax
(PVS, killers and history only reorder and re-search).

The transposition table is a fixed-size array table (always-replace) of :data:`BYTES_PER_ENTRY`
bytes per entry, indexed by the low bits of the game's 64-bit ``hash_state`` kernel, salted, and
verified by the whole salted hash; it stores bounds in the mover's view, depths and moves, never
states (chance nodes: exact values in ``player_0``'s view). A time budget and a stop flag are
checked every :data:`CLOCK_EVERY` nodes (and every :data:`CLOCK_EVERY` children in heuristic
move ordering); an aborted search returns garbage and sets ``stats[ABORTED]``.
"""

from __future__ import annotations

import contextlib
import math
import mmap
from typing import Any, NamedTuple

import numpy as np

from mcts_envs.core.game import CHANCE, TERMINAL
from mcts_envs.core.numba_cache import njit
from mcts_envs.core.numba_compat import clock_seconds

#: Value lost per ply of distance to a decided result (prefers quick wins and slow losses).
MATE_STEP = 1e-5
#: Values beyond this magnitude are decided results (win/loss), adjusted for distance.
DECISIVE = 0.95
#: Static values are scaled into [-HEURISTIC_SCALE, HEURISTIC_SCALE], inside the decided ones.
HEURISTIC_SCALE = 0.9
INFINITY = 1e9
#: Width of the null windows of principal variation search (far below any value step).
NULL_WINDOW = 1e-9
#: Flag bit of table entries whose subtree ended within the depth searched (exact at any depth).
SOLVED_BIT = 4
EXACT, LOWER, UPPER = 0, 1, 2
#: Plies a search may reach (depth plus quiescence plus chance nodes); deeper nodes are scored
#: statically. The per-ply buffers hold this many rows.
MAX_PLY = 128

#: Indices of the ``int64`` ``stats`` array: nodes visited, node limit, aborted flag, the
#: number of root moves, two words of scratch for reading the clock (4, 5), the table's salt
#: (XORed into every state hash), the best root move of the iteration so far (-1: none
#: completed) and the root's move to try first (the previous iteration's best, -1: none).
NODES, NODE_LIMIT, ABORTED, ROOT_COUNT, CLOCK, SALT, ROOT_BEST, ROOT_FIRST = 0, 1, 2, 3, 4, 6, 7, 8
STATS_SIZE = 9
#: Nodes (and children ordered, in heuristic move ordering) between two looks at the clock and
#: the stop flag.
CLOCK_EVERY = 16

#: Indices of the ``float64`` ``params`` array: the switches (1.0 on, 0.0 off) of the search's
#: parts, the plies of quiescence (0: off) and the futility margin per ply; see the module
#: docstring.
PARAMS = (
    "pvs",
    "killers",
    "history",
    "lmr",
    "late_move_pruning",
    "null_move",
    "quiescence",
    "game_evaluation",
    "deeper_table",
    "internal_reduction",
    "futility_margin",
)
(
    PVS,
    KILLERS,
    HISTORY,
    LMR,
    LMP,
    NULL_MOVE,
    QUIESCENCE,
    GAME_EVALUATION,
    DEEPER_TABLE,
    IIR,
    FUTILITY_MARGIN,
) = range(len(PARAMS))

#: Late-move reductions start at this depth and this move index (0 is the first move).
LMR_MIN_DEPTH = 3
LMR_FIRST_MOVE = 3


def _reduction_table() -> np.ndarray:
    """``LMR_TABLE[depth, index]``: plies by which the move of ``index`` at a node of ``depth``
    is reduced off the principal variation (one less on it): ``0.5 + ln(depth) ln(index) / 2.5``
    rounded down, the usual logarithmic form."""
    table = np.zeros((64, 256), np.int64)
    for depth in range(1, 64):
        for index in range(1, 256):
            table[depth, index] = int(0.5 + math.log(depth) * math.log(index) / 2.5)
    return table


LMR_TABLE = _reduction_table()
#: Late-move pruning: nodes of depth up to LMP_MAX_DEPTH search at most
#: ``LMP_BASE + LMP_FACTOR * depth**2`` moves.
LMP_MAX_DEPTH = 4
LMP_BASE = 4
LMP_FACTOR = 3
#: Null-move pruning from this depth, with reduction ``NULL_REDUCTION + depth // 6``; verified
#: by a reduced search from NULL_VERIFY_DEPTH.
NULL_MIN_DEPTH = 3
NULL_REDUCTION = 2
NULL_VERIFY_DEPTH = 8
#: Internal iterative reduction: a node of at least this depth without a table move is searched
#: one ply shallower (two from twice this depth).
IIR_MIN_DEPTH = 4
#: Reverse futility pruning: off the principal variation, a node of depth up to this whose
#: static value exceeds beta by ``futility_margin * depth`` returns its static value.
FUTILITY_MAX_DEPTH = 6
#: Quiescence search follows the moves of at least this material gain (captures).
CAPTURE_GAIN = 2
#: History scores stay within +-HISTORY_LIMIT; a cut-off adds depth**2 (at most HISTORY_BONUS).
HISTORY_LIMIT = 16384.0
HISTORY_BONUS = 1024.0
#: Ordering keys: the table move, the two killers, then material gain steps above the history.
TABLE_MOVE_KEY = 1e30
KILLER_KEYS = (1e28, 1e27)
GAIN_STEP = 1e6
HEURISTIC_STEP = 1e9


class Table(NamedTuple):
    """The transposition table: one entry per slot, indexed by the low bits of the salted state
    hash and verified by the whole 64-bit salted hash (no states are stored)."""

    hashes: np.ndarray  # int64: the state's salted hash (0: empty, as allocated)
    values: np.ndarray  # float64: value or bound, the mover's view (decided results by ply)
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


class Workspace(NamedTuple):
    """The search's working memory, allocated once per agent and game (no allocation per node).

    Attributes:
        moves: ``int64[MAX_PLY, buffer]``: each ply's legal moves (or chance outcomes).
        keys: ``float64[MAX_PLY, buffer]``: their ordering keys (or outcome probabilities).
        states: ``int64[MAX_PLY + 1, state_size]``: the child state of each ply.
        killers: ``int64[MAX_PLY, 2]``: each ply's killer moves (-1: none).
        history: ``float64[2, num_actions]``: each player's history score per action.
        root_moves: ``int64[buffer]``: the root's legal moves, in the order ties are broken.
        returns: ``float64[2]``: scratch for the game's ``returns``.
        stats: ``int64[STATS_SIZE]``: see :data:`NODES` and the other indices.
        deadline: ``float64[1]``: perf_counter seconds to stop at (0: none).
        stop: ``int64[1]``: the stop flag (non-zero: stop).
        params: ``float64[len(PARAMS)]``: the switches of :data:`PARAMS`.
    """

    moves: np.ndarray
    keys: np.ndarray
    states: np.ndarray
    killers: np.ndarray
    history: np.ndarray
    root_moves: np.ndarray
    returns: np.ndarray
    stats: np.ndarray
    deadline: np.ndarray
    stop: np.ndarray
    params: np.ndarray


def new_workspace(buffer: int, state_size: int, num_actions: int) -> Workspace:
    """A workspace for a game with these sizes (the stop flag and params are the caller's to
    set; history and killers start empty)."""
    return Workspace(
        moves=np.zeros((MAX_PLY, buffer), np.int64),
        keys=np.zeros((MAX_PLY, buffer), np.float64),
        states=np.zeros((MAX_PLY + 1, state_size), np.int64),
        killers=np.full((MAX_PLY, 2), -1, np.int64),
        history=np.zeros((2, num_actions), np.float64),
        root_moves=np.zeros(buffer, np.int64),
        returns=np.zeros(2, np.float64),
        stats=np.zeros(STATS_SIZE, np.int64),
        deadline=np.zeros(1, np.float64),
        stop=np.zeros(1, np.int64),
        params=np.zeros(len(PARAMS), np.float64),
    )


@njit(cache=True)
def _to_table(value, ply):
    if value > DECISIVE:
        return value + MATE_STEP * ply
    if value < -DECISIVE:
        return value - MATE_STEP * ply
    return value


@njit(cache=True, inline="always")
def _entry_answers(table, slot, depth, deeper_table):
    """Whether the table's entry at ``slot`` (its hash checked by the caller) answers a search
    to ``depth``: one of that depth; a solved one at any greater depth (its subtree ended within
    its depth); a deeper one only with ``deeper_table`` (otherwise values stay plain minimax's)."""
    stored_depth = table.depths[slot]
    solved = (table.flags[slot] & SOLVED_BIT) != 0
    return (
        stored_depth == depth
        or (solved and depth >= stored_depth)
        or (deeper_table and stored_depth >= depth)
    )


@njit(cache=True)
def _from_table(value, ply):
    if value > DECISIVE:
        return value - MATE_STEP * ply
    if value < -DECISIVE:
        return value + MATE_STEP * ply
    return value


@njit(cache=True, nogil=True)
def time_is_up(stats, deadline, stop):
    """Look at ``stop[0]`` and the clock now: True (and ``stats[ABORTED]`` set) once the stop
    flag is set or the deadline (``deadline[0]``, perf_counter seconds; 0 for none) passed."""
    if stop[0] != 0 or (deadline[0] > 0.0 and clock_seconds(stats[CLOCK:]) > deadline[0]):
        stats[ABORTED] = 1
    return stats[ABORTED] != 0


@njit(cache=True, nogil=True)
def _out_of_budget(stats, deadline, stop):
    """Count a node; True (and ``stats[ABORTED]`` set) once the node limit is passed, or, looked
    at every :data:`CLOCK_EVERY` nodes, the deadline or the stop flag (:func:`time_is_up`)."""
    stats[NODES] += 1
    if stats[NODES] > stats[NODE_LIMIT]:
        stats[ABORTED] = 1
    elif stats[NODES] % CLOCK_EVERY == 0:
        time_is_up(stats, deadline, stop)
    return stats[ABORTED] != 0


@njit(cache=True, inline="always")
def static_value(state, player, k, sk, params):
    """The mover's static value: ``HEURISTIC_SCALE`` times the game's evaluation (if it has one
    and ``game_evaluation`` is on) or heuristic difference."""
    if params[GAME_EVALUATION] != 0.0 and sk.has_evaluation:
        return HEURISTIC_SCALE * sk.evaluation(state, player)
    return HEURISTIC_SCALE * (k.heuristic(state, player) - k.heuristic(state, 1 - player))


@njit(cache=True, nogil=True)
def order_keys(state, player, depth, ply, table_move, moves, keys, count, k, sk, w):
    """Write the ordering key of each of ``moves[:count]`` into ``keys`` (larger first): the
    table move, the killers, then material gain (games with captures) or, from depth 2, the
    mover's heuristic of the child, plus the history score. Heuristic ordering looks at the
    clock and stop flag every :data:`CLOCK_EVERY` children and returns at once, the rest
    unscored, once ``stats[ABORTED]`` is set."""
    params = w.params
    killer_one, killer_two = -1, -1
    if params[KILLERS] != 0.0:
        killer_one, killer_two = w.killers[ply, 0], w.killers[ply, 1]
    use_history = params[HISTORY] != 0.0
    scored_child = (not sk.has_captures) and depth >= 2
    child = w.states[ply + 1]
    for i in range(count):
        move = moves[i]
        if move == table_move:
            keys[i] = TABLE_MOVE_KEY
            continue
        if move == killer_one:
            keys[i] = KILLER_KEYS[0]
            continue
        if move == killer_two:
            keys[i] = KILLER_KEYS[1]
            continue
        key = 0.0
        if sk.has_captures:
            key = GAIN_STEP * sk.material_gain(state, move)
        elif scored_child:
            if i % CLOCK_EVERY == CLOCK_EVERY - 1 and time_is_up(w.stats, w.deadline, w.stop):
                return
            child[:] = state
            k.apply_action(child, move)
            key = HEURISTIC_STEP * k.heuristic(child, player)
        if use_history:
            key += w.history[player, move]
        keys[i] = key


@njit(cache=True, inline="always")
def _pick_next(moves, keys, first, count):
    """Swap the move with the largest key among ``first..count-1`` into ``first`` (the first of
    equal keys wins)."""
    best = first
    for i in range(first + 1, count):
        if keys[i] > keys[best]:
            best = i
    if best != first:
        moves[first], moves[best] = moves[best], moves[first]
        keys[first], keys[best] = keys[best], keys[first]


@njit(cache=True, inline="always")
def _reward_history(history, player, move, bonus):
    """Move ``history[player, move]`` by ``bonus``, kept within +-HISTORY_LIMIT (the larger the
    score, the smaller the step)."""
    old = history[player, move]
    history[player, move] = old + bonus - old * abs(bonus) / HISTORY_LIMIT


@njit(cache=True, nogil=True)  # kernels as arguments: cached as KernelGame pins their identities
def negamax(state, depth, ply, alpha, beta, view, pv_node, null_ok, k, sk, table, w):
    """Fail-soft value of ``state`` for player ``view`` within ``(alpha, beta)`` (that player's
    view), and whether it is exact at any depth.

    ``k`` is the game's :class:`~mcts_envs.core.game.GameKernels`, ``sk`` its
    :class:`~mcts_envs.core.search_kernels.SearchKernels`, ``table`` the :class:`Table`, ``w``
    the :class:`Workspace`. ``pv_node``: the node lies on the principal variation (searched
    with a full window); ``null_ok``: a null move may be tried here. Returns ``(value,
    solved)``: ``solved`` is True when no depth limit was reached below, so the value (or
    bound) holds at any depth. At ``ply`` 0 the node is the root (see :func:`search_root`).
    Sets ``stats[ABORTED]`` and returns garbage once the budget ends.
    """
    stats = w.stats
    params = w.params
    # Typed values, not literals, in every recursive call: one compiled signature (a cached
    # recursion compiled for a literal argument as well crashed when loaded).
    yes, no, zero = np.bool_(True), np.bool_(False), np.int64(0)
    if _out_of_budget(stats, w.deadline, w.stop):
        return 0.0, False
    player = k.current_player(state)
    if player == TERMINAL:
        k.returns(state, w.returns)
        value = w.returns[view]
        if value > 0.0:
            value -= MATE_STEP * ply
        elif value < 0.0:
            value += MATE_STEP * ply
        return value, True
    key = k.hash_state(state) ^ stats[SALT]
    slot = key & (table.hashes.shape[0] - 1)
    deeper_table = params[DEEPER_TABLE] != 0.0
    moves = w.moves[ply]
    keys = w.keys[ply]
    child = w.states[ply + 1]
    if player == CHANCE:  # expectimax in player 0's view, no ply of depth; the outcomes are
        # searched with the full window as principal variation nodes (exact values)
        if depth <= 0 or ply >= MAX_PLY - 1:  # a leaf: player 0's static value
            value = static_value(state, zero, k, sk, params)
            return (value if view == 0 else -value), False
        if table.hashes[slot] == key and _entry_answers(table, slot, depth, deeper_table):
            value = _from_table(table.values[slot], ply)
            solved = (table.flags[slot] & SOLVED_BIT) != 0
            return (value if view == 0 else -value), solved
        count = k.chance_outcomes(state, moves, keys)
        total = 0.0
        solved = True
        for i in range(count):
            child[:] = state
            k.apply_action(child, moves[i])
            value, child_solved = negamax(
                child, depth, ply + 1, -INFINITY, INFINITY, zero, yes, yes, k, sk, table, w
            )
            if stats[ABORTED]:
                return 0.0, False
            total += keys[i] * value
            solved = solved and child_solved
        table.hashes[slot] = key
        table.values[slot] = _to_table(total, ply)
        table.depths[slot] = min(depth, 32767)
        table.flags[slot] = EXACT | SOLVED_BIT if solved else EXACT
        table.moves[slot] = -1
        return (total if view == 0 else -total), solved

    flip = player != view
    if flip:
        alpha, beta = -beta, -alpha
    table_move = -1
    if ply == 0:
        table_move = stats[ROOT_FIRST]
    elif table.hashes[slot] == key:
        table_move = table.moves[slot]
        if _entry_answers(table, slot, depth, deeper_table):
            solved = (table.flags[slot] & SOLVED_BIT) != 0
            value = _from_table(table.values[slot], ply)
            flag = table.flags[slot] & ~SOLVED_BIT
            if (
                flag == EXACT
                or (flag == LOWER and value >= beta)
                or (flag == UPPER and value <= alpha)
            ):
                return (-value if flip else value), solved

    if depth <= 0 or ply >= MAX_PLY - 1:
        stand = static_value(state, player, k, sk, params)
        if (
            params[QUIESCENCE] == 0.0
            or not sk.has_captures
            or stand >= beta
            or depth <= -params[QUIESCENCE]
            or ply >= MAX_PLY - 1
        ):
            return (-stand if flip else stand), False
        # quiescence: stand pat, or a capturing move, best first by gain
        best = stand
        if stand > alpha:
            alpha = stand
        count = k.legal_actions(state, moves)
        kept = 0
        for i in range(count):
            gain = sk.material_gain(state, moves[i])
            if gain >= CAPTURE_GAIN:
                moves[kept] = moves[i]
                keys[kept] = gain
                kept += 1
        for i in range(kept):
            _pick_next(moves, keys, i, kept)
            child[:] = state
            k.apply_action(child, moves[i])
            value, _ = negamax(
                child, depth - 1, ply + 1, alpha, beta, player, no, no, k, sk, table, w
            )
            if stats[ABORTED]:
                return 0.0, False
            if value > best:
                best = value
                if value > alpha:
                    alpha = value
                    if alpha >= beta:
                        break
        return (-best if flip else best), False

    if params[IIR] != 0.0 and table_move < 0 and depth >= IIR_MIN_DEPTH and ply > 0:
        depth -= 2 if depth >= 2 * IIR_MIN_DEPTH else 1
    margin = params[FUTILITY_MARGIN]
    if margin > 0.0 and not pv_node and depth <= FUTILITY_MAX_DEPTH and -DECISIVE < beta < DECISIVE:
        stand = static_value(state, player, k, sk, params)
        if stand - margin * depth >= beta:
            return (-stand if flip else stand), False

    # null-move pruning (never on the principal variation, nor twice in a row)
    if (
        null_ok
        and not pv_node
        and params[NULL_MOVE] != 0.0
        and sk.has_null_move
        and depth >= NULL_MIN_DEPTH
        and -DECISIVE < beta < DECISIVE
        and static_value(state, player, k, sk, params) >= beta
    ):
        child[:] = state
        if sk.null_move(child):
            reduced = depth - 1 - NULL_REDUCTION - depth // 6
            value, _ = negamax(
                child, reduced, ply + 1, beta - NULL_WINDOW, beta, player, no, no,
                k, sk, table, w,
            )  # fmt: skip
            if not stats[ABORTED] and value >= beta and depth >= NULL_VERIFY_DEPTH:
                value, _ = negamax(
                    state, reduced, ply, beta - NULL_WINDOW, beta, player, no, no,
                    k, sk, table, w,
                )  # fmt: skip
            if stats[ABORTED]:
                return 0.0, False
            if value >= beta:
                value = beta if value >= DECISIVE else value
                return (-value if flip else value), False

    if ply == 0:
        count = stats[ROOT_COUNT]
        for i in range(count):
            moves[i] = w.root_moves[i]
    else:
        count = k.legal_actions(state, moves)
    order_keys(state, player, depth, ply, table_move, moves, keys, count, k, sk, w)
    if stats[ABORTED]:
        return 0.0, False

    use_pvs = params[PVS] != 0.0
    use_lmr = params[LMR] != 0.0 and depth >= LMR_MIN_DEPTH
    use_lmp = params[LMP] != 0.0 and not pv_node and depth <= LMP_MAX_DEPTH and ply > 0
    move_limit = LMP_BASE + LMP_FACTOR * depth * depth
    alpha_in = alpha
    best = -INFINITY
    best_move = -1
    solved = True
    for i in range(count):
        _pick_next(moves, keys, i, count)
        move = moves[i]
        special = keys[i] >= KILLER_KEYS[1]  # the table move or a killer
        if use_lmp and i >= move_limit and not special and best > -DECISIVE:
            solved = False
            break
        child[:] = state
        k.apply_action(child, move)
        if i == 0:
            value, child_solved = negamax(
                child, depth - 1, ply + 1, alpha, beta, player, pv_node, yes, k, sk, table, w
            )
        else:
            reduction = 0
            if use_lmr and i >= LMR_FIRST_MOVE and not special:
                reduction = LMR_TABLE[min(depth, 63), min(i, 255)] - (1 if pv_node else 0)
                reduction = max(0, min(reduction, depth - 2))
            high = alpha + NULL_WINDOW if use_pvs else beta
            value, child_solved = negamax(
                child, depth - 1 - reduction, ply + 1, alpha, high, player, not use_pvs and
                pv_node, yes, k, sk, table, w,
            )  # fmt: skip
            if reduction > 0 and value > alpha and not stats[ABORTED]:
                value, child_solved = negamax(
                    child, depth - 1, ply + 1, alpha, high, player, not use_pvs and pv_node,
                    yes, k, sk, table, w,
                )  # fmt: skip
            if use_pvs and pv_node and alpha < value < beta and not stats[ABORTED]:
                value, child_solved = negamax(
                    child, depth - 1, ply + 1, alpha, beta, player, yes, yes, k, sk, table, w
                )
        if stats[ABORTED]:
            return 0.0, False
        solved = solved and child_solved
        if value > best:
            best = value
            best_move = move
            if value > alpha:
                alpha = value
                if ply == 0:
                    stats[ROOT_BEST] = move
                if alpha >= beta:
                    if params[KILLERS] != 0.0 and w.killers[ply, 0] != move:
                        w.killers[ply, 1] = w.killers[ply, 0]
                        w.killers[ply, 0] = move
                    if params[HISTORY] != 0.0:
                        bonus = min(HISTORY_BONUS, float(depth * depth))
                        _reward_history(w.history, player, move, bonus)
                        for j in range(i):
                            _reward_history(w.history, player, moves[j], -bonus)
                    break
    if ply == 0 and best_move >= 0 and stats[ROOT_BEST] < 0:
        stats[ROOT_BEST] = best_move  # every move failed low: the best bound
    flag = UPPER if best <= alpha_in else (LOWER if best >= beta else EXACT)
    table.hashes[slot] = key
    table.values[slot] = _to_table(best, ply)
    table.depths[slot] = min(depth, 32767)
    table.flags[slot] = flag | SOLVED_BIT if solved else flag
    table.moves[slot] = best_move
    return (-best if flip else best), solved


@njit(cache=True, nogil=True)  # kernels as arguments: cached as KernelGame pins their identities
def search_root(state, depth, alpha, beta, k, sk, table, w):
    """Search the root to ``depth`` within ``(alpha, beta)`` in the mover's view: ``(value,
    solved)``. Its moves are ``w.root_moves[:stats[ROOT_COUNT]]`` (ties broken in that order,
    ``stats[ROOT_FIRST]`` tried first); ``stats[ROOT_BEST]`` ends as the last move that raised
    alpha after a full-window search (the best move, also of an aborted search once one
    completed; -1 if none did). Releases the GIL while it runs."""
    w.stats[ROOT_BEST] = -1
    player = np.int64(k.current_player(state))
    yes, no = np.bool_(True), np.bool_(False)
    return negamax(
        state, np.int64(depth), np.int64(0), alpha, beta, player, yes, no, k, sk, table, w
    )
