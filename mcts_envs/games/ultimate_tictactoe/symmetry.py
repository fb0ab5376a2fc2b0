"""Ultimate Tic-Tac-Toe symmetries: the 8 symmetries of the square on the 9x9 grid.

A symmetry of the 9x9 grid maps the 3x3 blocks to blocks, so a local board goes to the image of
its position in the global grid and a cell to the image of its position in its board: the rule
"a move in cell c sends the opponent to board c" is preserved. Action ``board * 9 + cell`` maps
through the grid position; observation cells are the grid cells ``row * 9 + col``.
"""

from __future__ import annotations

import numpy as np

from mcts_envs.core.symmetry import (
    SQUARE_SYMMETRY_NAMES,
    Symmetries,
    permute_bits,
    square_cell_maps,
)
from mcts_envs.games.ultimate_tictactoe import kernels as k

_GRID_MAPS = square_cell_maps(9)
_BOARD_MAPS = square_cell_maps(3)


def _action_to_grid(action: int) -> int:
    board, cell = divmod(action, 9)
    return ((board // 3) * 3 + cell // 3) * 9 + (board % 3) * 3 + cell % 3


def _grid_to_action(grid_cell: int) -> int:
    row, col = divmod(grid_cell, 9)
    return ((row // 3) * 3 + col // 3) * 9 + (row % 3) * 3 + col % 3


def _build_action_maps() -> np.ndarray:
    maps = np.empty((8, 81), np.int64)
    for symmetry in range(8):
        for action in range(81):
            maps[symmetry, action] = _grid_to_action(
                int(_GRID_MAPS[symmetry, _action_to_grid(action)])
            )
    return maps


SYMMETRIES = Symmetries(
    game="ultimate_tictactoe",
    names=SQUARE_SYMMETRY_NAMES,
    cell_maps=_GRID_MAPS,
    action_maps=_build_action_maps(),
    board_shape=(9, 9),
)


def transform_state(symmetry: int, state: np.ndarray) -> np.ndarray:
    """The image of an Ultimate Tic-Tac-Toe state (boards, marks, won/closed boards, target)."""
    symmetry = SYMMETRIES._check(symmetry)
    board_map = _BOARD_MAPS[symmetry]
    image = np.array(state, np.int64, copy=True)
    for board in range(k.NUM_BOARDS):
        target = int(board_map[board])
        image[k.X_BOARDS + target] = permute_bits(state[k.X_BOARDS + board], board_map)
        image[k.O_BOARDS + target] = permute_bits(state[k.O_BOARDS + board], board_map)
    for field in (k.WON_X, k.WON_O, k.CLOSED):
        image[field] = permute_bits(state[field], board_map)
    if state[k.TARGET] != k.ANY_BOARD:
        image[k.TARGET] = board_map[int(state[k.TARGET])]
    return image
