"""The ``ansi`` summary of a Tantrix state (the other modes draw the SVG board, ``svg.py``)."""

from __future__ import annotations

import numpy as np

from mcts_envs.games.tantrix import kernels as k
from mcts_envs.games.tantrix.game import Tantrix
from mcts_envs.games.tantrix.tiles import COLOUR_NAMES, TILE_EDGES_TEXT

#: How the cells of the text are named: the axial coordinates of the move notation.
AXIAL_LINE = "cells are axial (q,r): q + 1 is one cell east, r + 1 one cell south-east"


class TantrixRenderer:
    """The board, hands and scores as text for ``ansi`` (see :mod:`mcts_envs.envs.rendering`):
    every placed tile in placement order as the move notation writes it (``#12@3 at (1,0)``),
    the forced spaces as axial cells."""

    def __init__(self, game: Tantrix):
        self.game = game

    def text(self, state: np.ndarray) -> str:
        game = self.game
        lines = game.best_lines(state)
        hands = game.hands(state)
        mover = int(state[k.MOVER])
        last = int(state[k.LAST_DRAWN])
        status = game.phase_name(state)
        header = f"Tantrix  phase: {status}  bag: {int(state[k.BAG_COUNT])}"
        if int(state[k.STATUS]) == k.DECIDE:
            header += f"  to move: player_{mover}"
        if last >= 0:
            header += f"  last drawn: #{last + 1} by player_{int(state[k.LAST_DRAWER])}"
        out = [header]
        for player in (0, 1):
            colour = COLOUR_NAMES[int(state[k.COLOUR_0 + player])]
            best = lines[player]
            loop = " (loop)" if best["loop"] else ""
            hand = ", ".join(f"#{t} {TILE_EDGES_TEXT[t - 1]}" for t in hands[player]) or "empty"
            out.append(f"player_{player} {colour:<6} score {best['score']:>2}{loop}  hand: {hand}")
        board = game.board(state)
        out.append(
            f"board: {len(board)} tiles, forced spaces: "
            + (" ".join(f"({q},{r})" for q, r in game.forced_spaces(state)) or "none")
            + f"  ({AXIAL_LINE})"
        )
        placed = "; ".join(f"#{t}@{o} at ({q},{r})" for (q, r), (t, o) in board.items())
        out.append("tiles: " + (placed or "none"))
        if int(state[k.STATUS]) in (k.FINISHED, k.DEADLOCK):
            returns = game.returns(state)
            result = "draw" if returns[0] == 0 else f"player_{int(np.argmax(returns))} wins"
            if int(state[k.STATUS]) == k.DEADLOCK:
                result = "deadlock: draw"
            out.append(f"result: {result}")
        return "\n".join(out)
