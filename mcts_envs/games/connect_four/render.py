"""The ``ansi`` picture of a Connect Four state (the other modes draw the SVG board, ``svg.py``)."""

from __future__ import annotations

import numpy as np

from mcts_envs.games.connect_four import kernels as k
from mcts_envs.games.connect_four.game import ConnectFour


class ConnectFourRenderer:
    """The 6x7 board as text for ``ansi`` (see :mod:`mcts_envs.envs.rendering`): rows from the
    top, the column numbers (the move notation) below, then the status."""

    def __init__(self, game: ConnectFour):
        self.game = game

    def text(self, state: np.ndarray) -> str:
        board = self.game.board(state)
        lines = ["| " + " ".join(".xo"[v] for v in row) + " |" for row in board]
        lines.append("+" + "-" * (2 * k.COLUMNS + 1) + "+")
        lines.append("  " + " ".join(str(column + 1) for column in range(k.COLUMNS)))
        status = int(state[3])
        lines.append(
            {k.X_WON: "x won", k.O_WON: "o won", k.DRAW: "draw"}.get(
                status, f"{'xo'[int(state[2])]} to move"
            )
        )
        return "\n".join(lines)
