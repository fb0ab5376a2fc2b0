"""Pentago Twist symmetries: only the square symmetries that map every move to a move.

A move places a stone, then rotates one quadrant clockwise or flips it left-right. A symmetry
``g`` of the board maps the move's transform ``T`` to ``g T g^-1``, which must again be one of the
eight transforms. A mirror turns a clockwise rotation into a counter-clockwise one, and a quarter
turn turns a left-right flip into a top-bottom one; neither is a move of this game. Only the
identity and the half turn (180 degrees) qualify. :data:`ALLOWED` is computed below from the
rules' own transform table (:data:`.kernels.TRANSFORMED`), not assumed.
"""

from __future__ import annotations

import numpy as np

from mcts_envs.core.symmetry import (
    SQUARE_SYMMETRY_NAMES,
    Symmetries,
    permute_bits,
    square_cell_maps,
)
from mcts_envs.games.pentago_twist import kernels as k

_SQUARE_MAPS = square_cell_maps(k.SIZE)


def transform_permutation(transform: int) -> np.ndarray:
    """``int64[36]``: where each cell's stone goes under quadrant transform ``transform``."""
    permutation = np.arange(k.NUM_CELLS, dtype=np.int64)
    quadrant = transform // 2
    shift = int(k.QUADRANT_SHIFTS[quadrant])
    for local in range(9):
        source = shift + (local // 3) * k.SIZE + local % 3
        image = int(k.TRANSFORMED[transform, 1 << local])
        permutation[source] = image.bit_length() - 1
    return permutation


def _conjugate_transforms(cell_map: np.ndarray) -> list[int] | None:
    """For each transform ``T``, the transform equal to ``g T g^-1`` (or None if one has none)."""
    inverse = np.empty_like(cell_map)
    inverse[cell_map] = np.arange(len(cell_map))
    tables = [transform_permutation(t) for t in range(k.NUM_TRANSFORMS)]
    images = []
    for table in tables:
        conjugated = cell_map[table[inverse]]  # g(T(g^-1(c)))
        match = [t for t, other in enumerate(tables) if np.array_equal(other, conjugated)]
        if not match:
            return None
        images.append(match[0])
    return images


def _build() -> tuple[tuple[str, ...], np.ndarray, np.ndarray]:
    names, cell_maps, action_maps = [], [], []
    for symmetry, name in enumerate(SQUARE_SYMMETRY_NAMES):
        cell_map = _SQUARE_MAPS[symmetry]
        transforms = _conjugate_transforms(cell_map)
        if transforms is None:
            continue
        actions = np.empty(k.NUM_ACTIONS, np.int64)
        for cell in range(k.NUM_CELLS):
            for transform in range(k.NUM_TRANSFORMS):
                actions[cell * k.NUM_TRANSFORMS + transform] = (
                    int(cell_map[cell]) * k.NUM_TRANSFORMS + transforms[transform]
                )
        names.append(name)
        cell_maps.append(cell_map)
        action_maps.append(actions)
    return tuple(names), np.array(cell_maps), np.array(action_maps)


ALLOWED, _CELL_MAPS, _ACTION_MAPS = _build()

SYMMETRIES = Symmetries(
    game="pentago_twist",
    names=ALLOWED,
    cell_maps=_CELL_MAPS,
    action_maps=_ACTION_MAPS,
    board_shape=(k.SIZE, k.SIZE),
)


def transform_state(symmetry: int, state: np.ndarray) -> np.ndarray:
    """The image of a Pentago Twist state (stones moved; side to move and status kept)."""
    cell_map = _CELL_MAPS[SYMMETRIES._check(symmetry)]
    image = np.array(state, np.int64, copy=True)
    image[k.WHITE] = permute_bits(state[k.WHITE], cell_map)
    image[k.BLACK] = permute_bits(state[k.BLACK], cell_map)
    return image
