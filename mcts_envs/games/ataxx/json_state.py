"""The JSON view of Ataxx states (rules in :mod:`mcts_envs.core.json_state`).

``board`` is 7 rows from rank 7 (top) to rank 1, files ``a``-``g``, of ``x`` (``player_0``),
``o`` or ``.``; ``halfmove_clock`` and ``fullmove_number`` are the FEN's clocks. ``status``
and ``stones`` (per side) are derived.
"""

from __future__ import annotations

import re
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
from mcts_envs.games.ataxx import kernels as k
from mcts_envs.games.ataxx.game import MAX_CLOCK

STATUS_NAMES = status_names("x", "o")

PROPERTIES: dict[str, Any] = {
    "board": grid_property(7, ".xo", "7 rows from rank 7 (top) to rank 1, files a-g"),
    "to_move": side_property("xo"),
    "halfmove_clock": count_property(
        MAX_CLOCK, f"plies since the last copy move (the game is drawn at {k.HALFMOVE_LIMIT})"
    ),
    "fullmove_number": count_property(
        MAX_CLOCK, "starts at 1, grows after each move of o", minimum=1
    ),
    "status": status_property(STATUS_NAMES),
    "stones": {
        "type": "object",
        "properties": {
            "x": {"type": "integer", "minimum": 0, "maximum": 49},
            "o": {"type": "integer", "minimum": 0, "maximum": 49},
        },
        "required": ["x", "o"],
        "additionalProperties": False,
        "description": "derived: stones of each side",
    },
}
REQUIRED = ("board", "to_move", "halfmove_clock", "fullmove_number")


def to_json(game: Any, state: np.ndarray) -> dict[str, Any]:
    """The JSON object of ``state`` (every field of :data:`PROPERTIES`)."""
    x_count, o_count = game.stone_counts(state)
    return {
        "board": grid_rows(game.board(state), ".xo"),
        "to_move": "xo"[int(state[k.SIDE])],
        "halfmove_clock": int(state[k.HALFMOVE]),
        "fullmove_number": int(state[k.FULLMOVE]),
        "status": STATUS_NAMES[int(state[k.STATUS])],
        "stones": {"x": x_count, "o": o_count},
    }


def to_record(game: Any, obj: dict[str, Any]) -> str:
    """The FEN of a schema-checked object (runs of empty squares as digits)."""
    ranks = [re.sub(r"\.+", lambda run: str(len(run.group())), row) for row in obj["board"]]
    return f"{'/'.join(ranks)} {obj['to_move']} {obj['halfmove_clock']} {obj['fullmove_number']}"
