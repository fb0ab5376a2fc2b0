"""alpha-beta: compiled minimax search with iterative deepening, a transposition table and expectimax.

Values are from ``player_0``'s view in [-1, 1]: ``player_0`` maximises, ``player_1`` minimises
(turns need not alternate: each node goes by ``current_player``). Terminal states are worth
``returns[0]``, shrunk by :data:`MATE_STEP` per ply from the root so that quicker wins (and slower
losses) are preferred; at the depth limit a position is worth
``HEURISTIC_SCALE * (heuristic(s, 0) - heuristic(s, 1))``, strictly inside the terminal values.
Chance nodes are expectimax nodes (the probability-weighted mean of their outcomes, searched with a
full window) and do not count as a ply of depth.

The search is one recursive ``@njit`` function taking the game's compiled kernels as arguments, so
it runs compiled for every built-in game. Move ordering: the transposition-table move (the best
move of the previous, shallower iteration) first, then the children by the mover's static
heuristic. The transposition table is a fixed-size array table (always-replace), indexed by a hash
of the state words and verified against a stored copy of the state, so collisions are harmless.
A time budget is met by giving each deepening iteration a node limit estimated from the measured
node rate; an iteration that runs out is discarded.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
from numba import njit

from agents.base import (
    MAX_SECONDS,
    MIN_SECONDS,
    ForwardModelAgent,
    check_number,
    game_and_state,
    search_buffer_size,
)
from mcts_envs.core.errors import IllegalActionError
from mcts_envs.core.game import CHANCE, TERMINAL, Game
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
#: Indices of the ``stats`` array shared by the search calls.
NODES, NODE_LIMIT, ABORTED = 0, 1, 2

_HASH_MULTIPLIER = np.uint64(0xBF58476D1CE4E5B9)
_HASH_MIX = np.uint64(0x94D049BB133111EB)


@njit(cache=True)
def hash_state(state):
    """A 64-bit mix of the state words (as int64 so that it indexes arrays)."""
    h = np.uint64(0x9E3779B97F4A7C15)
    for i in range(state.shape[0]):
        h ^= np.uint64(state[i]) + np.uint64(0x9E3779B97F4A7C15) + (h << np.uint64(6))
        h = (h ^ (h >> np.uint64(30))) * _HASH_MULTIPLIER
        h = (h ^ (h >> np.uint64(27))) * _HASH_MIX
        h ^= h >> np.uint64(31)
    return np.int64(h >> np.uint64(1))


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


@njit(cache=True)
def _same_state(stored, state):
    for i in range(state.shape[0]):  # noqa: SIM110 (compiled loop)
        if stored[i] != state[i]:
            return False
    return True


@njit  # recursive with kernels as arguments: a cached copy of it crashes on load (numba), so compiled per process
def alphabeta(
    state,
    depth,
    ply,
    alpha,
    beta,
    current_player,
    legal_actions,
    apply_action,
    chance_outcomes,
    returns,
    heuristic,
    buffer_size,
    table_states,
    table_hashes,
    table_values,
    table_depths,
    table_flags,
    table_moves,
    stats,
):
    """Fail-soft alpha-beta value of ``state`` (``player_0``'s view) and whether it is exact.

    Returns ``(value, solved)``: ``solved`` is True when no depth limit was reached below, i.e.
    the value (or bound) holds at any depth. Sets ``stats[ABORTED]`` and returns garbage when
    ``stats[NODES]`` exceeds ``stats[NODE_LIMIT]``.
    """
    stats[NODES] += 1
    if stats[NODES] > stats[NODE_LIMIT]:
        stats[ABORTED] = 1
        return 0.0, False
    player = current_player(state)
    if player == TERMINAL:
        result = np.zeros(2, np.float64)
        returns(state, result)
        value = result[0]
        if value > 0.0:
            value -= MATE_STEP * ply
        elif value < 0.0:
            value += MATE_STEP * ply
        return value, True
    key = hash_state(state)
    slot = key & (table_hashes.shape[0] - 1)
    table_move = -1
    if table_hashes[slot] == key and _same_state(table_states[slot], state):
        table_move = table_moves[slot]
        stored_depth = table_depths[slot]
        solved = (table_flags[slot] & SOLVED_BIT) != 0
        # Same depth: the same search. A solved entry holds at any greater depth too (the
        # subtree ended within its depth). Never a deeper result at a shallower depth: the
        # search then equals plain depth-limited minimax exactly.
        if stored_depth == depth or (solved and depth >= stored_depth):
            value = _from_table(table_values[slot], ply)
            flag = table_flags[slot] & ~SOLVED_BIT
            if (
                flag == EXACT
                or (flag == LOWER and value >= beta)
                or (flag == UPPER and value <= alpha)
            ):
                return value, solved
    if depth <= 0:
        return HEURISTIC_SCALE * (heuristic(state, 0) - heuristic(state, 1)), False

    solved = True
    if player == CHANCE:
        outcomes = np.empty(buffer_size, np.int64)
        probabilities = np.empty(buffer_size, np.float64)
        count = chance_outcomes(state, outcomes, probabilities)
        best = 0.0
        for i in range(count):
            child = state.copy()
            apply_action(child, outcomes[i])
            value, child_solved = alphabeta(
                child,
                depth,
                ply + 1,
                -INFINITY,
                INFINITY,
                current_player,
                legal_actions,
                apply_action,
                chance_outcomes,
                returns,
                heuristic,
                buffer_size,
                table_states,
                table_hashes,
                table_values,
                table_depths,
                table_flags,
                table_moves,
                stats,
            )
            if stats[ABORTED]:
                return 0.0, False
            best += probabilities[i] * value
            solved = solved and child_solved
        best_move = -1
        flag = EXACT
    else:
        actions = np.empty(buffer_size, np.int64)
        count = legal_actions(state, actions)
        order_keys = np.zeros(count, np.float64)
        if depth >= 2:
            for i in range(count):
                child = state.copy()
                apply_action(child, actions[i])
                order_keys[i] = heuristic(child, player)
        for i in range(count):
            if actions[i] == table_move:
                order_keys[i] = INFINITY
        # insertion sort, best first (stable for equal keys)
        for i in range(1, count):
            action = actions[i]
            order_key = order_keys[i]
            j = i - 1
            while j >= 0 and order_keys[j] < order_key:
                actions[j + 1] = actions[j]
                order_keys[j + 1] = order_keys[j]
                j -= 1
            actions[j + 1] = action
            order_keys[j + 1] = order_key
        maximizing = player == 0
        best = -INFINITY if maximizing else INFINITY
        best_move = actions[0]
        low, high = alpha, beta
        for i in range(count):
            child = state.copy()
            apply_action(child, actions[i])
            value, child_solved = alphabeta(
                child,
                depth - 1,
                ply + 1,
                low,
                high,
                current_player,
                legal_actions,
                apply_action,
                chance_outcomes,
                returns,
                heuristic,
                buffer_size,
                table_states,
                table_hashes,
                table_values,
                table_depths,
                table_flags,
                table_moves,
                stats,
            )
            if stats[ABORTED]:
                return 0.0, False
            solved = solved and child_solved
            if maximizing:
                if value > best:
                    best = value
                    best_move = actions[i]
                if best > low:
                    low = best
            else:
                if value < best:
                    best = value
                    best_move = actions[i]
                if best < high:
                    high = best
            if low >= high:
                break
        if best <= alpha:
            flag = UPPER
        elif best >= beta:
            flag = LOWER
        else:
            flag = EXACT
    table_hashes[slot] = key
    table_states[slot, :] = state
    table_values[slot] = _to_table(best, ply)
    table_depths[slot] = depth
    table_flags[slot] = flag | SOLVED_BIT if solved else flag
    table_moves[slot] = best_move
    return best, solved


@njit  # recursive with kernels as arguments: a cached copy of it crashes on load (numba), so compiled per process
def search_root(
    state,
    depth,
    actions,
    current_player,
    legal_actions,
    apply_action,
    chance_outcomes,
    returns,
    heuristic,
    buffer_size,
    table_states,
    table_hashes,
    table_values,
    table_depths,
    table_flags,
    table_moves,
    stats,
):
    """Search the root ``actions`` in the given order; ``(best index, value, solved)``.

    The value is from ``player_0``'s view and exact for the best action (full window at the root).
    """
    maximizing = current_player(state) == 0
    best = -INFINITY if maximizing else INFINITY
    best_index = 0
    low, high = -INFINITY, INFINITY
    solved = True
    for i in range(actions.shape[0]):
        child = state.copy()
        apply_action(child, actions[i])
        value, child_solved = alphabeta(
            child,
            depth - 1,
            1,
            low,
            high,
            current_player,
            legal_actions,
            apply_action,
            chance_outcomes,
            returns,
            heuristic,
            buffer_size,
            table_states,
            table_hashes,
            table_values,
            table_depths,
            table_flags,
            table_moves,
            stats,
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


class SearchResult:
    """The outcome of one alpha-beta search.

    Attributes:
        action: the best action found.
        value: its value in [-1, 1] for the player to move (decided results are near +-1).
        depth: the deepest completed iteration.
        solved: whether the value is exact (the whole game tree below was searched).
        nodes: nodes visited over all iterations.
        seconds: wall-clock time spent.
    """

    __slots__ = ("action", "depth", "nodes", "seconds", "solved", "value")

    def __init__(
        self, action: int, value: float, depth: int, solved: bool, nodes: int, seconds: float
    ) -> None:
        self.action = action
        self.value = value
        self.depth = depth
        self.solved = solved
        self.nodes = nodes
        self.seconds = seconds

    def __repr__(self) -> str:
        return (
            f"SearchResult(action={self.action}, value={self.value:.5f}, depth={self.depth}, "
            f"solved={self.solved}, nodes={self.nodes}, seconds={self.seconds:.3f})"
        )


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
        self._table: tuple[np.ndarray, ...] | None = None
        self._table_game: str | None = None
        self.last_result: SearchResult | None = None

    def reset(self) -> None:
        """Clear the transposition table (a new game starts)."""
        self._table = None
        self._table_game = None

    def _tables(self, game: Game) -> tuple[np.ndarray, ...]:
        table_key = f"{game.info.name}/{game.info.state_size}"
        if self._table is None or self._table_game != table_key or not self.keep_table:
            size = self.table_size
            self._table = (
                np.zeros((size, game.info.state_size), np.int64),
                np.full(size, -1, np.int64),
                np.zeros(size, np.float64),
                np.zeros(size, np.int64),
                np.zeros(size, np.int8),
                np.zeros(size, np.int64),
            )
            self._table_game = table_key
        return self._table

    def search(self, game: Game, state: np.ndarray) -> SearchResult:
        """Search ``state`` within the budget; the best action and its value for the mover.

        Raises:
            IllegalActionError: if no player is to move (terminal or chance node).
        """
        start = time.perf_counter()
        player = game.current_player(state)
        if player < 0:
            raise IllegalActionError(
                f"{game.info.name}: alpha-beta needs a player to move, the state is "
                f"{'terminal' if player == TERMINAL else 'a chance node'}"
            )
        kernels = game.kernels
        tables = self._tables(game)
        buffer_size = search_buffer_size(game)
        actions = self._generator.permutation(game.legal_actions(state))
        deadline = None if self.seconds is None else start + self.seconds
        max_depth = self.depth if self.depth is not None else 1 << 20
        best_action, best_value, reached, solved, total_nodes = int(actions[0]), 0.0, 0, False, 0
        node_rate = None
        for depth in range(1, max_depth + 1):
            stats = np.zeros(3, np.int64)
            stats[NODE_LIMIT] = np.iinfo(np.int64).max
            if deadline is not None and depth > 1:
                remaining = deadline - time.perf_counter()
                if remaining <= 0:
                    break
                if node_rate is not None:
                    stats[NODE_LIMIT] = max(1, int(node_rate * remaining))
            iteration_start = time.perf_counter()
            index, value, iteration_solved = search_root(
                state, depth, actions,
                kernels.current_player, kernels.legal_actions, kernels.apply_action,
                kernels.chance_outcomes, kernels.returns, kernels.heuristic,
                buffer_size, *tables, stats,
            )  # fmt: skip
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
            if solved:
                break
        mover_value = best_value if player == 0 else -best_value
        self.last_result = SearchResult(
            best_action, float(mover_value), reached, bool(solved), total_nodes,
            time.perf_counter() - start,
        )  # fmt: skip
        return self.last_result

    def act_state(self, game: Game, state: np.ndarray) -> int:
        return self.search(game, state).action

    def policy(self, env_or_game: Any, state: np.ndarray | None = None) -> tuple[np.ndarray, float]:
        """One-hot on the best move; the searched value for the player to move, in [-1, 1]."""
        game, state = game_and_state(env_or_game, state)
        result = self.search(game, state)
        probs = np.zeros(game.info.num_actions, np.float64)
        probs[result.action] = 1.0
        return probs, result.value
