"""The ``ansi`` picture of an Ultimate Tic-Tac-Toe state (the other modes draw ``svg.py``)."""

from __future__ import annotations

import numpy as np

from mcts_envs.core.board_text import FILES, labelled_grid
from mcts_envs.games.ultimate_tictactoe import kernels as k
from mcts_envs.games.ultimate_tictactoe.game import UltimateTicTacToe


def board_squares(board: int) -> str:
    """Local board ``board`` (0-8, row-major from the top left) as its corner squares in the move
    notation, bottom-left to top-right: ``"a1-c3"`` for board 6, ``"d4-f6"`` for the centre."""
    row, col = divmod(board, 3)
    return f"{FILES[3 * col]}{7 - 3 * row}-{FILES[3 * col + 2]}{9 - 3 * row}"


class UltimateTicTacToeRenderer:
    """The 9x9 grid as text for ``ansi`` (see :mod:`mcts_envs.envs.rendering`): files ``a``-``i``
    and ranks ``1``-``9`` of the move notation around it, the local boards walled off, then the
    owners of the local boards and where the player on move may play."""

    def __init__(self, game: UltimateTicTacToe):
        self.game = game

    def text(self, state: np.ndarray) -> str:
        grid = self.game.grid(state)
        lines = labelled_grid(["".join(".XO"[v] for v in row) for row in grid], block=3)
        owners = "".join("-XO="[v] for v in self.game.board_owners(state))
        lines.append(
            f"local boards (X/O won, = drawn, - open), top row first: "
            f"{owners[:3]} / {owners[3:6]} / {owners[6:]}"
        )
        status = int(state[k.STATUS])
        if status == k.ONGOING:
            target = int(state[k.TARGET])
            where = (
                "any open local board"
                if target < 0
                else f"the local board {board_squares(target)} (board {target})"
            )
            lines.append(f"to move: {'XO'[int(state[k.TO_MOVE])]} in {where}")
        else:
            lines.append({k.X_WON: "X won", k.O_WON: "O won", k.DRAW: "draw"}[status])
        return "\n".join(lines)
