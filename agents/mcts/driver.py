"""One search from a root state: the compiled loop (:func:`agents.mcts.search.run_chunk`) run in
chunks under an iteration or time budget, with one budget, tree-growth and stop logic for every
kind of leaf evaluation.

Used by :class:`agents.mcts.MCTSAgent` in its own process and by every worker of a root-parallel
search (:mod:`agents.mcts.parallel`). Between chunks :func:`run_search` grows the tree (only if
copying it fits in the time left), completes leaves evaluated in Python (a learned evaluator or a
Python rollout, in batches), and checks the clock; chunk lengths adapt to the measured speed
(about 5 ms each), so a time budget is kept to within a few milliseconds.
"""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
from numba.core.dispatcher import Dispatcher

from agents.base import search_buffer_size
from agents.mcts.final import RootChildren, RootStatistics, RootSummary, decide, final_choice
from agents.mcts.puct import RootNoise, evaluate_leaves
from agents.mcts.search import (
    LEAF_EXTERNAL,
    LEAF_MINIMAX2,
    LEAF_PLAYOUT,
    SELECT_PUCT,
    SELECT_UCT,
    LoopSettings,
    Pending,
    Scratch,
    finish_pending,
    immediate_checks,
    make_pending,
    make_scratch,
    root_children,
    run_chunk,
    terminal_result,
)
from agents.mcts.tree import (
    BYTES_PER_NODE,
    FIRST_CHILD,
    NO_NODE,
    PROVEN,
    ROOT,
    UNPROVEN,
    VISITS,
    Tree,
)
from mcts_envs.core.errors import SearchError
from mcts_envs.core.game import CHANCE, TERMINAL, GameKernels
from mcts_envs.core.numba_compat import entry_point, pin_identity
from mcts_envs.core.seeding import make_rng, rng_choice_weighted

__all__ = [
    "RootStatistics",
    "RootSummary",
    "SearchSettings",
    "choose",
    "decide",
    "engine",
    "run_search",
]

#: Seconds one chunk of the compiled loop aims to last when a time budget is set. Chunks are
#: sized by the fastest pace seen in the search (preemption on a loaded machine only slows a
#: chunk down, so the fastest chunk is the truest measure) and last at most a third of the time
#: left: a chunk interrupted near the deadline then has little left to run when it resumes.
CHUNK_SECONDS = 0.005
#: Estimated seconds per node in use to grow the tree (copying at 0.3 GB/s, below the 0.5-0.8
#: GB/s measured with fresh pages on the development machine).
GROWTH_SECONDS_PER_NODE = BYTES_PER_NODE / 0.3e9
#: Node slots of a new tree under a time budget only (160 MB if all were used).
TIME_BUDGET_CAPACITY = 1 << 22


@dataclass(frozen=True)
class SearchSettings:
    """The parameters of one search (see :class:`agents.mcts.MCTSAgent` for their meaning)."""

    iterations: int | None
    seconds: float | None
    c: float
    expand_all: bool
    rollout: Any
    fractional: bool
    solver: bool
    evaluator: Callable[..., Any] | None
    c_puct: float
    dirichlet_alpha: float
    dirichlet_fraction: float
    batch_size: int
    rollout_cutoff: int = -1


class Engine(NamedTuple):
    """The compiled functions of one game and leaf kernel, as checked direct entry points."""

    run: Any  # agents.mcts.search.run_chunk
    finish: Any  # agents.mcts.search.finish_pending
    checks: Any  # agents.mcts.search.immediate_checks


def pin_game(game) -> None:
    """:func:`~mcts_envs.core.numba_compat.pin_identity` for every kernel of ``game`` (games
    built on :class:`~mcts_envs.core.game.KernelGame` are pinned already; others are pinned
    here)."""
    for dispatcher in game.kernels:
        pin_identity(dispatcher)


