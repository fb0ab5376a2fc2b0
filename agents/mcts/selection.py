"""Selection rules of the compiled loop: UCT (a fast branch and a checked one), PUCT, and the
sampling of chance outcomes (inlined into :func:`mcts_envs.agents.mcts.search.descend`).

Values are stored from player 0's view (see :mod:`mcts_envs.agents.mcts.tree`); every rule converts them
to the view of the player choosing at the node. Only the root's moves can be masked.
"""

from __future__ import annotations

import math

import numpy as np

from mcts_envs.agents.mcts.solver import is_proven_loss
from mcts_envs.agents.mcts.tree import (
    ACTION,
    FIRST_CHILD,
    NO_NODE,
    NUM_CHILDREN,
    NUM_EXPANDED,
    PROVEN,
    PROVEN_WIN_1,
    ROOT,
    VISITS,
)
from mcts_envs.core.numba_cache import njit
from mcts_envs.core.seeding import rng_uniform

#: Selection rules.
SELECT_UCT, SELECT_PUCT = 0, 1

#: ``1 / n`` and ``1 / sqrt(n)`` for small visit counts: UCT selection reads them instead of
#: dividing and taking a square root for every child (the cost that dominates wide nodes), and
#: ``sqrt(ln n)`` for the parent instead of a logarithm per selection (``n >= 1``).
TABLE_SIZE = 4096
INVERSE = np.concatenate(([0.0], 1.0 / np.arange(1, TABLE_SIZE)))
INVERSE_SQRT = np.sqrt(INVERSE)
SQRT_LOG = np.sqrt(np.log(np.maximum(np.arange(TABLE_SIZE), 1)))
TABLE_SIZE_U32 = np.uint32(TABLE_SIZE)


@njit(cache=True, inline="always")
def player_value(value_sum, visits, player):
    """Mean result of a node from ``player``'s view (0.5 if unvisited)."""
    if visits == 0:
        return 0.5
    mean = value_sum / visits
    return mean if player == 0 else 1.0 - mean


@njit(cache=True, inline="always")
def _uct_scale(links, node, c):
    parent_visits = max(links[node, VISITS], 1)
    if parent_visits < TABLE_SIZE:
        return c * SQRT_LOG[parent_visits]
    return c * math.sqrt(math.log(parent_visits))


@njit(cache=True, inline="always")
def _inverses(visits):
    """``(1 / n, 1 / sqrt(n))`` of a visit count ``n >= 1`` (``uint32``), from the tables when
    small."""
    if visits < TABLE_SIZE_U32:
        return INVERSE[visits], INVERSE_SQRT[visits]
    inverse = 1.0 / visits
    return inverse, math.sqrt(inverse)


@njit(cache=True, inline="always")
def _uct_score(value_sum, child, visits, offset, sign, scale):
    """``Q + scale / sqrt(n)`` for the mover (``offset``/``sign`` map player 0's mean to it)."""
    inverse, inverse_sqrt = _inverses(visits)
    return offset + sign * value_sum[child] * inverse + scale * inverse_sqrt


@njit(cache=True, inline="always")
def _mixed_score(t, child, visits, offset, sign, scale, weight):
    """``(1 - weight) * Q + weight * V + scale / sqrt(n)`` for the mover (``V``: the child's
    implicit minimax value; ``offset``/``sign`` map player 0's values to the mover's)."""
    inverse, inverse_sqrt = _inverses(visits)
    q = offset + sign * t.value_sum[child] * inverse
    v = offset + sign * t.minimax[child]
    return (1.0 - weight) * q + weight * v + scale * inverse_sqrt


@njit(cache=True, inline="always")
def select_uct_fast(links, value_sum, node, player, c):
    """UCT without solver or mask: the child maximising ``Q + c * sqrt(ln N / n)``
    (unvisited first), with table lookups instead of divisions and roots for small counts."""
    # Arithmetic rather than conditional constants: the compiler then keeps one multiply in
    # the loop instead of re-deriving a select from ``player`` for every child.
    offset = np.float64(player)
    sign = 1.0 - 2.0 * offset
    scale = _uct_scale(links, node, c)
    best = NO_NODE
    best_score = -np.inf
    # Unsigned indices: numba then skips its negative-index wrapping on every read.
    start = np.uint64(links[node, FIRST_CHILD])
    for i in range(links[node, NUM_EXPANDED]):
        child = start + np.uint64(i)
        visits = np.uint32(links[child, VISITS])
        if visits == 0:
            return np.int64(child)
        score = _uct_score(value_sum, child, visits, offset, sign, scale)
        if score > best_score:
            best_score = score
            best = np.int64(child)
    return best


