"""Reading a records file in a front end: every record checked, a cut last line skipped with a
warning (``ratings``, ``plot`` and ``replay`` share this)."""

from __future__ import annotations

from typing import Any

from mcts_envs.core.compiling import print_to_stderr
from mcts_envs.records import scan_records, validate_record

__all__ = ["read_checked_records"]


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