@functools.cache
def engine(kernels: GameKernels, playout: Any) -> Engine:
    """The compiled search for ``kernels`` with the leaf kernel ``playout`` (compiled, or loaded
    from numba's disk cache, on first use: what :meth:`MCTSAgent.prepare` triggers)."""
    for dispatcher in (*kernels, playout):
        pin_identity(dispatcher)
    tree = Tree(16)
    scratch = make_scratch(1, 1, 1)
    pending = make_pending(1, 1, 1)
    cfg = LoopSettings(1.0, SELECT_UCT, False, LEAF_PLAYOUT, False, False, -1, 1)
    state = np.zeros(1, np.int64)
    mask = np.zeros(0, np.int8)
    samples = {
        "run": (
            run_chunk,
            (kernels, playout, tree.arrays(), scratch, cfg, state, make_rng(0), mask, pending, 1),
        ),
        "finish": (
            finish_pending,
            (kernels, tree.arrays(), pending, np.zeros(1), np.zeros((1, 1)), True),
        ),
        "checks": (
            immediate_checks,
            (kernels, state, np.zeros(1, np.int64), np.zeros(1, np.int8)),
        ),
    }
    return Engine(**{name: entry_point(f, args) for name, (f, args) in samples.items()})


@functools.lru_cache(maxsize=16)
def workspace(
    state_size: int, depth: int, block: int, batch: int, thread: int
) -> tuple[Scratch, Pending]:
    """The work buffers of searches of these sizes in one thread (kept: allocating and
    checking them again for every decision costs more than a short search)."""
    return make_scratch(state_size, depth, block), make_pending(batch, state_size, depth)


def initial_capacity(game, settings: SearchSettings) -> int:
    """Node slots for a new tree: about four per iteration, or :data:`TIME_BUDGET_CAPACITY`
    under a time budget alone. Untouched slots cost no memory (NumPy leaves fresh pages
    unmapped until written), while growing a large tree means copying it, which a search near
    its deadline cannot afford."""
    if settings.iterations is None:
        return TIME_BUDGET_CAPACITY
    return min(settings.iterations * 4 + search_buffer_size(game), 1 << 20)


def max_depth(game) -> int:
    """Bound on the tree depth (decisions plus chance nodes, with room for forced plays)."""
    return 4 * game.info.max_game_length + 16


def rollout_kind(rollout: Any, game) -> tuple[int, Any]:
    """``(leaf kind, compiled playout kernel or Python policy)`` for a rollout option."""
    if rollout == "random":
        return LEAF_PLAYOUT, game.kernels.random_playout
    if rollout == "minimax2":
        return LEAF_MINIMAX2, game.kernels.random_playout
    if isinstance(rollout, Dispatcher):
        return LEAF_PLAYOUT, pin_identity(rollout)
    return LEAF_EXTERNAL, rollout


#: The root mask of a search without one (shared; the loop only reads masks).
NO_MASK = np.zeros(0, np.int8)

#: Loop settings by value, one object each (their type check is then done once).
loop_settings = functools.lru_cache(maxsize=256)(LoopSettings)


def root_mask(game, allowed: np.ndarray | None) -> np.ndarray:
    """``int8[num_actions]`` with 1 at the ``allowed`` root moves, or an empty array (all)."""
    if allowed is None:
        return NO_MASK
    mask = np.zeros(game.info.num_actions, np.int8)
    mask[np.asarray(allowed, np.int64)] = 1
    return mask


def search_failed(settings: SearchSettings) -> SearchError:
    """The error for a search whose selection found no child (``SEARCH_FAILED``)."""
    return SearchError(
        f"the search found no child to select (exploration constants c={settings.c}, "
        f"c_puct={settings.c_puct}; leaf values must be finite numbers): the search stopped "
        "before reading outside its tree"
    )


def _time_left(deadline: float | None) -> float:
    return np.inf if deadline is None else deadline - time.perf_counter()


