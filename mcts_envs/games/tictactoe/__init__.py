"""Tic-Tac-Toe (docs/RULES.md section 1)."""

from mcts_envs.games.tictactoe.game import TicTacToe

__all__ = ["TicTacToe"]
