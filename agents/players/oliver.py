"""oliver: a Tantrix bot of the design of the Tantrix report's "Oliver" (alpha-beta over a forecast).

The search is alpha-beta over placements with the line-length forecast of
:mod:`mcts_envs.games.tantrix.forecast` at its leaves: a position is worth the root player's
forecast minus the opponent's (in points), a finished game ``+-WIN_VALUE`` (0 for a draw or a
deadlock). Placements of the root player are max nodes, the opponent's min nodes; a Tantrix turn
has several placements by the same player (forced fills, the free move, forced fills after it),
so nodes go by the mover, not by alternation, and ``depth`` counts placements of either player.

**Chance nodes.** After each placement the mover draws a tile while the bag is not empty. The
lookahead does not branch on it: the draw is *withheld* (the search goes on as if the mover had
not drawn yet, its hand one tile short), and the search continues with the next decision the rules
give. The drawn tile is unknown to the searcher, and the forecast already counts every tile of
the bag as available to the mover, so the expected effect of the draw is in the evaluation; an
expectation over the bag (~40 outcomes per placement) would cost a factor of ~40 per ply. A
position where the withheld draw leaves no legal placement is evaluated by the forecast.

**Time.** Iterative deepening from depth 1 to ``depth``; with ``seconds``, deeper iterations get a
node limit from the node rate measured so far and the time left, and an iteration that runs out
is discarded (the previous depth's move is played). Depth 1 is always completed (a few ms: one
forecast per legal placement). Root moves are shuffled by the seeded generator (ties go to a
random one of the best) and searched best-first by the previous iteration's values.
"""

from __future__ import annotations

import time

import numpy as np

from mcts_envs.agents.base import ForwardModelAgent
from mcts_envs.core.errors import IllegalActionError, InvalidOptionError
from mcts_envs.core.game import Game
from mcts_envs.core.numba_cache import njit
from mcts_envs.core.seeding import check_seed
from mcts_envs.games.tantrix import kernels as k
from mcts_envs.games.tantrix.forecast import forecast_evaluation

#: Value of a won game (a loss is its negative); forecasts stay far below it (at most 112 points).
WIN_VALUE = 1000.0
INFINITY = 1e9
#: Indices of the ``stats`` array: nodes visited, node limit, whether the limit was hit.
NODES, NODE_LIMIT, ABORTED = 0, 1, 2
#: Depth searched by default.
DEFAULT_DEPTH = 3
#: Share of the time left that the node limit of the next iteration aims to use.
TIME_SAFETY = 0.8


@njit(cache=True)
def leaf_value(state, root, withheld):
    """Value of ``state`` for ``root`` without search: the result at the end, else the forecast."""
    status = state[k.STATUS]
    if status == k.FINISHED:
        out = np.zeros(2, np.float64)
        k.returns(state, out)
        return WIN_VALUE * out[root]
    if status == k.DEADLOCK and not withheld:
        return 0.0
    return forecast_evaluation(state, root)


@njit(cache=True)
def withhold_draw(state):
    """At a ``DRAW`` node: go on to the next decision without drawing (see the module docstring)."""
    state[k.STATUS] = k.DECIDE
    k.advance(state)


@njit(cache=True)
def _enter(states, moves, counts, nexts, bests, maximising, withheld, f, last, root, stats):
    """Opens frame ``f`` (``states[f]`` just reached): withholds a draw, counts the node, and
    either returns ``(True, leaf value)`` or lists the moves and returns ``(False, 0.0)``.
    ``last`` is the frame at the depth limit. Sets ``stats[ABORTED]`` past the node limit."""
    state = states[f]
    if state[k.STATUS] == k.DRAW:
        withhold_draw(state)
        withheld[f] = True
    stats[NODES] += 1
    if f == last or state[k.STATUS] != k.DECIDE:
        return True, leaf_value(state, root, withheld[f])
    if stats[NODES] > stats[NODE_LIMIT]:
        stats[ABORTED] = 1
        return True, 0.0
    counts[f] = k.generate(state, moves[f], state[k.PHASE] != k.PHASE_FREE, False)
    if counts[f] == 0:
        return True, leaf_value(state, root, withheld[f])
    nexts[f] = 0
    maximising[f] = state[k.MOVER] == root
    bests[f] = -INFINITY if maximising[f] else INFINITY
    return False, 0.0


