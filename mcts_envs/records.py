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

Match records (:func:`mcts_envs.agents.evaluation.arena.play_game`) add ``index``, ``agents``, ``seat_a``,
``score``, ``result`` and ``moves``, and say exactly what played:

========================  =====================================================================
``resolved``              per entry of ``agents``, the agent as resolved for the game:
                          ``{"kind", "options", "identity"}``, every option after per-game
                          defaults and the engine's or model's identity
                          (:mod:`mcts_envs.agents.resolved`)
``provenance``            the package version and commit, numba's, NumPy's and Python's
                          versions (:func:`mcts_envs.provenance.provenance`)
========================  =====================================================================

Records written before these two keys existed still read; they name their agents by the spec
alone (what it meant then), and tools that compare agents say so (:func:`resolved_agents`).
Readers ignore keys they do not know.

:func:`read_records` checks every line and raises
:class:`~mcts_envs.core.errors.InvalidRecordError` naming the line (bad JSON, bad UTF-8, a line
longer than :data:`MAX_LINE_BYTES`, a missing or mistyped key, non-finite returns);
:func:`scan_records` does the same but sets aside a last line cut by a crash (one without its
newline) so that readers can go on with the intact games; :func:`replay_states` replays a record
through ``game.apply`` (legality, length and final position checked) and :func:`validate_record`
does both checks.

Writers that add to an existing file open it with :func:`open_for_append`, the one place that
looks at the file's end first: a new record is never glued onto a cut line.

A *cut line* is what a crash leaves of a record being written: a last line without its newline
that is not a record but could be the start of one (:func:`could_be_cut`: printable ASCII, as
:func:`dumps` writes, beginning like a record). Any other last line that is not a record (binary
data, text, another file's content) is refused like any bad line, never dropped.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

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
#: Longest line (bytes, newline included) a records file may hold: far above the longest record
#: a writer of this package makes (an Ataxx game at its move cap is about 2 MB).
MAX_LINE_BYTES = 16 * 2**20
#: How every record line :func:`dumps` writes begins (a cut line begins with a part of it).
RECORD_START = b'{"version":'
#: Writers stop a game after this many times the game's longest game in decisions (the default
#: and the largest ``--max-moves``).
MOVE_CAP_FACTOR = 100


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


#: Longest text a record keeps of a field that comes from outside the package (a model's answer,
#: an engine's line), in characters.
MAX_FOREIGN_CHARS = 16384


def clip_foreign(
    entry: dict[str, Any], keys: Iterable[str], limit: int = MAX_FOREIGN_CHARS
) -> dict[str, Any]:
    """``entry`` with each text field of ``keys`` cut to ``limit`` characters; the fields cut are
    listed with their full lengths in ``entry["truncated"]`` (``{"answer": 1900015}``), so a
    reader knows the text is a prefix. Returns a new dict."""
    clipped = dict(entry)
    for key in keys:
        value = clipped.get(key)
        if isinstance(value, str) and len(value) > limit:
            clipped[key] = value[:limit]
            clipped["truncated"] = {**clipped.get("truncated", {}), key: len(value)}
    return clipped


def game_identity(record: dict[str, Any]) -> dict[str, Any]:
    """The record without its volatile keys: equal for two runs of one seeded game."""
    return {key: value for key, value in record.items() if key not in VOLATILE_KEYS}


def move_cap(game: Any) -> int:
    """Most decisions a writer plays in one game of ``game``:
    :data:`MOVE_CAP_FACTOR` times its longest game."""
    return MOVE_CAP_FACTOR * max(int(game.info.max_game_length), 1)


def max_record_actions(game: Any) -> int:
    """Most actions (decisions and chance outcomes) a record of ``game`` may hold: twice
    :func:`move_cap` plus one longest game (chance outcomes come at most one per decision, plus
    the deal)."""
    return 2 * move_cap(game) + max(int(game.info.max_game_length), 1)


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
        or not all(
            isinstance(r, int | float) and not isinstance(r, bool) and math.isfinite(r)
            for r in returns
        )
    ):
        raise InvalidRecordError(
            f"{where}: 'returns' must be null or a list of two finite numbers, got {quote(returns)}"
        )
    resolved = record.get("resolved")
    if resolved is not None and not (
        isinstance(resolved, list)
        and len(resolved) == 2
        and all(
            isinstance(agent, dict)
            and isinstance(agent.get("kind"), str)
            and isinstance(agent.get("options"), dict)
            for agent in resolved
        )
    ):
        raise InvalidRecordError(
            f"{where}: 'resolved' must be a list of two objects with a 'kind' string and an "
            "'options' object"
        )
    if "provenance" in record and not isinstance(record["provenance"], dict):
        raise InvalidRecordError(f"{where}: 'provenance' must be an object")
    return record


