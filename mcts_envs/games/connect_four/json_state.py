"""The JSON view of Connect Four states (rules in :mod:`mcts_envs.core.json_state`).

``{"game": "connect_four", "board": [".......", ".......", ".......", ".......", "...o...",
"...x..."], "to_move": "x", "status": "ongoing", "moves_played": 2}``: ``board`` the six rows
from the top to the bottom, columns 1-7 left to right, of ``x`` (``player_0``), ``o`` or ``.``;
``status`` and ``moves_played`` are derived.
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
from mcts_envs.games.connect_four import kernels as k

#: By the kernel status (``ONGOING``, ``X_WON``, ``O_WON``, ``DRAW``).
STATUS_NAMES = status_names("x", "o")

PROPERTIES: dict[str, Any] = {
    "board": grid_property(
        k.ROWS, ".xo", "6 rows from the top to the bottom, columns 1-7 left to right", k.COLUMNS
    ),
    "to_move": side_property("xo"),
    "status": status_property(STATUS_NAMES),
    "moves_played": count_property(k.NUM_CELLS, "derived: stones on the board"),
}
REQUIRED = ("board", "to_move")


def to_json(game: Any, state: np.ndarray) -> dict[str, Any]:
    """The JSON object of ``state`` (every field of :data:`PROPERTIES`)."""
    return {
        "board": grid_rows(game.board(state), ".xo"),
        "to_move": "xo"[int(state[2])],
        "status": STATUS_NAMES[int(state[3])],
        "moves_played": game.moves_played(state),
    }


def to_record(game: Any, obj: dict[str, Any]) -> str:
    """The text record of a schema-checked object."""
    return "/".join(obj["board"]) + " " + obj["to_move"]
