"""Pictures of an Ultimate Tic-Tac-Toe state: text for ``ansi``, a pygame drawing otherwise."""

from __future__ import annotations

from typing import Any

import numpy as np

from mcts_envs.games.tictactoe.render import draw_mark
from mcts_envs.games.ultimate_tictactoe import kernels as k
from mcts_envs.games.ultimate_tictactoe.game import UltimateTicTacToe

BACKGROUND = (245, 245, 240)
THIN = (150, 150, 150)
THICK = (30, 30, 30)
X_WON_SHADE = (245, 205, 205)
O_WON_SHADE = (205, 215, 245)
DRAWN_SHADE = (215, 215, 215)
PLAYABLE = (255, 240, 170)


class UltimateTicTacToeRenderer:
    """Draws the 9x9 grid; won boards shaded in the winner's colour, playable cells highlighted."""

    size = (450, 450)

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

    def draw(self, surface: Any, state: np.ndarray, pygame: Any) -> None:
        width, _ = self.size
        cell = width // 9
        surface.fill(BACKGROUND)
        owners = self.game.board_owners(state)
        shades = {1: X_WON_SHADE, 2: O_WON_SHADE, 3: DRAWN_SHADE}
        for board in range(9):
            if owners[board]:
                rect = ((board % 3) * 3 * cell, (board // 3) * 3 * cell, 3 * cell, 3 * cell)
                pygame.draw.rect(surface, shades[int(owners[board])], rect)
        mover_view = self.game.observation(state, int(state[k.TO_MOVE]))
        grid = self.game.grid(state)
        for row in range(9):
            for col in range(9):
                left, top = col * cell, row * cell
                if mover_view[row, col, 4]:
                    pygame.draw.rect(surface, PLAYABLE, (left + 2, top + 2, cell - 4, cell - 4))
                draw_mark(surface, pygame, int(grid[row, col]), left, top, cell)
        for i in range(1, 9):
            colour, thickness = (THICK, 4) if i % 3 == 0 else (THIN, 1)
            pygame.draw.line(surface, colour, (i * cell, 0), (i * cell, width), thickness)
            pygame.draw.line(surface, colour, (0, i * cell), (width, i * cell), thickness)
