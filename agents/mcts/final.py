"""The end of a search, compiled: the root's children over the action space, and the final choice.

Both run once per decision; compiled loops over the few root children cost a few microseconds,
where the same NumPy expressions on small arrays cost tens (it matters for short searches).
"""

from __future__ import annotations

from numba import njit

from agents.mcts.tree import (
    ACTION,
    FIRST_CHILD,
    NO_NODE,
    NUM_CHILDREN,
    PROVEN,
    PROVEN_DRAW,
    PROVEN_WIN_0,
    PROVEN_WIN_1,
    ROOT,
    UNPROVEN,
    VISITS,
)

# Solver ranks of a root action for the player to move.
RANK_UNPROVEN, RANK_LOSS, RANK_DRAW, RANK_WIN = -1, 0, 1, 2
# Which root children stay candidates after the solver's filter.
KEEP_ALL, KEEP_WINS, KEEP_NON_LOSSES = 0, 1, 2


@njit(cache=True)
def summarise_root(links, flags, value_sum, visits, sums, proven, present):
    """Write, per action, the root child's visits, value sum (player 0's view) and solver value,
    and whether the action is a root child; actions without a child get 0 / 0 / UNPROVEN /
    False."""
    visits[:] = 0.0
    sums[:] = 0.0
    proven[:] = UNPROVEN
    present[:] = False
    first = links[ROOT, FIRST_CHILD]
    if first == NO_NODE:
        return
    for child in range(first, first + links[ROOT, NUM_CHILDREN]):
        action = links[child, ACTION]
        visits[action] = links[child, VISITS]
        sums[action] = value_sum[child]
        proven[action] = flags[child, PROVEN]
        present[action] = True


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


@njit(cache=True)
def final_choice(
    visits, sums, proven, present, player, by_mean, use_solver, root_visits, root_sum, probs
):
    """Choose the action to play from the root summary; fill ``probs``; return
    ``(action, value)`` with the value in [-1, 1] for ``player`` (``action`` is -1 if the root
    has no child).

    Solver: a proven win is taken (``probs`` uniform over the proven wins, value 1); proven
    losses are avoided while anything else is left (value -1 if nothing else is; value 0 if
    only proven draws remain). Then ``by_mean`` False takes the most visited candidate (ties:
    better mean, then lower action), True the best mean among visited candidates (ties: more
    visits, then lower action); an unvisited child's mean is 0.5. ``probs`` is the visit
    distribution otherwise (uniform over the children before any visit).
    """
    num_actions = visits.shape[0]
    keep = KEEP_ALL
    solved = False
    value = 0.0
    if use_solver:
        any_win = False
        any_non_loss = False
        any_unproven = False
        any_draw = False
        for a in range(num_actions):
            if present[a]:
                rank = proven_rank(proven[a], player)
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
        else:
            solved, value = True, -1.0
    any_visited = False
    for a in range(num_actions):
        if _is_candidate(present[a], proven[a], player, keep) and visits[a] > 0:
            any_visited = True
    mean_first = by_mean and any_visited
    action = -1
    best_key0 = 0.0
    best_key1 = 0.0
    for a in range(num_actions):
        if not _is_candidate(present[a], proven[a], player, keep):
            continue
        if mean_first and visits[a] == 0:
            continue
        mean = 0.5 if visits[a] == 0 else sums[a] / visits[a]
        if player == 1:
            mean = 1.0 - mean
        key0, key1 = (mean, visits[a]) if mean_first else (visits[a], mean)
        if action < 0 or key0 > best_key0 or (key0 == best_key0 and key1 > best_key1):
            action, best_key0, best_key1 = a, key0, key1
    total = 0.0
    children = 0
    wins = 0
    for a in range(num_actions):
        total += visits[a]
        children += present[a]
        wins += present[a] and proven_rank(proven[a], player) == RANK_WIN
    for a in range(num_actions):
        if solved and value == 1.0:
            winner = present[a] and proven_rank(proven[a], player) == RANK_WIN
            probs[a] = 1.0 / wins if winner else 0.0
        elif total > 0:
            probs[a] = visits[a] / total
        else:
            probs[a] = present[a] / max(children, 1)
    if not solved and root_visits > 0:
        root_mean = root_sum / root_visits
        value = 2.0 * (root_mean if player == 0 else 1.0 - root_mean) - 1.0
    return action, value


@njit(cache=True, inline="always")
def _is_candidate(present, proven, player, keep):
    if not present:
        return False
    if keep == KEEP_WINS:
        return proven_rank(proven, player) == RANK_WIN
    if keep == KEEP_NON_LOSSES:
        return proven_rank(proven, player) != RANK_LOSS
    return True
