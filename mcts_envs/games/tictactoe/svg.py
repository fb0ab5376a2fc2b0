"""The Tic-Tac-Toe board as SVG (see :mod:`mcts_envs.svg`): one click per move, on the cell.

Targets: ``"c<cell>"`` with ``cell = row * 3 + col`` (the action).
"""

from __future__ import annotations

import numpy as np

from mcts_envs.core.svg import INK, LAST_MOVE, O_COLOUR, TARGET_FILL, X_COLOUR, Canvas, Marks
from mcts_envs.games.tictactoe import kernels as k
from mcts_envs.games.tictactoe.game import TicTacToe

#: Plies of seeded random play before the docs picture (``docs/_scripts/make_boards_png.py``).
PICTURE_PLIES = 4

CELL = 100
MARGIN = 10
STATUS = 34


def move_paths(game: TicTacToe, state: np.ndarray) -> dict[tuple[str, ...], int]:
    """``{("c<cell>",): cell}`` for every legal cell."""
    return {(f"c{int(a)}",): int(a) for a in game.legal_actions(state)}


def draw_mark(canvas: Canvas, mark: int, x: float, y: float, cell: float) -> None:
    """X (``mark == 1``, red cross) or O (``mark == 2``, blue ring) in the square at ``x, y``."""
    pad, width = cell * 0.22, max(2.0, cell * 0.09)
    if mark == 1:
        for x1, y1, x2, y2 in (
            (x + pad, y + pad, x + cell - pad, y + cell - pad),
            (x + cell - pad, y + pad, x + pad, y + cell - pad),
        ):
            canvas.add(
                "line",
                x1=x1,
                y1=y1,
                x2=x2,
                y2=y2,
                stroke=X_COLOUR,
                stroke_width=width,
                stroke_linecap="round",
            )
    elif mark == 2:
        canvas.add(
            "circle",
            cx=x + cell / 2,
            cy=y + cell / 2,
            r=cell / 2 - pad,
            fill="none",
            stroke=O_COLOUR,
            stroke_width=width,
        )


def status_text(state: np.ndarray) -> str:
    """``"X to move"``, ``"X won"``, ``"O won"`` or ``"draw"``."""
    status = int(state[3])
    if status == k.ONGOING:
        return f"{'XO'[int(state[2])]} to move"
    return {k.X_WON: "X won", k.O_WON: "O won", k.DRAW: "draw"}[status]


def draw(game: TicTacToe, state: np.ndarray, marks: Marks) -> Canvas:
    """The 3x3 board: X red crosses, O blue rings, the last move outlined in orange."""
    size = 2 * MARGIN + 3 * CELL
    canvas = Canvas(size, size + STATUS, f"Tic-Tac-Toe: {status_text(state)}")
    board = game.board(state)
    for cell in range(9):
        row, col = divmod(cell, 3)
        x, y = MARGIN + col * CELL, MARGIN + row * CELL
        target = f"c{cell}"
        fill = TARGET_FILL if target in marks.targets else "none"
        canvas.add(
            "rect",
            x=x + 4,
            y=y + 4,
            width=CELL - 8,
            height=CELL - 8,
            rx=6,
            fill=fill,
            pointer_events="all",
            **canvas.target_region(target, marks),
        )
        if marks.last_action == cell:
            canvas.add(
                "rect",
                x=x + 4,
                y=y + 4,
                width=CELL - 8,
                height=CELL - 8,
                rx=6,
                fill="none",
                stroke=LAST_MOVE,
                stroke_width=4,
                class_="last",
            )
        draw_mark(canvas, int(board[row, col]), x, y, CELL)
    for i in (1, 2):
        offset = MARGIN + i * CELL
        canvas.add(
            "line",
            x1=offset,
            y1=MARGIN,
            x2=offset,
            y2=MARGIN + 3 * CELL,
            stroke=INK,
            stroke_width=4,
            stroke_linecap="round",
            pointer_events="none",
        )
        canvas.add(
            "line",
            x1=MARGIN,
            y1=offset,
            x2=MARGIN + 3 * CELL,
            y2=offset,
            stroke=INK,
            stroke_width=4,
            stroke_linecap="round",
            pointer_events="none",
        )
    canvas.text(
        size / 2,
        size + STATUS / 2,
        status_text(state),
        size=20,
        text_anchor="middle",
        class_="status",
    )
    return canvas
