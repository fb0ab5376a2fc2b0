"""Game-playing agents for mcts-envs, and the tools around them.

Three doors: this package holds the :class:`Agent` protocol, agent specs and the players (random,
minimax2, alpha-beta, perfect, oliver, the UAI client, :mod:`agents.mcts`); :mod:`agents.learned`
adapts learned policies; :mod:`agents.evaluation` plays and rates agents; :mod:`agents.frontends`
is the ``mcts-envs`` command line and what it starts.
"""

from __future__ import annotations

import importlib
from typing import Any

from agents import _moved

# The names below are imported on first use (``agents.make_agent``): ``import agents`` and the
# command line's ``--help`` stay fast (no numpy, PettingZoo or numba until an agent is needed).
_LAZY = {
    "Agent": "agents.base",
    "ForwardModelAgent": "agents.base",
    "UnknownAgentError": "agents.spec",
    "describe_agent": "agents.spec",
    "list_agents": "agents.spec",
    "make_agent": "agents.spec",
    "register_agent": "agents.spec",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'agents' has no attribute {name!r}")
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

_moved.install()
