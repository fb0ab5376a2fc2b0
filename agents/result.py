"""What one search decided: :class:`SearchResult`, shared by the search agents.

Sparse by design: it lists the root moves the search considered (a few hundred at most), never
the whole action space (Tantrix has 121,104 actions); :meth:`SearchResult.policy` makes the
dense distribution only when asked (a training target, ``agent.policy``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


def _empty(dtype: type) -> np.ndarray:
    return np.empty(0, dtype)


@dataclass(eq=False)
class SearchResult:
    """The outcome of one decision's search.

    Attributes:
        action: the action chosen.
        value: the root value in [-1, 1] from the view of the player to move (decided results
            are +-1, or near it for alpha-beta, which prefers quicker wins).
        player: the player to move at the root.
        actions: ``int64[n]`` the root moves considered (MCTS: the root's children, without
            moves excluded by the win / block check; alpha-beta: the legal moves).
        visits: ``float64[n]`` visit counts of those moves (MCTS; zeros otherwise).
        probabilities: ``float64[n]`` the distribution over ``actions`` the agent reports as
            its policy (MCTS: root visits, or uniform over proven wins; others: one-hot).
        action_values: ``float64[n]`` each move's mean value in [-1, 1] for the player to move
            (NaN if unvisited or unknown).
        proven: ``int8[n]`` MCTS-Solver values of the moves (see :mod:`mcts_envs.agents.mcts.tree`).
        simulations: MCTS simulations run by this search (0 for an immediate win).
        nodes: MCTS: tree nodes in use after the search; alpha-beta: nodes visited.
        seconds: wall-clock time of the whole decision (re-rooting and checks included).
        depth: alpha-beta: the deepest completed iteration (0 otherwise).
        solved: whether ``value`` is exact (proven by the solver or searched to the end).
        reused: MCTS: whether the search continued a tree kept from earlier moves.
        immediate: MCTS: whether an immediately winning move was played without a search.
        tree_full: MCTS: whether the search stopped early because its tree reached its memory
            bound (``max_memory_mb``); the answer uses what the tree holds.
        evaluator_calls: MCTS with an ``evaluator`` (PUCT): the batched evaluator calls this
            search made, summed over root-parallel workers (0 without an evaluator, and for an
            immediate win).
        evaluated_leaves: the leaves those calls evaluated (the sum of their batch sizes; at
            most ``batch_size`` per call, fewer when a batch meets terminal or proven leaves
            or the budget ends). :attr:`mean_batch` is their ratio.
    """

    action: int
    value: float
    player: int = 0
    actions: np.ndarray = field(default_factory=lambda: _empty(np.int64))
    visits: np.ndarray = field(default_factory=lambda: _empty(np.float64))
    probabilities: np.ndarray = field(default_factory=lambda: _empty(np.float64))
    action_values: np.ndarray = field(default_factory=lambda: _empty(np.float64))
    proven: np.ndarray = field(default_factory=lambda: _empty(np.int8))
    simulations: int = 0
    nodes: int = 0
    seconds: float = 0.0
    depth: int = 0
    solved: bool = False
    reused: bool = False
    immediate: bool = False
    tree_full: bool = False
    evaluator_calls: int = 0
    evaluated_leaves: int = 0

    @property
    def mean_batch(self) -> float:
        """``evaluated_leaves / evaluator_calls``: the mean leaves per evaluator call (0 without
        calls)."""
        return self.evaluated_leaves / self.evaluator_calls if self.evaluator_calls else 0.0

    def policy(self, num_actions: int) -> np.ndarray:
        """The dense ``float64[num_actions]`` distribution (``probabilities`` scattered), or
        one-hot on ``action`` if no distribution was recorded."""
        probs = np.zeros(num_actions, np.float64)
        if len(self.actions):
            probs[self.actions] = self.probabilities
        else:
            probs[self.action] = 1.0
        return probs

    def __repr__(self) -> str:
        return (
            f"SearchResult(action={self.action}, value={self.value:.5f}, "
            f"moves={len(self.actions)}, simulations={self.simulations}, depth={self.depth}, "
            f"solved={self.solved}, nodes={self.nodes}, seconds={self.seconds:.3f}"
            f"{', tree_full=True' if self.tree_full else ''})"
        )
