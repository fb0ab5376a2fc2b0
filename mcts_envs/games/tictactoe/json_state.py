"""The JSON view of Tic-Tac-Toe states (rules in :mod:`mcts_envs.core.json_state`).

``{"game": "tictactoe", "board": ["x.o", ".x.", "..o"], "to_move": "x", "status": "ongoing",
"moves_played": 4}``: ``board`` the rows from the top (row 3) to the bottom (row 1), columns
``a``-``c`` left to right; ``status`` and ``moves_played`` are derived.
"""

from __future__ import annotations

from typing import Any

import numpy as np

#: By the kernel status (``ONGOING``, ``X_WON``, ``O_WON``, ``DRAW``).
STATUS_NAMES = ("ongoing", "x_won", "o_won", "draw")

PROPERTIES: dict[str, Any] = {
    "board": {
        "type": "array",
        "minItems": 3,
        "maxItems": 3,
        "items": {"type": "string", "pattern": "^[xo.]{3}$", "description": "3 of x, o or ."},
        "description": "3 rows from the top (row 3) to the bottom (row 1), columns a-c",
    },
    "to_move": {"enum": ["x", "o"], "description": "the side to move (x is player_0)"},
    "status": {"enum": list(STATUS_NAMES), "description": "derived: the result so far"},
    "moves_played": {
        "type": "integer",
        "minimum": 0,
        "maximum": 9,
        "description": "derived: marks on the board",
    },
}
REQUIRED = ("board", "to_move")


def to_json(game: Any, state: np.ndarray) -> dict[str, Any]:
    """The JSON object of ``state`` (every field of :data:`PROPERTIES`)."""
    board = game.board(state)
    return {
        "board": ["".join(".xo"[int(v)] for v in row) for row in board],
        "to_move": "xo"[int(state[2])],
        "status": STATUS_NAMES[int(state[3])],
        "moves_played": int(np.count_nonzero(board)),
    }


def to_record(game: Any, obj: dict[str, Any]) -> str:
    """The text record of a schema-checked object."""
    return "/".join(obj["board"]) + " " + obj["to_move"]
