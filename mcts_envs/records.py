"""Game records: one versioned JSON schema written by the env and the arena, read by every tool.

A record is a JSON object, one per line in a JSON-lines file. Version 2 keys:

========================  =====================================================================
key                       meaning
========================  =====================================================================
``version``               ``2`` (:data:`RECORD_VERSION`)
``game``                  the game's registry name (``"ataxx"``)
``initial``               the initial state as ``game.to_text`` (a chance node for Tantrix)
``actions``               every action *and* chance outcome in order (ints)
``chance``                indices into ``actions`` that are chance outcomes
``players``               who sat at ``player_0`` and ``player_1`` (agent specs, or the agent
                          names for a game played through the env)
``returns``               per seat at the end, or ``null`` if the game did not finish
``final``                 the last state as ``game.to_text``
``seed``                  what seeded the game (an int, an object of ints, or ``null``)
``timing`` (optional)     measurements that differ between identical runs (``think_seconds``
                          per seat); not part of the game's identity (:func:`game_identity`)
========================  =====================================================================

Match records (:func:`agents.arena.play_game`) add ``index``, ``agents``, ``seat_a``,
``score``, ``result`` and ``moves``; readers ignore keys they do not know.

:func:`read_records` checks every line and raises
:class:`~mcts_envs.core.errors.InvalidRecordError` naming the line (bad JSON, bad UTF-8, a
missing or mistyped key); :func:`replay_states` replays a record through ``game.apply``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

from mcts_envs.core.constants import CHANCE
from mcts_envs.core.errors import IllegalActionError, InvalidRecordError, UnknownGameError
from mcts_envs.core.quoting import QUOTE_LIMIT, bounded, printable, quote  # noqa: F401 (re-exported)
from mcts_envs.core.registry import make_game

#: Version of the schema written by :func:`make_record`.
RECORD_VERSION = 2
#: Keys every record has.
RECORD_KEYS = ("version", "game", "initial", "actions", "chance", "players", "returns", "final")
#: Keys whose values may differ between two runs of the same seeded game.
VOLATILE_KEYS = ("timing",)
def make_record(
    game_name: str,
    initial: str,
    actions: list[int],
    chance: list[int],
    players: list[str],
    returns: list[float] | None,
    final: str,
    seed: Any = None,
    **extra: Any,
) -> dict[str, Any]:
    """A version-2 record from its parts; ``extra`` adds match or timing keys."""
    return {
        "version": RECORD_VERSION,
        "game": game_name,
        "initial": initial,
        "actions": [int(a) for a in actions],
        "chance": [int(i) for i in chance],
        "players": list(players),
        "returns": None if returns is None else [float(r) for r in returns],
        "final": final,
        "seed": seed,
        **extra,
    }


def game_identity(record: dict[str, Any]) -> dict[str, Any]:
    """The record without its volatile keys: equal for two runs of one seeded game."""
    return {key: value for key, value in record.items() if key not in VOLATILE_KEYS}


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def check_record(record: object, where: str = "record") -> dict[str, Any]:
    """``record`` if it follows the schema (types only; legality is :func:`replay_states`' job).

    Raises:
        InvalidRecordError: naming ``where`` and the first problem found.
    """
    if not isinstance(record, dict):
        raise InvalidRecordError(
            f"{where}: a game record is a JSON object, got {type(record).__name__}"
        )
    missing = [key for key in RECORD_KEYS if key not in record]
    if missing:
        raise InvalidRecordError(
            f"{where}: missing key(s) {', '.join(missing)} (a version {RECORD_VERSION} record "
            f"has {', '.join(RECORD_KEYS)})"
        )
    if record["version"] != RECORD_VERSION:
        raise InvalidRecordError(
            f"{where}: record version {quote(record['version'])} is not supported "
            f"(this package reads version {RECORD_VERSION})"
        )
    if not isinstance(record["game"], str):
        raise InvalidRecordError(f"{where}: 'game' must be a game name string")
    for key in ("initial", "final"):
        if not isinstance(record[key], str):
            raise InvalidRecordError(f"{where}: {key!r} must be a state's text")
    actions = record["actions"]
    if not isinstance(actions, list) or not all(_is_int(a) for a in actions):
        raise InvalidRecordError(f"{where}: 'actions' must be a list of integers")
    chance = record["chance"]
    if not isinstance(chance, list) or not all(
        _is_int(i) and 0 <= i < len(actions) for i in chance
    ):
        raise InvalidRecordError(
            f"{where}: 'chance' must be a list of indices into 'actions' (0..{len(actions) - 1})"
        )
    players = record["players"]
    if (
        not isinstance(players, list)
        or len(players) != 2
        or not all(isinstance(p, str) for p in players)
    ):
        raise InvalidRecordError(f"{where}: 'players' must be a list of two strings")
    returns = record["returns"]
    if returns is not None and (
        not isinstance(returns, list)
        or len(returns) != 2
        or not all(isinstance(r, int | float) and not isinstance(r, bool) for r in returns)
    ):
        raise InvalidRecordError(f"{where}: 'returns' must be null or a list of two numbers")
    return record


def read_records(path: str | os.PathLike) -> list[dict[str, Any]]:
    """Read a JSON-lines file of records (blank lines are skipped), each checked.

    Raises:
        InvalidRecordError: naming the line and what is wrong (bad UTF-8, bad JSON, nesting too
            deep, not an object, a missing or mistyped key).
        FileNotFoundError: if ``path`` does not exist.
    """
    records = []
    with open(path, "rb") as stream:
        for number, raw in enumerate(stream, start=1):
            where = f"{path}, line {number}"
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as error:
                raise InvalidRecordError(
                    f"{where}: not UTF-8 text (byte {error.start + 1})"
                ) from None
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as error:
                raise InvalidRecordError(
                    f"{where}: not valid JSON ({error.msg} at column {error.colno})"
                ) from None
            except RecursionError:
                raise InvalidRecordError(f"{where}: JSON nested too deeply") from None
            records.append(check_record(record, where))
    return records


def write_records(path: str | os.PathLike, records: Iterable[dict[str, Any]]) -> int:
    """Write records as JSON lines to a new or emptied file; returns how many were written."""
    count = 0
    with open(Path(path), "w", encoding="utf-8") as stream:
        for record in records:
            stream.write(dumps(record) + "\n")
            count += 1
    return count


def dumps(record: dict[str, Any]) -> str:
    """One record as a compact JSON line (no newline)."""
    return json.dumps(record, separators=(",", ":"))


def replay_states(record: dict[str, Any], where: str = "record") -> tuple[Any, list[np.ndarray]]:
    """The game and every state of a checked record (initial state first), legality checked.

    Raises:
        InvalidRecordError: if the game is unknown, the initial text does not parse, a chance
            index does not match a chance node, or an action is not legal where it was played
            (the message names the move number).
    """
    try:
        game = make_game(record["game"])
    except UnknownGameError as error:
        raise InvalidRecordError(f"{where}: {error}") from None
    try:
        state = game.from_text(record["initial"])
    except InvalidRecordError as error:
        raise InvalidRecordError(f"{where}: bad 'initial': {bounded(str(error))}") from None
    chance = set(record["chance"])
    states = [state]
    for number, action in enumerate(record["actions"]):
        at_chance = game.current_player(state) == CHANCE
        if at_chance != (number in chance):
            kind = "a chance node" if at_chance else "a decision"
            raise InvalidRecordError(
                f"{where}: action {number + 1} ({action}) is played at {kind}, but 'chance' "
                f"{'does not list' if at_chance else 'lists'} index {number}"
            )
        try:
            state = game.apply(state, action)
        except IllegalActionError as error:
            raise InvalidRecordError(
                f"{where}: action {number + 1} ({quote(action)}): {bounded(str(error))}"
            ) from None
        states.append(state)
    return game, states
