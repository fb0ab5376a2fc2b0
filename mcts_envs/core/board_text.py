"""A square-grid board as text with its coordinates: files ``a``, ``b``, ... above and below,
ranks numbered from the bottom on both sides, as the grid games write their moves (``b2``,
``e5``, ``c4 tl rotate``, ``a7c5``).

Each game draws its own cells (``render.py``); this module only lays them out, so every board
carries the same coordinates as the move notation::

        a   b   c
      +---+---+---+
    3 | X | . | O | 3
      +---+---+---+
    2 | . | X | . | 2
      +---+---+---+
    1 | . | . | . | 1
      +---+---+---+
        a   b   c
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["FILES", "labelled_grid"]

#: File letters, from the left (a board of up to 26 columns).
FILES = "abcdefghijklmnopqrstuvwxyz"


def _row(cells: Sequence[str], block: int) -> str:
    """One row framed by ``|``: cells joined by a space, with ``|`` between blocks of ``block``
    cells (``block`` 0: no inner walls)."""
    parts = []
    for index, cell in enumerate(cells):
        if index and block and index % block == 0:
            parts.append("|")
        parts.append(cell)
    return "| " + " ".join(parts) + " |"


def labelled_grid(rows: Sequence[str], block: int = 0) -> list[str]:
    """The lines of a board of one-character cells with its coordinates.

    Args:
        rows: the board's rows, top row first, each a string of one character per cell (all of
            the same length, at most 26).
        block: draw walls between blocks of ``block`` columns and rows (1: every cell boxed, as
            Tic-Tac-Toe; 3: the local boards of Ultimate Tic-Tac-Toe, Pentago Twist's
            quadrants); 0: no inner walls.

    Returns:
        The lines, without newlines: files above, the framed rows with their ranks (the bottom
        row is rank 1) on both sides, files below.

    Raises:
        ValueError: for rows of different lengths, cells that are not one character, more than
            26 columns, or a negative ``block``.
    """
    width = len(rows[0]) if rows else 0
    if not rows or width > len(FILES) or any(len(row) != width for row in rows) or block < 0:
        raise ValueError(
            f"labelled_grid needs rows of one equal length from 1 to {len(FILES)} and block >= 0, "
            f"got row lengths {[len(row) for row in rows]} and block {block}"
        )
    margin = len(str(len(rows)))
    files = " " * (margin + 1) + _row(FILES[:width], block).replace("|", " ")
    wall = _row("-" * width, block).replace(" ", "-").replace("|", "+")
    lines = [files.rstrip(), " " * (margin + 1) + wall]
    for index, row in enumerate(rows):
        if index and block and index % block == 0:
            lines.append(" " * (margin + 1) + wall)
        rank = str(len(rows) - index)
        lines.append(f"{rank:>{margin}} {_row(row, block)} {rank}")
    lines += [" " * (margin + 1) + wall, files.rstrip()]
    return lines
