"""The JSON view of Ultimate Tic-Tac-Toe states (rules in :mod:`mcts_envs.core.json_state`).

``board`` is the 9x9 grid as 9 rows from the top (row 9) to the bottom (row 1), columns
``a``-``i``; ``target_board`` the local board (0-8, row-major from the top-left) the mover is
sent to, or ``null`` for any open board. ``local_boards``, ``status`` and ``moves_played`` are
derived.
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
from mcts_envs.games.ultimate_tictactoe import kernels as k

STATUS_NAMES = status_names("x", "o")
LOCAL_NAMES = ("open", "x", "o", "drawn")

PROPERTIES: dict[str, Any] = {
    "board": grid_property(
        9, ".xo", "9 rows of the grid from the top (row 9) to the bottom (row 1), columns a-i"
    ),
    "to_move": side_property("xo"),
    "target_board": {
        "type": ["integer", "null"],
        "minimum": 0,
        "maximum": 8,
        "description": "the local board (0-8, row-major from the top-left) the mover must play "
        "in, or null for any open board",
    },
    "local_boards": {
        "type": "array",
        "minItems": 9,
        "maxItems": 9,
        "items": {"enum": list(LOCAL_NAMES)},
        "description": "derived: each local board open, won by x or o, or drawn (full)",
    },
    "status": status_property(STATUS_NAMES),
    "moves_played": count_property(81, "derived: marks on the grid"),
}
REQUIRED = ("board", "to_move", "target_board")


def to_json(game: Any, state: np.ndarray) -> dict[str, Any]:
    """The JSON object of ``state`` (every field of :data:`PROPERTIES`)."""
    target = int(state[k.TARGET])
    return {
        "board": grid_rows(game.grid(state), ".xo"),
        "to_move": "xo"[int(state[k.TO_MOVE])],
        "target_board": None if target < 0 else target,
        "local_boards": [LOCAL_NAMES[int(v)] for v in game.board_owners(state)],
        "status": STATUS_NAMES[int(state[k.STATUS])],
        "moves_played": game.moves_played(state),
    }


def to_record(game: Any, obj: dict[str, Any]) -> str:
    """The text record of a schema-checked object."""
    target = "-" if obj["target_board"] is None else str(obj["target_board"])
    return f"{'/'.join(obj['board'])} {obj['to_move']} {target}"
