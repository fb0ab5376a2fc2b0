"""The Pentago Twist board as SVG (see :mod:`mcts_envs.svg`): a cell, then a quadrant twist.

Targets: ``"c<cell>"`` (``cell = row * 6 + col``) and ``"t<transform>"`` with
``transform = quadrant * 2 + op`` (quadrants 0 top-left, 1 top-right, 2 bottom-left,
3 bottom-right; op 0 rotates clockwise, op 1 flips left-right). Each quadrant has its two twist
buttons beside its outer corner: the round arrow rotates, the double arrow flips.
"""

from __future__ import annotations

import math

import numpy as np

from mcts_envs.core.svg import INK, LAST_MOVE, SELECTED, TARGET_DOT, TARGET_FILL, Canvas, Marks
from mcts_envs.games.pentago_twist import kernels as k
from mcts_envs.games.pentago_twist.game import PentagoTwist, split_action

#: Plies of seeded random play before the docs picture (``docs/_scripts/make_boards_png.py``).
PICTURE_PLIES = 10

CELL = 60
GAP = 14
MARGIN = 54
STATUS = 34
BUTTON = 17
#: segments of the rotate buttons' 270-degree arcs (drawn as polylines)
ARC_STEPS = 18
QUADRANT_FILL = "#962828"
HOLE = "#6e1919"
STONES = ("#fafaf5", "#191919")


def move_paths(game: PentagoTwist, state: np.ndarray) -> dict[tuple[str, ...], int]:
    """``{("c<cell>", "t<transform>"): action}`` for every legal action."""
    return {(f"c{int(a) >> 3}", f"t{int(a) & 7}"): int(a) for a in game.legal_actions(state)}


def _cell_centre(row: int, col: int) -> tuple[float, float]:
    x = MARGIN + col * CELL + (GAP if col >= 3 else 0) + CELL / 2
    y = MARGIN + row * CELL + (GAP if row >= 3 else 0) + CELL / 2
    return x, y


