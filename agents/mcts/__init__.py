"""Monte Carlo tree search, compiled for the built-in games.

Modules, one concept each:

* :mod:`~agents.mcts.tree`: the preallocated array tree (integer node ids, named sentinels).
* :mod:`~agents.mcts.search`: the one compiled loop (:func:`~agents.mcts.search.run_chunk`):
  expansion, injected leaf evaluation, backup, the root mask.
* :mod:`~agents.mcts.selection`: UCT and PUCT selection, chance sampling (compiled, inlined).
* :mod:`~agents.mcts.threats`: the immediate-win / block-loss check before a search.
* :mod:`~agents.mcts.rollout`: compiled rollout policies (minimax2, cutoff playouts).
* :mod:`~agents.mcts.solver`: MCTS-Solver proofs.
* :mod:`~agents.mcts.puct`: leaves evaluated in Python: the evaluator interface, its checks,
  root noise, Python rollouts.
* :mod:`~agents.mcts.defaults`: the options as one frozen
  :class:`~agents.mcts.defaults.MCTSConfig` (the spec's names and values) and each game's
  defaults as an instance of it.
* :mod:`~agents.mcts.driver`: :func:`~agents.mcts.driver.loop_plan`, the one translation of a
  config into the compiled loop's settings and sizes, and the per-game
  :class:`~agents.mcts.driver.Engine`: one decision under an iteration or time budget.
* :mod:`~agents.mcts.reuse`: the tree an agent keeps between decisions (tree reuse).
* :mod:`~agents.mcts.final`: the root's children (sparse) and the final choice.
* :mod:`~agents.mcts.parallel`: root parallelism over processes.
* :mod:`~agents.mcts.agent`: :class:`MCTSAgent`, the public entry point (``search`` returns an
  :class:`agents.result.SearchResult`).
"""

from agents.mcts.agent import MCTSAgent
from agents.mcts.defaults import MCTSConfig

__all__ = ["MCTSAgent", "MCTSConfig"]
