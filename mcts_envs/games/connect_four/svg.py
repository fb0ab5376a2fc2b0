"""The Connect Four board as SVG (see :mod:`mcts_envs.svg`): one click per move, on the column.

Targets: ``"c<column>"`` with ``column`` 0-6 from the left (the action); the cell the stone
would fall to is highlighted.
"""

from __future__ import annotations

import numpy as np

from mcts_envs.core.svg import INK, LAST_MOVE, O_COLOUR, PAPER, TARGET_FILL, X_COLOUR, Canvas, Marks
from mcts_envs.games.connect_four import kernels as k
from mcts_envs.games.connect_four.game import ConnectFour

#: Plies of seeded random play before the docs picture (``docs/_scripts/make_boards_png.py``).
PICTURE_PLIES = 14

CELL = 60
MARGIN = 10
LABELS = 24
STATUS = 34
BOARD_FILL = "#c9ccc4"


def move_paths(game: ConnectFour, state: np.ndarray) -> dict[tuple[str, ...], int]:
    """``{("c<column>",): column}`` for every legal column."""
    return {(f"c{int(a)}",): int(a) for a in game.legal_actions(state)}


def status_text(state: np.ndarray) -> str:
    """``"x to move"``, ``"x won"``, ``"o won"`` or ``"draw"``."""
    status = int(state[3])
    if status == k.ONGOING:
        return f"{'xo'[int(state[2])]} to move"
    return {k.X_WON: "x won", k.O_WON: "o won", k.DRAW: "draw"}[status]


def draw(game: ConnectFour, state: np.ndarray, marks: Marks) -> Canvas:
    """The 7x6 board: ``x`` red and ``o`` blue stones, empty holes white, the last stone ringed
    in orange, the column numbers below."""
    width = 2 * MARGIN + k.COLUMNS * CELL
    board_height = k.ROWS * CELL
    height = 2 * MARGIN + board_height + LABELS + STATUS
    canvas = Canvas(width, height, f"Connect Four: {status_text(state)}")
    board = game.board(state)
    canvas.add(
        "rect",
        x=MARGIN,
        y=MARGIN,
        width=k.COLUMNS * CELL,
        height=board_height,
        rx=10,
        fill=BOARD_FILL,
        stroke=INK,
        stroke_width=2,
    )
    heights = (board != 0).sum(axis=0)
    for column in range(k.COLUMNS):
        x = MARGIN + column * CELL
        target = f"c{column}"
        landing = k.ROWS - 1 - int(heights[column])  # the row (from the top) a stone falls to
        for row in range(k.ROWS):
            value = int(board[row, column])
            fill = (PAPER, X_COLOUR, O_COLOUR)[value]
            if value == 0 and row == landing and target in marks.targets:
                fill = TARGET_FILL
            canvas.add(
                "circle",
                cx=x + CELL / 2,
                cy=MARGIN + row * CELL + CELL / 2,
                r=CELL * 0.4,
                fill=fill,
                stroke=INK,
                stroke_width=1.5,
            )
        if marks.last_action == column and heights[column]:
            top = k.ROWS - int(heights[column])
            canvas.add(
                "circle",
                cx=x + CELL / 2,
                cy=MARGIN + top * CELL + CELL / 2,
                r=CELL * 0.4,
                fill="none",
                stroke=LAST_MOVE,
                stroke_width=5,
                class_="last",
            )
        canvas.add(
            "rect",
            x=x,
            y=MARGIN,
            width=CELL,
            height=board_height,
            fill="none",
            pointer_events="all",
            **canvas.target_region(target, marks),
        )
        canvas.text(
            x + CELL / 2,
            MARGIN + board_height + LABELS - 4,
            str(column + 1),
            size=16,
            text_anchor="middle",
        )
    canvas.text(
        width / 2,
        height - STATUS / 2 + 6,
        status_text(state),
        size=20,
        text_anchor="middle",
        class_="status",
    )
    return canvas
