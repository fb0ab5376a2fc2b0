"""The JSON view of Tantrix states (rules in :mod:`mcts_envs.core.json_state`).

The fields of the text record under readable names: ``colors`` (colour names of ``player_0``
and ``player_1``), ``first_player`` (``highest_tile`` or ``player_0``), ``status``, ``mover``,
``phase``, ``last_drawn`` (``{"tile", "player"}`` or ``null``), ``hands`` (tile numbers 1-56 in
slot order) and ``board`` (the placed tiles in placement order, ``{"q", "r", "tile",
"orientation"}`` in axial coordinates). Derived: ``bag_count``, ``bag`` (the tile numbers in
the bag, increasing: a set, never an order), ``scores`` (both best lines) and
``forced_spaces`` (axial ``[q, r]`` cells).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mcts_envs.games.tantrix import kernels as k
from mcts_envs.games.tantrix.game import PHASE_NAMES, STATUS_NAMES
from mcts_envs.games.tantrix.tiles import COLOUR_LETTERS, COLOUR_NAMES, NUM_TILES

#: The record's ``first=`` values by ``first_player`` option.
FIRST_RECORD = {"highest_tile": "highest", "player_0": "player_0"}
#: Largest axial coordinate the record reads (6 digits).
MAX_COORDINATE = 999_999

_TILE = {"type": "integer", "minimum": 1, "maximum": NUM_TILES, "description": "a tile number"}
_PLAYER = {"type": "integer", "minimum": 0, "maximum": 1, "description": "0 or 1"}
_COORDINATE = {"type": "integer", "minimum": -MAX_COORDINATE, "maximum": MAX_COORDINATE}

PROPERTIES: dict[str, Any] = {
    "colors": {
        "type": "array",
        "minItems": 2,
        "maxItems": 2,
        "items": {"enum": list(COLOUR_NAMES)},
        "description": "the colours of player_0 and player_1 (different)",
    },
    "first_player": {
        "enum": list(FIRST_RECORD),
        "description": "who starts: the holder of the highest tile, or player_0",
    },
    "status": {
        "enum": list(STATUS_NAMES),
        "description": "deal or draw (chance nodes), decide, finished or deadlock",
    },
    "mover": _PLAYER | {"description": "the player whose turn it is (0 or 1)"},
    "phase": {"enum": list(PHASE_NAMES), "description": "the turn phase (rule 10)"},
    "last_drawn": {
        "type": ["object", "null"],
        "properties": {"tile": _TILE, "player": _PLAYER},
        "required": ["tile", "player"],
        "additionalProperties": False,
        "description": "the tile last dealt or drawn and who got it, or null",
    },
    "hands": {
        "type": "array",
        "minItems": 2,
        "maxItems": 2,
        "items": {"type": "array", "maxItems": k.HAND_SIZE, "items": _TILE},
        "description": "both hands (tile numbers 1-56, at most 6 each), player_0 first",
    },
    "board": {
        "type": "array",
        "maxItems": NUM_TILES,
        "items": {
            "type": "object",
            "properties": {
                "q": _COORDINATE,
                "r": _COORDINATE,
                "tile": _TILE,
                "orientation": {"type": "integer", "minimum": 0, "maximum": 5},
            },
            "required": ["q", "r", "tile", "orientation"],
            "additionalProperties": False,
            "description": "a placed tile: axial cell q, r, tile number, orientation 0-5",
        },
        "description": "the placed tiles in placement order (the first at q=0, r=0)",
    },
    "bag_count": {
        "type": "integer",
        "minimum": 0,
        "maximum": NUM_TILES,
        "description": "derived: tiles in the bag",
    },
    "bag": {
        "type": "array",
        "maxItems": NUM_TILES,
        "items": _TILE,
        "description": "derived: the tile numbers in the bag, increasing",
    },
    "scores": {
        "type": "array",
        "minItems": 2,
        "maxItems": 2,
        "items": {"type": "integer", "minimum": 0},
        "description": "derived: both players' best-line scores",
    },
    "forced_spaces": {
        "type": "array",
        "items": {"type": "array", "minItems": 2, "maxItems": 2, "items": _COORDINATE},
        "description": "derived: axial [q, r] of the forced spaces",
    },
}
REQUIRED = ("colors", "first_player", "status", "mover", "phase", "last_drawn", "hands", "board")


def to_json(game: Any, state: np.ndarray) -> dict[str, Any]:
    """The JSON object of ``state`` (every field of :data:`PROPERTIES`)."""
    last = int(state[k.LAST_DRAWN])
    first = "highest_tile" if int(state[k.FIRST_RULE]) == k.FIRST_HIGHEST_TILE else "player_0"
    return {
        "colors": [COLOUR_NAMES[int(state[k.COLOUR_0 + p])] for p in (0, 1)],
        "first_player": first,
        "status": STATUS_NAMES[int(state[k.STATUS])],
        "mover": int(state[k.MOVER]),
        "phase": PHASE_NAMES[int(state[k.PHASE])],
        "last_drawn": None if last < 0 else {"tile": last + 1, "player": int(state[k.LAST_DRAWER])},
        "hands": [list(hand) for hand in game.hands(state)],
        "board": [
            {"q": q, "r": r, "tile": tile, "orientation": orientation}
            for (q, r), (tile, orientation) in game.board(state).items()
        ],
        "bag_count": int(state[k.BAG_COUNT]),
        "bag": game.bag(state),
        "scores": list(game.scores(state)),
        "forced_spaces": [[q, r] for q, r in game.forced_spaces(state)],
    }


def to_record(game: Any, obj: dict[str, Any]) -> str:
    """The text record of a schema-checked object."""
    colours = "".join(COLOUR_LETTERS[COLOUR_NAMES.index(name)] for name in obj["colors"])
    last = obj["last_drawn"]
    last_text = "-" if last is None else f"{last['tile']}:{last['player']}"
    hands = "/".join(".".join(map(str, hand)) or "-" for hand in obj["hands"])
    board = ";".join(f"{t['q']},{t['r']}:{t['tile']}@{t['orientation']}" for t in obj["board"])
    return (
        f"colors={colours} first={FIRST_RECORD[obj['first_player']]} status={obj['status']} "
        f"mover={obj['mover']} phase={obj['phase']} last={last_text} hands={hands} "
        f"board={board or '-'}"
    )
