"""The compiled select-expand-simulate-backup loop over the array tree (:mod:`agents.mcts.tree`).

Every function takes the game's :class:`~mcts_envs.core.game.GameKernels` dispatchers as
arguments, so numba compiles one specialisation per game (cached on disk) and no Python runs
inside the loop. :func:`run_uct` runs a chunk of simulations; the agent calls it repeatedly,
checking the clock and growing the tree between chunks. :func:`descend` and :func:`backup` are
also used on their own when leaves are evaluated from Python (PUCT evaluators, Python rollouts).

Values are simulation results from player 0's view in [0, 1] (see :mod:`agents.mcts.tree`):
"binary" results are 1 / 0.5 / 0 for a win / draw / loss of player 0, "fractional" results are
``(1 + score_0 - score_1) / 2`` from the game's graded ``score``.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from agents.mcts.borrow import borrow
from agents.mcts.rollout import ROLLOUT_MINIMAX2, policy_playout
from agents.mcts.solver import (
    is_proven_loss,
    proven_from_returns,
    proven_result,
    settle_proven,
)
from agents.mcts.tree import (
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
from mcts_envs.core.game import CHANCE, TERMINAL
from mcts_envs.core.seeding import rng_below, rng_uniform

# What :func:`descend` stopped at.
#: A node reached for the first time: simulate from ``state``.
NEEDS_SIMULATION = 0
#: A terminal or proven node: ``result[0]`` holds the exact result.
HAS_RESULT = 1
#: ``path[depth]`` was just expanded with every child ("all" expansion): simulate each child.
EXPANDED_ALL = 2
#: PUCT: a decision node without children: evaluate ``state``, then
#: :func:`agents.mcts.puct.finish_batch` expands it with the priors.
NEEDS_EVALUATION = 3
#: Selection found no child to follow (a NaN exploration constant or value): the search must
#: stop and raise rather than index the tree with ``NO_NODE``.
SEARCH_FAILED = 4

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
def terminal_result(returns, score, state, fractional, values):
    """Result of a finished game from player 0's view in [0, 1] (binary or fractional)."""
    if fractional:
        score(state, values)
        return 0.5 + 0.5 * (values[0] - values[1])
    returns(state, values)
    return 0.5 + 0.25 * (values[0] - values[1])


@njit(cache=True, inline="always")
def allocate_children(
    legal_actions,
    chance_outcomes,
    links,
    flags,
    value_sum,
    prior,
    count,
    node,
    player,
    state,
    shuffle,
    expanded_now,
    rng,
    actions,
    probabilities,
):
    """Give ``node`` a block of children: every legal action (or chance outcome, with its
    probability as prior). ``shuffle`` randomises the order in which "one" expansion tries them.
    Returns the number of children."""
    if player == CHANCE:
        size = chance_outcomes(state, actions, probabilities)
    else:
        size = legal_actions(state, actions)
        for i in range(size):
            probabilities[i] = 1.0 / size
        if shuffle:
            for i in range(size - 1, 0, -1):
                j = rng_below(rng, i + 1)
                swap = actions[i]
                actions[i] = actions[j]
                actions[j] = swap
    num_expanded = size if (expanded_now or player == CHANCE) else 0
    attach_children(
        links, flags, value_sum, prior, count, node, actions, probabilities, size, num_expanded
    )
    return size


@njit(cache=True, inline="always")
def player_value(value_sum, visits, player):
    """Mean result of a node from ``player``'s view (0.5 if unvisited)."""
    if visits == 0:
        return 0.5
    mean = value_sum / visits
    return mean if player == 0 else 1.0 - mean


@njit(cache=True, inline="always")
def select_uct(links, flags, value_sum, node, player, c, use_solver):
    """The child maximising ``Q + c * sqrt(ln N / n)`` for ``player`` (unvisited first).

    Children proven lost for ``player`` are skipped unless all are (then the most visited).
    """
    first = links[node, FIRST_CHILD]
    expanded = links[node, NUM_EXPANDED]
    best = NO_NODE
    best_score = -np.inf
    if not use_solver:  # the hot path: table lookups, no division or root for small counts
        # Arithmetic rather than conditional constants: the compiler then keeps one multiply in
        # the loop instead of re-deriving a select from ``player`` for every child.
        offset = np.float64(player)
        sign = 1.0 - 2.0 * offset
        parent_visits = max(links[node, VISITS], 1)
        if parent_visits < TABLE_SIZE:
            scale = c * SQRT_LOG[parent_visits]
        else:
            scale = c * math.sqrt(math.log(parent_visits))
        # Unsigned indices: numba then skips its negative-index wrapping on every read.
        start = np.uint64(first)
        for i in range(expanded):
            child = start + np.uint64(i)
            visits = np.uint32(links[child, VISITS])
            if visits == 0:
                return np.int64(child)
            if visits < TABLE_SIZE_U32:
                inverse = INVERSE[visits]
                inverse_sqrt = INVERSE_SQRT[visits]
            else:
                inverse = 1.0 / visits
                inverse_sqrt = math.sqrt(inverse)
            score = offset + sign * value_sum[child] * inverse + scale * inverse_sqrt
            if score > best_score:
                best_score = score
                best = np.int64(child)
        return best
    log_visits = math.log(max(links[node, VISITS], 1))
    fallback = NO_NODE
    for i in range(expanded):
        child = first + i
        visits = links[child, VISITS]
        if use_solver and is_proven_loss(flags[child, PROVEN], player):
            if fallback == NO_NODE or visits > links[fallback, VISITS]:
                fallback = child
            continue
        if visits == 0:
            return child
        score = player_value(value_sum[child], visits, player) + c * math.sqrt(log_visits / visits)
        if score > best_score:
            best_score = score
            best = child
    return fallback if best == NO_NODE else best


