"""Connect Four (docs/RULES.md section 6)."""

from mcts_envs.games.connect_four.game import ConnectFour

__all__ = ["ConnectFour"]
