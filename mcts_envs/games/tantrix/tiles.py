"""The 56 Tantrix tiles as constant tables, loaded once from ``tiles.csv`` (docs/RULES.md 5.1).

Colours are indexed ``0 red, 1 yellow, 2 blue, 3 green``. Edges of a pointy-top hex are indexed
clockwise from north-east: ``0 NE, 1 E, 2 SE, 3 SW, 4 W, 5 NW``. Tile ``t`` (0-based: tile number
``t + 1``) in orientation ``k`` (turned ``k`` steps clockwise) shows colour
``TILE_EDGE_COLOURS[t, k, i] == colour of edges[(i - k) mod 6]`` at edge ``i``.

Tables (all ``np.int64``):

* ``TILE_EDGE_COLOURS[56, 6, 6]``: colour at each edge per tile and orientation.
* ``TILE_ONE_HOT[56, 6]``: the six edge colours as a 24-bit word, bit ``4 * edge + colour`` set;
  edge matching is then one AND and one compare (see :mod:`.hexgrid`).
* ``TILE_PATH_PARTNER[56, 6, 6]``: the other end (edge) of the path that reaches edge ``i``.
"""

from __future__ import annotations

import csv
import io
from importlib import resources

import numpy as np

NUM_TILES = 56
NUM_COLOURS = 4
NUM_ORIENTATIONS = 6
COLOUR_LETTERS = "RYBG"
COLOUR_NAMES = ("red", "yellow", "blue", "green")
RED, YELLOW, BLUE, GREEN = 0, 1, 2, 3


def read_tile_csv() -> list[tuple[int, str, str]]:
    """The rows ``(number, edges, shape)`` of the packaged ``tiles.csv``, in file order."""
    text = resources.files("mcts_envs.games.tantrix").joinpath("tiles.csv").read_text("utf-8")
    rows = list(csv.DictReader(io.StringIO(text)))
    return [(int(row["number"]), row["edges"].strip(), row["shape"].strip()) for row in rows]


def _build_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray, tuple[str, ...], tuple[str, ...]]:
    rows = read_tile_csv()
    if [number for number, _, _ in rows] != list(range(1, NUM_TILES + 1)):
        raise ValueError("tiles.csv must list tiles 1..56 in order")
    colours = np.zeros((NUM_TILES, NUM_ORIENTATIONS, 6), np.int64)
    one_hot = np.zeros((NUM_TILES, NUM_ORIENTATIONS), np.int64)
    partner = np.zeros((NUM_TILES, NUM_ORIENTATIONS, 6), np.int64)
    for tile, (_, edges, _) in enumerate(rows):
        base = [COLOUR_LETTERS.index(letter) for letter in edges]
        for orientation in range(NUM_ORIENTATIONS):
            for edge in range(6):
                colour = base[(edge - orientation) % 6]
                colours[tile, orientation, edge] = colour
                one_hot[tile, orientation] |= 1 << (4 * edge + colour)
            for edge in range(6):
                colour = colours[tile, orientation, edge]
                others = [
                    e for e in range(6) if e != edge and colours[tile, orientation, e] == colour
                ]
                partner[tile, orientation, edge] = others[0]
    edges_text = tuple(edges for _, edges, _ in rows)
    shapes = tuple(shape for _, _, shape in rows)
    return colours, one_hot, partner, edges_text, shapes


TILE_EDGE_COLOURS, TILE_ONE_HOT, TILE_PATH_PARTNER, TILE_EDGES_TEXT, TILE_SHAPES = _build_tables()


def tile_colours(tile: int) -> frozenset[int]:
    """The three colours (indices) on tile ``tile`` (0-based)."""
    return frozenset(int(c) for c in TILE_EDGE_COLOURS[tile, 0])


def tile_name(tile: int) -> str:
    """``"#12 BRYBYR"``-style label of tile ``tile`` (0-based index, shown 1-based)."""
    return f"#{tile + 1} {TILE_EDGES_TEXT[tile]}"
