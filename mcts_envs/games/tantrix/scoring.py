"""Line and loop scoring (docs/RULES.md 5.15) as compiled kernels over the grid of a state.

A *line* of colour ``c`` is a maximal chain of tiles joined by their ``c`` paths across shared
edges (the golden rule makes the colours meet). Every tile carries at most one path of each
colour, so each tile belongs to exactly one line of each of its colours: walking from a tile
both ways visits every tile of its line once. A line that comes back to its first tile is a
*loop* and scores 2 per tile; an open line scores 1 per tile. A player's score is the best
line of their colour.
"""

from __future__ import annotations

import numpy as np

from mcts_envs.core.numba_cache import njit
from mcts_envs.games.tantrix.hexgrid import CODE_MASK, NEIGHBOUR_OFFSET
from mcts_envs.games.tantrix.tiles import NUM_TILES, TILE_EDGE_COLOURS, TILE_PATH_PARTNER


@njit(cache=True)
def colour_edge(code, colour):
    """First edge of the placed tile ``code`` (grid code) carrying ``colour``, or -1."""
    code -= 1
    for d in range(6):
        if TILE_EDGE_COLOURS[code // 6, code % 6, d] == colour:
            return d
    return -1


@njit(cache=True)
def trace_line(grid, start, colour, cells):
    """Walks the ``colour`` line through the tile at grid index ``start``.

    Writes the grid indices of its tiles into ``cells`` (in path order, from one end when open)
    and returns ``(length, is_loop)``; ``(0, False)`` if the tile has no such path.
    """
    code = grid[start] & CODE_MASK
    first_edge = colour_edge(code, colour)
    if first_edge < 0:
        return 0, False
    # Walk forward through the partner of first_edge, then backward through first_edge.
    forward = np.empty(NUM_TILES, np.int64)
    backward = np.empty(NUM_TILES, np.int64)
    n_forward = 0
    n_backward = 0
    is_loop = False
    code -= 1
    exit_edge = TILE_PATH_PARTNER[code // 6, code % 6, first_edge]
    index = start
    while True:
        index = index + NEIGHBOUR_OFFSET[exit_edge]
        if index == start:
            is_loop = True
            break
        code = grid[index] & CODE_MASK
        if code == 0 or n_forward >= NUM_TILES:
            break
        code -= 1
        entry = (exit_edge + 3) % 6
        if TILE_EDGE_COLOURS[code // 6, code % 6, entry] != colour:
            break
        forward[n_forward] = index
        n_forward += 1
        exit_edge = TILE_PATH_PARTNER[code // 6, code % 6, entry]
    if not is_loop:
        exit_edge = first_edge
        index = start
        while True:
            index = index + NEIGHBOUR_OFFSET[exit_edge]
            code = grid[index] & CODE_MASK
            if code == 0 or n_backward >= NUM_TILES:
                break
            code -= 1
            entry = (exit_edge + 3) % 6
            if TILE_EDGE_COLOURS[code // 6, code % 6, entry] != colour:
                break
            backward[n_backward] = index
            n_backward += 1
            exit_edge = TILE_PATH_PARTNER[code // 6, code % 6, entry]
    length = 0
    for i in range(n_backward - 1, -1, -1):
        cells[length] = backward[i]
        length += 1
    cells[length] = start
    length += 1
    for i in range(n_forward):
        cells[length] = forward[i]
        length += 1
    return length, is_loop


@njit(cache=True)
def best_line(grid, placed, placed_count, colour):
    """The best ``colour`` line: ``(score, start, length, is_loop)`` over the placed tiles.

    ``placed[:placed_count]`` are the grid indices of the tiles; ``start`` is a grid index on the
    best line (-1 when there is none). Ties keep the first line found; each line is walked once.
    """
    seen = np.zeros(NUM_TILES, np.bool_)
    cells = np.empty(NUM_TILES, np.int64)
    best_score = 0
    best_start = -1
    best_length = 0
    best_loop = False
    for p in range(placed_count):
        index = placed[p]
        tile = ((grid[index] & CODE_MASK) - 1) // 6
        if seen[tile]:
            continue
        length, is_loop = trace_line(grid, index, colour, cells)
        if length == 0:
            continue
        for i in range(length):
            seen[((grid[cells[i]] & CODE_MASK) - 1) // 6] = True
        value = 2 * length if is_loop else length
        if value > best_score:
            best_score = value
            best_start = index
            best_length = length
            best_loop = is_loop
    return best_score, best_start, best_length, best_loop
