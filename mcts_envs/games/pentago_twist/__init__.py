"""Pentago Twist (docs/RULES.md section 3)."""

from mcts_envs.games.pentago_twist.game import PentagoTwist

__all__ = ["PentagoTwist"]
