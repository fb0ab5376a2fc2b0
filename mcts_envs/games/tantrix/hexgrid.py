"""The hex grid: axial coordinates, the recentred window, neighbours and edge matching.

Cells use axial coordinates ``(q, r)`` on pointy-top hexes (``q`` grows to the east, ``r`` to the
south-east); the first tile sits at the origin. Edge ``d`` of a cell (clockwise from north-east,
see :mod:`.tiles`) faces the neighbour ``(q + DIRECTION_Q[d], r + DIRECTION_R[d])``, whose facing
edge is ``(d + 3) % 6``.

**Window.** Actions and observation planes index a ``WINDOW x WINDOW`` parallelogram of cells
(``WINDOW = 58``): window cell ``(i, j)`` (flat ``i * WINDOW + j``) is axial
``(center_q - 28 + i, center_r - 28 + j)`` where ``center_q = floor((q_min + q_max) / 2)`` over the
placed tiles (likewise ``r``; ``(0, 0)`` on an empty board). Bound: along any step between
neighbours ``q`` and ``r`` each change by at most 1, so a connected group of ``n <= 56`` tiles spans
at most ``n - 1 <= 55`` in ``q`` and in ``r``; with its neighbouring cells at most 57, i.e. 58
cells. Centred as above, ``q_min - 1 >= center_q - 28`` (``floor(55 / 2) = 27``) and
``q_max + 1 <= center_q + 29`` (``ceil(55 / 2) = 28``): every placed tile and every cell next to
one lies inside the window, so no legal placement is ever cut off. The bound is tight (a straight
line of 56 tiles along the north-east axis spans 58 cells in both ``q`` and ``r`` with its ends).

**Storage.** The state keeps the window with a one-cell empty border, a ``SIDE x SIDE`` grid
(``SIDE = WINDOW + 2``), so the six neighbours of any window cell are valid grid indices without
bounds checks: grid index ``a * SIDE + b`` is axial ``(base_q + a, base_r + b)`` with
``base = center - 29``, and window cell ``(a - 1, b - 1)``.

**Edge matching.** A cell's demands are two 24-bit words: ``required`` has bit ``4 * d + colour``
set for each edge ``d`` facing a placed tile, ``mask`` has the four bits of each such edge set. A
tile in an orientation with one-hot word ``w`` (:data:`.tiles.TILE_ONE_HOT`) obeys the golden rule
there iff ``w & mask == required``.
"""

from __future__ import annotations

import numpy as np

from mcts_envs.core.numba_cache import njit
from mcts_envs.games.tantrix.tiles import NUM_TILES, TILE_EDGE_COLOURS

WINDOW = 58
HALF_WINDOW = 28
SIDE = WINDOW + 2
GRID_CELLS = SIDE * SIDE
#: ``base_q = center_q - BASE_OFFSET`` puts the centre at window index 28 (grid index 29).
BASE_OFFSET = HALF_WINDOW + 1
NUM_WINDOW_CELLS = WINDOW * WINDOW

DIRECTION_Q = np.array([1, 1, 0, -1, -1, 0], np.int64)
DIRECTION_R = np.array([-1, 0, 1, 1, 0, -1], np.int64)
DIRECTION_NAMES = ("NE", "E", "SE", "SW", "W", "NW")
#: Grid-index offset of the neighbour across edge ``d``.
NEIGHBOUR_OFFSET = DIRECTION_Q * SIDE + DIRECTION_R

#: Grid word layout: bits 0-9 tile code (0 empty, else ``1 + tile * 6 + orientation``),
#: bits 10-12 number of placed neighbours.
CODE_MASK = 1023
COUNT_SHIFT = 10
COUNT_ONE = 1 << COUNT_SHIFT
#: Largest frontier (empty cells next to a tile) of ``n`` connected tiles is ``4n + 2``
#: (a polyhex of ``n`` cells has at most ``4n + 2`` boundary edges).
FRONTIER_CAPACITY = 4 * NUM_TILES + 2
#: Cells with >= 3 placed neighbours: each tile counts for at most six cells, so <= 6 * 56 / 3.
FORCED_CAPACITY = 2 * NUM_TILES


@njit(cache=True, inline="always")
def window_cell(grid_index):
    """Window cell index (``i * WINDOW + j``) of grid index ``grid_index``."""
    i, j = window_row_column(grid_index)
    return i * WINDOW + j


@njit(cache=True, inline="always")
def window_row_column(grid_index):
    """Window row ``i`` and column ``j`` of grid index ``grid_index`` (>= 0), by unsigned
    division by a constant (cheaper than Python's floor division with its sign fix-ups)."""
    row = np.uint64(grid_index) // np.uint64(SIDE)
    column = np.uint64(grid_index) - row * np.uint64(SIDE)
    return np.int64(row) - 1, np.int64(column) - 1


@njit(cache=True, inline="always")
def grid_index(cell):
    """Grid index of window cell ``cell``."""
    return (cell // WINDOW + 1) * SIDE + (cell % WINDOW + 1)


@njit(cache=True, inline="always")
def tile_code(tile, orientation):
    """The grid code of ``tile`` placed in ``orientation`` (never 0)."""
    return 1 + tile * 6 + orientation


#: Number of grid codes (0 empty, then ``1 + tile * 6 + orientation``).
NUM_CODES = 1 + NUM_TILES * 6


def _build_facing_one_hot() -> np.ndarray:
    """``FACING_ONE_HOT``: ``int64[NUM_CODES, 6]``, zero for code 0.

    For a cell whose neighbour across edge ``d`` holds grid code ``code``, the colour leading in
    is the one that tile shows at its edge ``(d + 3) % 6``; ``FACING_ONE_HOT[code, d]`` is that
    colour's bit ``4 * d + colour`` (the cell's golden-rule demand from that side).
    """
    one_hot = np.zeros((NUM_CODES, 6), np.int64)
    for tile in range(NUM_TILES):
        for orientation in range(6):
            code = 1 + tile * 6 + orientation
            for d in range(6):
                colour = int(TILE_EDGE_COLOURS[tile, orientation, (d + 3) % 6])
                one_hot[code, d] = 1 << (4 * d + colour)
    return one_hot


FACING_ONE_HOT = _build_facing_one_hot()
#: Bit 0 of each of the six 4-bit edge fields of a one-hot word.
EDGE_LOW_BITS = 0x111111


@njit(cache=True, inline="always")
def edge_fields_mask(required):
    """The four bits of every edge field of ``required`` that has a bit set (``mask``)."""
    low = (required | (required >> 1) | (required >> 2) | (required >> 3)) & EDGE_LOW_BITS
    return low * 15


@njit(cache=True)
def cell_demands(grid, index):
    """``(required, mask)``: one-hot words of the colours that neighbours impose on ``index``."""
    required = 0
    for d in range(6):
        required |= FACING_ONE_HOT[grid[index + NEIGHBOUR_OFFSET[d]] & CODE_MASK, d]
    return required, edge_fields_mask(required)
