"""Text records of grid games: the rows from the top joined by ``/``, a space, the side to move
(``x.o/.x./..o o``).

The form only: what a position must satisfy (counts, gravity, who won) stays in each game's core.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from mcts_envs.core.quoting import quote

__all__ = ["grid_record", "read_grid_record"]


def grid_record(board: np.ndarray, symbols: str, side: str) -> str:
    """``board`` (rows from the top; each cell an index into ``symbols``, 0 the empty cell) and
    the side to move as a record."""
    rows = ["".join(symbols[value] for value in row) for row in board]
    return "/".join(rows) + " " + side


def read_grid_record(
    text: object, shape: tuple[int, int], symbols: str, fail: Callable[[str], Exception]
) -> tuple[list[str], str]:
    """The rows (from the top) and the side field of a record, checked for form only: a str of
    two space-separated fields, ``shape[0]`` rows of ``shape[1]`` characters of ``symbols``.

    Raises:
        what ``fail(problem)`` returns, naming the first problem found.
    """
    if not isinstance(text, str):
        raise fail(f"a record is a str, not {type(text).__name__}")
    parts = text.split()
    if len(parts) != 2:
        raise fail(f"found {len(parts)} space-separated fields instead of 2")
    board_text, side = parts
    rows = board_text.split("/")
    height, width = shape
    if len(rows) != height or any(len(row) != width for row in rows):
        raise fail(f"the board must be {height} rows of {width} characters")
    allowed = ", ".join(symbols[1:] + symbols[0])
    for char in "".join(rows):
        if char not in symbols:
            raise fail(f"bad character {quote(char)} (allowed: {allowed})")
    return rows, side
