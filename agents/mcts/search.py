"""The one compiled MCTS loop: select, expand, evaluate the leaf, back up (UCT or PUCT).

:func:`run_chunk` runs simulations over the array tree (:mod:`mcts_envs.agents.mcts.tree`) until a budget
of iterations, a full tree, a proven root or a full batch of leaves awaiting evaluation. What is
the same for every search is written once here; what differs is injected:

* the game, as its :class:`~mcts_envs.core.game.GameKernels` named tuple of dispatchers (numba
  compiles one specialisation per game, cached on disk);
* the leaf evaluation (:class:`LoopSettings` ``leaf``): a compiled playout kernel (the game's
  random playout or a user ``@njit`` rollout), depth-2 minimax playouts, a cutoff heuristic, or
  ``LEAF_EXTERNAL``: the loop stops with a batch of leaves (under a virtual loss) for Python to
  evaluate (a learned evaluator, a Python rollout), and :func:`finish_pending` backs them up;
* the backup: the simulation result on the path, plus (``minimax_weight > 0``, UCT with
  compiled leaves) implicit minimax backups (Lanctot, Winands, Pepels and Sturtevant, "Monte
  Carlo Tree Search with Heuristic Evaluations using Implicit Minimax Backups", CIG 2014): each
  node also keeps the minimax value of the leaf evaluations in its subtree (:func:`minimax_backup`),
  and UCT selection mixes it into the mean, ``(1 - w) * Q + w * V`` (:mod:`mcts_envs.agents.mcts.selection`);
* the selection rule (UCT, optionally with first-play urgency: an untried child scores a
  constant instead of first in line; or PUCT) and the root mask (``root_mask[action] == 0`` excludes a root
  move: how the immediate-win and block-loss checks restrict a reused tree without discarding it).

Values are simulation results from player 0's view in [0, 1] (see :mod:`mcts_envs.agents.mcts.tree`):
"binary" results are 1 / 0.5 / 0 for a win / draw / loss of player 0, "fractional" results are
``(1 + score_0 - score_1) / 2`` from the game's graded ``score``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from mcts_envs.agents.mcts.rollout import policy_playout
from mcts_envs.agents.mcts.selection import (
    SELECT_PUCT,
    SELECT_UCT,
    sample_chance_child,
    select_child,
    selected_score,
)
from mcts_envs.agents.mcts.solver import proven_from_returns, proven_result, settle_proven
from mcts_envs.agents.mcts.tree import (
    ACTION,
    FIRST_CHILD,
    NO_NODE,
    NUM_CHILDREN,
    NUM_EXPANDED,
    PLAYER,
    PROVEN,
    ROOT,
    UNKNOWN_PLAYER,
    UNPROVEN,
    VISITS,
    attach_children,
)
from mcts_envs.agents.move_order import sort_best_first
from mcts_envs.core.game import CHANCE, TERMINAL
from mcts_envs.core.numba_cache import njit
from mcts_envs.core.numba_compat import borrow
from mcts_envs.core.seeding import rng_below

__all__ = ["SELECT_PUCT", "SELECT_UCT"]  # re-exported: the loop settings name them

# What :func:`descend` stopped at.
#: A node reached for the first time: simulate from ``state``.
NEEDS_SIMULATION = 0
#: A terminal or proven node: ``result[0]`` holds the exact result.
HAS_RESULT = 1
#: ``path[depth]`` was just expanded with every child ("all" expansion): simulate each child.
EXPANDED_ALL = 2
#: PUCT: a decision node without children: evaluate ``state``, then :func:`finish_pending`
#: expands it with the priors.
NEEDS_EVALUATION = 3
#: Selection found no child to follow (a NaN exploration constant or value): the search must
#: stop and raise rather than index the tree with ``NO_NODE``.
SEARCH_FAILED = 4

#: Leaf evaluations: a compiled playout kernel, depth-2 minimax playouts, or Python (batched).
LEAF_PLAYOUT, LEAF_MINIMAX2, LEAF_EXTERNAL = 0, 1, 2


class LoopSettings(NamedTuple):
    """The parameters of the compiled loop (values, not types: one compilation serves all).

    Attributes:
        c: exploration constant of the selection rule.
        selection: ``SELECT_UCT`` or ``SELECT_PUCT``.
        expand_all: UCT: expand every child of a leaf at once and simulate each.
        leaf: ``LEAF_PLAYOUT``, ``LEAF_MINIMAX2`` or ``LEAF_EXTERNAL``.
        fractional: results from the game's graded ``score`` instead of its returns.
        solver: MCTS-Solver on.
        cutoff: compiled playouts stop after this many moves (heuristic score); -1: never.
        max_children: the largest child block (legal actions or chance outcomes).
        minimax_weight: weight ``w`` of the implicit minimax value in UCT selection; 0: off
            (the tree's ``minimax`` array may then be empty), else the array must cover the
            tree's node slots (:meth:`~mcts_envs.agents.mcts.tree.Tree.track_minimax`).
        first_play: UCT with "one" expansion: the score of an untried child (first-play
            urgency); a node tries a new child only while no tried one scores at least this.
            ``inf``: off, every child is tried once before any is tried again (plain UCT).
        heuristic_order: UCT with "one" expansion: a node tries its children best first by
            the game's ``heuristic`` of the position each leads to (for the mover), instead
            of in random order (ties stay random).
    """

    c: float
    selection: int
    expand_all: bool
    leaf: int
    fractional: bool
    solver: bool
    cutoff: int
    max_children: int
    minimax_weight: float
    first_play: float = np.inf
    heuristic_order: bool = False


class Scratch(NamedTuple):
    """Working buffers of the searches of one engine (allocated once, reused by every chunk)."""

    state: np.ndarray  # int64[state_size]: the state being descended / simulated
    leaf_state: np.ndarray  # int64[state_size]: the leaf of an "all" expansion
    child: np.ndarray  # int64[state_size]: minimax2 playout buffers
    grandchild: np.ndarray  # int64[state_size]
    path: np.ndarray  # int64[max_depth]: node ids from the root
    actions: np.ndarray  # int64[max_children]
    replies: np.ndarray  # int64[max_children]
    probabilities: np.ndarray  # float64[max_children]
    values: np.ndarray  # float64[2]
    result: np.ndarray  # float64[1]


class Pending(NamedTuple):
    """Leaves awaiting evaluation from Python (``LEAF_EXTERNAL``), each under a virtual loss."""

    paths: np.ndarray  # int64[batch, max_depth]
    depths: np.ndarray  # int64[batch]
    statuses: np.ndarray  # int64[batch]: NEEDS_SIMULATION or NEEDS_EVALUATION
    states: np.ndarray  # int64[batch, state_size]
    size: np.ndarray  # int64[1]: leaves pending


def make_scratch(state_size: int, max_depth: int, max_children: int) -> Scratch:
    """Buffers for a search of a game with these sizes."""
    return Scratch(
        *(np.empty(state_size, np.int64) for _ in range(4)),
        np.empty(max_depth, np.int64),
        np.empty(max_children, np.int64),
        np.empty(max_children, np.int64),
        np.empty(max_children, np.float64),
        np.empty(2, np.float64),
        np.empty(1, np.float64),
    )


def make_pending(batch: int, state_size: int, max_depth: int) -> Pending:
    """Room for ``batch`` pending leaves (``batch`` 0 for compiled leaf evaluations)."""
    return Pending(
        np.empty((batch, max_depth), np.int64),
        np.empty(batch, np.int64),
        np.empty(batch, np.int64),
        np.empty((batch, state_size), np.int64),
        np.zeros(1, np.int64),
    )


@njit(cache=True, inline="always")
def terminal_result(returns, score, state, fractional, values):
    """Result of a finished game from player 0's view in [0, 1] (binary or fractional)."""
    if fractional:
        score(state, values)
        return 0.5 + 0.5 * (values[0] - values[1])
    returns(state, values)
    return 0.5 + 0.25 * (values[0] - values[1])


@njit(cache=True, inline="always")
def score_terminal(k, t, s, cfg, node):
    """The result (player 0's view) of the finished game ``s.state`` at ``node``; with the
    solver on, ``node`` is proven by the game's returns."""
    result = terminal_result(k.returns, k.score, s.state, cfg.fractional, s.values)
    if cfg.solver:
        if cfg.fractional:  # else terminal_result left the returns in s.values
            k.returns(s.state, s.values)
        t.flags[node, PROVEN] = proven_from_returns(s.values[0], s.values[1])
    return result


@njit(cache=True, inline="always")
def allowed_at(t, child, node, root_mask):
    """Whether selection may enter ``child`` of ``node`` (only root moves can be masked)."""
    return node != ROOT or root_mask.shape[0] == 0 or root_mask[t.links[child, ACTION]] != 0


@njit(cache=True, inline="always")
def next_untried(t, node, root_mask):
    """ "One" expansion: the next untried child of ``node`` (masked root moves are passed by
    and count as tried), or ``NO_NODE`` when none is left."""
    links = t.links
    while links[node, NUM_EXPANDED] < links[node, NUM_CHILDREN]:
        candidate = links[node, FIRST_CHILD] + links[node, NUM_EXPANDED]
        links[node, NUM_EXPANDED] += 1
        if allowed_at(t, candidate, node, root_mask):
            return candidate
    return NO_NODE


@njit(cache=True)  # not inlined: off by default, kept out of the hot loop's body
def order_by_heuristic(k, s, state, player, size):
    """Sort ``s.actions[:size]`` (legal actions of ``state``, ``player`` to move) by the game's
    ``heuristic`` of the position each leads to, best for ``player`` first; ties keep their
    order (a stable insertion sort, so the random order breaks them). Uses ``s.child`` and
    ``s.probabilities`` as buffers."""
    actions, values = s.actions, s.probabilities
    for i in range(size):
        s.child[:] = state
        k.apply_action(s.child, actions[i])
        values[i] = k.heuristic(s.child, player)
    sort_best_first(actions, values, size)


@njit(cache=True, inline="always")
def allocate_children(k, t, s, node, player, state, expanded_now, by_heuristic, rng):
    """Give ``node`` its block of children: every legal action in random order (the order in
    which "one" expansion tries them; ``by_heuristic``: then sorted by the heuristic of the
    position each leads to, best for the mover first), or every chance outcome with its
    probability as prior. Returns the number of children."""
    actions = s.actions
    probabilities = s.probabilities
    if player == CHANCE:
        size = k.chance_outcomes(state, actions, probabilities)
    else:
        size = k.legal_actions(state, actions)
        for i in range(size - 1, 0, -1):
            j = rng_below(rng, i + 1)
            swap = actions[i]
            actions[i] = actions[j]
            actions[j] = swap
        if by_heuristic:
            order_by_heuristic(k, s, state, player, size)
        for i in range(size):
            probabilities[i] = 1.0 / size
    num_expanded = size if (expanded_now or player == CHANCE) else 0
    attach_children(t, node, actions, probabilities, size, num_expanded)
    return size


@njit(cache=True, inline="always")
def descend(k, t, s, cfg, root_state, rng, root_mask):
    """Select from the root to a leaf, replaying the edge actions into ``s.state``.

    Expands on the way (UCT: a node reached for the second time gets its block of children;
    "one" expansion then enters one untried child, "all" returns ``EXPANDED_ALL``; PUCT: a
    decision node without children returns ``NEEDS_EVALUATION``). Chance nodes are crossed by
    sampling an outcome. Returns ``(status, depth)``: ``s.path[:depth + 1]`` are the nodes from
    the root; ``s.state`` is the leaf's state; ``s.result[0]`` is set for ``HAS_RESULT``.
    """
    links = t.links
    flags = t.flags
    state = s.state
    path = s.path
    puct = cfg.selection == SELECT_PUCT
    state[:] = root_state
    node = ROOT
    depth = 0
    path[0] = ROOT
    while True:
        player = flags[node, PLAYER]
        if player == UNKNOWN_PLAYER:  # first visit: ask the game once, the node keeps it
            player = k.current_player(state)
            flags[node, PLAYER] = player
        if player == TERMINAL:
            s.result[0] = score_terminal(k, t, s, cfg, node)
            return HAS_RESULT, depth
        if cfg.solver and flags[node, PROVEN] != UNPROVEN:
            s.result[0] = proven_result(flags[node, PROVEN])
            return HAS_RESULT, depth
        if depth + 1 >= path.shape[0]:  # deeper than the path buffer: evaluate here
            return (NEEDS_EVALUATION if puct else NEEDS_SIMULATION), depth
        if links[node, FIRST_CHILD] == NO_NODE:
            if puct and player != CHANCE:
                return NEEDS_EVALUATION, depth
            if not puct and links[node, VISITS] == 0 and node != ROOT:
                return NEEDS_SIMULATION, depth
            all_now = cfg.expand_all and player != CHANCE and not puct
            by_heuristic = cfg.heuristic_order and not all_now and not puct
            if allocate_children(k, t, s, node, player, state, all_now, by_heuristic, rng) == 0:
                return NEEDS_SIMULATION, depth
            if all_now:
                return EXPANDED_ALL, depth
        child = NO_NODE
        if player == CHANCE:
            child = sample_chance_child(links, t.prior, node, rng)
        else:
            # first-play urgency: an untried child scores ``first_play``; a tried child scoring
            # at least that is followed instead of trying a new one
            tried, size = links[node, NUM_EXPANDED], links[node, NUM_CHILDREN]
            urgency = not puct and cfg.first_play < np.inf and 0 < tried < size
            if not puct and not urgency:
                child = next_untried(t, node, root_mask)
            if child == NO_NODE:
                # the one call site of select_child: it is inlined, so every call site adds
                # a copy of its body to the loop's compile
                best = select_child(t, node, player, cfg, root_mask)
                child = best
                if urgency and selected_score(t, node, best, player, cfg) < cfg.first_play:
                    child = next_untried(t, node, root_mask)
                    if child == NO_NODE:
                        child = best
        if child < 0:
            return SEARCH_FAILED, depth
        k.apply_action(state, np.int64(links[child, ACTION]))  # int64, as every caller passes
        depth += 1
        path[depth] = child
        node = child


@njit(cache=True, inline="always")
def backup(t, path, depth, result, use_solver):
    """Add one visit and ``result`` (player 0's view) to every node on ``path[:depth + 1]``.

    With the solver on, proven values are propagated upwards as far as they settle parents.
    """
    for d in range(depth, -1, -1):
        node = path[d]
        t.links[node, VISITS] += 1
        t.value_sum[node] += result
        if d < depth:
            settle_proven(t.links, t.flags, node, path[d + 1], use_solver)


@njit(cache=True)  # not inlined: off by default, kept out of the hot loop's body
def minimax_backup(t, path, depth, leaf_value):
    """Implicit minimax backup: the leaf ``path[depth]`` takes ``leaf_value`` (player 0's
    view); each node above takes the best value of its visited children for its player to
    move (a chance node: their probability-weighted mean), up to the first node whose value
    does not change (the nodes above it then keep theirs). A child's new value at least as
    good for the mover as the node's is the node's new value without a scan of the children
    (their best can only be that value now); otherwise the children are scanned."""
    links, flags, minimax = t.links, t.flags, t.minimax
    minimax[path[depth]] = leaf_value
    for d in range(depth - 1, -1, -1):
        node = path[d]
        player = flags[node, PLAYER]
        changed = minimax[path[d + 1]]
        if (player == 0 and changed >= minimax[node]) or (player == 1 and changed <= minimax[node]):
            if changed == minimax[node]:
                return
            minimax[node] = changed
            continue
        first = links[node, FIRST_CHILD]
        best = np.inf if player == 1 else -np.inf
        total = 0.0
        weights = 0.0
        for child in range(first, first + links[node, NUM_CHILDREN]):
            if links[child, VISITS] == 0:
                continue
            value = np.float64(minimax[child])
            if player == CHANCE:
                total += t.prior[child] * value
                weights += t.prior[child]
            elif player == 1:
                best = min(best, value)
            else:
                best = max(best, value)
        if player == CHANCE:
            best = total / weights
        new = np.float32(best)
        if new == minimax[node]:
            return
        minimax[node] = new


@njit(cache=True, inline="always")
def back_up(t, path, depth, result, leaf_value, cfg):
    """:func:`backup` of ``result``, and with ``cfg.minimax_weight > 0`` the
    :func:`minimax_backup` of ``leaf_value`` (both from player 0's view)."""
    backup(t, path, depth, result, cfg.solver)
    if cfg.minimax_weight > 0.0:  # an int64 depth: a literal one would compile another version
        minimax_backup(t, path, np.int64(depth), np.float64(leaf_value))


@njit(cache=True, inline="always")
def simulate(k, playout, s, cfg, rng):
    """Play ``s.state`` with the compiled leaf policy; return the result (player 0's view).

    ``cfg.cutoff >= 0`` stops after that many moves (0: score the leaf at once); an unfinished
    game then scores ``heuristic(state, 0)``. ``cfg.cutoff < 0`` plays to the end.
    """
    state = s.state
    if cfg.leaf == LEAF_MINIMAX2 or cfg.cutoff >= 0:
        max_moves = cfg.cutoff if cfg.cutoff >= 0 else 1 << 62
        policy_playout(k, state, rng, cfg.leaf == LEAF_MINIMAX2, s, max_moves)
    else:
        playout(state, rng)
    if k.current_player(state) != TERMINAL:
        return k.heuristic(state, np.int64(0))  # int64: one compiled version
    return terminal_result(k.returns, k.score, state, cfg.fractional, s.values)


@njit(cache=True, inline="always")
def virtual_loss(flags, path, d):
    """The result (player 0's view) counted as a loss for the mover choosing ``path[d]``."""
    if d == 0:
        return 0.5
    mover = flags[path[d - 1], PLAYER]
    if mover == 0:
        return 0.0
    if mover == 1:
        return 1.0
    return 0.5


@njit(cache=True)  # not inlined: keeps the compiled-leaf hot loop small
def leave_pending(t, s, pending, depth, status):
    """Queue the leaf ``s.path[depth]`` (state ``s.state``) for Python under a virtual loss."""
    b = pending.size[0]
    pending.statuses[b] = status
    pending.depths[b] = depth
    pending.paths[b, : depth + 1] = s.path[: depth + 1]
    pending.states[b, :] = s.state
    for d in range(depth + 1):
        t.links[s.path[d], VISITS] += 1
        t.value_sum[s.path[d]] += virtual_loss(t.flags, s.path, d)
    pending.size[0] = b + 1


@njit(cache=True, inline="always")
def evaluate_leaf(k, playout, t, s, cfg, rng, pending, depth, status):
    """Score the leaf ``s.path[depth]`` and back it up (compiled leaves), or queue it for
    Python (``LEAF_EXTERNAL``). Returns the simulations completed (0 or 1; -1 on a NaN)."""
    if cfg.leaf == LEAF_EXTERNAL:  # int64 arguments: literal ones would compile more versions
        leave_pending(t, s, pending, np.int64(depth), np.int64(status))
        return 0
    # The leaf's implicit minimax value is its heuristic (the outcome itself at cutoff 0).
    leaf_value = 0.0
    if cfg.minimax_weight > 0.0 and cfg.cutoff != 0:
        leaf_value = k.heuristic(s.state, np.int64(0))
    outcome = simulate(k, playout, s, cfg, rng)
    if outcome != outcome or leaf_value != leaf_value:  # NaN from a heuristic: the caller raises
        return -1
    back_up(t, s.path, depth, outcome, outcome if cfg.cutoff == 0 else leaf_value, cfg)
    return 1


@njit(cache=True, nogil=True)  # UAI isready answers while a chunk runs
def run_chunk(k, playout, tree, scratch, cfg, root_state, rng, root_mask, pending, iterations):
    """Run up to ``iterations`` simulations; returns how many completed, or -1 if the search
    failed (``SEARCH_FAILED``: no child to select, or a NaN leaf value; nothing was written
    outside the tree).

    Leaves queued for Python (``LEAF_EXTERNAL``) count against ``iterations`` but not in the
    return value (:func:`finish_pending` completes them). Stops early when the root is proven
    (solver), fewer than two child blocks are free (the caller grows the tree and calls again),
    or the pending batch is full.
    """
    # Borrowed views (no reference counting per kernel call): the caller's arrays outlive them.
    t, s, pending = borrow(tree), borrow(scratch), borrow(pending)
    root_state, rng, root_mask = borrow(root_state), borrow(rng), borrow(root_mask)
    capacity = t.value_sum.shape[0]
    batch = pending.depths.shape[0]
    done = 0
    while done + pending.size[0] < iterations:
        if cfg.solver and t.flags[ROOT, PROVEN] != UNPROVEN:
            break
        if t.count[0] + 2 * cfg.max_children > capacity:
            break
        if cfg.leaf == LEAF_EXTERNAL and pending.size[0] >= batch:
            break
        status, depth = descend(k, t, s, cfg, root_state, rng, root_mask)
        if status == SEARCH_FAILED:
            return -1
        if status == HAS_RESULT:
            back_up(t, s.path, depth, s.result[0], s.result[0], cfg)
            done += 1
        elif status != EXPANDED_ALL:  # NEEDS_SIMULATION or NEEDS_EVALUATION
            outcome = evaluate_leaf(k, playout, t, s, cfg, rng, pending, depth, status)
            if outcome < 0:
                return -1
            done += outcome
            if depth == 0 and cfg.leaf == LEAF_EXTERNAL:
                break  # the root itself awaits evaluation: nothing else to select yet
        else:  # EXPANDED_ALL: one simulation from each new child
            node = s.path[depth]
            first = t.links[node, FIRST_CHILD]
            s.leaf_state[:] = s.state
            for i in range(t.links[node, NUM_CHILDREN]):
                if done + pending.size[0] >= iterations:
                    break
                if cfg.leaf == LEAF_EXTERNAL and pending.size[0] >= batch:
                    break
                new = first + i
                if not allowed_at(t, new, node, root_mask):
                    continue
                s.state[:] = s.leaf_state
                k.apply_action(s.state, np.int64(t.links[new, ACTION]))
                mover = k.current_player(s.state)
                t.flags[new, PLAYER] = mover
                s.path[depth + 1] = new
                if mover == TERMINAL:
                    result = score_terminal(k, t, s, cfg, new)
                    back_up(t, s.path, depth + 1, result, result, cfg)
                    done += 1
                else:
                    outcome = evaluate_leaf(
                        k, playout, t, s, cfg, rng, pending, depth + 1, NEEDS_SIMULATION
                    )
                    if outcome < 0:
                        return -1
                    done += outcome
    return done


@njit(cache=True)
def finish_pending(k, tree, pending, results, priors, use_solver):
    """Complete the pending leaves: replace each virtual loss by the leaf's ``results[b]``
    (player 0's view) and, for ``NEEDS_EVALUATION`` leaves, expand the leaf with the
    ``priors[b]`` of its legal actions (renormalised; uniform if they sum to 0). A leaf whose
    children do not fit in the tree's arrays (a tree at its memory bound) stays unexpanded."""
    t = tree
    max_children = pending.paths.shape[1] if priors.shape[1] == 0 else priors.shape[1]
    actions = np.empty(max_children, np.int64)
    edge_priors = np.empty(max_children, np.float64)
    for b in range(pending.size[0]):
        depth = pending.depths[b]
        leaf = pending.paths[b, depth]
        if pending.statuses[b] == NEEDS_EVALUATION and t.links[leaf, FIRST_CHILD] == NO_NODE:
            size = k.legal_actions(pending.states[b], actions)
            if t.count[0] + size > t.value_sum.shape[0]:
                size = 0  # no room: the value is backed up, the leaf keeps no children
            total = 0.0
            for i in range(size):
                total += max(priors[b, actions[i]], 0.0)
            for i in range(size):
                p = max(priors[b, actions[i]], 0.0)
                edge_priors[i] = p / total if total > 0.0 else 1.0 / size
            if size > 0:
                attach_children(t, leaf, actions, edge_priors, size, size)
        for d in range(depth, -1, -1):
            node = pending.paths[b, d]
            t.value_sum[node] += results[b] - virtual_loss(t.flags, pending.paths[b], d)
            if d < depth:
                settle_proven(t.links, t.flags, node, pending.paths[b, d + 1], use_solver)
    pending.size[0] = 0