@njit(cache=True, inline="always")
def select_uct_checked(t, node, player, c, use_solver, root_mask, masked, weight):
    """UCT as :func:`select_uct_fast`, also skipping masked root moves and (``use_solver``)
    children proven lost for ``player`` unless all are (then the most visited of those).

    With ``weight > 0`` (implicit minimax backups), a child's ``Q`` is
    ``(1 - weight) * Q + weight * V``, ``V`` its implicit minimax value (``t.minimax``) for
    ``player``; ``weight == 0`` computes exactly the plain rule."""
    links = t.links
    mixed = weight > 0.0
    offset = np.float64(player)
    sign = 1.0 - 2.0 * offset
    scale = _uct_scale(links, node, c)
    lost = PROVEN_WIN_1 - player  # the proven value that is a loss for ``player``
    best = NO_NODE
    best_score = -np.inf
    fallback = NO_NODE
    start = np.uint64(links[node, FIRST_CHILD])
    for i in range(links[node, NUM_EXPANDED]):
        child = start + np.uint64(i)
        if masked and root_mask[links[child, ACTION]] == 0:
            continue
        visits = np.uint32(links[child, VISITS])
        if use_solver and t.flags[child, PROVEN] == lost:
            if fallback == NO_NODE or visits > links[fallback, VISITS]:
                fallback = np.int64(child)
            continue
        if visits == 0:
            return np.int64(child)
        if mixed:
            score = _mixed_score(t, child, visits, offset, sign, scale, weight)
        else:
            score = _uct_score(t.value_sum, child, visits, offset, sign, scale)
        if score > best_score:
            best_score = score
            best = np.int64(child)
    return fallback if best == NO_NODE else best


@njit(cache=True, inline="always")
def select_puct(t, node, player, c, use_solver, root_mask, masked):
    """The child maximising ``Q + c * P * sqrt(N) / (1 + n)`` for ``player``; unvisited
    children take the node's own mean as ``Q`` (first-play urgency). Masked root moves and
    (``use_solver``) children proven lost are skipped unless all are proven lost."""
    links = t.links
    first = links[node, FIRST_CHILD]
    sqrt_visits = math.sqrt(max(links[node, VISITS], 1))
    first_play = player_value(t.value_sum[node], links[node, VISITS], player)
    best = NO_NODE
    best_score = -np.inf
    fallback = NO_NODE
    for i in range(links[node, NUM_CHILDREN]):
        child = first + i
        if masked and root_mask[links[child, ACTION]] == 0:
            continue
        visits = links[child, VISITS]
        if use_solver and is_proven_loss(t.flags[child, PROVEN], player):
            if fallback == NO_NODE or visits > links[fallback, VISITS]:
                fallback = child
            continue
        q = first_play if visits == 0 else player_value(t.value_sum[child], visits, player)
        score = q + c * t.prior[child] * sqrt_visits / (1.0 + visits)
        if score > best_score:
            best_score = score
            best = child
    return fallback if best == NO_NODE else best


@njit(cache=True, inline="always")
def select_child(t, node, player, cfg, root_mask):
    """The child to follow from decision ``node`` by the configured rule (``NO_NODE`` if no
    score compares, e.g. NaN)."""
    masked = node == ROOT and root_mask.shape[0] > 0
    if cfg.selection == SELECT_PUCT:
        return select_puct(t, node, player, cfg.c, cfg.solver, root_mask, masked)
    if cfg.solver or masked or cfg.minimax_weight > 0.0:
        weight = cfg.minimax_weight
        return select_uct_checked(t, node, player, cfg.c, cfg.solver, root_mask, masked, weight)
    return select_uct_fast(t.links, t.value_sum, node, player, cfg.c)


@njit(cache=True, inline="always")
def selected_score(t, node, child, player, cfg):
    """The UCT score :func:`select_child` gave ``child`` of decision ``node`` (``cfg.c``, the
    implicit minimax mix when on): ``inf`` for an unvisited child, ``-inf`` for ``NO_NODE``
    and (solver on) a child proven lost for ``player`` (the fallback when all are lost).
    First-play urgency compares it with the score of an untried child."""
    if child < 0:
        return -np.inf
    links = t.links
    visits = np.uint32(links[child, VISITS])
    if visits == 0:
        return np.inf
    if cfg.solver and t.flags[child, PROVEN] == PROVEN_WIN_1 - player:
        return -np.inf
    offset = np.float64(player)
    sign = 1.0 - 2.0 * offset
    scale = _uct_scale(links, node, cfg.c)
    if cfg.minimax_weight > 0.0:
        return _mixed_score(t, child, visits, offset, sign, scale, cfg.minimax_weight)
    return _uct_score(t.value_sum, child, visits, offset, sign, scale)


@njit(cache=True, inline="always")
def sample_chance_child(links, prior, node, rng):
    """A child of chance node ``node`` drawn by the outcome probabilities (stored as priors)."""
    first = links[node, FIRST_CHILD]
    size = links[node, NUM_CHILDREN]
    u = rng_uniform(rng)
    acc = 0.0
    for i in range(size - 1):
        acc += prior[first + i]
        if u < acc:
            return first + i
    return first + size - 1