@njit(cache=True, inline="always")
def select_puct(links, flags, value_sum, prior, node, player, c, use_solver):
    """The child maximising ``Q + c * P * sqrt(N) / (1 + n)`` for ``player``.

    Unvisited children take the node's own mean as ``Q`` (first-play urgency); proven losses
    are skipped unless all children are proven lost.
    """
    first = links[node, FIRST_CHILD]
    size = links[node, NUM_CHILDREN]
    sqrt_visits = math.sqrt(max(links[node, VISITS], 1))
    first_play = player_value(value_sum[node], links[node, VISITS], player)
    best = NO_NODE
    best_score = -np.inf
    fallback = NO_NODE
    for i in range(size):
        child = first + i
        visits = links[child, VISITS]
        if use_solver and is_proven_loss(flags[child, PROVEN], player):
            if fallback == NO_NODE or visits > links[fallback, VISITS]:
                fallback = child
            continue
        q = first_play if visits == 0 else player_value(value_sum[child], visits, player)
        score = q + c * prior[child] * sqrt_visits / (1.0 + visits)
        if score > best_score:
            best_score = score
            best = child
    return fallback if best == NO_NODE else best


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


@njit(cache=True, inline="always")
def descend(
    current_player,
    legal_actions,
    apply_action,
    chance_outcomes,
    returns,
    score,
    links,
    flags,
    value_sum,
    prior,
    count,
    root_state,
    state,
    path,
    rng,
    selection,
    c,
    expand_all,
    fractional,
    use_solver,
    actions,
    probabilities,
    values,
    result,
):
    """Select from the root to a leaf, replaying the edge actions into ``state``.

    Expands on the way (a node reached for the second time gets its block of children; "one"
    expansion then enters one untried child, "all" returns ``EXPANDED_ALL``). Chance nodes are
    crossed by sampling an outcome. Returns ``(status, depth)``: ``path[:depth + 1]`` are the
    nodes from the root; ``state`` is the leaf's state; ``result[0]`` is set for ``HAS_RESULT``.
    """
    state[:] = root_state
    node = ROOT
    depth = 0
    path[0] = ROOT
    while True:
        player = flags[node, PLAYER]
        if player == UNKNOWN_PLAYER:  # first visit: ask the game once, the node keeps it
            player = current_player(state)
            flags[node, PLAYER] = player
        if player == TERMINAL:
            result[0] = terminal_result(returns, score, state, fractional, values)
            if use_solver:
                returns(state, values)
                flags[node, PROVEN] = proven_from_returns(values[0], values[1])
            return HAS_RESULT, depth
        if use_solver and flags[node, PROVEN] != UNPROVEN:
            result[0] = proven_result(flags[node, PROVEN])
            return HAS_RESULT, depth
        if depth + 1 >= path.shape[0]:  # deeper than the path buffer: evaluate here
            return (NEEDS_EVALUATION if selection == SELECT_PUCT else NEEDS_SIMULATION), depth
        if links[node, FIRST_CHILD] == NO_NODE:
            if selection == SELECT_PUCT and player != CHANCE:
                return NEEDS_EVALUATION, depth
            if selection == SELECT_UCT and links[node, VISITS] == 0 and node != ROOT:
                return NEEDS_SIMULATION, depth
            all_now = expand_all and player != CHANCE and selection == SELECT_UCT
            size = allocate_children(
                legal_actions,
                chance_outcomes,
                links,
                flags,
                value_sum,
                prior,
                count,
                node,
                player,
                state,
                player != CHANCE,
                all_now,
                rng,
                actions,
                probabilities,
            )
            if size == 0:
                return NEEDS_SIMULATION, depth
            if all_now:
                return EXPANDED_ALL, depth
        first = links[node, FIRST_CHILD]
        if player == CHANCE:
            child = sample_chance_child(links, prior, node, rng)
        elif selection == SELECT_UCT and links[node, NUM_EXPANDED] < links[node, NUM_CHILDREN]:
            child = first + links[node, NUM_EXPANDED]
            links[node, NUM_EXPANDED] += 1
        elif selection == SELECT_UCT:
            child = select_uct(links, flags, value_sum, node, player, c, use_solver)
        else:
            child = select_puct(links, flags, value_sum, prior, node, player, c, use_solver)
        if child < 0:
            return SEARCH_FAILED, depth
        apply_action(state, links[child, ACTION])
        depth += 1
        path[depth] = child
        node = child


