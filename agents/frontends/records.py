"""Reading a records file in a front end: every record checked, a cut last line skipped with a
warning (``ratings``, ``plot`` and ``replay`` share this)."""

from __future__ import annotations

from typing import Any

from mcts_envs.core.compiling import print_to_stderr
from mcts_envs.records import scan_records, validate_record

__all__ = ["read_checked_records", "unique_games"]


def read_checked_records(path: str, command: str, validate: bool = True) -> list[dict[str, Any]]:
    """The records of ``path``, each checked as ``mcts-envs replay`` checks one
    (:func:`mcts_envs.records.validate_record`, unless ``validate`` is false); a last line cut by
    a crash is skipped with a warning on stderr naming it.

    Raises:
        InvalidRecordError: naming the first line that is not a valid record.
    """
    scan = scan_records(path)
    if validate:
        for record, number in zip(scan.records, scan.lines, strict=True):
            validate_record(record, f"{path}, line {number}")
    if scan.cut_line is not None:
        print_to_stderr(
            f"mcts-envs {command}: warning: {path}, line {scan.cut_line} is cut (no newline at "
            f"its end, as a crash leaves it) and is skipped; {len(scan.records)} intact record(s)"
        )
    return scan.records


def unique_games(path: str, records: list[dict[str, Any]], command: str) -> list[dict[str, Any]]:
    """``records`` with each tournament or match game once (by its agents and index): a game
    recorded twice (two runs that wrote one file) is counted once, with a warning on stderr
    naming the lines. Records without ``agents`` and ``index`` (played through the env) are all
    kept."""
    from mcts_envs.agents.evaluation.results_file import record_key
    from mcts_envs.core.errors import InvalidRecordError

    first: dict[tuple[str, str, int], int] = {}
    kept, repeats = [], []
    for position, record in enumerate(records):
        try:
            key = record_key(record)
        except InvalidRecordError:
            kept.append(record)
            continue
        if key in first:
            repeats.append((position, first[key]))
            continue
        first[key] = position
        kept.append(record)
    if repeats:
        lines = _line_numbers(path)
        shown = ", ".join(
            f"line {lines[at]} repeats the game of line {lines[earlier]}"
            for at, earlier in repeats[:8]
        )
        more = f", ... ({len(repeats)} in all)" if len(repeats) > 8 else ""
        print_to_stderr(
            f"mcts-envs {command}: warning: {path}: {len(repeats)} game(s) recorded twice, "
            f"counted once: {shown}{more}"
        )
    return kept


def _line_numbers(path: str) -> list[int]:
    """The line number of each record of ``path`` (as :func:`scan_records` reads them)."""
    return scan_records(path).lines
