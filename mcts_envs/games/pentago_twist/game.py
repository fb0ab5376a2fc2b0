"""The Pentago Twist :class:`~mcts_envs.core.game.Game` (rules in :mod:`.kernels`).

Text record: the 6 board rows from top to bottom, each 6 characters ``w`` (white, ``player_0``),
``b`` (black, ``player_1``) or ``.`` (empty), separated by ``/``; a space; the side to move
(``w`` or ``b``). The empty board is ``"....../....../....../....../....../...... w"``.

Every move adds one stone, so white has as many stones as black (white to move) or one more
(black to move); the side must agree with the counts. The result is read off the board: five in a
row for both is a draw, for one player a win for that player, a full board otherwise a draw. A
finished game keeps the side that would move next.

Move notation (:meth:`PentagoTwist.action_to_string`, read back by ``string_to_action``): the
square (column ``a``-``f`` from the left, row ``1``-``6`` from the bottom), the quadrant
(``tl`` top-left, ``tr``, ``bl``, ``br``) and the transform (``rotate``: 90 degrees clockwise,
``flip``: left-right), e.g. ``"c4 tl rotate"``. Typed moves may abbreviate and drop the spaces:
``c4tlr``, ``c4 tr f``; quadrants may also be given by number (``0``-``3`` or ``q0``-``q3``).
"""

from __future__ import annotations

import re

import numpy as np

from mcts_envs.core.game import (
    TWO_BOARDS_PROBLEMS,
    GameInfo,
    GameKernels,
    KernelGame,
    VectorKernels,
    parse_error,
)
from mcts_envs.core.grid_record import grid_record
from mcts_envs.games.pentago_twist import kernels as k
from mcts_envs.records import quote

TEXT_FORMAT = (
    "6 rows of 6 characters w/b/. separated by '/', a space, and the side to move (w or b), "
    "e.g. '....../....../....../....../....../...... w'"
)
SIDES = "wb"
#: Quadrant names in the move notation, by quadrant number (0 top-left ... 3 bottom-right).
QUADRANT_ABBREVIATIONS = ("tl", "tr", "bl", "br")
_MOVE = re.compile(
    r"^([a-f])\s*([1-6])\s*(tl|tr|bl|br|q?[0-3]|top-left|top-right|bottom-left|bottom-right)"
    r"\s*(r|rot|rotate|f|flip)$"
)


def split_action(action: int) -> tuple[int, int, int, int]:
    """``(row, col, quadrant, op)`` of ``action = (row * 6 + col) * 8 + quadrant * 2 + op``."""
    cell = action >> 3
    return cell // k.SIZE, cell % k.SIZE, (action >> 1) & 3, action & 1


def make_action(row: int, col: int, quadrant: int, op: int) -> int:
    """The action that places on (``row``, ``col``) then applies ``op`` to ``quadrant``."""
    return (row * k.SIZE + col) * 8 + quadrant * 2 + op


def resolve_status(white: int, black: int) -> int:
    """The status (``k.ONGOING``, ``WHITE_WON``, ``BLACK_WON``, ``DRAW``) of a board."""
    white_five, black_five = bool(k.has_five(white)), bool(k.has_five(black))
    if white_five and black_five:
        return k.DRAW
    if white_five:
        return k.WHITE_WON
    if black_five:
        return k.BLACK_WON
    return k.DRAW if (white | black) == k.FULL_BOARD else k.ONGOING


