"""Pictures of a Pentago Twist state: text for ``ansi``, a pygame drawing for the other modes."""

from __future__ import annotations

from typing import Any

import numpy as np

from mcts_envs.games.pentago_twist import kernels as k
from mcts_envs.games.pentago_twist.game import PentagoTwist

BACKGROUND = (235, 230, 220)
QUADRANT_COLOUR = (150, 40, 40)
HOLE_COLOUR = (110, 25, 25)
WHITE_STONE = (250, 250, 245)
BLACK_STONE = (25, 25, 25)
STONE_EDGE = (60, 60, 60)
TEXT_COLOUR = (30, 30, 30)
MARGIN = 16
CELL = 60
GAP = 14
STATUS_HEIGHT = 34
BOARD_PIXELS = 2 * MARGIN + 6 * CELL + GAP


def status_text(state: np.ndarray) -> str:
    """``"to move: white"``, ``"white won"``, ``"black won"`` or ``"draw"``."""
    status = int(state[k.STATUS])
    if status == k.ONGOING:
        return f"to move: {('white', 'black')[int(state[k.TO_MOVE])]}"
    return {k.WHITE_WON: "white won", k.BLACK_WON: "black won", k.DRAW: "draw"}[status]


class PentagoTwistRenderer:
    """Draws the four 3x3 quadrants as separate red panels with white and black stones."""

    size = (BOARD_PIXELS, BOARD_PIXELS + STATUS_HEIGHT)

    def __init__(self, game: PentagoTwist):
        self.game = game
        self._font = None

    def __getstate__(self) -> dict[str, Any]:
        return {"game": self.game, "_font": None}  # a pygame font cannot be copied

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

    def draw(self, surface: Any, state: np.ndarray, pygame: Any) -> None:
        surface.fill(BACKGROUND)
        for quadrant in range(4):
            left = MARGIN + (quadrant % 2) * (3 * CELL + GAP)
            top = MARGIN + (quadrant // 2) * (3 * CELL + GAP)
            pygame.draw.rect(
                surface, QUADRANT_COLOUR, (left, top, 3 * CELL, 3 * CELL), border_radius=10
            )
        board = self.game.board(state)
        radius = CELL // 2 - 7
        for row in range(6):
            for col in range(6):
                x = MARGIN + col * CELL + (GAP if col >= 3 else 0) + CELL // 2
                y = MARGIN + row * CELL + (GAP if row >= 3 else 0) + CELL // 2
                value = int(board[row, col])
                if value == 0:
                    pygame.draw.circle(surface, HOLE_COLOUR, (x, y), radius - 8)
                else:
                    colour = WHITE_STONE if value == 1 else BLACK_STONE
                    pygame.draw.circle(surface, colour, (x, y), radius)
                    pygame.draw.circle(surface, STONE_EDGE, (x, y), radius, 2)
        if self._font is None:
            self._font = pygame.font.Font(None, 28)  # made once, on the first picture
        label = self._font.render(status_text(state), True, TEXT_COLOUR)
        surface.blit(label, (MARGIN, BOARD_PIXELS - 4))
