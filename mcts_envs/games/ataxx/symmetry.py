"""Ataxx symmetries: the 8 symmetries of the square on the 7x7 board.

Copy moves map by their destination square; a jump ``49 + from * 16 + offset`` maps its origin
square and turns its offset ``(row change, file change)`` by the symmetry's linear part (which
keeps the Chebyshev distance 2), then re-encodes it; the pass maps to itself. Jump actions whose
destination leaves the board (never legal) map the same way, so every map is a permutation of
all 834 actions. Observation cells are the squares (row-major from a7).

The start position is not invariant under every symmetry (a quarter turn swaps the corners of
``x`` and ``o``), but the image of a game is still a game of the same rules from the image of its
start: that is what augmentation needs.
"""

from __future__ import annotations

import numpy as np

from mcts_envs.core.symmetry import (
    SQUARE_SYMMETRY_NAMES,
    Symmetries,
    permute_bits,
    square_cell_maps,
    square_point_map,
)
from mcts_envs.games.ataxx import kernels as k

_CELL_MAPS = square_cell_maps(k.BOARD_SIZE)


def _build_action_maps() -> np.ndarray:
    offsets = [tuple(int(v) for v in row) for row in k.JUMP_OFFSETS]
    maps = np.empty((8, k.NUM_ACTIONS), np.int64)
    for symmetry in range(8):
        point = square_point_map(symmetry, k.BOARD_SIZE)
        origin_row, origin_col = point(0, 0)
        for square in range(k.NUM_SQUARES):
            maps[symmetry, square] = _CELL_MAPS[symmetry, square]
            for index, (d_row, d_col) in enumerate(offsets):
                moved_row, moved_col = point(d_row, d_col)  # the linear part of an affine map
                turned = (moved_row - origin_row, moved_col - origin_col)
                maps[symmetry, k.FIRST_JUMP + square * k.NUM_JUMP_OFFSETS + index] = (
                    k.FIRST_JUMP
                    + int(_CELL_MAPS[symmetry, square]) * k.NUM_JUMP_OFFSETS
                    + offsets.index(turned)
                )
        maps[symmetry, k.PASS] = k.PASS
    return maps


SYMMETRIES = Symmetries(
    game="ataxx",
    names=SQUARE_SYMMETRY_NAMES,
    cell_maps=_CELL_MAPS,
    action_maps=_build_action_maps(),
    board_shape=(k.BOARD_SIZE, k.BOARD_SIZE),
)


def transform_state(symmetry: int, state: np.ndarray) -> np.ndarray:
    """The image of an Ataxx state (stones moved; side, clocks and status kept)."""
    cell_map = _CELL_MAPS[SYMMETRIES._check(symmetry)]
    image = np.array(state, np.int64, copy=True)
    image[k.X_BOARD] = permute_bits(state[k.X_BOARD], cell_map)
    image[k.O_BOARD] = permute_bits(state[k.O_BOARD], cell_map)
    return image