def resolved_agents(record: dict[str, Any]) -> list[dict[str, Any]] | None:
    """The ``resolved`` agents of a match record (in the order of its ``agents``), or ``None``
    for a record written before records named them (its specs meant what they meant then)."""
    resolved = record.get("resolved")
    return resolved if isinstance(resolved, list) else None


def _parse_line(raw: bytes, where: str) -> dict[str, Any] | None:
    """The checked record of one line (``None`` for a blank line).

    Raises:
        InvalidRecordError: naming ``where`` (bad UTF-8, bad JSON, nesting too deep, schema).
    """
    try:
        line = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InvalidRecordError(f"{where}: not UTF-8 text (byte {error.start + 1})") from None
    if not line.strip():
        return None
    try:
        record = json.loads(line)
    except json.JSONDecodeError as error:
        raise InvalidRecordError(
            f"{where}: not valid JSON ({error.msg} at column {error.colno})"
        ) from None
    except RecursionError:
        raise InvalidRecordError(f"{where}: JSON nested too deeply") from None
    return check_record(record, where)


def bounded_lines(
    stream: Any, path: str | os.PathLike, max_lines: int | None = None
) -> Iterator[tuple[int, bytes]]:
    """``(number, raw line)`` of a binary stream, each at most :data:`MAX_LINE_BYTES` long.

    Args:
        stream: a binary stream (``open(path, "rb")``).
        path: the file's name, for messages.
        max_lines: the most lines read (``None``: no limit).

    Raises:
        InvalidRecordError: for a longer line (read no further than the limit, so ``/dev/zero``
            fails at once) or a file of more than ``max_lines`` lines.
    """
    number = 0
    while True:
        raw = stream.readline(MAX_LINE_BYTES + 1)
        if not raw:
            return
        number += 1
        if len(raw) > MAX_LINE_BYTES:
            raise InvalidRecordError(
                f"{path}, line {number}: longer than {MAX_LINE_BYTES} bytes (no record or "
                "position is this long)"
            )
        if max_lines is not None and number > max_lines:
            raise InvalidRecordError(f"{path}: more than {max_lines} lines")
        yield number, raw


@dataclass
class RecordScan:
    """What :func:`scan_records` found in a file.

    Attributes:
        records: the checked records, in file order.
        lines: the line number of each record.
        cut_line: the number of a last line without its newline that is not a record (a write
            cut by a crash), or ``None``.
        cut_error: why that line is not a record (the message :func:`read_records` raises).
        intact_bytes: the file's length without the cut line.
        unterminated: the file does not end with a newline (a cut line, or a last record
            written without one).
    """

    records: list[dict[str, Any]] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)
    cut_line: int | None = None
    cut_error: str | None = None
    intact_bytes: int = 0
    unterminated: bool = False


def scan_records(path: str | os.PathLike) -> RecordScan:
    """Read a JSON-lines file of records, setting aside a last line cut by a crash.

    Every line that ends with a newline must be a record (or blank). The last line, if it has no
    newline, is a record if it parses and checks; otherwise it is the cut of an interrupted
    write and is reported in :attr:`RecordScan.cut_line` instead of raising.

    Raises:
        InvalidRecordError: naming the first complete line that is not a record (bad UTF-8, bad
            JSON, nesting too deep, too long, a missing or mistyped key), or a last line that is
            neither a record nor a cut one (:func:`could_be_cut`).
        FileNotFoundError: if ``path`` does not exist.
    """
    scan = RecordScan()
    with open(path, "rb") as stream:
        for number, raw in bounded_lines(stream, path):
            where = f"{path}, line {number}"
            if raw.endswith(b"\n"):
                record = _parse_line(raw, where)
                scan.intact_bytes += len(raw)
            else:
                scan.unterminated = True
                try:
                    record = _parse_line(raw, where)
                except InvalidRecordError as error:
                    if not could_be_cut(raw):
                        raise InvalidRecordError(f"{error} (and no part of a record)") from None
                    scan.cut_line, scan.cut_error = number, str(error)
                    break
                scan.intact_bytes += len(raw)
            if record is not None:
                scan.records.append(record)
                scan.lines.append(number)
    return scan


