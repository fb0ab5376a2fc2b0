"""Counting the evaluator calls of one search (for :class:`~mcts_envs.agents.result.SearchResult`).

Each search engine (:class:`mcts_envs.agents.mcts.driver.Engine`) wraps the config's evaluator in a
:class:`CountingEvaluator` (its ``evaluator`` attribute; the config keeps the user's evaluator), and
each search result reports the difference of the counts across the search: how many batched calls
the search made and how many leaves they held, whatever the evaluator is (a
:class:`~mcts_envs.agents.learned.torch_evaluator.TorchEvaluator`, a plain function). Root-parallel workers
count their own calls the same way and return them with their summaries.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class CountingEvaluator:
    """``evaluator`` with a count of its calls and of the leaves (rows) they carried.

    Attributes:
        evaluator: the wrapped ``(observations, masks) -> (priors, values)`` callable.
        calls: calls so far.
        leaves: rows of observations passed so far (the sum of the batch sizes).
    """

    def __init__(self, evaluator: Callable[..., Any]) -> None:
        self.evaluator = evaluator
        self.calls = 0
        self.leaves = 0

    def __call__(self, observations: Any, masks: Any) -> Any:
        """Count the batch, then evaluate it with the wrapped evaluator."""
        self.calls += 1
        self.leaves += len(observations)
        return self.evaluator(observations, masks)


def counts_of(evaluator: Any) -> tuple[int, int]:
    """``(calls, leaves)`` of a :class:`CountingEvaluator`, ``(0, 0)`` for anything else."""
    if isinstance(evaluator, CountingEvaluator):
        return evaluator.calls, evaluator.leaves
    return 0, 0


def unwrap(evaluator: Any) -> Any:
    """Kept one release (unused since the config holds the user's evaluator): the evaluator
    inside a :class:`CountingEvaluator` (anything else as it is)."""
    return evaluator.evaluator if isinstance(evaluator, CountingEvaluator) else evaluator
