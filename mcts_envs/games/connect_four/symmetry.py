"""Connect Four symmetries: the identity and the left-right mirror (gravity rules out the others).

Observation cells are ``row * 7 + column`` over the ``6 x 7`` planes; actions are columns, so
the mirror maps column ``c`` to ``6 - c``. See :mod:`mcts_envs.core.symmetry` for the conventions.
"""

from __future__ import annotations

import numpy as np

from mcts_envs.core.symmetry import Symmetries, permute_bits
from mcts_envs.games.connect_four import kernels as k

_COLUMNS = np.arange(k.COLUMNS)
_CELLS = np.arange(k.ROWS * k.COLUMNS)

SYMMETRIES = Symmetries(
    game="connect_four",
    names=("identity", "mirror_left_right"),
    cell_maps=np.stack(
        [_CELLS, (_CELLS // k.COLUMNS) * k.COLUMNS + k.COLUMNS - 1 - _CELLS % k.COLUMNS]
    ),
    action_maps=np.stack([_COLUMNS, k.COLUMNS - 1 - _COLUMNS]),
    board_shape=(k.ROWS, k.COLUMNS),
)

#: The image of each bit of a bitboard under each symmetry (sentinel bits map to themselves).
_BIT_MAPS = np.array(
    [
        np.arange(k.COLUMNS * k.COLUMN_BITS),
        [
            (k.COLUMNS - 1 - bit // k.COLUMN_BITS) * k.COLUMN_BITS + bit % k.COLUMN_BITS
            for bit in range(k.COLUMNS * k.COLUMN_BITS)
        ],
    ],
    np.int64,
)


def transform_state(symmetry: int, state: np.ndarray) -> np.ndarray:
    """The image of a Connect Four state (stones moved, side to move and status kept)."""
    bit_map = _BIT_MAPS[SYMMETRIES._check(symmetry)]
    image = np.array(state, np.int64, copy=True)
    image[0] = permute_bits(state[0], bit_map)
    image[1] = permute_bits(state[1], bit_map)
    return image
