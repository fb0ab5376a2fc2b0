"""The ``ansi`` picture of a Pentago Twist state (the other modes draw the SVG board, ``svg.py``)."""

from __future__ import annotations

import numpy as np

from mcts_envs.core.board_text import labelled_grid
from mcts_envs.games.pentago_twist import kernels as k
from mcts_envs.games.pentago_twist.game import PentagoTwist

#: The quadrants' names in the move notation with the squares each covers.
QUADRANTS_LINE = "quadrants: tl a4-c6, tr d4-f6, bl a1-c3, br d1-f3"


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
        """Rows of ``W``/``B``/``.`` framed by the files ``a``-``f`` and ranks ``1``-``6`` of the
        move notation, the quadrants walled off, then the quadrants' names and the status."""
        board = self.game.board(state)
        rows = ["".join(".WB"[v] for v in row) for row in board]
        return "\n".join([*labelled_grid(rows, block=3), QUADRANTS_LINE, status_text(state)])
