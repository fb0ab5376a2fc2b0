"""The end of a search: the root's children (sparse) and the final choice, compiled.

Both run once per decision over the root's children only (never over the whole action space:
Tantrix has 121,104 actions and a few hundred legal ones); compiled loops over them cost a few
microseconds, where the same NumPy expressions on small arrays cost tens.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from mcts_envs.agents.mcts.solver import RANK_DRAW, RANK_LOSS, RANK_UNPROVEN, RANK_WIN, proven_rank
from mcts_envs.agents.mcts.tree import (
    ACTION,
    FIRST_CHILD,
    NO_NODE,
    NUM_CHILDREN,
    PROVEN,
    ROOT,
    VISITS,
    Tree,
)
from mcts_envs.core.errors import SearchError
from mcts_envs.core.numba_cache import njit
from mcts_envs.core.numba_compat import entry_point

# Which root children stay candidates after the solver's filter.
KEEP_ALL, KEEP_WINS, KEEP_NON_LOSSES = 0, 1, 2


class RootChildren(NamedTuple):
    """The root's children a search may choose from, one entry each (in tree order).

    Attributes:
        actions: ``int64[n]`` the edge actions.
        visits: ``float64[n]`` visit counts.
        sums: ``float64[n]`` result sums from player 0's view (results in [0, 1]).
        proven: ``int8[n]`` solver values (``UNPROVEN`` if none).
    """

    actions: np.ndarray
    visits: np.ndarray
    sums: np.ndarray
    proven: np.ndarray


@dataclass
class RootSummary:
    """What one search found at its root (sparse; root-parallel workers' summaries merge).

    Attributes:
        player: the player to move at the root.
        children: the root children (masked moves left out).
        root_visits: visits of the root.
        root_value_sum: result sum of the root from player 0's view.
        root_proven: solver value of the root.
        simulations: simulations run by this search.
        nodes: tree nodes in use after the search.
        tree_full: the search stopped early because its tree reached its memory bound
            (``max_memory_mb``); the answer uses what the tree holds.
    """

    player: int
    children: RootChildren
    root_visits: int
    root_value_sum: float
    root_proven: int
    simulations: int
    nodes: int
    tree_full: bool = False


@njit(cache=True, inline="always")
def _is_candidate(proven, player, keep):
    if keep == KEEP_WINS:
        return proven_rank(proven, player) == RANK_WIN
    if keep == KEEP_NON_LOSSES:
        return proven_rank(proven, player) != RANK_LOSS
    return True


@njit(cache=True)
def root_children(tree, root_mask, actions, visits, sums, proven):
    """Write the root's children (masked moves left out): action, visits, value sum (player
    0's view) and solver value. Returns how many were written."""
    links = tree.links
    first = links[ROOT, FIRST_CHILD]
    if first == NO_NODE:
        return 0
    size = 0
    for child in range(first, first + links[ROOT, NUM_CHILDREN]):
        action = links[child, ACTION]
        if root_mask.shape[0] > 0 and root_mask[action] == 0:
            continue
        actions[size] = action
        visits[size] = links[child, VISITS]
        sums[size] = tree.value_sum[child]
        proven[size] = tree.flags[child, PROVEN]
        size += 1
    return size


@njit(cache=True, inline="always")
def mover_value(mean, player):
    """A mean result from player 0's view (in [0, 1]) as the value for ``player`` in [-1, 1]
    (NaN stays NaN)."""
    return 2.0 * (mean if player == 0 else 1.0 - mean) - 1.0


@njit(cache=True)
def final_choice(children, player, by_mean, use_solver, root_visits, root_sum, probs, means):
    """Choose the child to play; fill ``probs`` (over the children) and ``means`` (each child's
    mean in [-1, 1] for ``player``, NaN if unvisited); return ``(index, value)`` with the value
    in [-1, 1] for ``player`` (``index`` is -1 if there is no child).

    Solver: a proven win is taken (``probs`` uniform over the proven wins, value 1); proven
    losses are avoided while anything else is left (value -1 if nothing else is; value 0 if
    only proven draws remain). Then ``by_mean`` False takes the most visited candidate (ties:
    better mean, then lower action), True the best mean among visited candidates (ties: more
    visits, then lower action); an unvisited child's mean is 0.5. ``probs`` is the visit
    distribution otherwise (uniform over the children before any visit).
    """
    actions, visits, sums, proven = children
    size = actions.shape[0]
    keep = KEEP_ALL
    solved = False
    value = 0.0
    if use_solver:
        any_win = False
        any_non_loss = False
        any_unproven = False
        any_draw = False
        for i in range(size):
            rank = proven_rank(proven[i], player)
            any_win |= rank == RANK_WIN
            any_non_loss |= rank != RANK_LOSS
            any_unproven |= rank == RANK_UNPROVEN
            any_draw |= rank == RANK_DRAW
        if any_win:
            keep, solved, value = KEEP_WINS, True, 1.0
        elif any_non_loss:
            keep = KEEP_NON_LOSSES
            if not any_unproven and any_draw:
                solved, value = True, 0.0
        elif size > 0:
            solved, value = True, -1.0
    any_visited = False
    for i in range(size):
        if _is_candidate(proven[i], player, keep) and visits[i] > 0:
            any_visited = True
    mean_first = by_mean and any_visited
    index = -1
    best_key0 = 0.0
    best_key1 = 0.0
    for i in range(size):
        if not _is_candidate(proven[i], player, keep):
            continue
        if mean_first and visits[i] == 0:
            continue
        mean = 0.5 if visits[i] == 0 else sums[i] / visits[i]
        if player == 1:
            mean = 1.0 - mean
        key0, key1 = (mean, visits[i]) if mean_first else (visits[i], mean)
        if (
            index < 0
            or key0 > best_key0
            or (
                key0 == best_key0
                and (key1 > best_key1 or (key1 == best_key1 and actions[i] < actions[index]))
            )
        ):
            index, best_key0, best_key1 = i, key0, key1
    total = 0.0
    wins = 0
    for i in range(size):
        total += visits[i]
        wins += proven_rank(proven[i], player) == RANK_WIN
        mean = sums[i] / visits[i] if visits[i] > 0 else np.nan
        means[i] = mover_value(mean, player)
    for i in range(size):
        if solved and value == 1.0:
            probs[i] = 1.0 / wins if proven_rank(proven[i], player) == RANK_WIN else 0.0
        elif total > 0:
            probs[i] = visits[i] / total
        else:
            probs[i] = 1.0 / size
    if not solved and root_visits > 0:
        value = mover_value(root_sum / root_visits, player)
    return index, value


@dataclass
class RootStatistics:
    """A root summarised densely over the action space (arrays of length ``num_actions``,
    indexed by action; ``present`` marks the root's children): the form of :func:`decide`, for
    tools and tests that index by action. The other fields are :class:`RootSummary`'s."""

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


def decide(stats: RootStatistics, final: str, use_solver: bool) -> tuple[int, np.ndarray, float]:
    """``(action, dense visit distribution, root value in [-1, 1] for the mover)`` from a dense
    root summary, by :func:`final_choice` over its present actions (in increasing order).

    Raises:
        SearchError: if no action is present (no simulation ran).
    """
    actions = np.flatnonzero(stats.present).astype(np.int64)
    children = RootChildren(
        actions,
        np.ascontiguousarray(stats.visits[actions], np.float64),
        np.ascontiguousarray(stats.value_sum[actions], np.float64),
        np.ascontiguousarray(stats.proven[actions], np.int8),
    )
    summary = RootSummary(
        stats.player,
        children,
        stats.root_visits,
        stats.root_value_sum,
        stats.root_proven,
        stats.simulations,
        stats.nodes,
    )
    index, probs, _, value = choose(summary, final == "mean", use_solver)
    dense = np.zeros(len(stats.visits), np.float64)
    dense[actions] = probs
    return int(actions[index]), dense, float(value)


@functools.cache
def _entry_points() -> tuple:
    """Direct entry points of :func:`root_children` and :func:`final_choice` (their arguments
    are built in this module, so their types hold by construction)."""
    children = RootChildren(np.zeros(1, np.int64), np.zeros(1), np.zeros(1), np.zeros(1, np.int8))
    mask = np.zeros(0, np.int8)
    return (
        entry_point(root_children, (Tree(16).arrays(), mask, *children)).compiled,
        entry_point(final_choice, (children, 0, False, False, 1, 0.5, *children[1:3])).compiled,
    )


def summarise_root(
    tree: Tree, player: int, mask: np.ndarray, simulations: int, tree_full: bool = False
) -> RootSummary:
    """The :class:`RootSummary` of ``tree`` after a search (masked root moves left out;
    ``mask`` is the search's ``int8`` root mask, empty for none; ``tree_full``: the search
    stopped at the tree's memory bound)."""
    size = int(tree.links[ROOT, NUM_CHILDREN])
    buffers = RootChildren(
        np.empty(size, np.int64), np.empty(size), np.empty(size), np.empty(size, np.int8)
    )
    written = _entry_points()[0](tree.arrays(), mask, *buffers)
    return RootSummary(
        player=player,
        children=RootChildren(*(array[:written] for array in buffers))
        if written < size
        else buffers,
        root_visits=int(tree.links[ROOT, VISITS]),
        root_value_sum=float(tree.value_sum[ROOT]),
        root_proven=int(tree.flags[ROOT, PROVEN]),
        simulations=simulations,
        nodes=tree.num_nodes,
        tree_full=bool(tree_full),
    )


def choose(summary: RootSummary, by_mean: bool, use_solver: bool) -> tuple:
    """``(child index, probabilities over the children, each child's mean value in [-1, 1] for
    the mover (NaN if unvisited), root value in [-1, 1] for the mover)`` by :func:`final_choice`
    for a summary from :func:`summarise_root` or a merge of them.

    Raises:
        SearchError: if the root has no child (no simulation ran).
    """
    size = len(summary.children.actions)
    probs, means = np.empty(size), np.empty(size)
    index, value = _entry_points()[1](
        summary.children,
        summary.player,
        by_mean,
        use_solver,
        summary.root_visits,
        summary.root_value_sum,
        probs,
        means,
    )
    if index < 0:
        raise SearchError("the search ended before expanding the root: no action to choose")
    return index, probs, means, value