def _grow_in_time(tree: Tree, free: int, deadline: float | None) -> bool:
    """Make ``free`` node slots available, unless a time budget is set and growing the arrays
    would likely outlast it: then return False (the search stops). Growing copies the tree into
    fresh memory, measured at 0.5-0.8 GB/s here (80 ms at a million nodes), which a search
    near its deadline cannot afford."""
    if tree.num_nodes + free <= tree.capacity:
        return True
    if deadline is not None and _time_left(deadline) < tree.num_nodes * GROWTH_SECONDS_PER_NODE:
        return False
    tree.ensure(free)
    return True


def _next_chunk(rate: float, deadline: float | None, remaining: int) -> int:
    """Simulations for the next chunk at ``rate`` simulations per second."""
    if deadline is None:
        return remaining
    seconds = min(CHUNK_SECONDS, max(_time_left(deadline), 0.0) / 3)
    return int(max(1, min(remaining, rate * seconds)))


def _python_rollout(game, state: np.ndarray, policy, rng: np.ndarray, fractional: bool) -> float:
    """Play ``state`` to the end with a Python policy (chance outcomes drawn with the search's
    own generator ``rng``); the result from player 0's view."""
    state = state.copy()
    while True:
        player = game.current_player(state)
        if player == TERMINAL:
            break
        if player == CHANCE:
            outcomes, probabilities = game.chance_outcomes(state)
            action = int(outcomes[rng_choice_weighted(rng, probabilities, len(outcomes))])
        else:
            action = int(policy(game, state))
        state = game.apply(state, action)
    return float(
        terminal_result(game.kernels.returns, game.kernels.score, state, fractional, np.empty(2))
    )


def _external_values(game, settings: SearchSettings, pending, rng) -> tuple[np.ndarray, ...]:
    """``(results, priors)`` of the pending leaves, from the evaluator or Python rollouts."""
    size = int(pending.size[0])
    if settings.evaluator is not None:
        return evaluate_leaves(game, settings.evaluator, pending.states, pending.statuses, size)
    results = np.array(
        [
            _python_rollout(game, pending.states[b], settings.rollout, rng, settings.fractional)
            for b in range(size)
        ]
    )
    return results, np.zeros((size, 0))


