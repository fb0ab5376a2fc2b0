"""MCTS-Solver: proven game-theoretic values backed up through the tree (Winands et al. 2008).

A node's ``flags[n, PROVEN]`` is ``UNPROVEN`` or its exact value under perfect play, stored
absolutely (``PROVEN_WIN_0``, ``PROVEN_WIN_1``, ``PROVEN_DRAW``). Terminal nodes are proven by
their returns. A decision node is proven a win for its mover as soon as one child is, and proven
with the best child value once every child is in the tree and proven. A chance node is proven when
every outcome is in the tree and all carry the same proven value. Searches treat proven nodes as
terminal (they return the exact result), never select a child proven lost for the mover while
another exists, and stop early once the root is proven.
"""

from __future__ import annotations

from mcts_envs.agents.mcts.tree import (
    FIRST_CHILD,
    NUM_CHILDREN,
    NUM_EXPANDED,
    PLAYER,
    PROVEN,
    PROVEN_DRAW,
    PROVEN_WIN_0,
    PROVEN_WIN_1,
    UNPROVEN,
)
from mcts_envs.core.game import CHANCE
from mcts_envs.core.numba_cache import njit


@njit(cache=True)
def proven_result(proven):
    """The simulation result (player 0's view, in [0, 1]) of a proven value."""
    if proven == PROVEN_WIN_0:
        return 1.0
    if proven == PROVEN_WIN_1:
        return 0.0
    return 0.5


@njit(cache=True)
def proven_from_returns(returns_0, returns_1):
    """The proven value of a terminal state with these returns."""
    if returns_0 > returns_1:
        return PROVEN_WIN_0
    if returns_1 > returns_0:
        return PROVEN_WIN_1
    return PROVEN_DRAW


# Ranks of a solver value for one player.
RANK_UNPROVEN, RANK_LOSS, RANK_DRAW, RANK_WIN = -1, 0, 1, 2


@njit(cache=True, inline="always")
def proven_rank(proven, player):
    """``RANK_WIN``, ``RANK_DRAW``, ``RANK_LOSS`` or ``RANK_UNPROVEN`` of a solver value for
    ``player``."""
    if proven == UNPROVEN:
        return RANK_UNPROVEN
    if proven == PROVEN_DRAW:
        return RANK_DRAW
    win = PROVEN_WIN_0 if player == 0 else PROVEN_WIN_1
    return RANK_WIN if proven == win else RANK_LOSS


@njit(cache=True, inline="always")
def is_proven_loss(proven, player):
    """Whether ``proven`` is a proven loss for ``player``."""
    return proven_rank(proven, player) == RANK_LOSS


@njit(cache=True)
def try_prove(links, flags, node):
    """Set ``flags[node, PROVEN]`` if the children's proven values settle it; returns it."""
    player = flags[node, PLAYER]
    first = links[node, FIRST_CHILD]
    count = links[node, NUM_CHILDREN]
    if first < 0 or count == 0:
        return flags[node, PROVEN]
    if player == CHANCE:
        value = UNPROVEN
        for i in range(count):
            proven = flags[first + i, PROVEN]
            if proven == UNPROVEN or (value != UNPROVEN and proven != value):
                return UNPROVEN
            value = proven
        flags[node, PROVEN] = value
        return value
    if player < 0:
        return flags[node, PROVEN]
    expanded = links[node, NUM_EXPANDED]
    all_proven = expanded == count
    best_rank = -1
    for i in range(expanded):
        proven = flags[first + i, PROVEN]
        if proven == UNPROVEN:
            all_proven = False
            continue
        rank = proven_rank(proven, player)
        if rank == RANK_WIN:
            flags[node, PROVEN] = proven
            return proven
        if rank > best_rank:
            best_rank = rank
    if not all_proven:
        return UNPROVEN
    if best_rank == RANK_DRAW:
        flags[node, PROVEN] = PROVEN_DRAW
    else:
        flags[node, PROVEN] = PROVEN_WIN_1 if player == 0 else PROVEN_WIN_0
    return flags[node, PROVEN]


@njit(cache=True, inline="always")
def settle_proven(links, flags, node, child, use_solver):
    """During a backup through ``node`` from its ``child``: if the solver is on, ``node`` is
    unproven and ``child`` proven, try to prove ``node`` (:func:`try_prove`)."""
    if use_solver and flags[node, PROVEN] == UNPROVEN and flags[child, PROVEN] != UNPROVEN:
        try_prove(links, flags, node)