@njit(cache=True)
def _take(f, value, bests, alphas, betas, maximising):
    """Frame ``f`` takes a child's ``value`` (max or min by its mover, window narrowed)."""
    if maximising[f]:
        if value > bests[f]:
            bests[f] = value
        if value > alphas[f]:
            alphas[f] = value
    else:
        if value < bests[f]:
            bests[f] = value
        if value < betas[f]:
            betas[f] = value


@njit(cache=True)
def lookahead(state, root, depth, alpha, beta, stats):
    """Alpha-beta value of ``state`` for ``root`` searched ``depth`` placements deep.

    An explicit stack of frames (one state and move list per ply). Returns 0.0 with
    ``stats[ABORTED]`` set once more than ``stats[NODE_LIMIT]`` nodes were visited (the caller
    discards the iteration).
    """
    frames = depth + 1
    states = np.empty((frames, state.shape[0]), np.int64)
    moves = np.empty((frames, k.MAX_LEGAL_ACTIONS), np.int64)
    counts = np.zeros(frames, np.int64)
    nexts = np.zeros(frames, np.int64)
    alphas = np.empty(frames, np.float64)
    betas = np.empty(frames, np.float64)
    bests = np.empty(frames, np.float64)
    maximising = np.zeros(frames, np.bool_)
    withheld = np.zeros(frames, np.bool_)
    states[0] = state
    alphas[0] = alpha
    betas[0] = beta
    leaf, value = _enter(
        states, moves, counts, nexts, bests, maximising, withheld, 0, depth, root, stats
    )
    if leaf:
        return value
    f = 0
    while True:
        if nexts[f] < counts[f] and alphas[f] < betas[f]:
            action = moves[f, nexts[f]]
            nexts[f] += 1
            states[f + 1] = states[f]
            k.apply_action(states[f + 1], action)
            withheld[f + 1] = withheld[f]
            alphas[f + 1] = alphas[f]
            betas[f + 1] = betas[f]
            leaf, value = _enter(
                states, moves, counts, nexts, bests, maximising, withheld, f + 1, depth, root,
                stats,
            )  # fmt: skip
            if stats[ABORTED]:
                return 0.0
            if leaf:
                _take(f, value, bests, alphas, betas, maximising)
            else:
                f += 1
            continue
        if f == 0:
            return bests[0]
        f -= 1
        _take(f, bests[f + 1], bests, alphas, betas, maximising)


@njit(cache=True)
def search_root(state, actions, depth, stats, values):
    """Searches each of ``actions`` (placements of the mover of ``state``) ``depth`` deep.

    Writes into ``values[i]`` the value of action ``i`` for the mover (exact for the best one so
    far, an upper bound for the others: alpha-beta); returns the index of the best, or -1 if the
    node limit was hit.
    """
    root = state[k.MOVER]
    alpha = -INFINITY
    best = -1
    for i in range(actions.shape[0]):
        child = state.copy()
        k.apply_action(child, actions[i])
        value = lookahead(child, root, depth - 1, alpha, INFINITY, stats)
        if stats[ABORTED]:
            return -1
        values[i] = value
        if best < 0 or value > alpha:
            alpha = value
            best = i
    return best


