"""Tantrix symmetries: the six rotations of the hex grid, as maps that depend on the position.

The rules are invariant under turning the board by sixths about any cell: a tile turns with the
board (orientation ``k`` becomes ``k + 1`` per clockwise sixth, since edge ``d`` faces direction
``d`` and directions turn ``d -> d + 1``), the golden rule, forced spaces and restrictions are
geometric, and tiles, hands, draws and scores are unchanged. In axial coordinates a clockwise
sixth turn is ``(q, r) -> (-r, q + r)``.

The action space indexes a ``58 x 58`` window recentred on the placed tiles (RULES.md rule 16),
so no fixed permutation of the actions exists: a sixth turn maps the parallelogram window to a
differently shaped one, and where a cell lands depends on the tiles' bounding box after the
turn. The maps here are therefore computed per position, from the observation's occupancy plane:
window cell ``(i, j)`` lies at offset ``(i - 28, j - 28)`` from the window centre (the window is
always centred on the tiles); the offsets are turned, and the image window is centred on the
turned tiles exactly as the game centres it (``floor`` of the bounding box middle). Every placed
tile, forced space and legal placement lies next to a tile, and the window bound (hexgrid module)
keeps such cells inside the image window; cells far from all tiles may leave it, and they are
always empty in observations, masks and policies.

Observation channels: ``4 * edge + colour`` (edge colours) move with the cell and turn their edge
(``edge + s``); occupancy (24) and forced spaces (25) move with the cell; the feature plane (26,
hands, colours, bag, phase) is not spatial and is copied unchanged.
"""

from __future__ import annotations

import numpy as np

from mcts_envs.core.errors import InvalidOptionError
from mcts_envs.games.tantrix import kernels as k
from mcts_envs.games.tantrix.hexgrid import HALF_WINDOW, NUM_WINDOW_CELLS, WINDOW

NAMES = ("identity", "rotate60", "rotate120", "rotate180", "rotate240", "rotate300")
OCCUPANCY_CHANNEL = 24
EDGE_CHANNELS = 24
_CELLS = np.arange(NUM_WINDOW_CELLS)
_OFFSET_Q = _CELLS // WINDOW - HALF_WINDOW
_OFFSET_R = _CELLS % WINDOW - HALF_WINDOW


def rotate_axial(q: np.ndarray, r: np.ndarray, sixths: int) -> tuple[np.ndarray, np.ndarray]:
    """Axial coordinates turned ``sixths`` sixths clockwise about the origin."""
    for _ in range(sixths % 6):
        q, r = -r, q + r
    return q, r


