"""Root parallelism: independent searches in worker processes, root statistics merged.

Each worker runs :meth:`mcts_envs.agents.mcts.driver.Engine.run` on a fresh tree with its own seed (spawned
from the search seed with ``numpy.random.SeedSequence``), so a fixed agent seed and an iteration
budget give the same merged result every time. Visits and value sums of the root children are
added; a child proven by any worker keeps that proof (proofs are exact).
"""

from __future__ import annotations

import multiprocessing
from concurrent.futures import ProcessPoolExecutor

import numpy as np

from mcts_envs.agents.base import decision_state
from mcts_envs.agents.mcts.config import MCTSConfig
from mcts_envs.agents.mcts.counting import counts_of
from mcts_envs.agents.mcts.driver import engine
from mcts_envs.agents.mcts.final import RootChildren, RootSummary
from mcts_envs.agents.mcts.tree import UNPROVEN, Tree


def worker_seeds(seed: int, workers: int) -> list[int]:
    """One 63-bit seed per worker, derived from ``seed``."""
    children = np.random.SeedSequence(seed).spawn(workers)
    return [int(child.generate_state(1, np.uint64)[0] >> np.uint64(1)) for child in children]


def search_in_worker(
    game, state: np.ndarray, config: MCTSConfig, seed: int, allowed: np.ndarray | None
) -> tuple[RootSummary, tuple[int, int]]:
    """Run one search of ``state`` (checked by the parent) on a fresh tree (the function each
    worker process executes); returns its summary and the ``(calls, leaves)`` of its evaluator
    (see :mod:`mcts_envs.agents.mcts.counting`)."""
    search = engine(game, config)
    tree = Tree(search.plan.capacity)
    before = counts_of(search.evaluator)
    summary = search.run(tree, state, seed, allowed)
    after = counts_of(search.evaluator)
    return summary, (after[0] - before[0], after[1] - before[1])


def merge(results: list[RootSummary]) -> RootSummary:
    """Add the root summaries of several searches of the same state (children matched by
    action: every worker's root has the same moves, in its own random order)."""
    first = results[0]
    actions = np.sort(first.children.actions)
    visits = np.zeros(len(actions))
    sums = np.zeros(len(actions))
    proven = np.full(len(actions), UNPROVEN, np.int8)
    for result in results:
        children = result.children
        order = np.searchsorted(actions, children.actions)
        visits[order] += children.visits
        sums[order] += children.sums
        proven[order] = np.where(proven[order] == UNPROVEN, children.proven, proven[order])
    root_proven = next((r.root_proven for r in results if r.root_proven != UNPROVEN), UNPROVEN)
    return RootSummary(
        player=first.player,
        children=RootChildren(actions, visits, sums, proven),
        root_visits=sum(r.root_visits for r in results),
        root_value_sum=sum(r.root_value_sum for r in results),
        root_proven=root_proven,
        simulations=sum(r.simulations for r in results),
        nodes=sum(r.nodes for r in results),
        tree_full=any(r.tree_full for r in results),
    )


class RootParallel:
    """A pool of ``workers`` processes (started on first use, kept until :meth:`close`)."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self._pool: ProcessPoolExecutor | None = None
        #: ``(calls, leaves)`` of the evaluator, summed over the workers of the last search.
        self.evaluator_counts = (0, 0)

    def search(
        self, game, state: np.ndarray, config: MCTSConfig, seed: int, allowed=None
    ) -> RootSummary:
        """Search ``state`` in every worker and merge the root summaries."""
        if self._pool is None:
            context = multiprocessing.get_context("spawn")
            self._pool = ProcessPoolExecutor(self.workers, mp_context=context)
        seeds = worker_seeds(seed, self.workers)
        futures = [
            self._pool.submit(search_in_worker, game, state, config, s, allowed) for s in seeds
        ]
        results = [future.result() for future in futures]
        self.evaluator_counts = (
            sum(counts[0] for _, counts in results),
            sum(counts[1] for _, counts in results),
        )
        return merge([summary for summary, _ in results])

    def prepare(self, game, config: MCTSConfig) -> None:
        """Start the workers and have each compile (or load) the search for ``game``."""
        self.search(game, decision_state(game), config, 0, None)

    def close(self) -> None:
        """Stop the worker processes."""
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
