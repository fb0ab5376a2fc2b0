"""Game-playing agents for mcts-envs, and the tools around them.

Three doors: this package holds the :class:`Agent` protocol, agent specs and the players (random,
minimax2, alpha-beta, perfect, oliver, the UAI client, :mod:`agents.mcts`); :mod:`agents.learned`
adapts learned policies; :mod:`agents.evaluation` plays and rates agents; :mod:`agents.frontends`
is the ``mcts-envs`` command line and what it starts.
"""

from agents import _moved
from agents.base import Agent, ForwardModelAgent
from agents.spec import (
    UnknownAgentError,
    describe_agent,
    list_agents,
    make_agent,
    register_agent,
)

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
