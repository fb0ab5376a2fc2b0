"""Tic-Tac-Toe symmetries: the 8 symmetries of the square on the 3x3 board.

Actions are cells (``row * 3 + col``), so the action map is the cell map; see
:mod:`mcts_envs.core.symmetry` for the conventions.
"""

from __future__ import annotations

import numpy as np

from mcts_envs.core.symmetry import (
    SQUARE_SYMMETRY_NAMES,
    Symmetries,
    permute_bits,
    square_cell_maps,
)

_CELL_MAPS = square_cell_maps(3)

SYMMETRIES = Symmetries(
    game="tictactoe",
    names=SQUARE_SYMMETRY_NAMES,
    cell_maps=_CELL_MAPS,
    action_maps=_CELL_MAPS.copy(),
    board_shape=(3, 3),
)


def transform_state(symmetry: int, state: np.ndarray) -> np.ndarray:
    """The image of a Tic-Tac-Toe state (marks moved, side to move and status kept)."""
    cell_map = _CELL_MAPS[SYMMETRIES._check(symmetry)]
    image = np.array(state, np.int64, copy=True)
    image[0] = permute_bits(state[0], cell_map)
    image[1] = permute_bits(state[1], cell_map)
    return image
