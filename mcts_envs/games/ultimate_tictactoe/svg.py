"""The Ultimate Tic-Tac-Toe board as SVG (see :mod:`mcts_envs.svg`): one click per move.

Targets: ``"c<action>"`` with ``action = board * 9 + cell`` (boards and cells row-major).
Won boards are shaded in the winner's colour with a large mark; drawn boards are greyed.
"""

from __future__ import annotations

import numpy as np

from mcts_envs.core.svg import (
    INK,
    LAST_MOVE,
    O_COLOUR,
    TARGET_FILL,
    X_COLOUR,
    Canvas,
    Marks,
)
from mcts_envs.games.tictactoe.svg import draw_mark
from mcts_envs.games.ultimate_tictactoe import kernels as k
from mcts_envs.games.ultimate_tictactoe.game import UltimateTicTacToe, grid_position

#: Plies of seeded random play before the docs picture (``docs/_scripts/make_boards_png.py``).
PICTURE_PLIES = 20

CELL = 50
MARGIN = 10
STATUS = 34
SHADES = {1: "#f5cdcd", 2: "#cdd7f5", 3: "#d7d7d7"}


def move_paths(game: UltimateTicTacToe, state: np.ndarray) -> dict[tuple[str, ...], int]:
    """``{("c<action>",): action}`` for every legal action."""
    return {(f"c{int(a)}",): int(a) for a in game.legal_actions(state)}


def status_text(state: np.ndarray) -> str:
    """Who moves and where (``"X to move in board 4"``), or the result."""
    status = int(state[k.STATUS])
    if status != k.ONGOING:
        return {k.X_WON: "X won", k.O_WON: "O won", k.DRAW: "draw"}[status]
    target = int(state[k.TARGET])
    where = "any open board" if target < 0 else f"board {target}"
    return f"{'XO'[int(state[k.TO_MOVE])]} to move in {where}"


def draw(game: UltimateTicTacToe, state: np.ndarray, marks: Marks) -> Canvas:
    """The 9x9 grid: boards separated by thick lines, won boards shaded, targets in yellow."""
    side = 9 * CELL
    size = 2 * MARGIN + side
    canvas = Canvas(size, size + STATUS, f"Ultimate Tic-Tac-Toe: {status_text(state)}")
    owners = game.board_owners(state)
    for board in range(9):
        if owners[board]:
            x = MARGIN + (board % 3) * 3 * CELL
            y = MARGIN + (board // 3) * 3 * CELL
            canvas.add(
                "rect", x=x, y=y, width=3 * CELL, height=3 * CELL, fill=SHADES[int(owners[board])]
            )
    grid = game.grid(state)
    for action in range(81):
        row, col = grid_position(action // 9, action % 9)
        x, y = MARGIN + col * CELL, MARGIN + row * CELL
        target = f"c{action}"
        fill = TARGET_FILL if target in marks.targets else "none"
        canvas.add(
            "rect",
            x=x + 2,
            y=y + 2,
            width=CELL - 4,
            height=CELL - 4,
            rx=4,
            fill=fill,
            pointer_events="all",
            **canvas.target_region(target, marks),
        )
        if marks.last_action == action:
            canvas.add(
                "rect",
                x=x + 2,
                y=y + 2,
                width=CELL - 4,
                height=CELL - 4,
                rx=4,
                fill="none",
                stroke=LAST_MOVE,
                stroke_width=3,
                class_="last",
            )
        draw_mark(canvas, int(grid[row, col]), x, y, CELL)
    for i in range(1, 9):
        offset = MARGIN + i * CELL
        thick = i % 3 == 0
        style = {"stroke": INK if thick else "#969696", "stroke_width": 4 if thick else 1}
        canvas.add("line", x1=offset, y1=MARGIN, x2=offset, y2=MARGIN + side, **style)
        canvas.add("line", x1=MARGIN, y1=offset, x2=MARGIN + side, y2=offset, **style)
    for board in range(9):
        owner = int(owners[board])
        if owner in (1, 2):  # a large translucent mark over a won board
            x = MARGIN + (board % 3) * 3 * CELL
            y = MARGIN + (board // 3) * 3 * CELL
            canvas.open("g", opacity=0.45, pointer_events="none")
            draw_mark(canvas, owner, x, y, 3 * CELL)
            canvas.close("g")
    canvas.add(
        "rect", x=MARGIN, y=MARGIN, width=side, height=side, fill="none", stroke=INK, stroke_width=4
    )
    colour = (X_COLOUR, O_COLOUR)[int(state[k.TO_MOVE])] if int(state[k.STATUS]) == 0 else INK
    canvas.text(
        size / 2,
        size + STATUS / 2 + 2,
        status_text(state),
        size=20,
        text_anchor="middle",
        fill=colour,
        class_="status",
    )
    return canvas
