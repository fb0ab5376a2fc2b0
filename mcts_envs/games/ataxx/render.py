"""Pictures of an Ataxx state: text for ``ansi``, a pygame drawing for the other modes."""

from __future__ import annotations

from typing import Any

import numpy as np

from mcts_envs.envs.rendering import load_font
from mcts_envs.games.ataxx import kernels as k
from mcts_envs.games.ataxx.game import FILES, Ataxx

BACKGROUND = (236, 228, 208)
SQUARE_LIGHT = (214, 196, 158)
SQUARE_DARK = (200, 180, 140)
GRID = (70, 60, 45)
LABEL = (60, 50, 40)
X_COLOUR = (200, 40, 40)
O_COLOUR = (30, 80, 200)
STONE_EDGE = (25, 25, 25)
CELL = 60
MARGIN = 28
FOOTER = 30


class AtaxxRenderer:
    """Draws the 7x7 board with file and rank labels; ``x`` red stones, ``o`` blue stones."""

    size = (2 * MARGIN + 7 * CELL, 2 * MARGIN + 7 * CELL + FOOTER)

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
        board = self.game.board(state)
        border = "  +" + "-" * 15 + "+"
        lines = [border]
        for row in range(7):
            cells = " ".join(".xo"[v] for v in board[row])
            lines.append(f"{7 - row} | {cells} |")
        lines += [border, "    " + " ".join(FILES), self.status(state)]
        return "\n".join(lines)

    def draw(self, surface: Any, state: np.ndarray, pygame: Any) -> None:
        surface.fill(BACKGROUND)
        board = self.game.board(state)
        font = load_font(pygame, 24)
        for row in range(7):
            for col in range(7):
                rect = pygame.Rect(MARGIN + col * CELL, MARGIN + row * CELL, CELL, CELL)
                colour = SQUARE_LIGHT if (row + col) % 2 == 0 else SQUARE_DARK
                pygame.draw.rect(surface, colour, rect)
                pygame.draw.rect(surface, GRID, rect, 1)
                value = board[row, col]
                if value:
                    centre = rect.center
                    radius = CELL // 2 - 7
                    pygame.draw.circle(surface, (X_COLOUR, O_COLOUR)[value - 1], centre, radius)
                    pygame.draw.circle(surface, STONE_EDGE, centre, radius, 2)
        side = 7 * CELL
        far = MARGIN + side + MARGIN // 2
        pygame.draw.rect(surface, GRID, pygame.Rect(MARGIN, MARGIN, side, side), 3)
        for index in range(7):
            file_label = font.render(FILES[index], True, LABEL)
            rank_label = font.render(str(7 - index), True, LABEL)
            centre = MARGIN + index * CELL + CELL // 2
            surface.blit(file_label, file_label.get_rect(center=(centre, MARGIN // 2)))
            surface.blit(file_label, file_label.get_rect(center=(centre, far)))
            surface.blit(rank_label, rank_label.get_rect(center=(MARGIN // 2, centre)))
            surface.blit(rank_label, rank_label.get_rect(center=(far, centre)))
        footer = font.render(self.status(state), True, LABEL)
        footer_centre = (self.size[0] // 2, 2 * MARGIN + side + FOOTER // 2 - 4)
        surface.blit(footer, footer.get_rect(center=footer_centre))
