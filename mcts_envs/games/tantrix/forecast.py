"""Oliver's line-length forecast: a heuristic for Tantrix positions, as compiled kernels.

The Tantrix report's "Oliver" bot searches with alpha-beta over a heuristic that predicts how long
each line will finally be. This module is our documented version of that heuristic, on the state
layout of :mod:`.kernels` (grid in :mod:`.hexgrid`, lines as in :mod:`.scoring`).

**Features of a line.** For each line of a player's colour (a maximal chain of tiles joined by
that colour's paths, see :mod:`.scoring`):

* ``length``: its number of tiles; ``loop``: whether it closes on itself.
* ``open_ends``: 2 for an open line, 0 for a loop. Each end of an open line points into an empty
  cell (a placed tile there would have continued the line: the golden rule makes colours meet).
* ``fits_low`` / ``fits_high``: for each end cell, how many *available* tiles fit it under the
  golden rule in some orientation (the colours of every placed neighbour matched, so such a tile
  extends the line); the smaller count first. Available tiles are those in the bag (its contents
  are public: every tile not on the board or in a hand) and in the player's own hand.
  Restrictions (a)-(c) are not checked: a fit is about colours only.
* ``live_ends``: ends with at least one fitting tile (an end no available tile fits is dead).
* ``shared_end``: 1 when both ends point into the same empty cell (a tile there closes a loop).

**Predicted final length** (in points, like the score: a loop counts twice):

* a loop: ``2 * length`` (it cannot change);
* both ends in one cell: with ``p = fits / available`` the chance that an available tile closes
  it, ``p * 2 * (length + 1) + (1 - p) * length``;
* otherwise ``length + horizon * (fits_low + fits_high) / available`` with
  ``horizon = GROWTH_PER_UNPLACED * unplaced``: each end is expected to gain a number of tiles
  proportional to the share of available tiles that fit it and to the tiles still to be placed
  (``unplaced = 56 - placed``). A dead end adds nothing.

A player's **forecast** is the largest predicted length over their lines (0 with none), since
the score is the best line. The **evaluation** of a position for a player is their forecast minus
the opponent's (:func:`forecast_evaluation`).
"""

from __future__ import annotations

import numpy as np

from mcts_envs.core.numba_cache import njit
from mcts_envs.games.tantrix.hexgrid import CODE_MASK, GRID_CELLS, NEIGHBOUR_OFFSET, cell_demands
from mcts_envs.games.tantrix.kernels import (
    BAG_BITS,
    COLOUR_0,
    GRID,
    HAND_0,
    HAND_COUNT_0,
    HAND_SIZE,
    NUM_PLACED,
    PLACED,
)
from mcts_envs.games.tantrix.tiles import (
    NUM_TILES,
    TILE_EDGE_COLOURS,
    TILE_ONE_HOT,
    TILE_PATH_PARTNER,
)

#: Tiles an end is expected to gain per unplaced tile, when every available tile fits it.
GROWTH_PER_UNPLACED = 0.125
#: Columns of a feature row (:func:`line_features`).
LENGTH, LOOP, OPEN_ENDS, LIVE_ENDS, FITS_LOW, FITS_HIGH, SHARED_END = range(7)
NUM_FEATURES = 7
#: Most lines a colour can have (each tile is on one line of each of its colours).
MAX_LINES = NUM_TILES


