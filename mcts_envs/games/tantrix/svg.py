"""The Tantrix board as SVG (see :mod:`mcts_envs.svg`): hex tiles with their coloured lines on
the left, both hands beside the board on the right.

A move is three clicks. Targets: ``"h<slot>"`` a tile of the mover's hand (slot 0-5), then
``"x<q>_<r>"`` a cell where it fits (axial coordinates), then ``"o<k>"`` one of the turns of the
tile that fit there, shown beside the board once tile and cell are chosen.

Also drawn: the forced spaces (sand with an orange ring), each player's best line outlined in
the player's colour, the last placed tile framed in orange (Tantrix states record the order of
placement, so the last tile is known even after the window recentred and a tile was drawn), and
the tile drawn last marked in its hand.
"""

from __future__ import annotations

import math

import numpy as np

from mcts_envs.core.svg import (
    INK,
    LAST_MOVE,
    SELECTED,
    TARGET_DOT,
    TARGET_FILL,
    Canvas,
    Marks,
)
from mcts_envs.games.tantrix import kernels as k
from mcts_envs.games.tantrix.game import Tantrix
from mcts_envs.games.tantrix.tiles import COLOUR_NAMES, TILE_EDGE_COLOURS

#: Plies of seeded random play before the docs picture (``docs/_scripts/make_boards_png.py``).
PICTURE_PLIES = 40

BOARD = 620
PANEL = 330
HEIGHT = 660
MAX_TILE = 44.0
HAND_TILE = 30.0
CHOICE_TILE = 24.0
SQRT3 = math.sqrt(3.0)
TILE_FACE = "#1c1c20"
TILE_BORDER = "#5a5a60"
FORCED_FILL = "#cdc6b4"
FORCED_MARK = "#7a5c2e"
LINE_COLOURS = ("#d72323", "#f5cd1e", "#285fe1", "#1ea046")
#: Text colours per player colour (yellow text on the light panel is too pale).
TEXT_COLOURS = ("#c01c1c", "#a88a00", "#1f4fc0", "#187f38")


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


def cell_id(q: int, r: int) -> str:
    """The target id of axial cell ``(q, r)``."""
    return f"x{q}_{r}"


def move_paths(game: Tantrix, state: np.ndarray) -> dict[tuple[str, ...], int]:
    """``{("h<slot>", "x<q>_<r>", "o<turn>"): action}`` for every legal placement."""
    paths: dict[tuple[str, ...], int] = {}
    for action in (int(a) for a in game.legal_actions(state)):
        cell, orientation, slot = game.decode_action(action)
        q, r = game.axial_of_cell(state, cell)
        paths[(f"h{slot}", cell_id(q, r), f"o{orientation}")] = action
    return paths


def draw_tile(
    canvas: Canvas,
    centre: tuple[float, float],
    size: float,
    tile: int,
    orientation: int,
    **attributes: object,
) -> None:
    """Tile ``tile`` (0-based) turned ``orientation`` as a dark hex with three coloured paths;
    ``attributes`` go on the group (e.g. ``data_target``)."""
    canvas.open("g", **attributes)
    corners = [hex_corner(centre, size, i) for i in range(6)]
    canvas.polygon(corners, fill=TILE_FACE, stroke=TILE_BORDER, stroke_width=1)
    colours = TILE_EDGE_COLOURS[tile, orientation]
    width = max(2.0, size * 0.2)
    for colour in sorted({int(c) for c in colours}):
        a, b = (d for d in range(6) if colours[d] == colour)
        canvas.polyline(
            path_points(centre, size, a, b),
            fill="none",
            stroke=LINE_COLOURS[colour],
            stroke_width=width,
            stroke_linejoin="round",
        )
    canvas.close("g")


def _outline(canvas: Canvas, centre, size: float, colour: str, width: float, **extra) -> None:
    corners = [hex_corner(centre, size, i) for i in range(6)]
    canvas.polygon(
        corners, fill="none", stroke=colour, stroke_width=width, pointer_events="none", **extra
    )


def status_text(game: Tantrix, state: np.ndarray) -> str:
    """The phase, who moves, the bag, and the result once the game is over."""
    status = int(state[k.STATUS])
    text = f"{game.phase_name(state)} · bag {int(state[k.BAG_COUNT])}"
    if status == k.DECIDE:
        text = f"player_{int(state[k.MOVER])} to move · " + text
    elif status in (k.FINISHED, k.DEADLOCK):
        returns = game.returns(state)
        result = "draw" if returns[0] == 0 else f"player_{int(np.argmax(returns))} won"
        text = f"{result} · " + text
    return text


def _board_layout(cells: list[tuple[int, int]]):
    """``(size, centre(q, r))`` fitting ``cells`` into the board area."""
    xs = [SQRT3 * (q + r / 2) for q, r in cells]
    ys = [1.5 * r for _, r in cells]
    span_x = max(xs) - min(xs) + 2 * SQRT3
    span_y = max(ys) - min(ys) + 4
    size = min(MAX_TILE, (BOARD - 20) / span_x, (HEIGHT - 20) / span_y)
    offset_x = BOARD / 2 - size * (max(xs) + min(xs)) / 2
    offset_y = HEIGHT / 2 - size * (max(ys) + min(ys)) / 2

    def centre(q: int, r: int) -> tuple[float, float]:
        return offset_x + size * SQRT3 * (q + r / 2), offset_y + size * 1.5 * r

    return size, centre