class PentagoTwist(KernelGame):
    """Pentago Twist: place a stone, then rotate or flip a quadrant; ``Discrete(288)`` actions."""

    info = GameInfo(
        name="pentago_twist",
        num_actions=k.NUM_ACTIONS,
        max_game_length=k.NUM_CELLS,
        has_chance=False,
        observation_shape=(6, 6, 2),
        state_size=k.STATE_SIZE,
        max_legal_actions=k.NUM_ACTIONS,
    )
    kernels = GameKernels.from_module(k)
    vector_kernels = VectorKernels.from_module(k)
    svg_module = "mcts_envs.games.pentago_twist.svg"
    json_module = "mcts_envs.games.pentago_twist.json_state"
    symmetry_module = "mcts_envs.games.pentago_twist.symmetry"
    state_problem = staticmethod(k.state_problem)
    state_problems = TWO_BOARDS_PROBLEMS

    def initial_state(self) -> np.ndarray:
        return np.zeros(k.STATE_SIZE, np.int64)

    def observation(self, state: np.ndarray, player: int) -> np.ndarray:
        planes = np.empty((6, 6, 2), np.int8)
        k.observation_planes(self.check_state(state), self.check_player(player), planes)
        return planes

    def board(self, state: np.ndarray) -> np.ndarray:
        """``int8[6, 6]``: 0 empty, 1 white (``player_0``), 2 black (``player_1``)."""
        self.check_state(state)
        cells = np.zeros(k.NUM_CELLS, np.int8)
        for player in (0, 1):
            bits = int(state[player])
            for cell in range(k.NUM_CELLS):
                if (bits >> cell) & 1:
                    cells[cell] = player + 1
        return cells.reshape(6, 6)

    def moves_played(self, state: np.ndarray) -> int:
        """The stones on the board (every move places one; a twist moves stones, never removes
        one)."""
        self.check_state(state)
        return bin(int(state[k.WHITE]) | int(state[k.BLACK])).count("1")

    notation = (
        "square (a-f from the left, 1-6 from the bottom), quadrant (tl tr bl br) and rotate "
        "(clockwise) or flip (left-right), e.g. 'c4 tl rotate' or 'c4tlr'"
    )

    def action_to_string(self, state: np.ndarray, action: int) -> str:
        """E.g. ``"d4 tr rotate"``: place on row 2 (from the top), column 3, then rotate quadrant 1."""
        row, col, quadrant, op = split_action(int(action))
        return f"{'abcdef'[col]}{k.SIZE - row} {QUADRANT_ABBREVIATIONS[quadrant]} {k.OP_NAMES[op]}"

    def normalise_move_text(self, text: str) -> str:
        """The canonical spelling of a move written with abbreviations (``"c4tlr"``)."""
        plain = " ".join(text.lower().split())
        match = _MOVE.match(plain)
        if match is None:
            return plain
        column, row, quadrant, op = match.groups()
        if quadrant[-1].isdigit():
            quadrant = QUADRANT_ABBREVIATIONS[int(quadrant[-1])]
        elif "-" in quadrant:
            quadrant = QUADRANT_ABBREVIATIONS[k.QUADRANT_NAMES.index(quadrant)]
        return f"{column}{row} {quadrant} {'rotate' if op.startswith('r') else 'flip'}"

    def to_text(self, state: np.ndarray) -> str:
        board = self.board(self.check_state(state))
        return grid_record(board, ".wb", SIDES[int(state[k.TO_MOVE])])

    def from_text(self, text: str) -> np.ndarray:
        """Parse a record (see the module docstring).

        Raises:
            InvalidRecordError: on a malformed record (wrong shape, bad character, bad side, stone
                counts that no game can reach, or a side to move that disagrees with them).
        """

        def fail(problem: str):
            return parse_error("pentago_twist", text, problem, TEXT_FORMAT)

        if not isinstance(text, str):
            raise fail(f"a record is a str, not {type(text).__name__}")
        parts = text.split()
        if len(parts) != 2:
            raise fail(f"found {len(parts)} space-separated fields instead of 2")
        board_text, side = parts
        rows = board_text.split("/")
        if len(rows) != k.SIZE:
            raise fail(f"the board has {len(rows)} rows instead of 6")
        for index, row in enumerate(rows):
            if len(row) != k.SIZE:
                raise fail(f"row {index} {quote(row)} has {len(row)} characters instead of 6")
        bits = [0, 0]
        for cell, char in enumerate("".join(rows)):
            if char not in ".wb":
                raise fail(f"bad character {quote(char)} (allowed: w, b, .)")
            if char != ".":
                bits[SIDES.index(char)] |= 1 << cell
        if side not in ("w", "b"):
            raise fail(f"bad side to move {quote(side)} (allowed: w, b)")
        whites, blacks = bin(bits[0]).count("1"), bin(bits[1]).count("1")
        if whites - blacks not in (0, 1):
            raise fail(
                f"{whites} white and {blacks} black stones cannot happen (white moves first)"
            )
        expected = "w" if whites == blacks else "b"
        if side != expected:
            raise fail(
                f"with {whites} white and {blacks} black stones the side to move is {expected!r}"
            )
        state = self.initial_state()
        state[k.WHITE], state[k.BLACK] = bits
        state[k.TO_MOVE] = SIDES.index(side)
        state[k.STATUS] = resolve_status(bits[0], bits[1])
        return state
