"""The ``ansi`` picture of a Tic-Tac-Toe state (the other modes draw the SVG board, ``svg.py``)."""

from __future__ import annotations

import numpy as np

from mcts_envs.core.board_text import labelled_grid
from mcts_envs.games.tictactoe.game import TicTacToe


class TicTacToeRenderer:
    """The board as text for ``ansi`` (see :mod:`mcts_envs.envs.rendering`), with the files
    ``a``-``c`` and ranks ``1``-``3`` of the move notation around it."""

    def __init__(self, game: TicTacToe):
        self.game = game

    def text(self, state: np.ndarray) -> str:
        board = self.game.board(state)
        rows = ["".join(".XO"[v] for v in row) for row in board]
        status = {0: f"to move: {'XO'[int(state[2])]}", 1: "X won", 2: "O won", 3: "draw"}
        return "\n".join([*labelled_grid(rows, block=1), status[int(state[3])]])