def draw(game: Tantrix, state: np.ndarray, marks: Marks) -> Canvas:
    """The board (scaled to fit), forced spaces, best lines, legal cells, both hands, scores."""
    canvas = Canvas(BOARD + PANEL, HEIGHT, f"Tantrix: {status_text(game, state)}", "#ece8dc")
    canvas.add("rect", x=BOARD, y=0, width=PANEL, height=HEIGHT, fill="#e2ddcf")
    board = game.board(state)
    forced = game.forced_spaces(state)
    target_cells = []
    for target in marks.targets | frozenset(marks.selection):
        if target.startswith("x"):
            q_text, r_text = target[1:].split("_")
            target_cells.append((int(q_text), int(r_text)))
    size, centre = _board_layout(list(board) + forced + target_cells or [(0, 0)])
    lines = game.best_lines(state)
    best = {}
    for player in (0, 1):
        for cell in lines[player]["cells"]:
            best.setdefault(cell, LINE_COLOURS[int(state[k.COLOUR_0 + player])])
    for q, r in forced:
        corners = [hex_corner(centre(q, r), size, i) for i in range(6)]
        canvas.polygon(
            corners,
            fill=FORCED_FILL,
            stroke=FORCED_MARK,
            stroke_width=max(2, size / 14),
            stroke_dasharray="5 3",
            class_="forced",
        )
    for (q, r), (tile, orientation) in board.items():
        draw_tile(canvas, centre(q, r), size * 0.98, tile - 1, orientation)
    for cell, colour in best.items():
        _outline(canvas, centre(*cell), size * 0.84, colour, 2, stroke_dasharray="4 3")
    if marks.last_action is not None and board:
        _outline(canvas, centre(*list(board)[-1]), size * 0.98, LAST_MOVE, 4, class_="last")
    for q, r in sorted(set(target_cells)):
        target = cell_id(q, r)
        chosen = target in marks.selection
        corners = [hex_corner(centre(q, r), size * 0.92, i) for i in range(6)]
        canvas.polygon(
            corners,
            fill=TARGET_FILL,
            fill_opacity=0.35 if chosen else 0.6,
            stroke=SELECTED if chosen else TARGET_DOT,
            stroke_width=4 if chosen else 2,
            **canvas.target_region(target, marks, "selected" if chosen else ""),
        )
    _draw_panel(game, state, marks, canvas, lines)
    return canvas


def _draw_panel(game: Tantrix, state: np.ndarray, marks: Marks, canvas: Canvas, lines) -> None:
    hands = game.hands(state)
    mover = int(state[k.MOVER])
    deciding = int(state[k.STATUS]) == k.DECIDE
    last = int(state[k.LAST_DRAWN])
    left = BOARD + 16
    for player in (0, 1):
        top = 14 + player * 200
        colour = int(state[k.COLOUR_0 + player])
        line = lines[player]
        loop = " (loop)" if line["loop"] else ""
        label = f"player_{player} · {COLOUR_NAMES[colour]} · score {line['score']}{loop}"
        indent = 0
        if deciding and player == mover:  # a drawn marker: not every font has a triangle glyph
            triangle = [(left, top + 6), (left, top + 18), (left + 10, top + 12)]
            canvas.polygon(triangle, fill=TEXT_COLOURS[colour], class_="mover")
            indent = 16
        canvas.text(
            left + indent, top + 18, label, size=16, fill=TEXT_COLOURS[colour], font_weight="bold"
        )
        if not hands[player]:
            canvas.text(left, top + 60, "(hand empty)", size=14)
        for slot, tile in enumerate(hands[player]):
            cx = left + 36 + (slot % 3) * 92
            cy = top + 68 + (slot // 3) * 84
            target = f"h{slot}"
            mine = deciding and player == mover
            chosen = mine and target in marks.selection
            if mine and (target in marks.targets or chosen):
                _outline(
                    canvas,
                    (cx, cy),
                    HAND_TILE + 6,
                    SELECTED if chosen else TARGET_DOT,
                    5 if chosen else 3,
                )
            region = canvas.target_region(target, marks, "selected" if chosen else "")
            draw_tile(canvas, (cx, cy), HAND_TILE, tile - 1, 0, **(region if mine else {}))
            drawn = tile - 1 == last and int(state[k.LAST_DRAWER]) == player
            canvas.text(
                cx + HAND_TILE + 6,
                cy + 4,
                f"#{tile}",
                size=13,
                fill=LAST_MOVE if drawn else INK,
                font_weight="bold" if drawn else None,
            )
    top = 420
    choices = sorted(t for t in marks.targets if t.startswith("o"))
    if choices:
        canvas.text(left, top, "choose a turn:", size=15)
        tile = hands[mover][int(marks.selection[0][1:])] - 1
        for index, target in enumerate(choices):
            cx = left + 30 + (index % 5) * 58
            cy = top + 36 + (index // 5) * 54
            _outline(canvas, (cx, cy), CHOICE_TILE + 4, TARGET_DOT, 3)
            draw_tile(
                canvas,
                (cx, cy),
                CHOICE_TILE,
                tile,
                int(target[1:]),
                **canvas.target_region(target, marks),
            )
    canvas.text(left, HEIGHT - 40, status_text(game, state), size=14, class_="status")
    if last >= 0:
        canvas.text(
            left,
            HEIGHT - 18,
            f"last drawn: #{last + 1} by player_{int(state[k.LAST_DRAWER])}",
            size=14,
        )
