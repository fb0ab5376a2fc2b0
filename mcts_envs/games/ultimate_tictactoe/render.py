"""The ``ansi`` picture of an Ultimate Tic-Tac-Toe state (the other modes draw ``svg.py``)."""

from __future__ import annotations

import numpy as np

from mcts_envs.games.ultimate_tictactoe import kernels as k
from mcts_envs.games.ultimate_tictactoe.game import UltimateTicTacToe


class UltimateTicTacToeRenderer:
    """The 9x9 grid as text for ``ansi`` (see :mod:`mcts_envs.envs.rendering`)."""

    def __init__(self, game: UltimateTicTacToe):
        self.game = game

    def text(self, state: np.ndarray) -> str:
        grid = self.game.grid(state)
        lines = []
        for row in range(9):
            if row in (3, 6):
                lines.append("------+-------+------")
            cells = [
                "".join(".XO"[v] + " " for v in grid[row, col : col + 3]).rstrip()
                for col in (0, 3, 6)
            ]
            lines.append(" | ".join(cells))
        owners = self.game.board_owners(state)
        lines.append("boards: " + " ".join("-XO="[v] for v in owners))
        status = int(state[k.STATUS])
        if status == k.ONGOING:
            target = int(state[k.TARGET])
            where = "any open board" if target < 0 else f"board {target}"
            lines.append(f"to move: {'XO'[int(state[k.TO_MOVE])]} in {where}")
        else:
            lines.append({k.X_WON: "X won", k.O_WON: "O won", k.DRAW: "draw"}[status])
        return "\n".join(lines)