@njit(cache=True, inline="always")
def backup(links, flags, value_sum, path, depth, result, use_solver):
    """Add one visit and ``result`` (player 0's view) to every node on ``path[:depth + 1]``.

    With the solver on, proven values are propagated upwards as far as they settle parents.
    """
    for d in range(depth, -1, -1):
        node = path[d]
        links[node, VISITS] += 1
        value_sum[node] += result
        if d < depth:
            settle_proven(links, flags, node, path[d + 1], use_solver)


@njit(cache=True, inline="always")
def simulate(
    current_player,
    legal_actions,
    apply_action,
    chance_outcomes,
    returns,
    score,
    heuristic,
    playout,
    state,
    rng,
    rollout_kind,
    fractional,
    actions,
    replies,
    child,
    grandchild,
    probabilities,
    values,
    cutoff,
):
    """Play ``state`` with the rollout policy; return the result (player 0's view).

    ``cutoff >= 0`` stops after that many moves (0: score the leaf at once); an unfinished game
    then scores ``heuristic(state, 0)``. ``cutoff < 0`` plays to the end.
    """
    if rollout_kind == ROLLOUT_MINIMAX2 or cutoff >= 0:
        policy_playout(
            current_player,
            legal_actions,
            apply_action,
            chance_outcomes,
            heuristic,
            state,
            rng,
            rollout_kind == ROLLOUT_MINIMAX2,
            actions,
            replies,
            child,
            grandchild,
            probabilities,
            cutoff if cutoff >= 0 else 1 << 62,
        )
    else:
        playout(state, rng)
    if current_player(state) != TERMINAL:
        return heuristic(state, 0)
    return terminal_result(returns, score, state, fractional, values)


@njit(cache=True)
def run_uct(
    current_player,
    legal_actions,
    apply_action,
    chance_outcomes,
    returns,
    score,
    heuristic,
    playout,
    links,
    flags,
    value_sum,
    prior,
    count,
    root_state,
    rng,
    iterations,
    c,
    expand_all,
    rollout_kind,
    fractional,
    use_solver,
    max_children,
    max_depth,
    cutoff,
):
    """Run up to ``iterations`` UCT simulations; returns how many ran, or -1 if the search
    failed (``SEARCH_FAILED``: no child to select, or a NaN leaf value; nothing was written
    outside the tree).

    Stops early when the root is proven (solver) or the tree has fewer than ``max_children``
    free slots (the caller grows it and calls again).
    """
    size = root_state.shape[0]
    owned = np.empty(4 * size + max_depth + 2 * max_children + 3, np.int64)
    floats = np.empty(max_children + 3, np.float64)
    # Borrowed views (no reference counting per kernel call); ``owned``/``floats`` and the
    # caller's arrays outlive them.
    buffer = borrow(owned)
    state = buffer[:size]
    leaf_state = buffer[size : 2 * size]
    child = buffer[2 * size : 3 * size]
    grandchild = buffer[3 * size : 4 * size]
    path = buffer[4 * size : 4 * size + max_depth]
    actions = buffer[4 * size + max_depth : 4 * size + max_depth + max_children]
    replies = buffer[4 * size + max_depth + max_children : 4 * size + max_depth + 2 * max_children]
    float_buffer = borrow(floats)
    probabilities = float_buffer[:max_children]
    values = float_buffer[max_children : max_children + 2]
    result = float_buffer[max_children + 2 : max_children + 3]
    links = borrow(links)
    flags = borrow(flags)
    value_sum = borrow(value_sum)
    prior = borrow(prior)
    count = borrow(count)
    root_state = borrow(root_state)
    rng = borrow(rng)
    capacity = value_sum.shape[0]
    done = 0
    while done < iterations:
        if use_solver and flags[ROOT, PROVEN] != UNPROVEN:
            break
        if count[0] + max_children > capacity:
            break
        status, depth = descend(
            current_player,
            legal_actions,
            apply_action,
            chance_outcomes,
            returns,
            score,
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
            c,
            expand_all,
            fractional,
            use_solver,
            actions,
            probabilities,
            values,
            result,
        )
        if status == SEARCH_FAILED:
            done = -1
            break
        if status == HAS_RESULT:
            backup(links, flags, value_sum, path, depth, result[0], use_solver)
            done += 1
        elif status == NEEDS_SIMULATION:
            outcome = simulate(
                current_player,
                legal_actions,
                apply_action,
                chance_outcomes,
                returns,
                score,
                heuristic,
                playout,
                state,
                rng,
                rollout_kind,
                fractional,
                actions,
                replies,
                child,
                grandchild,
                probabilities,
                values,
                cutoff,
            )
            if outcome != outcome:  # NaN from a heuristic: stop, the caller raises
                done = -1
                break
            backup(links, flags, value_sum, path, depth, outcome, use_solver)
            done += 1
        else:  # EXPANDED_ALL: one simulation from each new child
            node = path[depth]
            first = links[node, FIRST_CHILD]
            leaf_state[:] = state
            for i in range(links[node, NUM_CHILDREN]):
                if done >= iterations:
                    break
                new = first + i
                state[:] = leaf_state
                apply_action(state, links[new, ACTION])
                mover = current_player(state)
                flags[new, PLAYER] = mover
                path[depth + 1] = new
                if mover == TERMINAL:
                    outcome = terminal_result(returns, score, state, fractional, values)
                    if use_solver:
                        returns(state, values)
                        flags[new, PROVEN] = proven_from_returns(values[0], values[1])
                else:
                    outcome = simulate(
                        current_player,
                        legal_actions,
                        apply_action,
                        chance_outcomes,
                        returns,
                        score,
                        heuristic,
                        playout,
                        state,
                        rng,
                        rollout_kind,
                        fractional,
                        actions,
                        replies,
                        child,
                        grandchild,
                        probabilities,
                        values,
                        cutoff,
                    )
                if outcome != outcome:
                    done = -1
                    break
                backup(links, flags, value_sum, path, depth + 1, outcome, use_solver)
                done += 1
            if done < 0:
                break
    # The owners of the borrowed views must outlive the loop: numba frees a local array right
    # after its last use, so use them here, at the end.
    owned[0] = done
    floats[0] = 0.0
    return done


