"""JSON views of game states: ``game.to_json(state)``, ``game.from_json(obj)``, ``game.json_schema()``.

A JSON state is the game's text record (``game.to_text``) as a structured object: the same
fields under readable names (a board as rows of strings, the side to move, clocks, hands, ...)
plus a few *derived* facts (status, scores, counts) that are read off the position. Every
object carries ``"game": "<name>"``.

The rules are written once: each game's module ``mcts_envs.games.<game>.json_state`` only
converts between its object and its text record, and this module does the rest:

* :func:`state_from_json` checks the object against the game's JSON Schema (types, required
  fields, ranges, patterns; the error names the field, e.g. ``board[1]``), builds the text
  record and reads it with ``game.from_text``, which checks every invariant of the game
  exactly as it does for a record; then every field the object gives, derived ones included,
  must equal what the position says (a stale ``status`` is an error, not ignored);
* :func:`json_schema` is the game's schema (a JSON Schema draft 2020-12 ``dict``) and
  :func:`check_json` the small validator behind it (the subset of JSON Schema the schemas use:
  ``type``, ``const``, ``enum``, ``properties``, ``required``, ``additionalProperties: false``,
  ``items``, ``minItems``, ``maxItems``, ``minimum``, ``maximum``, ``pattern``).

A game module provides:

* ``PROPERTIES``: the schema of each field (``game`` excepted), each with a ``description``;
* ``REQUIRED``: the fields :func:`state_from_json` needs (the others are derived);
* ``to_json(game, state) -> dict``: every field of ``PROPERTIES`` (JSON types only);
* ``to_record(game, obj) -> str``: the text record of a schema-checked object.
"""

from __future__ import annotations

import importlib
import math
import re
from types import ModuleType
from typing import Any

import numpy as np

from mcts_envs.core.errors import InvalidRecordError
from mcts_envs.core.quoting import quote

#: The JSON Schema dialect of :func:`json_schema`.
SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"

_JSON_TYPES = {
    "object": dict,
    "array": list,
    "string": str,
    "boolean": bool,
    "null": type(None),
}


def codec_for(game: Any) -> ModuleType:
    """The module that converts ``game``'s states: the one its class declares as ``json_module``
    (every built-in game: ``mcts_envs.games.<name>.json_state``).

    Raises:
        NotImplementedError: if the game declares no such module.
    """
    name = getattr(game, "json_module", None)
    if not name:
        raise NotImplementedError(
            f"{game.info.name}: no JSON view of its states: its class declares no json_module"
        )
    return importlib.import_module(name)


# -- pieces of the games' schemas ---------------------------------------------------------------


def grid_property(
    size: int, symbols: str, description: str, width: int | None = None
) -> dict[str, Any]:
    """The schema of a board as ``size`` rows of ``width`` characters (``size`` if ``None``: a
    square board) of ``symbols`` (empty first: e.g. ``".xo"``)."""
    width = size if width is None else width
    allowed = ", ".join(symbols[1:]) + f" or {symbols[0]}"
    return {
        "type": "array",
        "minItems": size,
        "maxItems": size,
        "items": {
            "type": "string",
            "pattern": f"^[{symbols[1:]}{symbols[0]}]{{{width}}}$",
            "description": f"{width} of {allowed}",
        },
        "description": description,
    }


def grid_rows(board: Any, symbols: str) -> list[str]:
    """A board (rows of 0 for empty, 1 and 2 for the two sides) as rows of ``symbols``."""
    return ["".join(symbols[int(v)] for v in row) for row in board]


def side_property(symbols: str) -> dict[str, Any]:
    """The schema of the side to move, named by ``symbols`` (``player_0``'s first)."""
    return {
        "enum": list(symbols),
        "description": f"the side to move ({symbols[0]} is player_0)",
    }


def status_names(first: str, second: str) -> tuple[str, str, str, str]:
    """The JSON names of the built-in games' shared status code (:mod:`mcts_envs.core.outcomes`:
    0 ongoing, 1 ``player_0`` won, 2 ``player_1`` won, 3 draw), indexed by the code, the sides
    named ``first`` (``player_0``) and ``second``: ``("ongoing", "x_won", "o_won", "draw")``."""
    return ("ongoing", f"{first}_won", f"{second}_won", "draw")


def status_property(names: tuple[str, ...]) -> dict[str, Any]:
    """The schema of the derived result so far, one of ``names``."""
    return {"enum": list(names), "description": "derived: the result so far"}


def count_property(maximum: int, description: str, minimum: int = 0) -> dict[str, Any]:
    """The schema of an integer from ``minimum`` to ``maximum``."""
    return {"type": "integer", "minimum": minimum, "maximum": maximum, "description": description}


def json_schema(game: Any) -> dict[str, Any]:
    """The JSON Schema (draft 2020-12, a ``dict``) of ``game``'s JSON states.

    ``required`` lists the fields :func:`state_from_json` needs; :func:`state_to_json` writes
    every field of ``properties``.
    """
    codec = codec_for(game)
    name = game.info.name
    return {
        "$schema": SCHEMA_DIALECT,
        "title": f"{name} state",
        "description": f"A {name} position (mcts_envs {name}: game.to_json / game.from_json).",
        "type": "object",
        "properties": {"game": {"const": name, "description": "the game's name"}}
        | codec.PROPERTIES,
        "required": ["game", *codec.REQUIRED],
        "additionalProperties": False,
    }