class TantrixRotations:
    """The six rotations of Tantrix, applied to decisions given their observation planes.

    Attributes:
        game: ``"tantrix"``.
        names: ``"identity"``, ``"rotate60"`` ... ``"rotate300"`` (clockwise).
    """

    game = "tantrix"
    names = NAMES

    def __len__(self) -> int:
        return len(NAMES)

    def _check(self, symmetry: int) -> int:
        if isinstance(symmetry, bool) or not isinstance(symmetry, (int, np.integer)):
            raise InvalidOptionError(f"a symmetry is an int index, got {symmetry!r}")
        if not 0 <= symmetry < len(NAMES):
            raise InvalidOptionError(
                f"tantrix has 6 symmetries (0..5: {', '.join(NAMES)}), got {symmetry}"
            )
        return int(symmetry)

    def cell_map(self, symmetry: int, observation: np.ndarray) -> np.ndarray:
        """``int64[58 * 58]``: the image window cell of each window cell (-1 outside the image
        window), for the position whose observation is ``observation`` (``[58, 58, 27]``)."""
        symmetry = self._check(symmetry)
        occupied = np.asarray(observation)[..., OCCUPANCY_CHANNEL].reshape(-1) > 0
        q, r = rotate_axial(_OFFSET_Q, _OFFSET_R, symmetry)
        if occupied.any():
            center_q = (q[occupied].min() + q[occupied].max()) // 2
            center_r = (r[occupied].min() + r[occupied].max()) // 2
        else:  # empty board: the origin stays the window centre
            center_q = center_r = 0
        i, j = q - center_q + HALF_WINDOW, r - center_r + HALF_WINDOW
        inside = (i >= 0) & (i < WINDOW) & (j >= 0) & (j < WINDOW)
        return np.where(inside, i * WINDOW + j, -1)

    def transform_observation(self, symmetry: int, observation: np.ndarray) -> np.ndarray:
        """The image of one observation ``[58, 58, 27]``."""
        symmetry = self._check(symmetry)
        observation = np.asarray(observation)
        if observation.shape != (WINDOW, WINDOW, k.NUM_CHANNELS):
            raise InvalidOptionError(
                f"tantrix: expected an observation of shape {(WINDOW, WINDOW, k.NUM_CHANNELS)}, "
                f"got {observation.shape}"
            )
        cell_map = self.cell_map(symmetry, observation)
        flat = observation.reshape(NUM_WINDOW_CELLS, k.NUM_CHANNELS)
        spatial = flat[:, : k.FEATURE_CHANNEL]
        used = np.flatnonzero(spatial.any(axis=1))
        if np.any(cell_map[used] < 0):
            raise InvalidOptionError("tantrix: a marked cell leaves the window under rotation")
        out = np.zeros_like(flat)
        channels = np.arange(k.FEATURE_CHANNEL)
        turned = np.where(
            channels < EDGE_CHANNELS, 4 * ((channels // 4 + symmetry) % 6) + channels % 4, channels
        )
        out[cell_map[used][:, None], turned[None, :]] = spatial[used]
        out[:, k.FEATURE_CHANNEL] = flat[:, k.FEATURE_CHANNEL]
        return out.reshape(observation.shape)

    def transform_actions(
        self, symmetry: int, observation: np.ndarray, actions: np.ndarray
    ) -> np.ndarray:
        """Images of placement actions of the position of ``observation``.

        Raises:
            InvalidOptionError: for an action whose cell leaves the image window (never legal).
        """
        symmetry = self._check(symmetry)
        actions = np.asarray(actions, np.int64)
        cells, orientations, slots = actions // 36, (actions // 6) % 6, actions % 6
        images = self.cell_map(symmetry, observation)[cells]
        if np.any(images < 0):
            raise InvalidOptionError("tantrix: an action's cell leaves the window under rotation")
        return (images * 6 + (orientations + symmetry) % 6) * 6 + slots

    def transform_action(self, symmetry: int, observation: np.ndarray, action: int) -> int:
        """The image of one action (see :meth:`transform_actions`)."""
        return int(self.transform_actions(symmetry, observation, np.array([action]))[0])

    def transform_vector(
        self, symmetry: int, observation: np.ndarray, vector: np.ndarray
    ) -> np.ndarray:
        """A mask or policy ``[num_actions]`` moved to the image actions (its non-zero entries
        must be placements near the tiles, as legal actions are)."""
        vector = np.asarray(vector)
        if vector.shape != (k.NUM_ACTIONS,):
            raise InvalidOptionError(
                f"tantrix: expected a vector of {k.NUM_ACTIONS} actions, got {vector.shape}"
            )
        used = np.flatnonzero(vector)
        out = np.zeros_like(vector)
        out[self.transform_actions(symmetry, observation, used)] = vector[used]
        return out

    def transform_rows(
        self,
        symmetry: int,
        observations: np.ndarray,
        masks: np.ndarray,
        policies: np.ndarray,
        actions: np.ndarray,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Images of a batch of decisions (same interface as the square games' maps)."""
        rows = range(len(actions))
        return (
            np.array([self.transform_observation(symmetry, observations[i]) for i in rows]).reshape(
                observations.shape
            ),
            np.array(
                [self.transform_vector(symmetry, observations[i], masks[i]) for i in rows]
            ).reshape(masks.shape),
            np.array(
                [self.transform_vector(symmetry, observations[i], policies[i]) for i in rows]
            ).reshape(policies.shape),
            np.array(
                [self.transform_action(symmetry, observations[i], actions[i]) for i in rows],
                np.int64,
            ).reshape(np.shape(actions)),
        )


SYMMETRIES = TantrixRotations()
