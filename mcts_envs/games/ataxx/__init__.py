"""Ataxx on a 7x7 board (docs/RULES.md section 4)."""

from mcts_envs.games.ataxx.game import Ataxx

__all__ = ["Ataxx"]