def iter_records(path: str | os.PathLike) -> Iterator[dict[str, Any]]:
    """The records of a JSON-lines file one at a time (as :func:`scan_records` reads them: a
    last line cut by a crash is skipped), so a reader of a huge file holds one record at a time.

    Raises:
        InvalidRecordError: as :func:`scan_records` (when the bad line is reached).
        FileNotFoundError: if ``path`` does not exist.
    """
    with open(path, "rb") as stream:
        for number, raw in bounded_lines(stream, path):
            where = f"{path}, line {number}"
            try:
                record = _parse_line(raw, where)
            except InvalidRecordError as error:
                if raw.endswith(b"\n") or not could_be_cut(raw):
                    raise InvalidRecordError(
                        str(error) if raw.endswith(b"\n") else f"{error} (and no part of a record)"
                    ) from None
                return  # a cut last line
            if record is not None:
                yield record


def read_records(path: str | os.PathLike) -> list[dict[str, Any]]:
    """Read a JSON-lines file of records (blank lines are skipped), each checked.

    Raises:
        InvalidRecordError: naming the line and what is wrong (bad UTF-8, bad JSON, nesting too
            deep, not an object, a missing or mistyped key).
        FileNotFoundError: if ``path`` does not exist.
    """
    scan = scan_records(path)
    if scan.cut_error is not None:
        raise InvalidRecordError(scan.cut_error)
    return scan.records


def _cut_end(stream: Any, path: str | os.PathLike) -> tuple[int, int, bytes] | None:
    """``(start offset, line number, bytes)`` of the last line of a binary stream if it has no
    newline (``None`` if the stream is empty or ends with one)."""
    size = stream.seek(0, os.SEEK_END)
    start = _last_line_start(stream, size)
    stream.seek(start)
    tail = stream.read(size - start)
    if not tail or tail.endswith(b"\n"):
        return None
    return start, _count_newlines(stream, start) + 1, tail


def could_be_cut(tail: bytes) -> bool:
    """Whether ``tail``, a last line without its newline, could be what a crash left of a record
    being written: printable ASCII (what :func:`dumps` writes) that begins like every record
    (:data:`RECORD_START`), at most :data:`MAX_LINE_BYTES` long."""
    head = tail[: len(RECORD_START)]
    return (
        len(tail) <= MAX_LINE_BYTES
        and RECORD_START.startswith(head)
        and all(32 <= byte < 127 for byte in tail)
    )


def _is_cut(tail: bytes, where: str) -> bool:
    """Whether a last line without its newline is a write cut by a crash (not a record, but
    :func:`could_be_cut`).

    Raises:
        InvalidRecordError: if it is neither a record nor a cut (no part of a record).
    """
    try:
        if len(tail) > MAX_LINE_BYTES:
            raise InvalidRecordError(f"{where}: longer than {MAX_LINE_BYTES} bytes")
        _parse_line(tail, where)
    except InvalidRecordError as error:
        if could_be_cut(tail):
            return True
        raise InvalidRecordError(
            f"{error} (and no part of a record), so the file is left as it is; write to another "
            "file"
        ) from None
    return False


def check_appendable(path: str | os.PathLike) -> None:
    """Raise if :func:`open_for_append` (without ``drop_cut``) would refuse ``path``: its last
    line is cut. A missing file is appendable; nothing is changed.

    Raises:
        InvalidRecordError: naming the cut line.
    """
    target = Path(path)
    if target.is_file():
        with open(target, "rb") as stream:
            end = _cut_end(stream, target)
        if end is not None and _is_cut(end[2], f"{target}, line {end[1]}"):
            raise _cut_error(target, end[1], end[2])