def _quadrant_box(quadrant: int) -> tuple[float, float, float]:
    """``(left, top, side)`` of a quadrant panel."""
    left = MARGIN + (quadrant % 2) * (3 * CELL + GAP)
    top = MARGIN + (quadrant // 2) * (3 * CELL + GAP)
    return left, top, 3 * CELL


def _button_centre(transform: int) -> tuple[float, float]:
    """Rotate buttons sit above/below the quadrant's outer corner, flip buttons left/right."""
    quadrant, op = divmod(transform, 2)
    left, top, side = _quadrant_box(quadrant)
    right_side, bottom_side = quadrant % 2 == 1, quadrant >= 2
    corner_x = left + side if right_side else left
    corner_y = top + side if bottom_side else top
    inward_x = -1 if right_side else 1
    inward_y = -1 if bottom_side else 1
    outside = MARGIN / 2
    if op == k.ROTATE:
        return corner_x + inward_x * (BUTTON + 4), corner_y - inward_y * outside
    return corner_x - inward_x * outside, corner_y + inward_y * (BUTTON + 4)


def _draw_button(canvas: Canvas, transform: int, marks: Marks, last: bool) -> None:
    cx, cy = _button_centre(transform)
    target = f"t{transform}"
    active = target in marks.targets
    canvas.add(
        "circle",
        cx=cx,
        cy=cy,
        r=float(BUTTON),
        fill=TARGET_FILL if active else "#e6e0d2",
        stroke=LAST_MOVE if last else ("#6b5f4b" if active else "#b4ab98"),
        stroke_width=4 if last else 2,
        **canvas.target_region(target, marks, "last" if last else ""),
    )
    ink = INK if active or last else "#9a917f"
    style = {"stroke": ink, "stroke_width": 2.5, "fill": "none", "pointer_events": "none"}
    radius = BUTTON * 0.55
    if transform % 2 == k.ROTATE:  # a clockwise arc of 270 degrees ending in an arrowhead
        angles = (math.radians(-90 + 270 * step / ARC_STEPS) for step in range(ARC_STEPS + 1))
        arc = [(cx + radius * math.cos(a), cy + radius * math.sin(a)) for a in angles]
        canvas.polyline(arc, stroke_linecap="round", **style)
        end = arc[-1]
        head = [(end[0] - 4.5, end[1] + 1), (end[0] + 0.5, end[1] - 5), (end[0] + 4, end[1] + 2)]
        canvas.polygon(head, fill=ink, pointer_events="none")
    else:  # a double arrow across a dashed mirror line
        canvas.add(
            "line",
            x1=cx,
            y1=cy - radius,
            x2=cx,
            y2=cy + radius,
            stroke=ink,
            stroke_width=1.5,
            stroke_dasharray="2 2",
            pointer_events="none",
        )
        canvas.add("line", x1=cx - radius, y1=cy, x2=cx + radius, y2=cy, **style)
        for sign in (-1, 1):
            tip = cx + sign * (radius + 2)
            canvas.polygon(
                [(tip, cy), (tip - sign * 5, cy - 4), (tip - sign * 5, cy + 4)],
                fill=ink,
                pointer_events="none",
            )


def _placed_cell_after(action: int) -> int:
    """Where the stone placed by ``action`` ends up once its quadrant transform is applied."""
    row, col, quadrant, op = split_action(action)
    cell = row * k.SIZE + col
    if not (int(k.QUADRANT_MASKS[quadrant]) >> cell) & 1:
        return cell
    top, left = (quadrant // 2) * 3, (quadrant % 2) * 3
    local = (row - top) * 3 + (col - left)
    moved = int(k.TRANSFORMED[quadrant * 2 + op, 1 << local])
    return moved.bit_length() - 1


def status_text(state: np.ndarray) -> str:
    """``"white to move"``, ``"white won"``, ``"black won"`` or ``"draw"``."""
    status = int(state[k.STATUS])
    if status == k.ONGOING:
        return f"{('white', 'black')[int(state[k.TO_MOVE])]} to move"
    return {k.WHITE_WON: "white won", k.BLACK_WON: "black won", k.DRAW: "draw"}[status]


def draw(game: PentagoTwist, state: np.ndarray, marks: Marks) -> Canvas:
    """Four red quadrant panels with holes and stones, and eight twist buttons around them.

    The last move's stone (where it ended up) and its quadrant are framed in orange, with its
    twist button; a selected cell shows the mover's stone faintly with a purple ring.
    """
    size = 2 * MARGIN + 6 * CELL + GAP
    canvas = Canvas(size, size + STATUS, f"Pentago Twist: {status_text(state)}", "#ebe6dc")
    last_transform = last_cell = None
    if marks.last_action is not None:
        last_transform = int(marks.last_action) & 7
        last_cell = _placed_cell_after(int(marks.last_action))
    for quadrant in range(4):
        left, top, side = _quadrant_box(quadrant)
        framed = last_transform is not None and last_transform // 2 == quadrant
        canvas.add(
            "rect",
            x=left,
            y=top,
            width=side,
            height=side,
            rx=10,
            fill=QUADRANT_FILL,
            stroke=LAST_MOVE if framed else "none",
            stroke_width=5 if framed else 0,
            class_="last" if framed else None,
        )
    board = game.board(state)
    mover = int(state[k.TO_MOVE])
    radius = CELL / 2 - 7
    for cell in range(k.NUM_CELLS):
        row, col = divmod(cell, 6)
        x, y = _cell_centre(row, col)
        target = f"c{cell}"
        value = int(board[row, col])
        region = canvas.target_region(target, marks)
        if value:
            canvas.add(
                "circle",
                cx=x,
                cy=y,
                r=radius,
                fill=STONES[value - 1],
                stroke="#3c3c3c",
                stroke_width=2,
                **region,
            )
        elif target in marks.selection:
            canvas.add(
                "circle",
                cx=x,
                cy=y,
                r=radius,
                fill=STONES[mover],
                opacity=0.6,
                stroke=SELECTED,
                stroke_width=4,
                **canvas.target_region(target, marks, "selected"),
            )
        else:
            highlighted = target in marks.targets
            canvas.add(
                "circle",
                cx=x,
                cy=y,
                r=radius - 8,
                fill=HOLE,
                stroke=TARGET_DOT if highlighted else "none",
                stroke_width=4 if highlighted else 0,
                pointer_events="all",
                **region,
            )
        if cell == last_cell:
            canvas.add(
                "circle",
                cx=x,
                cy=y,
                r=radius + 3,
                fill="none",
                stroke=LAST_MOVE,
                stroke_width=4,
                pointer_events="none",
                class_="last",
            )
    for transform in range(k.NUM_TRANSFORMS):
        _draw_button(canvas, transform, marks, transform == last_transform)
    canvas.text(
        size / 2,
        size + STATUS / 2 - 4,
        status_text(state),
        size=20,
        text_anchor="middle",
        class_="status",
    )
    return canvas
