"""Board symmetries as permutations of cells and actions, for data augmentation.

A symmetry of a game maps every state to a state that plays the same: the images of the legal
actions are the legal actions of the image, applying the image of an action to the image of a
state gives the image of the next state, and results are unchanged. Each game that has such maps
defines them once, in its core (``mcts_envs/games/<game>/symmetry.py``, a module-level
:class:`Symmetries` named ``SYMMETRIES``), because they encode the board geometry and the action
encoding, and its Game class declares that module as ``symmetry_module``;
:func:`game_symmetries` finds them through that declaration.

Conventions (``s`` is a symmetry index, 0 is always the identity):

* ``cell_maps[s, c]`` is the image of board cell ``c`` (row-major over the observation's spatial
  axes ``H x W``); observations are ``[..., H, W, C]`` planes, so transforming one moves the
  content of cell ``c`` to cell ``cell_maps[s, c]`` in every plane.
* ``action_maps[s, a]`` is the image of action ``a``; a vector over the action space (policy,
  visit distribution, action mask) is transformed by moving entry ``a`` to ``action_maps[s, a]``.

The eight symmetries of the square (:func:`square_cell_maps`) are, in order: identity, rotations
by 90, 180 and 270 degrees clockwise, mirror left-right, mirror top-bottom, transpose (main
diagonal) and anti-transpose.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from mcts_envs.core.errors import InvalidOptionError

#: Names of the eight symmetries of the square, in the order of :func:`square_cell_maps`.
SQUARE_SYMMETRY_NAMES = (
    "identity",
    "rotate90",
    "rotate180",
    "rotate270",
    "mirror_left_right",
    "mirror_top_bottom",
    "transpose",
    "anti_transpose",
)


def square_point_map(symmetry: int, size: int) -> Callable[[int, int], tuple[int, int]]:
    """The map ``(row, col) -> (row', col')`` of square symmetry ``symmetry`` on a ``size`` grid.

    Raises:
        InvalidOptionError: if ``symmetry`` is not in ``0..7``.
    """
    last = size - 1
    maps = (
        lambda r, c: (r, c),
        lambda r, c: (c, last - r),  # clockwise quarter turn
        lambda r, c: (last - r, last - c),
        lambda r, c: (last - c, r),
        lambda r, c: (r, last - c),
        lambda r, c: (last - r, c),
        lambda r, c: (c, r),
        lambda r, c: (last - c, last - r),
    )
    if not 0 <= symmetry < len(maps):
        raise InvalidOptionError(f"a square symmetry is an index 0..7, got {symmetry!r}")
    return maps[symmetry]


def square_cell_maps(size: int) -> np.ndarray:
    """``int64[8, size * size]``: the image of each row-major cell under the 8 square symmetries."""
    maps = np.empty((8, size * size), np.int64)
    for symmetry in range(8):
        point = square_point_map(symmetry, size)
        for row in range(size):
            for col in range(size):
                new_row, new_col = point(row, col)
                maps[symmetry, row * size + col] = new_row * size + new_col
    return maps


def inverse_permutations(maps: np.ndarray) -> np.ndarray:
    """Row-wise inverses of permutations: ``inverse[s, maps[s, i]] == i``.

    Raises:
        ValueError: if a row is not a permutation of ``0..n-1``.
    """
    maps = np.asarray(maps, np.int64)
    inverse = np.empty_like(maps)
    rows = np.arange(maps.shape[0])[:, None]
    inverse[rows, maps] = np.arange(maps.shape[1])[None, :]
    if not np.array_equal(
        np.take_along_axis(inverse, maps, axis=1),
        np.broadcast_to(np.arange(maps.shape[1]), maps.shape),
    ):
        raise ValueError("every row of a symmetry map must be a permutation")
    return inverse


@dataclass(frozen=True)
class Symmetries:
    """The symmetries of one game as cell and action permutations (see the module docstring).

    Attributes:
        game: the game's registry name.
        names: one name per symmetry; ``names[0]`` is ``"identity"``.
        cell_maps: ``int64[S, H * W]`` image of each observation cell.
        action_maps: ``int64[S, num_actions]`` image of each action.
        board_shape: ``(H, W)``, the spatial axes of the observation.
    """

    game: str
    names: tuple[str, ...]
    cell_maps: np.ndarray
    action_maps: np.ndarray
    board_shape: tuple[int, int]

    def __post_init__(self) -> None:
        count = len(self.names)
        if self.cell_maps.shape != (count, self.board_shape[0] * self.board_shape[1]):
            raise ValueError(f"{self.game}: cell_maps must have shape (S, H * W)")
        if self.action_maps.shape[0] != count:
            raise ValueError(f"{self.game}: action_maps must have one row per symmetry")
        object.__setattr__(self, "_cell_inverse", inverse_permutations(self.cell_maps))
        object.__setattr__(self, "_action_inverse", inverse_permutations(self.action_maps))

    def __len__(self) -> int:
        return len(self.names)

    def _check(self, symmetry: int) -> int:
        if isinstance(symmetry, bool) or not isinstance(symmetry, (int, np.integer)):
            raise InvalidOptionError(f"a symmetry is an int index, got {symmetry!r}")
        if not 0 <= symmetry < len(self.names):
            raise InvalidOptionError(
                f"{self.game} has {len(self.names)} symmetries (0..{len(self.names) - 1}: "
                f"{', '.join(self.names)}), got {symmetry}"
            )
        return int(symmetry)

    def transform_action(self, symmetry: int, action: int) -> int:
        """The image of one action (an int)."""
        return int(self.action_maps[self._check(symmetry), int(action)])

    def transform_actions(self, symmetry: int, actions: np.ndarray) -> np.ndarray:
        """The images of an int array of actions (same shape)."""
        return self.action_maps[self._check(symmetry)][np.asarray(actions, np.int64)]

    def transform_vector(self, symmetry: int, vector: np.ndarray) -> np.ndarray:
        """A policy, visit distribution or action mask ``[..., num_actions]`` moved to the image
        actions: ``out[..., action_maps[s, a]] == vector[..., a]`` (dtype kept)."""
        vector = np.asarray(vector)
        if vector.shape[-1] != self.action_maps.shape[1]:
            raise InvalidOptionError(
                f"{self.game}: expected a last axis of {self.action_maps.shape[1]} actions, "
                f"got shape {vector.shape}"
            )
        return vector[..., self._action_inverse[self._check(symmetry)]]

    def transform_observation(self, symmetry: int, observation: np.ndarray) -> np.ndarray:
        """Observation planes ``[..., H, W, C]`` with each cell's content moved to its image."""
        observation = np.asarray(observation)
        height, width = self.board_shape
        if observation.ndim < 3 or observation.shape[-3:-1] != (height, width):
            raise InvalidOptionError(
                f"{self.game}: expected observations [..., {height}, {width}, C], "
                f"got shape {observation.shape}"
            )
        flat = observation.reshape(*observation.shape[:-3], height * width, observation.shape[-1])
        moved = flat[..., self._cell_inverse[self._check(symmetry)], :]
        return moved.reshape(observation.shape)

    def transform_rows(
        self,
        symmetry: int,
        observations: np.ndarray,
        masks: np.ndarray,
        policies: np.ndarray,
        actions: np.ndarray,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Images of a batch of decisions: ``(observations, masks, policies, actions)``, each with
        a leading batch axis (the interface dataset augmentation uses for every game)."""
        return (
            self.transform_observation(symmetry, observations),
            self.transform_vector(symmetry, masks),
            self.transform_vector(symmetry, policies),
            self.transform_actions(symmetry, actions),
        )


def game_symmetries(game_name: str) -> Any:
    """The symmetries of game ``game_name``: ``SYMMETRIES`` of the module its Game class
    declares as ``symmetry_module``.

    Returns:
        A :class:`Symmetries` (fixed permutations), or for Tantrix a
        :class:`~mcts_envs.games.tantrix.symmetry.TantrixRotations`, whose maps depend on the
        position; both have ``names``, ``len()`` and ``transform_rows``.

    Raises:
        UnknownGameError: if no game has that name.
        InvalidOptionError: if the game declares no symmetry maps.
    """
    from mcts_envs.core.registry import make_game

    game = make_game(game_name)
    module_name = getattr(game, "symmetry_module", None)
    if not module_name:
        raise InvalidOptionError(
            f"{game.info.name} declares no symmetry maps (its class sets no symmetry_module; "
            f"games with symmetries: {', '.join(games_with_symmetries())})"
        )
    return importlib.import_module(module_name).SYMMETRIES


def games_with_symmetries() -> list[str]:
    """Registered games whose Game class declares symmetry maps (``symmetry_module``)."""
    from mcts_envs.core.registry import list_games, make_game

    return [name for name in list_games() if getattr(make_game(name), "symmetry_module", None)]


def permute_bits(bits: int, cell_map: np.ndarray) -> int:
    """The bitboard whose bit ``cell_map[c]`` is set exactly when bit ``c`` of ``bits`` is."""
    bits = int(bits)
    result = 0
    for cell in range(len(cell_map)):
        if (bits >> cell) & 1:
            result |= 1 << int(cell_map[cell])
    return result
