"""The ``ansi`` picture of a Pentago Twist state (the other modes draw the SVG board, ``svg.py``)."""

from __future__ import annotations

import numpy as np

from mcts_envs.games.pentago_twist import kernels as k
from mcts_envs.games.pentago_twist.game import PentagoTwist


def status_text(state: np.ndarray) -> str:
    """``"to move: white"``, ``"white won"``, ``"black won"`` or ``"draw"``."""
    status = int(state[k.STATUS])
    if status == k.ONGOING:
        return f"to move: {('white', 'black')[int(state[k.TO_MOVE])]}"
    return {k.WHITE_WON: "white won", k.BLACK_WON: "black won", k.DRAW: "draw"}[status]


class PentagoTwistRenderer:
    """The board as text for ``ansi`` (see :mod:`mcts_envs.envs.rendering`)."""

    def __init__(self, game: PentagoTwist):
        self.game = game

    def text(self, state: np.ndarray) -> str:
        """Rows of ``W``/``B``/``.``, quadrants separated by ``|`` and a ``---+---`` line."""
        board = self.game.board(state)
        lines = []
        for row in range(6):
            if row == 3:
                lines.append("-------+-------")
            left = " ".join(".WB"[v] for v in board[row, :3])
            right = " ".join(".WB"[v] for v in board[row, 3:])
            lines.append(f"{left} | {right}")
        lines.append(status_text(state))
        return "\n".join(lines)
