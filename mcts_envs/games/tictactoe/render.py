"""Pictures of a Tic-Tac-Toe state: text for ``ansi``, a pygame drawing for the other modes."""

from __future__ import annotations

from typing import Any

import numpy as np

from mcts_envs.games.tictactoe.game import TicTacToe

BACKGROUND = (245, 245, 240)
GRID = (40, 40, 40)
X_COLOUR = (200, 40, 40)
O_COLOUR = (30, 80, 200)


def draw_mark(surface: Any, pygame: Any, mark: int, left: int, top: int, cell: int) -> None:
    """Draws X (``mark == 1``, red cross) or O (``mark == 2``, blue ring) in a square cell."""
    pad, width = cell // 5, max(2, cell // 12)
    if mark == 1:
        right, bottom = left + cell - pad, top + cell - pad
        pygame.draw.line(surface, X_COLOUR, (left + pad, top + pad), (right, bottom), width)
        pygame.draw.line(surface, X_COLOUR, (right, top + pad), (left + pad, bottom), width)
    elif mark == 2:
        centre = (left + cell // 2, top + cell // 2)
        pygame.draw.circle(surface, O_COLOUR, centre, cell // 2 - pad, width)


class TicTacToeRenderer:
    """Draws the 3x3 board; X red crosses, O blue rings."""

    size = (300, 300)

    def __init__(self, game: TicTacToe):
        self.game = game

    def text(self, state: np.ndarray) -> str:
        board = self.game.board(state)
        rows = [" " + " | ".join(".XO"[v] for v in row) for row in board]
        status = {0: f"to move: {'XO'[int(state[2])]}", 1: "X won", 2: "O won", 3: "draw"}
        return "\n---+---+---\n".join(rows) + f"\n{status[int(state[3])]}"

    def draw(self, surface: Any, state: np.ndarray, pygame: Any) -> None:
        width, _ = self.size
        cell = width // 3
        surface.fill(BACKGROUND)
        for i in (1, 2):
            pygame.draw.line(surface, GRID, (i * cell, 8), (i * cell, width - 8), 4)
            pygame.draw.line(surface, GRID, (8, i * cell), (width - 8, i * cell), 4)
        board = self.game.board(state)
        for row in range(3):
            for col in range(3):
                draw_mark(surface, pygame, int(board[row, col]), col * cell, row * cell, cell)
