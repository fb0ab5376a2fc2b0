"""Monte Carlo tree search, compiled for the built-in games.

Modules, one concept each:

* :mod:`~mcts_envs.agents.mcts.tree`: the preallocated array tree (integer node ids, named sentinels).
* :mod:`~mcts_envs.agents.mcts.search`: the one compiled loop (:func:`~mcts_envs.agents.mcts.search.run_chunk`):
  expansion, injected leaf evaluation, backup, the root mask.
* :mod:`~mcts_envs.agents.mcts.selection`: UCT and PUCT selection, chance sampling (compiled, inlined).
* :mod:`~mcts_envs.agents.mcts.threats`: the immediate-win / block-loss check before a search.
* :mod:`~mcts_envs.agents.mcts.rollout`: compiled rollout policies (minimax2, cutoff playouts).
* :mod:`~mcts_envs.agents.mcts.solver`: MCTS-Solver proofs.
* :mod:`~mcts_envs.agents.mcts.puct`: leaves evaluated in Python: the evaluator interface, its checks,
  root noise, Python rollouts.
* :mod:`~mcts_envs.agents.mcts.config`: the options as one frozen, self-checking
  :class:`~mcts_envs.agents.mcts.config.MCTSConfig` (the spec's names, values and help).
* :mod:`~mcts_envs.agents.mcts.defaults`: each game's defaults as an instance of it.
* :mod:`~mcts_envs.agents.mcts.driver`: :func:`~mcts_envs.agents.mcts.driver.loop_plan`, the one translation of a
  config into the compiled loop's settings and sizes, and the per-game
  :class:`~mcts_envs.agents.mcts.driver.Engine`: one decision under an iteration or time budget.
* :mod:`~mcts_envs.agents.mcts.reuse`: the tree an agent keeps between decisions (tree reuse).
* :mod:`~mcts_envs.agents.mcts.final`: the root's children (sparse) and the final choice.
* :mod:`~mcts_envs.agents.mcts.parallel`: root parallelism over processes.
* :mod:`~mcts_envs.agents.mcts.agent`: :class:`MCTSAgent`, the public entry point (``search`` returns an
  :class:`mcts_envs.agents.result.SearchResult`).
"""

from __future__ import annotations

import importlib
from typing import Any

# Imported on first use: the config and the defaults table (read by ``mcts-envs list`` and the
# docs build) import no numba, the agent does.
_LAZY = {
    "MCTSAgent": "mcts_envs.agents.mcts.agent",
    "MCTSConfig": "mcts_envs.agents.mcts.config",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'mcts_envs.agents.mcts' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


__all__ = ["MCTSAgent", "MCTSConfig"]
