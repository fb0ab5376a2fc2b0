"""PUCT search with priors and values from an evaluator, with leaves evaluated in batches.

The evaluator interface (a learned model or anything else)::

    priors, values = evaluator(observations, masks)

``observations`` stacks ``game.observation(state, player)`` of ``B`` leaf states for their player
to move, ``masks`` stacks ``game.action_mask(state)`` (``int8[B, num_actions]``). It returns
``priors`` ``float[B, num_actions]`` (renormalised over the legal actions here; need not sum to 1)
and ``values`` ``float[B]`` in [-1, 1] from the view of the player to move at each leaf.

Leaves are collected by repeated compiled descents (:func:`select_batch`) with a virtual loss on
their paths so one batch spreads over different leaves, then expanded with the priors and backed
up with the values (:func:`finish_batch`). Terminal and proven leaves never reach the evaluator.
Dirichlet noise is mixed into the root priors once per search (:func:`add_root_noise`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from agents.mcts.search import (
    HAS_RESULT,
    NEEDS_EVALUATION,
    SEARCH_FAILED,
    SELECT_PUCT,
    backup,
    descend,
)
from agents.mcts.solver import settle_proven
from agents.mcts.tree import (
    FIRST_CHILD,
    NO_NODE,
    PLAYER,
    PROVEN,
    ROOT,
    UNPROVEN,
    VISITS,
    attach_children,
)
from mcts_envs.core.errors import SearchError


@njit(cache=True)
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


@njit(cache=True)
def select_batch(
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
    rng,
    batch,
    c,
    fractional,
    use_solver,
    paths,
    depths,
    statuses,
    states,
    max_children,
):
    """Descend ``batch`` times by PUCT; returns how many descents ran (-1: a descent found no
    child to select, see ``SEARCH_FAILED``).

    Terminal or proven leaves are backed up at once (``statuses[b] = HAS_RESULT``). Leaves to
    evaluate (``NEEDS_EVALUATION``) keep their path, depth and state, with a virtual loss on the
    path until :func:`finish_batch`.
    """
    actions = np.empty(max_children, np.int64)
    probabilities = np.empty(max_children, np.float64)
    values = np.empty(2, np.float64)
    result = np.empty(1, np.float64)
    state = np.empty(root_state.shape[0], np.int64)
    path = np.empty(paths.shape[1], np.int64)
    capacity = value_sum.shape[0]
    done = 0
    for b in range(batch):
        if use_solver and flags[ROOT, PROVEN] != UNPROVEN:
            break
        if count[0] + 2 * max_children > capacity:
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
            SELECT_PUCT,
            c,
            False,
            fractional,
            use_solver,
            actions,
            probabilities,
            values,
            result,
        )
        if status == SEARCH_FAILED:
            return -1
        statuses[b] = status
        depths[b] = depth
        paths[b, : depth + 1] = path[: depth + 1]
        states[b, :] = state
        if status == HAS_RESULT:
            backup(links, flags, value_sum, path, depth, result[0], use_solver)
        else:
            for d in range(depth + 1):
                links[path[d], VISITS] += 1
                value_sum[path[d]] += virtual_loss(flags, path, d)
        done += 1
    return done


@njit(cache=True)
def finish_batch(
    legal_actions,
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
    use_solver,
):
    """Expand each evaluated leaf with its priors and replace its virtual loss by its value."""
    actions = np.empty(priors.shape[1], np.int64)
    edge_priors = np.empty(priors.shape[1], np.float64)
    for b in range(done):
        if statuses[b] != NEEDS_EVALUATION:
            continue
        depth = depths[b]
        leaf = paths[b, depth]
        if links[leaf, FIRST_CHILD] == NO_NODE:
            size = legal_actions(states[b], actions)
            total = 0.0
            for i in range(size):
                total += max(priors[b, actions[i]], 0.0)
            for i in range(size):
                p = max(priors[b, actions[i]], 0.0)
                edge_priors[i] = p / total if total > 0.0 else 1.0 / size
            attach_children(
                links, flags, value_sum, prior, count, leaf, actions, edge_priors, size, size
            )
        for d in range(depth, -1, -1):
            node = paths[b, d]
            value_sum[node] += results[b] - virtual_loss(flags, paths[b], d)
            if d < depth:
                settle_proven(links, flags, node, paths[b, d + 1], use_solver)


def add_root_noise(
    prior: np.ndarray, first: int, size: int, alpha: float, fraction: float, generator
) -> np.ndarray:
    """Mix ``Dirichlet(alpha)`` noise into the root priors in place; returns the clean priors."""
    clean = prior[first : first + size].copy()
    if fraction > 0.0 and alpha > 0.0 and size > 1:
        noise = generator.dirichlet(np.full(size, alpha))
        prior[first : first + size] = ((1.0 - fraction) * clean + fraction * noise).astype(
            np.float32
        )
    return clean


def evaluate_leaves(game, evaluator, states: np.ndarray, statuses: np.ndarray, done: int):
    """Call ``evaluator`` on the leaves awaiting evaluation; returns ``(results, priors)``.

    ``results[b]`` is the value converted to player 0's view in [0, 1].
    """
    results = np.zeros(done, np.float64)
    priors = np.zeros((done, game.info.num_actions), np.float64)
    pending = [b for b in range(done) if statuses[b] == NEEDS_EVALUATION]
    if not pending:
        return results, priors
    players = [game.current_player(states[b]) for b in pending]
    observations = np.stack(
        [game.observation(states[b], player) for b, player in zip(pending, players, strict=True)]
    )
    masks = np.stack([game.action_mask(states[b]) for b in pending])
    output = evaluator(observations, masks)
    leaf_priors, leaf_values = check_evaluation(output, len(pending), game.info.num_actions)
    for row, (b, player) in enumerate(zip(pending, players, strict=True)):
        value = float(np.clip(leaf_values[row], -1.0, 1.0))
        results[b] = 0.5 * (1.0 + value) if player == 0 else 0.5 * (1.0 - value)
        priors[b] = leaf_priors[row]
    return results, priors


def check_evaluation(output: Any, batch: int, num_actions: int) -> tuple[np.ndarray, np.ndarray]:
    """``(priors float64[batch, num_actions], values float64[batch])`` from an evaluator's output.

    Raises:
        SearchError: if the output is not a pair of that shape (a ``[batch, 1]`` value column
            is accepted) or holds a non-finite number.
    """
    expected = (
        f"(priors of shape ({batch}, {num_actions}), values of shape ({batch},)) of finite numbers"
    )
    try:
        priors, values = output
        priors = np.asarray(priors, np.float64)
        values = np.asarray(values, np.float64)
    except (TypeError, ValueError) as error:
        raise SearchError(f"the evaluator must return {expected}; got {error}") from None
    if values.shape == (batch, 1):
        values = values[:, 0]
    if priors.shape != (batch, num_actions) or values.shape != (batch,):
        raise SearchError(
            f"the evaluator must return {expected}; got priors of shape {priors.shape} and "
            f"values of shape {values.shape}"
        )
    if not (np.isfinite(priors).all() and np.isfinite(values).all()):
        raise SearchError(f"the evaluator must return {expected}; got NaN or infinity")
    return priors, values
