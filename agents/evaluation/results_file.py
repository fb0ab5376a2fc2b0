"""Results files: one game record per line, appended as games end, resumed after a crash.

A results file is JSON lines, one version-2 record per game (:mod:`mcts_envs.records`), flushed
and fsynced as each game ends, in the order the games end. :func:`open_results` resumes such a
file only if every line is a record of the plan (checked as ``mcts-envs replay`` checks a record,
and against the plan's agents, seeds, openings and seats) or blank; a last line cut by a crash
(:func:`mcts_envs.records.could_be_cut`) is then dropped so that its game is played again, and a
last record without its newline gets one. Anything else (another tournament's records, text,
binary data) is refused before any byte of the file changes, and so is a record whose agents were
resolved otherwise than the plan's specs resolve today (a default changed since: the spec names
another agent now); a record written before records named the resolved agents is taken by its
spec. Finished games are skipped (:func:`done_keys`); a game recorded twice (two runs that wrote
one file before files were locked) counts once and is reported (:attr:`ResultsFile.duplicates`).

One writer at a time: the file is held with an advisory lock (``flock``, where the platform has
it) from before it is read or emptied until the run closes it, so a second run on the same file
stops at once with a clear error (:class:`ResultsFileBusyError`) instead of playing games twice. The
lock goes with the process, however it ends.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcts_envs.agents.evaluation.games import TERMINATIONS, GameTask, result_of, winner_of
from mcts_envs.agents.evaluation.plan import TournamentPlan
from mcts_envs.agents.resolved import option_differences, resolved_label
from mcts_envs.core.errors import InvalidOptionError, InvalidRecordError, MctsEnvsError
from mcts_envs.records import (
    dumps,
    open_for_append,
    quote,
    resolved_agents,
    scan_records,
    validate_record,
)

try:
    import fcntl
except ImportError:  # no advisory locks on this platform (Windows): one writer is the user's job
    fcntl = None  # type: ignore[assignment]


class ResultsFileBusyError(MctsEnvsError, RuntimeError):
    """Another run holds the results file's lock (it is writing to it)."""


class ResultsFileWriteError(MctsEnvsError, RuntimeError):
    """A record could not be written (a full disk, a removed drive): the message names the file."""


def record_key(record: dict[str, Any], where: str = "record") -> tuple[str, str, int]:
    """``(spec_a, spec_b, index)`` of a tournament record (see :attr:`GameTask.key`).

    Raises:
        InvalidRecordError: naming ``where`` if the record has no such key.
    """
    agents = record.get("agents")
    index = record.get("index")
    if not (
        isinstance(agents, list)
        and len(agents) == 2
        and all(isinstance(agent, str) for agent in agents)
        and isinstance(index, int)
        and not isinstance(index, bool)
    ):
        raise InvalidRecordError(f"{where}: it needs 'agents' (two specs) and 'index'")
    return agents[0], agents[1], index


#: The end of every refusal of a results file on resume.
_LEFT_AS_IS = (
    "only a last line without its newline is a write cut by a crash, so the file is left as it "
    "is; resume with the same arguments, or write to another file"
)


def _refusal(reason: str) -> InvalidRecordError:
    """The error of a results file that cannot be resumed (``reason`` names the line)."""
    return InvalidRecordError(f"{reason}: not a tournament record; {_LEFT_AS_IS}")


