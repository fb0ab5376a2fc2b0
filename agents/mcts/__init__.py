"""Monte Carlo tree search, compiled for the built-in games.

Modules, one concept each:

* :mod:`~agents.mcts.tree`: the preallocated array tree (integer node ids, named sentinels).
* :mod:`~agents.mcts.search`: the compiled select-expand-simulate-backup loop (UCT), generic
  over games through their ``GameKernels`` dispatchers; immediate-win checks; tree-reuse lookup.
* :mod:`~agents.mcts.rollout`: rollout policies (random playout kernel, minimax2, user kernels).
* :mod:`~agents.mcts.solver`: MCTS-Solver proofs.
* :mod:`~agents.mcts.puct`: PUCT with a batched leaf evaluator and root Dirichlet noise.
* :mod:`~agents.mcts.driver`: one search under an iteration or time budget; the final choice.
* :mod:`~agents.mcts.parallel`: root parallelism over processes.
* :mod:`~agents.mcts.agent`: :class:`MCTSAgent`, the public entry point.
"""

from agents.mcts.agent import MCTSAgent

__all__ = ["MCTSAgent"]