@njit(cache=True)
def _walk(grid, index, exit_edge, colour, start, seen):
    """Follows ``colour`` from the tile at ``index`` out through ``exit_edge``.

    Marks the tiles passed in ``seen`` and returns ``(tiles passed, end cell, loop)``: the end
    cell is the empty grid index the line points into (-1 on a colour mismatch, which no legal
    position has), ``loop`` is True when the walk came back to ``start``.
    """
    passed = 0
    while passed <= NUM_TILES:
        following = index + NEIGHBOUR_OFFSET[exit_edge]
        if following == start:
            return passed, -1, True
        code = grid[following] & CODE_MASK
        if code == 0:
            return passed, following, False
        code -= 1
        entry = (exit_edge + 3) % 6
        if TILE_EDGE_COLOURS[code // 6, code % 6, entry] != colour:
            return passed, -1, False
        seen[code // 6] = True
        passed += 1
        exit_edge = TILE_PATH_PARTNER[code // 6, code % 6, entry]
        index = following
    return passed, -1, False


@njit(cache=True)
def available_tiles(state, player, out):
    """Writes the tiles available to ``player`` (bag, then own hand) into ``out``; their count."""
    count = 0
    bits = state[BAG_BITS]
    for tile in range(NUM_TILES):
        if (bits >> tile) & 1:
            out[count] = tile
            count += 1
    start = HAND_0 + player * HAND_SIZE
    for slot in range(state[HAND_COUNT_0 + player]):
        out[count] = state[start + slot]
        count += 1
    return count


@njit(cache=True)
def fitting_tiles(grid, cell, tiles, tile_count):
    """How many of ``tiles[:tile_count]`` fit empty grid cell ``cell`` (golden rule only)."""
    required, mask = cell_demands(grid, cell)
    fits = 0
    for i in range(tile_count):
        tile = tiles[i]
        for orientation in range(6):
            if TILE_ONE_HOT[tile, orientation] & mask == required:
                fits += 1
                break
    return fits


@njit(cache=True)
def line_features(state, player, rows):
    """Writes one feature row per line of ``player``'s colour into ``rows`` (``int64[56, 7]``).

    Lines are listed by their first tile in placement order; columns as named by ``LENGTH`` ...
    ``SHARED_END`` (see the module docstring). Returns the number of lines.
    """
    grid = state[GRID : GRID + GRID_CELLS]
    colour = state[COLOUR_0 + player]
    tiles = np.empty(NUM_TILES, np.int64)
    tile_count = available_tiles(state, player, tiles)
    seen = np.zeros(NUM_TILES, np.bool_)
    lines = 0
    for p in range(state[NUM_PLACED]):
        index = state[PLACED + p]
        code = (grid[index] & CODE_MASK) - 1
        tile = code // 6
        if seen[tile]:
            continue
        first = -1
        for d in range(6):
            if TILE_EDGE_COLOURS[tile, code % 6, d] == colour:
                first = d
                break
        if first < 0:
            continue
        seen[tile] = True
        second = TILE_PATH_PARTNER[tile, code % 6, first]
        ahead, end_b, loop = _walk(grid, index, second, colour, index, seen)
        length = 1 + ahead
        end_a = -1
        if not loop:
            behind, end_a, _ = _walk(grid, index, first, colour, index, seen)
            length += behind
        row = rows[lines]
        row[:] = 0
        row[LENGTH] = length
        if loop:
            row[LOOP] = 1
        else:
            row[OPEN_ENDS] = 2
            fits_a = fitting_tiles(grid, end_a, tiles, tile_count) if end_a >= 0 else 0
            fits_b = fitting_tiles(grid, end_b, tiles, tile_count) if end_b >= 0 else 0
            row[FITS_LOW] = min(fits_a, fits_b)
            row[FITS_HIGH] = max(fits_a, fits_b)
            row[LIVE_ENDS] = (fits_a > 0) + (fits_b > 0)
            row[SHARED_END] = 1 if (end_a == end_b and end_a >= 0) else 0
        lines += 1
    return lines


@njit(cache=True)
def predicted_length(row, unplaced, available):
    """The predicted final value (points) of a line with feature row ``row`` (module docstring).

    ``unplaced``: tiles not yet on the board; ``available``: tiles in the bag and the hand.
    """
    length = row[LENGTH]
    if row[LOOP]:
        return 2.0 * length
    if available == 0:
        return float(length)
    if row[SHARED_END]:
        p = row[FITS_LOW] / available
        return p * 2.0 * (length + 1) + (1.0 - p) * length
    horizon = GROWTH_PER_UNPLACED * unplaced
    return length + horizon * (row[FITS_LOW] + row[FITS_HIGH]) / available


@njit(cache=True)
def forecast(state, player):
    """``player``'s forecast: the largest predicted final line value (0.0 with no line)."""
    rows = np.empty((MAX_LINES, NUM_FEATURES), np.int64)
    lines = line_features(state, player, rows)
    unplaced = NUM_TILES - state[NUM_PLACED]
    tiles = np.empty(NUM_TILES, np.int64)
    available = available_tiles(state, player, tiles)
    best = 0.0
    for i in range(lines):
        value = predicted_length(rows[i], unplaced, available)
        if value > best:
            best = value
    return best


@njit(cache=True)
def forecast_evaluation(state, player):
    """``player``'s forecast minus the opponent's (positive: ``player`` is predicted ahead)."""
    return forecast(state, player) - forecast(state, 1 - player)
