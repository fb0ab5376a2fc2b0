"""Game-playing agents for mcts-envs: random, minimax2, alpha-beta, MCTS and learned-policy adapters."""

from agents.base import Agent, ForwardModelAgent

__all__ = ["Agent", "ForwardModelAgent"]
