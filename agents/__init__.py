"""Game-playing agents for mcts-envs, and the tools around them (``mcts_envs.agents``).

The source folder is the repository's top-level ``agents/``; it is installed as the subpackage
``mcts_envs.agents`` (a package-dir mapping in ``pyproject.toml``), so nothing lands in
site-packages' top-level ``agents/``, which other distributions (``openai-agents``) own.

This package holds the :class:`Agent` protocol and agent specs; :mod:`mcts_envs.agents.players`
the players (random, minimax2, alpha-beta, perfect, oliver, the UAI and LLM clients);
:mod:`mcts_envs.agents.mcts` the compiled MCTS; :mod:`mcts_envs.agents.learned` adapts learned
policies; :mod:`mcts_envs.agents.evaluation` plays and rates agents;
:mod:`mcts_envs.agents.frontends` is the ``mcts-envs`` command line and what it starts.
"""

from __future__ import annotations

import importlib
from typing import Any

# The names below are imported on first use (``mcts_envs.agents.make_agent``): importing the
# package and the command line's ``--help`` stay fast (no numpy, PettingZoo or numba until an agent is needed).
_LAZY = {
    "Agent": "mcts_envs.agents.base",
    "ForwardModelAgent": "mcts_envs.agents.base",
    "UnknownAgentError": "mcts_envs.agents.spec",
    "describe_agent": "mcts_envs.agents.spec",
    "list_agents": "mcts_envs.agents.spec",
    "make_agent": "mcts_envs.agents.spec",
    "register_agent": "mcts_envs.agents.spec",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'mcts_envs.agents' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


__all__ = [
    "Agent",
    "ForwardModelAgent",
    "UnknownAgentError",
    "describe_agent",
    "list_agents",
    "make_agent",
    "register_agent",
]
