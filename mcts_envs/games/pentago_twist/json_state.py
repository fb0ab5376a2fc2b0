"""The JSON view of Pentago Twist states (rules in :mod:`mcts_envs.core.json_state`).

``board`` is 6 rows from the top (row 6) to the bottom (row 1), columns ``a``-``f``, of ``w``
(white, ``player_0``), ``b`` (black) or ``.``; ``status`` and ``moves_played`` are derived.
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
from mcts_envs.games.pentago_twist import kernels as k

STATUS_NAMES = status_names("white", "black")

PROPERTIES: dict[str, Any] = {
    "board": grid_property(
        6, ".wb", "6 rows from the top (row 6) to the bottom (row 1), columns a-f"
    ),
    "to_move": side_property("wb"),
    "status": status_property(STATUS_NAMES),
    "moves_played": count_property(36, "derived: stones on the board"),
}
REQUIRED = ("board", "to_move")


def to_json(game: Any, state: np.ndarray) -> dict[str, Any]:
    """The JSON object of ``state`` (every field of :data:`PROPERTIES`)."""
    board = game.board(state)
    return {
        "board": grid_rows(board, ".wb"),
        "to_move": "wb"[int(state[k.TO_MOVE])],
        "status": STATUS_NAMES[int(state[k.STATUS])],
        "moves_played": game.moves_played(state),
    }


def to_record(game: Any, obj: dict[str, Any]) -> str:
    """The text record of a schema-checked object."""
    return "/".join(obj["board"]) + " " + obj["to_move"]
