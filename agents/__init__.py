"""Game-playing agents for mcts-envs: random, minimax2, alpha-beta, MCTS and policy adapters."""

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
