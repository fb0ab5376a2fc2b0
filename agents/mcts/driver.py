"""One search from a root state: chunks of the compiled loop under an iteration or time budget.

Used by :class:`agents.mcts.MCTSAgent` in its own process and by every worker of a root-parallel
search (:mod:`agents.mcts.parallel`). :func:`run_search` grows the tree between chunks and checks
the clock between chunks whose length it adapts to the measured speed (about 10 ms each), so a
time budget is kept to within a few milliseconds once the code is compiled.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numba.core.dispatcher import Dispatcher

from agents.base import search_buffer_size
from agents.mcts.final import final_choice, summarise_root
from agents.mcts.puct import add_root_noise, evaluate_leaves, finish_batch, select_batch
from agents.mcts.rollout import ROLLOUT_MINIMAX2, ROLLOUT_PLAYOUT_KERNEL
from agents.mcts.search import (
    EXPANDED_ALL,
    HAS_RESULT,
    NEEDS_EVALUATION,
    SEARCH_FAILED,
    SELECT_UCT,
    backup,
    descend,
    immediate_checks,
    run_uct,
    terminal_result,
)
from agents.mcts.tree import (
    ACTION,
    BYTES_PER_NODE,
    FIRST_CHILD,
    NO_NODE,
    NUM_CHILDREN,
    PLAYER,
    PROVEN,
    ROOT,
    UNPROVEN,
    VISITS,
    Tree,
    attach_children,
)
from mcts_envs.core.errors import SearchError
from mcts_envs.core.game import CHANCE, TERMINAL, GameKernels
from mcts_envs.core.jit import entry_point, pin_identity
from mcts_envs.core.seeding import make_rng

#: Seconds one chunk of the compiled loop aims to last when a time budget is set.
CHUNK_SECONDS = 0.01
#: Estimated seconds per node in use to grow the tree (copying at 0.3 GB/s, below the 0.5-0.8
#: GB/s measured with fresh pages on the development machine).
GROWTH_SECONDS_PER_NODE = BYTES_PER_NODE / 0.3e9


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


@dataclass
class RootStatistics:
    """Root children summarised over the action space (arrays of length ``num_actions``).

    Attributes:
        player: the player to move at the root.
        visits: visits of each action's child (0 if absent).
        value_sum: result sums of each child from player 0's view.
        proven: solver value of each child (``UNPROVEN`` if none).
        present: whether the action is a root child (legal and allowed).
        root_visits: visits of the root.
        root_value_sum: result sum of the root from player 0's view.
        root_proven: solver value of the root.
        simulations: simulations run by this search.
        nodes: tree nodes in use after the search.
    """

    player: int
    visits: np.ndarray
    value_sum: np.ndarray
    proven: np.ndarray
    present: np.ndarray
    root_visits: int
    root_value_sum: float
    root_proven: int
    simulations: int
    nodes: int


def pin_game(game) -> None:
    """:func:`~mcts_envs.core.jit.pin_identity` for every kernel of ``game`` (games built on
    :class:`~mcts_envs.core.game.KernelGame` are pinned already; others are pinned here)."""
    _pin_kernels(game.kernels)


@functools.cache
def _pin_kernels(kernels: GameKernels) -> None:
    for dispatcher in kernels:
        pin_identity(dispatcher)


@functools.cache
def checks_entry(kernels: GameKernels) -> Callable[..., tuple[int, int]]:
    """:func:`~agents.mcts.search.immediate_checks` compiled for ``kernels``, called directly
    (see :func:`~mcts_envs.core.jit.entry_point`) with ``(state, actions, safe)``: ``state`` a
    writable contiguous ``int64`` array, ``actions`` ``int64`` and ``safe`` ``int8`` arrays."""
    _pin_kernels(kernels)
    k = kernels
    run = entry_point(
        immediate_checks,
        (
            k.current_player,
            k.legal_actions,
            k.apply_action,
            k.returns,
            np.zeros(1, np.int64),
            np.zeros(1, np.int64),
            np.zeros(1, np.int8),
        ),
    )
    return functools.partial(run, k.current_player, k.legal_actions, k.apply_action, k.returns)


#: Node slots of a new tree under a time budget only (160 MB if all were used).
TIME_BUDGET_CAPACITY = 1 << 22


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


def expand_root(
    tree: Tree, actions: np.ndarray, priors: np.ndarray, expanded_now: bool, player: int
) -> None:
    """Give the (unexpanded) root exactly these children, in this order, with these priors."""
    size = len(actions)
    tree.ensure(size)
    attach_children(
        *tree.arrays(),
        ROOT,
        np.asarray(actions, np.int64),
        np.asarray(priors, np.float64),
        size,
        size if expanded_now else 0,
    )
    tree.flags[ROOT, PLAYER] = player


def rollout_kind(rollout: Any, game) -> tuple[int, Any]:
    """``(kind, playout kernel)`` for the compiled loop, or ``(-1, callable)`` for Python rollouts."""
    if rollout == "random":
        return ROLLOUT_PLAYOUT_KERNEL, game.kernels.random_playout
    if rollout == "minimax2":
        return ROLLOUT_MINIMAX2, game.kernels.random_playout
    if isinstance(rollout, Dispatcher):
        return ROLLOUT_PLAYOUT_KERNEL, pin_identity(rollout)
    return -1, rollout


def run_search(
    game,
    tree: Tree,
    root_state: np.ndarray,
    settings: SearchSettings,
    seed: int,
    allowed: np.ndarray | None = None,
) -> RootStatistics:
    """Search from ``root_state`` into ``tree`` (fresh or reused) and summarise the root.

    Args:
        game: a :class:`~mcts_envs.core.game.KernelGame`.
        tree: the tree; its root must stand for ``root_state``.
        root_state: the state to search (not modified).
        settings: the search parameters.
        seed: seeds the compiled generator (and the Dirichlet noise).
        allowed: if given, the only root actions to consider (block-loss pruning); the tree must
            then be fresh.
    """
    rng = make_rng(seed)
    deadline = None if settings.seconds is None else time.perf_counter() + settings.seconds
    budget = settings.iterations if settings.iterations is not None else np.iinfo(np.int64).max
    player = game.current_player(root_state)
    # A private, writable, contiguous copy: the compiled loop's entry point expects exactly that.
    root_state = np.array(root_state, dtype=np.int64, order="C")
    if settings.evaluator is not None:
        pin_game(game)
        generator = np.random.default_rng(seed)
        simulations = _run_puct(
            game, tree, root_state, settings, rng, generator, budget, deadline, allowed
        )
    else:
        if allowed is not None and tree.links[ROOT, FIRST_CHILD] == NO_NODE:
            actions = np.random.default_rng(seed).permutation(allowed)
            expand_root(
                tree,
                actions,
                np.full(len(actions), 1.0 / len(actions)),
                settings.expand_all,
                player,
            )
        kind, playout = rollout_kind(settings.rollout, game)
        if kind < 0:
            pin_game(game)
            generator = np.random.default_rng(seed)
            simulations = _run_python_rollouts(
                game, tree, root_state, settings, rng, generator, budget, deadline, playout
            )
        else:
            simulations = _run_compiled(
                game, tree, root_state, settings, rng, budget, deadline, kind, playout
            )
    return root_statistics(game, tree, player, simulations)


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


def _next_chunk(done: int, elapsed: float, deadline: float | None, remaining: int) -> int:
    if deadline is None:
        return remaining
    rate = done / max(elapsed, 1e-6)
    seconds = min(CHUNK_SECONDS, max(_time_left(deadline), 0.0) / 2)
    return int(max(1, min(remaining, rate * seconds)))


def _uct_arguments(
    kernels, playout, tree, root_state, rng, chunk, settings, kind, block, depth
) -> tuple[Any, ...]:
    """The arguments of :func:`~agents.mcts.search.run_uct`, with the scalar types fixed
    (its compiled entry point is called directly, see :func:`uct_entry`)."""
    return (
        *kernels[:7],  # current_player .. heuristic, in GameKernels' field order
        playout,
        *tree.arrays(),
        root_state,
        rng,
        int(chunk),
        float(settings.c),
        bool(settings.expand_all),
        int(kind),
        bool(settings.fractional),
        bool(settings.solver),
        int(block),
        int(depth),
        int(settings.rollout_cutoff),
    )


_SAMPLE_SETTINGS = SearchSettings(
    iterations=1,
    seconds=None,
    c=1.0,
    expand_all=False,
    rollout="random",
    fractional=False,
    solver=False,
    evaluator=None,
    c_puct=1.0,
    dirichlet_alpha=0.3,
    dirichlet_fraction=0.25,
    batch_size=1,
)


@functools.cache
def uct_entry(kernels: GameKernels, playout: Any) -> Callable[..., int]:
    """:func:`~agents.mcts.search.run_uct` compiled for ``kernels`` and ``playout``.

    Called with :func:`_uct_arguments` only: the direct entry point skips numba's typing of the
    eight kernel arguments on every call (about 30 µs), which matters for short searches.
    """
    for dispatcher in (*kernels, playout):
        pin_identity(dispatcher)
    sample = _uct_arguments(
        kernels, playout, Tree(16), np.zeros(1, np.int64), make_rng(0), 1, _SAMPLE_SETTINGS, 0, 1, 1
    )
    return entry_point(run_uct, sample)


def _run_compiled(game, tree, root_state, settings, rng, budget, deadline, kind, playout) -> int:
    block = search_buffer_size(game)
    depth = max_depth(game)
    run = uct_entry(game.kernels, playout)
    total = 0
    chunk = min(budget, 16) if deadline is not None else budget
    while total < budget and _time_left(deadline) > 0:
        # run_uct stops early when fewer than ``block`` slots are free; the tree then grows.
        if not _grow_in_time(tree, 2 * block, deadline):
            break
        start = time.perf_counter()
        done = run(
            *_uct_arguments(
                game.kernels, playout, tree, root_state, rng, chunk, settings, kind, block, depth
            )
        )
        if done < 0:
            raise search_failed(settings)
        total += done
        if settings.solver and tree.flags[ROOT, PROVEN] != UNPROVEN:
            break
        if deadline is None:
            chunk = budget - total
        else:
            chunk = _next_chunk(done, time.perf_counter() - start, deadline, budget - total)
    return total


def _python_rollout(game, state: np.ndarray, policy, generator, fractional: bool) -> float:
    state = state.copy()
    while True:
        player = game.current_player(state)
        if player == TERMINAL:
            break
        if player == CHANCE:
            outcomes, probabilities = game.chance_outcomes(state)
            action = int(generator.choice(outcomes, p=probabilities))
        else:
            action = int(policy(game, state))
        state = game.apply(state, action)
    return float(
        terminal_result(game.kernels.returns, game.kernels.score, state, fractional, np.empty(2))
    )


def search_failed(settings: SearchSettings) -> SearchError:
    """The error for a search whose selection found no child (``SEARCH_FAILED``)."""
    return SearchError(
        f"the search found no child to select (exploration constants c={settings.c}, "
        f"c_puct={settings.c_puct}; leaf values must be finite numbers): the search stopped "
        "before reading outside its tree"
    )


def _run_python_rollouts(
    game, tree, root_state, settings, rng, generator, budget, deadline, policy
) -> int:
    k = game.kernels
    block = search_buffer_size(game)
    path = np.empty(max_depth(game), np.int64)
    state = np.empty_like(root_state)
    actions = np.empty(block, np.int64)
    probabilities = np.empty(block, np.float64)
    values = np.empty(2, np.float64)
    result = np.empty(1, np.float64)
    total = 0
    while total < budget and _time_left(deadline) > 0:
        if settings.solver and tree.flags[ROOT, PROVEN] != UNPROVEN:
            break
        if not _grow_in_time(tree, 2 * block, deadline):
            break
        links, flags, value_sum, prior, count = tree.arrays()
        status, depth = descend(
            k.current_player,
            k.legal_actions,
            k.apply_action,
            k.chance_outcomes,
            k.returns,
            k.score,
            links,
            flags,
            value_sum,
            prior,
            count,
            root_state,
            state,
            path,
            rng,
            SELECT_UCT,
            settings.c,
            settings.expand_all,
            settings.fractional,
            settings.solver,
            actions,
            probabilities,
            values,
            result,
        )
        if status == SEARCH_FAILED:
            raise search_failed(settings)
        if status == HAS_RESULT:
            backup(links, flags, value_sum, path, depth, result[0], settings.solver)
            total += 1
        elif status == EXPANDED_ALL:
            node = int(path[depth])
            first = int(links[node, FIRST_CHILD])
            for i in range(int(links[node, NUM_CHILDREN])):
                if total >= budget:
                    break
                child = game.apply_unchecked(state, int(links[first + i, ACTION]))
                flags[first + i, PLAYER] = game.current_player(child)
                path[depth + 1] = first + i
                outcome = _python_rollout(game, child, policy, generator, settings.fractional)
                backup(links, flags, value_sum, path, depth + 1, outcome, settings.solver)
                total += 1
        else:
            outcome = _python_rollout(game, state, policy, generator, settings.fractional)
            backup(links, flags, value_sum, path, depth, outcome, settings.solver)
            total += 1
    return total


def _run_puct(game, tree, root_state, settings, rng, generator, budget, deadline, allowed) -> int:
    k = game.kernels
    block = search_buffer_size(game)
    depth = max_depth(game)
    total = 0
    if tree.links[ROOT, FIRST_CHILD] == NO_NODE:
        player = game.current_player(root_state)
        results, priors = evaluate_leaves(
            game, settings.evaluator, root_state[None, :], np.array([NEEDS_EVALUATION]), 1
        )
        actions = game.legal_actions(root_state) if allowed is None else np.asarray(allowed)
        weights = np.maximum(priors[0, actions], 0.0)
        weights = (
            weights / weights.sum()
            if weights.sum() > 0
            else np.full(len(actions), 1.0 / len(actions))
        )
        expand_root(tree, actions, weights, True, player)
        tree.links[ROOT, VISITS] += 1
        tree.value_sum[ROOT] += results[0]
        total += 1
    first = int(tree.links[ROOT, FIRST_CHILD])
    size = int(tree.links[ROOT, NUM_CHILDREN])
    clean = add_root_noise(
        tree.prior, first, size, settings.dirichlet_alpha, settings.dirichlet_fraction, generator
    )
    batch = max(1, settings.batch_size)
    paths = np.empty((batch, depth), np.int64)
    depths = np.empty(batch, np.int64)
    statuses = np.empty(batch, np.int64)
    states = np.empty((batch, len(root_state)), np.int64)
    while total < budget and _time_left(deadline) > 0:
        if settings.solver and tree.flags[ROOT, PROVEN] != UNPROVEN:
            break
        if not _grow_in_time(tree, 2 * batch * block + 2 * block, deadline):
            break
        links, flags, value_sum, prior, count = tree.arrays()
        done = select_batch(
            k.current_player,
            k.legal_actions,
            k.apply_action,
            k.chance_outcomes,
            k.returns,
            k.score,
            links,
            flags,
            value_sum,
            prior,
            count,
            root_state,
            rng,
            min(batch, budget - total),
            settings.c_puct,
            settings.fractional,
            settings.solver,
            paths,
            depths,
            statuses,
            states,
            block,
        )
        if done < 0:
            raise search_failed(settings)
        results, priors = evaluate_leaves(game, settings.evaluator, states, statuses, done)
        tree.ensure(done * block + block)
        links, flags, value_sum, prior, count = tree.arrays()
        finish_batch(
            k.legal_actions,
            links,
            flags,
            value_sum,
            prior,
            count,
            paths,
            depths,
            statuses,
            states,
            results,
            priors,
            done,
            settings.solver,
        )
        total += done
        if done == 0:
            break
    tree.prior[first : first + size] = clean
    return total


def root_statistics(game, tree: Tree, player: int, simulations: int) -> RootStatistics:
    """Summarise the root's children over the action space."""
    num_actions = game.info.num_actions
    visits = np.empty(num_actions, np.float64)
    value_sum = np.empty(num_actions, np.float64)
    proven = np.empty(num_actions, np.int8)
    present = np.empty(num_actions, np.bool_)
    summarise_root(tree.links, tree.flags, tree.value_sum, visits, value_sum, proven, present)
    return RootStatistics(
        player=player,
        visits=visits,
        value_sum=value_sum,
        proven=proven,
        present=present,
        root_visits=int(tree.links[ROOT, VISITS]),
        root_value_sum=float(tree.value_sum[ROOT]),
        root_proven=int(tree.flags[ROOT, PROVEN]),
        simulations=simulations,
        nodes=tree.num_nodes,
    )


def decide(stats: RootStatistics, final: str, use_solver: bool) -> tuple[int, np.ndarray, float]:
    """``(action, visit distribution, root value in [-1, 1] for the mover)`` from root statistics.

    Solver: a proven win is taken, proven losses are avoided while anything else is left. Then
    ``final == "visits"`` takes the most visited child (ties: better mean, then lower action),
    ``"mean"`` the best mean among visited children (ties: more visits, then lower action).
    See :func:`agents.mcts.final.final_choice`.

    Raises:
        RuntimeError: if the root has no child (no simulation ran).
    """
    probs = np.empty(len(stats.visits), np.float64)
    action, value = final_choice(
        stats.visits,
        stats.value_sum,
        stats.proven,
        stats.present,
        stats.player,
        final == "mean",
        use_solver,
        stats.root_visits,
        stats.root_value_sum,
        probs,
    )
    if action < 0:
        raise RuntimeError("the search ended before expanding the root: no action to choose")
    return int(action), probs, float(value)