@njit(cache=True)
def immediate_checks(current_player, legal_actions, apply_action, returns, state, actions, safe):
    """Immediate-win and block-loss checks for the player to move in ``state``.

    Writes the legal actions into ``actions`` and ``safe[i] = 1`` when after ``actions[i]`` the
    opponent (if on move) has no move that wins at once. Returns ``(winning action or -1,
    number of legal actions)``.
    """
    me = current_player(state)
    count = legal_actions(state, actions)
    child = np.empty(state.shape[0], np.int64)
    grandchild = np.empty(state.shape[0], np.int64)
    replies = np.empty(actions.shape[0], np.int64)
    values = np.empty(2, np.float64)
    for i in range(count):
        child[:] = state
        apply_action(child, actions[i])
        mover = current_player(child)
        safe[i] = 1
        if mover == TERMINAL:
            returns(child, values)
            if values[me] > values[1 - me]:
                return actions[i], count
            if values[me] < values[1 - me]:
                safe[i] = 0
        elif mover == 1 - me:
            reply_count = legal_actions(child, replies)
            for j in range(reply_count):
                grandchild[:] = child
                apply_action(grandchild, replies[j])
                if current_player(grandchild) == TERMINAL:
                    returns(grandchild, values)
                    if values[mover] > values[me]:
                        safe[i] = 0
                        break
    return -1, count


@njit(cache=True)
def find_descendant(apply_action, links, root_state, target, max_depth):
    """A reached node within ``max_depth`` plies of the root whose state equals ``target``.

    Depth-first over visited nodes, replaying actions; returns the node id or ``NO_NODE``.
    """
    size = root_state.shape[0]
    states = np.empty((max_depth + 1, size), np.int64)
    states[0, :] = root_state
    stack_nodes = np.empty(links.shape[0], np.int64)
    stack_depths = np.empty(links.shape[0], np.int64)
    top = 0
    stack_nodes[0] = ROOT
    stack_depths[0] = 0
    top = 1
    while top > 0:
        top -= 1
        node = stack_nodes[top]
        depth = stack_depths[top]
        if depth > 0:
            states[depth, :] = states[depth - 1, :]
            apply_action(states[depth], links[node, ACTION])
            same = True
            for i in range(size):
                if states[depth, i] != target[i]:
                    same = False
                    break
            if same:
                return node
        if depth == max_depth or links[node, FIRST_CHILD] == NO_NODE:
            continue
        first = links[node, FIRST_CHILD]
        for i in range(links[node, NUM_CHILDREN]):
            if links[first + i, VISITS] > 0:
                stack_nodes[top] = first + i
                stack_depths[top] = depth + 1
                top += 1
    return NO_NODE