def _cut_error(path: Path, number: int, tail: bytes) -> InvalidRecordError:
    return InvalidRecordError(
        f"{path}, line {number}: the last line has no newline and is not a record (a write cut "
        f"by a crash: {quote(tail.decode('utf-8', 'replace'))}); appending would glue a new "
        "record onto it, so the file is left as it is. Remove or complete that line, or write "
        "to another file"
    )


def open_for_append(path: str | os.PathLike, drop_cut: bool = False) -> tuple[TextIO, int | None]:
    """Open a JSON-lines file (created if missing) for appending records, never onto a cut line.

    The file's last line is looked at first. A last record written without its newline gets
    one. A last line without its newline that is not a record is the cut of an interrupted
    write: with ``drop_cut`` it is truncated away (only that part; the caller writes its record
    again), otherwise nothing is changed and an error is raised. Every writer that appends to a
    records file opens it here.

    Args:
        path: the file.
        drop_cut: truncate a cut last line (resuming a run whose records are all rewritten).

    Returns:
        The text stream (append mode, UTF-8) and the number of the line dropped, or ``None``.

    Raises:
        InvalidRecordError: without ``drop_cut``, if the last line is cut; with or without, if
            it is neither a record nor a cut (the file untouched).
        IsADirectoryError / PermissionError: as ``open`` raises them.
    """
    target = Path(path)
    dropped = None
    if target.is_file():
        with open(target, "r+b") as stream:
            end = _cut_end(stream, target)
            if end is not None:
                start, number, tail = end
                if not _is_cut(tail, f"{target}, line {number}"):
                    stream.seek(0, os.SEEK_END)
                    stream.write(b"\n")  # a record written without its newline: complete it
                elif drop_cut:
                    stream.truncate(start)
                    dropped = number
                else:
                    raise _cut_error(target, number, tail)
                stream.flush()
                os.fsync(stream.fileno())
    return open(target, "a", encoding="utf-8"), dropped


def _last_line_start(stream: Any, size: int, chunk: int = 1 << 16) -> int:
    """Byte offset where the last line of a binary stream of ``size`` bytes starts (the
    position after the last newline that is not the file's last byte)."""
    end = size - 1  # a final newline belongs to the last line
    while end > 0:
        begin = max(0, end - chunk)
        stream.seek(begin)
        found = stream.read(end - begin).rfind(b"\n")
        if found >= 0:
            return begin + found + 1
        end = begin
    return 0


def _count_newlines(stream: Any, end: int, chunk: int = 1 << 20) -> int:
    """Newlines among the first ``end`` bytes of a binary stream."""
    stream.seek(0)
    count = 0
    while end > 0:
        data = stream.read(min(chunk, end))
        if not data:
            break
        count += data.count(b"\n")
        end -= len(data)
    return count


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
        InvalidRecordError: if the game is unknown, the record holds more actions than any game
            could (:func:`max_record_actions`), the initial text does not parse, a chance index
            does not match a chance node, an action is not legal where it was played (the
            message names the move number), or ``final`` is not the position reached.
    """
    try:
        game = make_game(record["game"])
    except UnknownGameError as error:
        raise InvalidRecordError(f"{where}: {error}") from None
    limit = max_record_actions(game)
    if len(record["actions"]) > limit:
        raise InvalidRecordError(
            f"{where}: {len(record['actions'])} actions; a {game.info.name} record holds at most "
            f"{limit}"
        )
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
    if game.to_text(state) != record["final"]:
        raise InvalidRecordError(
            f"{where}: 'final' {quote(record['final'])} is not the position the actions reach "
            f"({quote(game.to_text(state))})"
        )
    return game, states


def validate_record(record: object, where: str = "record") -> dict[str, Any]:
    """``record`` if it follows the schema and replays legally (:func:`check_record`, then
    :func:`replay_states`): what ``mcts-envs replay`` accepts.

    Raises:
        InvalidRecordError: naming ``where`` and the first problem found.
    """
    replay_states(check_record(record, where), where)
    return record  # type: ignore[return-value]
