"""Pictures of a Tantrix state: a text summary for ``ansi``, hexagonal tiles for the other modes."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from mcts_envs.games.tantrix import kernels as k
from mcts_envs.games.tantrix.game import Tantrix
from mcts_envs.games.tantrix.tiles import COLOUR_NAMES, TILE_EDGE_COLOURS, TILE_EDGES_TEXT

BACKGROUND = (236, 232, 220)
TILE_FACE = (28, 28, 32)
TILE_BORDER = (90, 90, 96)
FORCED_FILL = (205, 198, 180)
FORCED_MARK = (230, 110, 20)
TEXT = (20, 20, 20)
PATH_COLOURS = ((215, 35, 35), (245, 205, 30), (40, 95, 225), (30, 160, 70))
SQRT3 = math.sqrt(3.0)


def hex_corner(center: tuple[float, float], size: float, corner: int) -> tuple[float, float]:
    """Corner ``corner`` (0 top, clockwise) of a pointy-top hex."""
    angle = math.radians(60 * corner - 90)
    return center[0] + size * math.cos(angle), center[1] + size * math.sin(angle)


def edge_midpoint(center: tuple[float, float], size: float, edge: int) -> tuple[float, float]:
    """Midpoint of edge ``edge`` (0 north-east, clockwise)."""
    angle = math.radians(60 * edge - 60)
    distance = size * SQRT3 / 2
    return center[0] + distance * math.cos(angle), center[1] + distance * math.sin(angle)


def path_points(
    center: tuple[float, float], size: float, a: int, b: int
) -> list[tuple[float, float]]:
    """Points along the path joining edges ``a`` and ``b``: a segment, or an arc (corner, bend)."""
    gap = (b - a) % 6
    if gap == 3:
        return [edge_midpoint(center, size, a), edge_midpoint(center, size, b)]
    if gap in (4, 5):
        a, b, gap = b, a, 6 - gap
    if gap == 1:  # corner: arc around the shared hex corner
        pivot = hex_corner(center, size, a + 1)
        radius = size / 2
    else:  # bend: arc around the centre of the neighbour across the middle edge
        angle = math.radians(60 * (a + 1) - 60)
        pivot = (
            center[0] + size * SQRT3 * math.cos(angle),
            center[1] + size * SQRT3 * math.sin(angle),
        )
        radius = 1.5 * size
    start, end = edge_midpoint(center, size, a), edge_midpoint(center, size, b)
    angle_start = math.atan2(start[1] - pivot[1], start[0] - pivot[0])
    angle_end = math.atan2(end[1] - pivot[1], end[0] - pivot[0])
    sweep = (angle_end - angle_start + math.pi) % (2 * math.pi) - math.pi
    steps = 14
    return [
        (
            pivot[0] + radius * math.cos(angle_start + sweep * i / steps),
            pivot[1] + radius * math.sin(angle_start + sweep * i / steps),
        )
        for i in range(steps + 1)
    ]


def draw_tile(
    surface: Any,
    pygame: Any,
    center: tuple[float, float],
    size: float,
    tile: int,
    orientation: int,
    outline: tuple[int, int, int] | None = None,
) -> None:
    """Paints tile ``tile`` (0-based) turned ``orientation`` as a hex with three coloured paths."""
    corners = [hex_corner(center, size, i) for i in range(6)]
    pygame.draw.polygon(surface, TILE_FACE, corners)
    colours = TILE_EDGE_COLOURS[tile, orientation]
    width = max(2, int(size * 0.2))
    for colour in sorted(set(int(c) for c in colours)):
        a, b = [d for d in range(6) if colours[d] == colour]
        points = path_points(center, size, a, b)
        pygame.draw.lines(surface, PATH_COLOURS[colour], False, points, width)
        for point in (points[0], points[-1]):
            pygame.draw.circle(surface, PATH_COLOURS[colour], point, width // 2)
    pygame.draw.polygon(surface, outline or TILE_BORDER, corners, 3 if outline else 1)


class TantrixRenderer:
    """Draws the board (scaled to fit), forced spaces, best lines, both hands and the scores."""

    size = (900, 800)
    board_height = 600

    def __init__(self, game: Tantrix):
        self.game = game
        self._fonts: dict[int, Any] = {}

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
        )
        if int(state[k.STATUS]) in (k.FINISHED, k.DEADLOCK):
            returns = game.returns(state)
            result = "draw" if returns[0] == 0 else f"player_{int(np.argmax(returns))} wins"
            if int(state[k.STATUS]) == k.DEADLOCK:
                result = "deadlock: draw"
            out.append(f"result: {result}")
        return "\n".join(out)

    def _font(self, pygame: Any, size: int) -> Any:
        if size not in self._fonts:
            self._fonts[size] = pygame.font.Font(None, size)
        return self._fonts[size]

    def draw(self, surface: Any, state: np.ndarray, pygame: Any) -> None:
        game = self.game
        width, height = self.size
        surface.fill(BACKGROUND)
        board = game.board(state)
        forced = game.forced_spaces(state)
        cells = list(board) + forced or [(0, 0)]
        xs = [SQRT3 * (q + r / 2) for q, r in cells]
        ys = [1.5 * r for q, r in cells]
        span_x = max(xs) - min(xs) + 2 * SQRT3
        span_y = max(ys) - min(ys) + 4
        size = min(48.0, (width - 20) / span_x, (self.board_height - 20) / span_y)
        offset_x = width / 2 - size * (max(xs) + min(xs)) / 2
        offset_y = self.board_height / 2 - size * (max(ys) + min(ys)) / 2

        def center(q: int, r: int) -> tuple[float, float]:
            return offset_x + size * SQRT3 * (q + r / 2), offset_y + size * 1.5 * r

        lines = game.best_lines(state)
        highlight = {}
        for player in (0, 1):
            colour = PATH_COLOURS[int(state[k.COLOUR_0 + player])]
            for cell in lines[player]["cells"]:
                highlight.setdefault(cell, colour)
        for q, r in forced:
            corners = [hex_corner(center(q, r), size, i) for i in range(6)]
            pygame.draw.polygon(surface, FORCED_FILL, corners)
            pygame.draw.polygon(surface, FORCED_MARK, corners, max(2, int(size / 10)))
            pygame.draw.circle(surface, FORCED_MARK, center(q, r), max(2, size / 6))
        for (q, r), (tile, orientation) in board.items():
            draw_tile(
                surface,
                pygame,
                center(q, r),
                size * 0.98,
                tile - 1,
                orientation,
                highlight.get((q, r)),
            )
        pygame.draw.line(
            surface, TILE_BORDER, (0, self.board_height), (width, self.board_height), 2
        )
        font = self._font(pygame, 26)
        hands = game.hands(state)
        mover = int(state[k.MOVER])
        deciding = int(state[k.STATUS]) == k.DECIDE
        for player in (0, 1):
            top = self.board_height + 12 + player * 88
            colour_index = int(state[k.COLOUR_0 + player])
            best = lines[player]
            marker = ">" if deciding and player == mover else " "
            label = (
                f"{marker} player_{player} {COLOUR_NAMES[colour_index]}: "
                f"{best['score']}{' (loop)' if best['loop'] else ''}"
            )
            surface.blit(
                font.render(
                    label, True, PATH_COLOURS[colour_index] if colour_index != 1 else (170, 140, 0)
                ),
                (12, top + 24),
            )
            if not hands[player]:
                empty = self._font(pygame, 22).render("(hand empty)", True, TEXT)
                surface.blit(empty, (330, top + 28))
            for slot, tile in enumerate(hands[player]):
                draw_tile(surface, pygame, (330 + slot * 82, top + 36), 36, tile - 1, 0)
                number = self._font(pygame, 20).render(f"#{tile}", True, TEXT)
                surface.blit(number, (330 + slot * 82 + 26, top + 58))
        last = int(state[k.LAST_DRAWN])
        status = (
            f"phase: {game.phase_name(state)}   bag: {int(state[k.BAG_COUNT])}   "
            f"forced spaces: {len(forced)}"
        )
        if last >= 0:
            status += f"   last drawn: #{last + 1} (player_{int(state[k.LAST_DRAWER])})"
        if int(state[k.STATUS]) in (k.FINISHED, k.DEADLOCK):
            returns = game.returns(state)
            winner = "draw" if returns[0] == 0 else f"player_{int(np.argmax(returns))} wins"
            status += f"   result: {winner}"
        surface.blit(self._font(pygame, 22).render(status, True, TEXT), (12, height - 22))