@dataclass
class ResultsFile:
    """An open results file: records already in it, and appends that survive a crash.

    With ``path`` ``None`` the records are only kept in memory (a match without ``--out``).

    Attributes:
        path: the file, or ``None``.
        records: the records read back on resume (in file order, each game once) plus those
            appended since.
        dropped_line: the number of a last line cut by a crash that was removed, or ``None``.
        lines: the line number of each record read back on resume.
        duplicates: ``(line, first line)`` of each record read back that repeats the game of an
            earlier line (left in the file, counted once).
    """

    path: Path | None
    records: list[dict[str, Any]] = field(default_factory=list)
    dropped_line: int | None = None
    _stream: Any = None
    lines: list[int] = field(default_factory=list)
    duplicates: list[tuple[int, int]] = field(default_factory=list)
    _lock: Any = None
    #: Records in the file (each game once): those read back plus those appended.
    count: int = 0
    #: Whether appended records are also kept in :attr:`records` (see :meth:`forget`).
    keep: bool = True

    def __post_init__(self) -> None:
        self.count = self.count or len(self.records)

    def forget(self) -> None:
        """Keep no record in memory from now on (those read back are dropped too): a long run
        then holds O(1) memory per game played; :attr:`count` still counts them."""
        self.keep = False
        self.records = []
        self.lines = []

    def append(self, record: dict[str, Any]) -> None:
        """Keep one record; with a file, write it as a JSON line, flushed and fsynced first.

        Raises:
            ResultsFileWriteError: if the write fails (naming the file and why; the records
                written before stay, and a part of this one is a cut line that ``--resume``
                removes).
        """
        if self._stream is not None:
            try:
                self._stream.write(dumps(record) + "\n")
                self._stream.flush()
                os.fsync(self._stream.fileno())
            except OSError as error:
                raise ResultsFileWriteError(
                    f"cannot write a record to {self.path}: {error.strerror or error}; the "
                    f"{len(self.records)} record(s) before it are kept (run again with --resume "
                    "once the file can be written)"
                ) from None
        self.count += 1
        if self.keep:
            self.records.append(record)

    def close(self) -> None:
        """Close the file (and give up its lock). Every record was fsynced as it was
        appended; a write that failed (and raised) leaves nothing that closing could save."""
        if self._stream is not None:
            with contextlib.suppress(OSError):
                self._stream.close()
            self._stream = None
        if self._lock is not None:
            self._lock.close()
            self._lock = None

    def __enter__(self) -> ResultsFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _read_for_resume(path: Path) -> tuple[list[dict[str, Any]], list[int]]:
    """The records of ``path`` and their line numbers, each checked as ``mcts-envs replay``
    checks a record and as a tournament record (a last line cut by a crash is left out).

    Raises:
        InvalidRecordError: naming the first line that is not a tournament record.
    """
    try:
        scan = scan_records(path)
    except InvalidRecordError as error:
        raise _refusal(str(error)) from None
    for record, number in zip(scan.records, scan.lines, strict=True):
        where = f"{path}, line {number}"
        try:
            validate_record(record, where)
            record_key(record, where)
        except InvalidRecordError as error:
            raise _refusal(str(error)) from None
    return scan.records, scan.lines


def _hold(target: Path) -> Any:
    """A handle of ``target`` (created if missing, never emptied) holding its exclusive lock.

    Raises:
        ResultsFileBusyError: if another process holds the lock.
    """
    handle = open(target, "ab")  # noqa: SIM115 - held until the results file is closed
    if fcntl is None:
        return handle
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.close()
        raise ResultsFileBusyError(
            f"--out {target} is being written by another run (it holds the file's lock); wait "
            "for that run to end, or write to another file"
        ) from None
    return handle


def open_results(
    path: str | os.PathLike,
    resume: bool,
    overwrite: bool,
    plan: TournamentPlan | Callable[[list[dict[str, Any]]], TournamentPlan] | None = None,
    what: str = "a game of this tournament",
) -> ResultsFile:
    """Open the results file for appending, holding its lock (see the module docstring).

    Args:
        path: the JSON-lines file.
        resume: read the finished games back: every line must be a record (of ``plan``, when
            given) or blank, else nothing is changed; then a last line cut by a crash is dropped
            and a last record without its newline completed.
        overwrite: start an existing file afresh.
        plan: the plan the records must belong to (checked before any change to the file), or
            a function that makes it from the records read back (an adaptive ladder run).
        what: what each record should be, for messages (:func:`done_keys`).

    Raises:
        InvalidOptionError: if the file exists and neither ``resume`` nor ``overwrite`` is set,
            or ``path`` is a directory.
        ResultsFileBusyError: if another run holds the file.
        InvalidRecordError: on resume, naming the first line that is not a record of the plan
            (the file is left byte for byte as it was).
    """
    target = Path(path)
    if target.is_dir():
        raise InvalidOptionError(f"--out {target} is a directory")
    exists = target.exists()
    if exists and not resume and not overwrite:
        raise InvalidOptionError(
            f"--out {target} exists; pass --resume to continue it, --overwrite to start again, "
            "or choose another file"
        )
    lock = _hold(target)
    try:
        records: list[dict[str, Any]] = []
        lines: list[int] = []
        duplicates: list[tuple[int, int]] = []
        dropped = None
        if exists and resume:
            records, lines = _read_for_resume(target)
            if plan is not None:
                planned = plan(records) if callable(plan) else plan
                records, lines, duplicates = _games_of(planned, records, lines, what)
            stream, dropped = open_for_append(target, drop_cut=True)  # accepted: now repair
        else:
            if target.is_file() and target.stat().st_size:  # (--overwrite; not a device)
                os.truncate(target, 0)
            stream = open(target, "a", encoding="utf-8")  # noqa: SIM115
    except BaseException:
        lock.close()
        raise
    return ResultsFile(target, records, dropped, stream, lines, duplicates, lock)


