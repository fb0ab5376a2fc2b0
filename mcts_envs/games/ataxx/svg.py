"""The Ataxx board as SVG (see :mod:`mcts_envs.svg`).

Targets: ``"s<square>"`` (squares row-major from a7 = 0 to g1 = 48) and ``"pass"``. A copy is one
click on its destination, or a click on one of the adjacent stones then the destination; a jump
is a click on the stone then on the square two away; a pass (only legal when nothing else is) is
the ``pass`` button.
"""

from __future__ import annotations

import numpy as np

from mcts_envs.core.svg import (
    INK,
    LAST_MOVE,
    O_COLOUR,
    SELECTED,
    TARGET_DOT,
    TARGET_FILL,
    X_COLOUR,
    Canvas,
    Marks,
)
from mcts_envs.games.ataxx import kernels as k
from mcts_envs.games.ataxx.game import FILES, Ataxx

#: Plies of seeded random play before the docs picture (``docs/_scripts/make_boards_png.py``).
PICTURE_PLIES = 16

CELL = 60
MARGIN = 28
FOOTER = 64
LIGHT, DARK = "#d6c49e", "#c8b48c"


def _distance(a: int, b: int) -> int:
    return max(abs(a // 7 - b // 7), abs(a % 7 - b % 7))


def _jump(action: int) -> tuple[int, int]:
    origin, offset = divmod(action - k.FIRST_JUMP, k.NUM_JUMP_OFFSETS)
    return origin, int(k.JUMP_TARGETS[origin, offset])


def move_paths(game: Ataxx, state: np.ndarray) -> dict[tuple[str, ...], int]:
    """Copies (``("s<to>",)`` and ``("s<from>", "s<to>")``), jumps, and ``("pass",)``."""
    paths: dict[tuple[str, ...], int] = {}
    legal = game.legal_actions(state)
    if len(legal) == 0:
        return paths
    own = int(state[int(state[k.SIDE])])
    stones = [square for square in range(k.NUM_SQUARES) if (own >> square) & 1]
    for action in (int(a) for a in legal):
        if action == k.PASS:
            paths[("pass",)] = action
        elif action < k.FIRST_JUMP:
            paths[(f"s{action}",)] = action
            for origin in stones:
                if _distance(origin, action) == 1:
                    paths[(f"s{origin}", f"s{action}")] = action
        else:
            origin, target = _jump(action)
            paths[(f"s{origin}", f"s{target}")] = action
    return paths


def _centre(square: int) -> tuple[float, float]:
    row, col = divmod(square, 7)
    return MARGIN + col * CELL + CELL / 2, MARGIN + row * CELL + CELL / 2


def status_text(game: Ataxx, state: np.ndarray) -> str:
    """Who moves (or the result) and the stone counts."""
    x_count, o_count = game.stone_counts(state)
    outcome = {
        k.ONGOING: f"{'xo'[int(state[k.SIDE])]} to move",
        k.X_WON: "x won",
        k.O_WON: "o won",
        k.DRAW: "draw",
    }[int(state[k.STATUS])]
    return f"{outcome} · stones x {x_count}, o {o_count} · halfmove {int(state[k.HALFMOVE])}"


def draw(game: Ataxx, state: np.ndarray, marks: Marks) -> Canvas:
    """The 7x7 board with file and rank labels; ``x`` red, ``o`` blue stones.

    Legal destinations get green dots (filled for a copy, a ring for a jump once a stone is
    selected), stones that can move a yellow ring, the selected stone a purple ring, the last
    move an orange frame (and an arrow for a jump).
    """
    side = 7 * CELL
    width, height = 2 * MARGIN + side, 2 * MARGIN + side + FOOTER
    canvas = Canvas(width, height, f"Ataxx: {status_text(game, state)}", background="#ece4d0")
    board = game.board(state).reshape(-1)
    origin = None
    if marks.selection and marks.selection[0].startswith("s"):
        origin = int(marks.selection[0][1:])
    last_squares: list[int] = []
    if marks.last_action is not None and marks.last_action != k.PASS:
        if marks.last_action < k.FIRST_JUMP:
            last_squares = [marks.last_action]
        else:
            last_squares = list(_jump(marks.last_action))
    for square in range(k.NUM_SQUARES):
        row, col = divmod(square, 7)
        x, y = MARGIN + col * CELL, MARGIN + row * CELL
        target = f"s{square}"
        canvas.add(
            "rect",
            x=x,
            y=y,
            width=CELL,
            height=CELL,
            fill=LIGHT if (row + col) % 2 == 0 else DARK,
            stroke="#463c2d",
            stroke_width=1,
            **canvas.target_region(target, marks),
        )
    for square in last_squares:
        row, col = divmod(square, 7)
        canvas.add(
            "rect",
            x=MARGIN + col * CELL + 3,
            y=MARGIN + row * CELL + 3,
            width=CELL - 6,
            height=CELL - 6,
            fill="none",
            stroke=LAST_MOVE,
            stroke_width=4,
            class_="last",
        )
    if len(last_squares) == 2:
        (x1, y1), (x2, y2) = _centre(last_squares[0]), _centre(last_squares[1])
        canvas.add(
            "line",
            x1=x1,
            y1=y1,
            x2=x2,
            y2=y2,
            stroke=LAST_MOVE,
            stroke_width=3,
            stroke_dasharray="6 4",
            pointer_events="none",
        )
    for square in range(k.NUM_SQUARES):
        cx, cy = _centre(square)
        target = f"s{square}"
        value = int(board[square])
        region = canvas.target_region(target, marks) if value else {}
        if value:
            canvas.add(
                "circle",
                cx=cx,
                cy=cy,
                r=CELL / 2 - 8,
                fill=(X_COLOUR, O_COLOUR)[value - 1],
                stroke="#191919",
                stroke_width=2,
                **region,
            )
        if target in marks.selection:
            canvas.add(
                "circle",
                cx=cx,
                cy=cy,
                r=CELL / 2 - 3,
                fill="none",
                stroke=SELECTED,
                stroke_width=5,
                pointer_events="none",
                class_="selected",
            )
        elif target in marks.targets and value:
            canvas.add(
                "circle",
                cx=cx,
                cy=cy,
                r=CELL / 2 - 4,
                fill="none",
                stroke=TARGET_FILL,
                stroke_width=4,
                pointer_events="none",
            )
        elif target in marks.targets:
            jump = origin is not None and _distance(origin, square) == 2
            canvas.add(
                "circle",
                cx=cx,
                cy=cy,
                r=CELL / 6,
                fill="none" if jump else TARGET_DOT,
                stroke=TARGET_DOT,
                stroke_width=3,
                pointer_events="none",
            )
    canvas.add(
        "rect",
        x=MARGIN,
        y=MARGIN,
        width=side,
        height=side,
        fill="none",
        stroke="#463c2d",
        stroke_width=3,
        pointer_events="none",
    )
    for index in range(7):
        centre = MARGIN + index * CELL + CELL / 2
        for x, y, label in (
            (centre, MARGIN / 2 + 6, FILES[index]),
            (centre, MARGIN + side + MARGIN / 2 + 6, FILES[index]),
            (MARGIN / 2, centre + 6, str(7 - index)),
            (MARGIN + side + MARGIN / 2, centre + 6, str(7 - index)),
        ):
            canvas.text(x, y, label, size=17, text_anchor="middle", fill="#3c3228")
    canvas.text(MARGIN, height - FOOTER / 2 + 2, status_text(game, state), size=18, class_="status")
    if "pass" in marks.clickable or marks.last_action == k.PASS:
        x, y = width - MARGIN - 90, height - FOOTER / 2 - 22
        active = "pass" in marks.targets
        canvas.add(
            "rect",
            x=x,
            y=y,
            width=90,
            height=34,
            rx=6,
            fill=TARGET_FILL if active else "#d9d2bf",
            stroke=LAST_MOVE if marks.last_action == k.PASS else INK,
            stroke_width=2,
            **canvas.target_region("pass", marks),
        )
        canvas.text(x + 45, y + 23, "pass", size=18, text_anchor="middle", pointer_events="none")
    return canvas
