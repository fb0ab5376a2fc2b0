"""Two-player Tantrix (docs/RULES.md section 5)."""

from mcts_envs.games.tantrix.game import Tantrix

__all__ = ["Tantrix"]
