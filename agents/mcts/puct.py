"""Leaves evaluated in Python: the PUCT evaluator interface, its checks, root Dirichlet noise,
and Python rollout policies.

The evaluator interface (a learned model or anything else)::

    priors, values = evaluator(observations, masks)

``observations`` stacks ``game.observation(state, player)`` of ``B`` leaf states for their player
to move, ``masks`` stacks ``game.action_mask(state)`` (``int8[B, num_actions]``). It returns
``priors`` ``float[B, num_actions]`` (renormalised over the legal actions; need not sum to 1)
and ``values`` ``float[B]`` in [-1, 1] from the view of the player to move at each leaf.

The compiled loop (:func:`mcts_envs.agents.mcts.search.run_chunk`, PUCT selection) collects a batch of
leaves under a virtual loss; :func:`evaluate_leaves` calls the evaluator on them once, and
:func:`mcts_envs.agents.mcts.search.finish_pending` expands them with the priors and backs up the values.
Terminal and proven leaves never reach the evaluator. :class:`RootNoise` mixes Dirichlet noise
into the root priors for one search. A Python rollout policy (``rollout=fn``) takes the same
path: :func:`external_values` plays each pending leaf to the end with it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mcts_envs.agents.mcts.search import NEEDS_EVALUATION, terminal_result
from mcts_envs.agents.mcts.tree import FIRST_CHILD, NO_NODE, NUM_CHILDREN, ROOT, Tree
from mcts_envs.core.errors import SearchError
from mcts_envs.core.game import CHANCE, TERMINAL
from mcts_envs.core.seeding import rng_choice_weighted


class RootNoise:
    """Dirichlet noise mixed into the root priors once per search (PUCT only), removed after.

    Args:
        alpha: concentration of the noise.
        fraction: weight of the noise in the root priors (0: none).
        seed: seeds the noise (a NumPy generator: Dirichlet draws; everything else in a search
            uses the search's compiled generator).
        active: whether the search uses priors at all.
    """

    def __init__(self, alpha: float, fraction: float, seed: int, active: bool) -> None:
        self.alpha = alpha
        self.fraction = fraction if active else 0.0
        self.seed = seed
        self._clean: np.ndarray | None = None
        self._block = (0, 0)

    def apply(self, tree: Tree) -> None:
        """Mix the noise in, once, as soon as the root has children."""
        if self._clean is not None or self.fraction <= 0.0 or self.alpha <= 0.0:
            return
        first = int(tree.links[ROOT, FIRST_CHILD])
        size = int(tree.links[ROOT, NUM_CHILDREN])
        if first == NO_NODE:
            return
        self._block = (first, size)
        self._clean = tree.prior[first : first + size].copy()
        if size > 1:
            noise = np.random.default_rng(self.seed).dirichlet(np.full(size, self.alpha))
            mixed = (1.0 - self.fraction) * self._clean + self.fraction * noise
            tree.prior[first : first + size] = mixed.astype(np.float32)

    def restore(self, tree: Tree) -> None:
        """Put the clean priors back (a reused tree keeps no noise)."""
        if self._clean is not None:
            first, size = self._block
            tree.prior[first : first + size] = self._clean


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


def python_rollout(game, state: np.ndarray, policy, rng: np.ndarray, fractional: bool) -> float:
    """Play ``state`` to the end with a Python policy (chance outcomes drawn with the search's
    own generator ``rng``); the result from player 0's view."""
    state = state.copy()
    while (player := game.current_player(state)) != TERMINAL:
        if player == CHANCE:
            outcomes, probabilities = game.chance_outcomes(state)
            action = int(outcomes[rng_choice_weighted(rng, probabilities, len(outcomes))])
        else:
            action = int(policy(game, state))
        state = game.apply(state, action)
    returns, score = game.kernels.returns, game.kernels.score
    return float(terminal_result(returns, score, state, fractional, np.empty(2)))


def external_values(
    game, evaluator, rollout, fractional: bool, pending, rng: np.ndarray
) -> tuple[np.ndarray, ...]:
    """``(results, priors)`` of the pending leaves (:class:`mcts_envs.agents.mcts.search.Pending`), from
    ``evaluator`` if it is not None, else by playing each to the end with the Python policy
    ``rollout`` (results from the game's graded score if ``fractional``)."""
    size = int(pending.size[0])
    if evaluator is not None:
        return evaluate_leaves(game, evaluator, pending.states, pending.statuses, size)
    results = [
        python_rollout(game, pending.states[b], rollout, rng, fractional) for b in range(size)
    ]
    return np.array(results), np.zeros((size, 0))