def run_search(
    game,
    tree: Tree,
    root_state: np.ndarray,
    settings: SearchSettings,
    seed: int,
    allowed: np.ndarray | None = None,
    deadline: float | None = None,
) -> RootSummary:
    """Search from ``root_state`` into ``tree`` (fresh or reused) and summarise the root.

    Always runs at least one chunk of at least one simulation, so a search with any positive
    budget has root children to choose from.

    Args:
        game: a :class:`~mcts_envs.core.game.KernelGame`.
        tree: the tree; its root must stand for ``root_state``.
        root_state: the state to search (not modified).
        settings: the search parameters.
        seed: seeds the search's one generator (and the Dirichlet noise).
        allowed: if given, the only root moves to consider (the block-loss check); other root
            children stay in the tree, untouched.
        deadline: ``time.perf_counter()`` value at which to stop (default: ``settings.seconds``
            from now); the agent passes the decision's deadline so checks and re-rooting count.

    Raises:
        SearchError: if selection finds no child (NaN values) or an evaluator misbehaves.
    """
    if deadline is None and settings.seconds is not None:
        deadline = time.perf_counter() + settings.seconds
    budget = settings.iterations if settings.iterations is not None else np.iinfo(np.int64).max
    external = settings.evaluator is not None
    leaf, playout = (LEAF_EXTERNAL, None) if external else rollout_kind(settings.rollout, game)
    if leaf == LEAF_EXTERNAL:
        pin_game(game)
    leaf_kernel = game.kernels.random_playout if leaf == LEAF_EXTERNAL else playout
    compiled = engine(game.kernels, leaf_kernel)
    block = search_buffer_size(game)
    depth = max_depth(game)
    cfg = loop_settings(
        float(settings.c_puct if external else settings.c),
        SELECT_PUCT if external else SELECT_UCT,
        bool(settings.expand_all) and not external,
        int(leaf),
        bool(settings.fractional),
        bool(settings.solver),
        int(settings.rollout_cutoff),
        int(block),
    )
    batch = (settings.batch_size if external else 1) if leaf == LEAF_EXTERNAL else 0
    scratch, pending = workspace(len(root_state), depth, block, batch, threading.get_ident())
    pending.size[0] = 0  # a search that raised may have left leaves of another tree
    mask = root_mask(game, allowed)
    rng = make_rng(seed)
    noise = RootNoise(settings.dirichlet_alpha, settings.dirichlet_fraction, seed, external)
    # A private, writable, contiguous copy: the compiled loop's entry point expects exactly that.
    root_state = np.array(root_state, dtype=np.int64, order="C")

    def arguments(iterations: int) -> tuple[Any, ...]:
        arrays = tree.arrays()
        return (game.kernels, leaf_kernel, arrays, scratch, cfg, root_state, rng, mask, pending, iterations)  # fmt: skip

    # Types are checked once per search; the loop then calls the compiled code directly (the
    # arguments keep their types: the tree's arrays are replaced by ones of the same kind).
    compiled.run.check(arguments(1), persistent=(0, 1, 3, 4, 7, 8))
    total = 0
    rate = 1e-9  # the fastest simulations per second seen in this search
    chunk = min(budget, 4) if deadline is not None else budget  # then sized by the pace
    while True:
        if settings.solver and tree.flags[ROOT, PROVEN] != UNPROVEN:
            break
        room = 2 * block * (batch + 1)
        if not _grow_in_time(tree, room, deadline):
            if tree.links[ROOT, FIRST_CHILD] != NO_NODE:
                break
            tree.ensure(room)  # never leave without root children to choose from
        noise.apply(tree)
        start = time.perf_counter()
        done = compiled.run.compiled(*arguments(int(min(chunk, budget - total))))
        if done < 0:
            raise search_failed(settings)
        waiting = int(pending.size[0])
        if waiting:
            results, priors = _external_values(game, settings, pending, rng)
            tree.ensure(waiting * block + block)
            compiled.finish(game.kernels, tree.arrays(), pending, results, priors, cfg.solver)
            done += waiting
        total += done
        if total >= budget:
            break
        if deadline is not None:
            rate = max(rate, done / max(time.perf_counter() - start, 1e-7))
            # Stop when even one more simulation at that pace would likely end late.
            if _time_left(deadline) <= 1.0 / rate:
                break
        chunk = _next_chunk(rate, deadline, budget - total)
    noise.restore(tree)
    return summarise_root(tree, int(game.kernels.current_player(root_state)), mask, total)


def summarise_root(tree: Tree, player: int, mask, simulations: int):
    """The :class:`RootSummary` of ``tree`` after a search (masked root moves left out)."""
    size = int(tree.links[ROOT, 2]) if tree.links[ROOT, FIRST_CHILD] != NO_NODE else 0
    buffers = RootChildren(
        np.empty(size, np.int64), np.empty(size), np.empty(size), np.empty(size, np.int8)
    )
    written = root_children(tree.arrays(), mask, *buffers)  # plain dispatch: arrays only
    return RootSummary(
        player=player,
        children=RootChildren(*(array[:written] for array in buffers)),
        root_visits=int(tree.links[ROOT, VISITS]),
        root_value_sum=float(tree.value_sum[ROOT]),
        root_proven=int(tree.flags[ROOT, PROVEN]),
        simulations=simulations,
        nodes=tree.num_nodes,
    )


def choose(summary: RootSummary, final: str, use_solver: bool) -> tuple[int, np.ndarray, float]:
    """``(child index, probabilities over the children, root value in [-1, 1] for the mover)``
    by :func:`agents.mcts.final.final_choice` (solver filter, then most visits or best mean).

    Raises:
        SearchError: if the root has no child (no simulation ran).
    """
    children = summary.children
    probs = np.empty(len(children.actions), np.float64)
    index, value = final_choice(
        children,
        summary.player,
        final == "mean",
        use_solver,
        summary.root_visits,
        summary.root_value_sum,
        probs,
    )
    if index < 0:
        raise SearchError("the search ended before expanding the root: no action to choose")
    return int(index), probs, float(value)
