"""Ultimate Tic-Tac-Toe (docs/RULES.md section 2)."""

from mcts_envs.games.ultimate_tictactoe.game import UltimateTicTacToe

__all__ = ["UltimateTicTacToe"]