def state_to_json(game: Any, state: np.ndarray) -> dict[str, Any]:
    """``state`` as a JSON object (only ``dict``, ``list``, ``str``, ``int``, ``bool``, ``None``).

    Raises:
        TypeError: if ``state`` is not a state array of ``game``.
    """
    game.check_state(state)
    return {"game": game.info.name} | codec_for(game).to_json(game, state)


def state_from_json(game: Any, obj: object) -> np.ndarray:
    """The state described by the JSON object ``obj`` (as :func:`state_to_json` writes it).

    Raises:
        InvalidRecordError: if ``obj`` breaks the game's schema (the message names the field and
            says what is allowed), describes no valid position (the game's ``from_text``
            message), or gives a derived field that disagrees with the position.
    """
    schema = json_schema(game)
    name = game.info.name
    check_json(obj, schema, name)
    codec = codec_for(game)
    record = codec.to_record(game, obj)
    try:
        state = game.from_text(record)
    except InvalidRecordError as error:
        raise InvalidRecordError(
            f"{name}: the JSON state is not a valid position: {error}"
        ) from None
    written = codec.to_json(game, state)
    for key, value in obj.items():
        if key != "game" and written[key] != value:
            raise InvalidRecordError(
                f"{name}: JSON state field {key!r} is {quote(value)} but the position gives "
                f"{quote(written[key])} (a derived field must agree, or be left out)"
            )
    return state


def check_json(value: object, schema: dict[str, Any], game_name: str, path: str = "") -> None:
    """Raise unless ``value`` matches ``schema`` (the subset of JSON Schema listed above).

    Raises:
        InvalidRecordError: ``"<game>: JSON state field <path>: <problem>; expected <what>"``,
            the path like ``hands[0][3]`` (``(top level)`` for the object itself).
    """

    def fail(problem: str) -> InvalidRecordError:
        where = path or "(top level)"
        expected = schema.get("description")
        tail = f"; expected {expected}" if expected else ""
        return InvalidRecordError(f"{game_name}: JSON state field {where}: {problem}{tail}")

    if "const" in schema and not _same(value, schema["const"]):
        raise fail(f"must be {quote(schema['const'])}, got {quote(value)}")
    if "enum" in schema and not any(_same(value, option) for option in schema["enum"]):
        options = ", ".join(quote(option) for option in schema["enum"])
        raise fail(f"{quote(value)} is not one of {options}")
    if "type" in schema:
        types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(_has_type(value, kind) for kind in types):
            raise fail(f"must be of type {' or '.join(types)}, got {_type_name(value)}")
    if isinstance(value, dict):
        properties = schema.get("properties", {})
        missing = [key for key in schema.get("required", ()) if key not in value]
        if missing:
            raise fail(f"missing field(s) {', '.join(missing)}")
        if schema.get("additionalProperties", True) is False:
            unknown = [key for key in value if key not in properties]
            if unknown:
                allowed = ", ".join(properties)
                raise fail(
                    f"unknown field(s) {', '.join(quote(key) for key in unknown[:8])} "
                    f"(fields: {allowed})"
                )
        for key, item in value.items():
            if key in properties:
                check_json(item, properties[key], game_name, f"{path}.{key}" if path else key)
    elif isinstance(value, list):
        low, high = schema.get("minItems"), schema.get("maxItems")
        if (low is not None and len(value) < low) or (high is not None and len(value) > high):
            size = f"{low}" if low == high else f"{low or 0} to {'any' if high is None else high}"
            raise fail(f"must hold {size} item(s), got {len(value)}")
        if "items" in schema:
            for index, item in enumerate(value):
                check_json(item, schema["items"], game_name, f"{path}[{index}]")
    elif isinstance(value, str):
        pattern = schema.get("pattern")
        if pattern is not None and re.search(pattern, value) is None:
            raise fail(f"{quote(value)} does not match {pattern}")
    elif _has_type(value, "number"):
        if "minimum" in schema and value < schema["minimum"]:
            raise fail(f"{value} is below the minimum {schema['minimum']}")
        if "maximum" in schema and value > schema["maximum"]:
            raise fail(f"{value} is above the maximum {schema['maximum']}")


def _has_type(value: object, kind: str) -> bool:
    if kind == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "number":
        return (
            isinstance(value, (int, float))
            and not isinstance(value, bool)
            and not (isinstance(value, float) and not math.isfinite(value))
        )
    return isinstance(value, _JSON_TYPES[kind])


def _same(value: object, expected: object) -> bool:
    """JSON equality: ``True`` is not ``1``."""
    return type(value) is type(expected) and value == expected


def _type_name(value: object) -> str:
    for name, kind in _JSON_TYPES.items():
        if isinstance(value, kind) and not (name != "boolean" and isinstance(value, bool)):
            return name
    if _has_type(value, "integer"):
        return "integer"
    if isinstance(value, float):
        return "number"
    return f"a Python {type(value).__name__}"