def _games_of(
    plan: TournamentPlan, records: list[dict[str, Any]], lines: list[int], what: str
) -> tuple[list[dict[str, Any]], list[int], list[tuple[int, int]]]:
    """``records`` (and ``lines``) with each game of ``plan`` once, and the ``(line, first
    line)`` of the repeats.

    Raises:
        InvalidRecordError: as :func:`done_keys`.
    """
    done_keys(plan, records, lines, what)
    first: dict[tuple[str, str, int], int] = {}
    kept, kept_lines, repeats = [], [], []
    for record, line in zip(records, lines, strict=True):
        key = record_key(record)
        if key in first:
            repeats.append((line, first[key]))
            continue
        first[key] = line
        kept.append(record)
        kept_lines.append(line)
    return kept, kept_lines, repeats


def _plan_mismatch(plan: TournamentPlan, task: GameTask | None, record: dict[str, Any]) -> str:
    """What in ``record`` differs from the game ``task`` of ``plan`` ("" if nothing)."""
    if task is None:
        return "not a game of the plan"
    seed = record.get("seed") if isinstance(record.get("seed"), dict) else {}
    colour = task.colour
    players = [task.spec_a, task.spec_b][:: 1 - 2 * colour]
    expected = {
        "game": plan.rules.game,
        "seed": {"a": task.seeds[0], "b": task.seeds[1], "chance": task.seeds[2]},
        "initial": task.opening,
        "players": players,
        "seat_a": colour,
        "pairing": task.pairing,
        "pair": task.pair,
        "colour": colour,
    }
    found = {**record, "seed": {key: seed.get(key) for key in ("a", "b", "chance")}}
    for key, value in expected.items():
        if found.get(key) != value:
            return f"its {key!r} is {quote(found.get(key))}, the plan's {quote(value)}"
    played = resolved_agents(record)
    if played is not None:  # older records name their agents by the spec alone
        for spec, agent in zip((task.spec_a, task.spec_b), played, strict=True):
            wanted = plan.resolved.get(spec)
            if wanted is not None and resolved_label(agent) != resolved_label(wanted):
                return (
                    f"{quote(spec)} was played as {option_differences(agent, wanted)} and "
                    "means the other today (a default changed, or the agent did)"
                )
    returns, result = record["returns"], record.get("result")
    termination = record.get("termination")
    if termination not in TERMINATIONS or (termination == "end") != (returns is not None):
        return f"its 'termination' {quote(termination)} does not fit its 'returns'"
    if returns is not None:
        wanted = {result_of(winner_of(returns), colour)}
    else:  # stopped: a draw at the move cap, a win on material or time
        wanted = {"draw"} if termination == "move cap" else {"a", "b"}
    if result not in wanted:
        return f"its 'result' {quote(result)} does not fit its returns {quote(returns)}"
    return ""


def done_keys(
    plan: TournamentPlan,
    records: Iterable[dict[str, Any]],
    lines: Sequence[int] = (),
    what: str = "a game of this tournament",
) -> set[tuple[str, str, int]]:
    """The keys of the games of ``plan`` that ``records`` already hold.

    Args:
        plan: the tournament.
        records: records read back (checked by :func:`open_results`).
        lines: their line numbers, for messages (default: their positions).
        what: what each record should be, for messages (e.g. a ladder names its run).

    Raises:
        InvalidRecordError: if a record is not a game of this plan (other agents, game, seeds,
            opening, seats or a result that does not fit its returns): the file belongs to
            another tournament or was edited.
    """
    done = set()
    for position, record in enumerate(records):
        where = f"line {lines[position]}" if position < len(lines) else f"record {position + 1}"
        key = record_key(record, f"{where} of the results file")
        problem = _plan_mismatch(plan, plan.task_of(key), record)
        if problem:
            raise InvalidRecordError(
                f"{where} of the results file ({quote(key[0])} vs {quote(key[1])}, game "
                f"{key[2]}) is not {what}: {problem}; resume with the same "
                "arguments, or write to another file"
            )
        done.add(key)
    return done


def pending_tasks(
    plan: TournamentPlan, records: Iterable[dict[str, Any]], lines: Sequence[int] = ()
) -> Iterator[GameTask]:
    """The tasks of ``plan`` without a record in ``records``, in plan order (made lazily).

    Raises:
        InvalidRecordError: as :func:`done_keys` (before the first task is yielded).
    """
    done = done_keys(plan, records, lines)
    return (task for task in plan.tasks if task.key not in done)
