"""The JSON view of Tic-Tac-Toe states (rules in :mod:`mcts_envs.core.json_state`).

``{"game": "tictactoe", "board": ["x.o", ".x.", "..o"], "to_move": "x", "status": "ongoing",
"moves_played": 4}``: ``board`` the rows from the top (row 3) to the bottom (row 1), columns
``a``-``c`` left to right; ``status`` and ``moves_played`` are derived.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mcts_envs.core.json_state import (
    count_property,
    grid_property,
    grid_rows,
    side_property,
    status_names,
    status_property,
)

#: By the kernel status (``ONGOING``, ``X_WON``, ``O_WON``, ``DRAW``).
STATUS_NAMES = status_names("x", "o")

PROPERTIES: dict[str, Any] = {
    "board": grid_property(
        3, ".xo", "3 rows from the top (row 3) to the bottom (row 1), columns a-c"
    ),
    "to_move": side_property("xo"),
    "status": status_property(STATUS_NAMES),
    "moves_played": count_property(9, "derived: marks on the board"),
}
REQUIRED = ("board", "to_move")


def to_json(game: Any, state: np.ndarray) -> dict[str, Any]:
    """The JSON object of ``state`` (every field of :data:`PROPERTIES`)."""
    board = game.board(state)
    return {
        "board": grid_rows(board, ".xo"),
        "to_move": "xo"[int(state[2])],
        "status": STATUS_NAMES[int(state[3])],
        "moves_played": game.moves_played(state),
    }


def to_record(game: Any, obj: dict[str, Any]) -> str:
    """The text record of a schema-checked object."""
    return "/".join(obj["board"]) + " " + obj["to_move"]