class OliverAgent(ForwardModelAgent):
    """Alpha-beta over Oliver's line-length forecast, for Tantrix (see the module docstring).

    Args:
        seed: seeds the shuffle of root moves (ties between equal moves); ``None`` for OS entropy.
        depth: placements searched (either player's; the draws after them are withheld), >= 1
            (default 3). With ``seconds`` it is the deepest iteration tried.
        seconds: wall-clock budget per decision, or ``None`` (default) for a full ``depth``
            search. Depth 1 is always finished, so a decision takes at least its few ms.

    Raises:
        InvalidOptionError: for a depth below 1 or a non-positive time budget.
    """

    def __init__(
        self, *, seed: int | None = None, depth: int = DEFAULT_DEPTH, seconds: float | None = None
    ) -> None:
        if isinstance(depth, bool) or not isinstance(depth, int) or depth < 1:
            raise InvalidOptionError(f"oliver: depth must be an int >= 1, got {depth!r}")
        if seconds is not None and not float(seconds) > 0:
            raise InvalidOptionError(
                f"oliver: seconds must be a positive number or None, got {seconds!r}"
            )
        self.seed = check_seed(seed)
        self.depth = depth
        self.seconds = None if seconds is None else float(seconds)
        self._generator = np.random.default_rng(self.seed)
        budget = f",seconds={self.seconds}" if self.seconds is not None else ""
        self.name = f"oliver:depth={depth}{budget}"
        #: Facts about the last decision: ``depth`` completed, ``nodes``, ``seconds``.
        self.last_search: dict[str, float] = {}

    @staticmethod
    def _check_game(game: Game) -> None:
        if getattr(game.info, "name", None) != "tantrix":
            raise InvalidOptionError(
                f"oliver plays Tantrix only (its forecast reads Tantrix lines), not "
                f"{getattr(game.info, 'name', game)!r}"
            )

    def prepare(self, game: Game) -> None:
        """Compile the search (a depth-2 search of an early decision) before any clock runs."""
        self._check_game(game)
        state = game.initial_state()
        generator = np.random.default_rng(0)
        while int(state[k.STATUS]) != k.DECIDE:
            outcomes, _ = game.chance_outcomes(state)
            state = game.apply(state, int(outcomes[generator.integers(len(outcomes))]))
        actions = game.legal_actions(state)[:3].astype(np.int64)
        stats = np.array([0, 1 << 62, 0], np.int64)
        search_root(state, actions, 2, stats, np.empty(len(actions), np.float64))

    def act_state(self, game: Game, state: np.ndarray) -> int:
        """The chosen placement for the mover of ``state`` (a Tantrix decision).

        Raises:
            IllegalActionError: if ``state`` is not a decision (a chance node or the end).
            InvalidOptionError: if ``game`` is not Tantrix.
        """
        self._check_game(game)
        start = time.perf_counter()
        if int(state[k.STATUS]) != k.DECIDE:
            raise IllegalActionError("oliver was asked to act where no player decides")
        actions = np.asarray(game.legal_actions(state), np.int64)
        actions = actions[self._generator.permutation(len(actions))]
        if len(actions) == 1:
            self.last_search = {"depth": 0, "nodes": 0, "seconds": time.perf_counter() - start}
            return int(actions[0])
        state = np.ascontiguousarray(state, np.int64)
        values = np.empty(len(actions), np.float64)
        best_action = int(actions[0])
        done_depth = 0
        nodes = 0
        for depth in range(1, self.depth + 1):
            limit = 1 << 62
            if self.seconds is not None and depth > 1:
                elapsed = time.perf_counter() - start
                left = self.seconds - elapsed
                rate = nodes / max(elapsed, 1e-6)
                limit = int(rate * left * TIME_SAFETY)
                if limit < len(actions):
                    break
            stats = np.array([0, limit, 0], np.int64)
            best = search_root(state, actions, depth, stats, values)
            nodes += int(stats[NODES])
            if best < 0:
                break
            best_action = int(actions[best])
            done_depth = depth
            # search the best first next time (stable: ties keep the shuffled order)
            order = np.argsort(-values, kind="stable")
            order = np.concatenate(([best], order[order != best]))
            actions = actions[order]
            if values[best] >= WIN_VALUE * 0.5 or values[best] <= -WIN_VALUE * 0.5:
                break
        self.last_search = {
            "depth": done_depth,
            "nodes": nodes,
            "seconds": time.perf_counter() - start,
        }
        return best_action
