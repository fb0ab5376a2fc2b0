"""The ``ansi`` picture of an Ataxx state (the other modes draw the SVG board, ``svg.py``)."""

from __future__ import annotations

import numpy as np

from mcts_envs.core.board_text import labelled_grid
from mcts_envs.games.ataxx import kernels as k
from mcts_envs.games.ataxx.game import Ataxx


class AtaxxRenderer:
    """The 7x7 board as text for ``ansi`` (see :mod:`mcts_envs.envs.rendering`)."""

    def __init__(self, game: Ataxx):
        self.game = game

    def status(self, state: np.ndarray) -> str:
        """One line: who moves (or the result), stone counts and clocks."""
        x_count, o_count = self.game.stone_counts(state)
        outcome = {
            k.ONGOING: f"{'xo'[int(state[k.SIDE])]} to move",
            k.X_WON: "x won",
            k.O_WON: "o won",
            k.DRAW: "draw",
        }[int(state[k.STATUS])]
        return (
            f"{outcome}; stones x {x_count} o {o_count}; halfmove {int(state[k.HALFMOVE])}; "
            f"move {int(state[k.FULLMOVE])}"
        )

    def text(self, state: np.ndarray) -> str:
        """The board framed by the files ``a``-``g`` and ranks ``1``-``7`` of the UAI move
        notation, then :meth:`status`."""
        rows = ["".join(".xo"[v] for v in row) for row in self.game.board(state)]
        return "\n".join([*labelled_grid(rows), self.status(state)])
