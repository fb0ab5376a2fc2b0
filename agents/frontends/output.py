"""Where a command or an example writes a run's files: never over another run's, unasked."""

from __future__ import annotations

import argparse
from pathlib import Path

__all__ = ["refuse_used_folder"]


def refuse_used_folder(
    parser: argparse.ArgumentParser, folder: str | Path, overwrite: bool, option: str = "--out"
) -> None:
    """Stop with a usage error (exit 2) before anything runs if ``folder`` is a file, or a folder
    that already holds files and ``overwrite`` is not set; ``option`` names the argument in the
    message."""
    path = Path(folder)
    if path.exists() and not path.is_dir():
        parser.error(f"{option} {folder} is a file; give a folder")
    held = sorted(entry.name for entry in path.iterdir()) if path.is_dir() else []
    if held and not overwrite:
        shown = ", ".join(held[:4]) + (", ..." if len(held) > 4 else "")
        parser.error(
            f"{option} {folder} already holds {shown}; pass --overwrite to write over them, "
            "or choose another folder"
        )
