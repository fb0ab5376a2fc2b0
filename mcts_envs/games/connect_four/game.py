"""The Connect Four :class:`~mcts_envs.core.game.Game` (rules in :mod:`.kernels`).

Text record: the six rows from the top to the bottom, each seven cells from the left of ``x``
(``player_0``), ``o`` (``player_1``) or ``.``, separated by ``/``, a space, then the side to
move, e.g. ``"......./......./......./......./...o.../...x... x"``. Stones lie on the bottom or
on other stones; the side must agree with the stones (``x`` moves when both have as many); a
finished game keeps the side that would move next.

Move notation (:meth:`ConnectFour.action_to_string`, read back by ``string_to_action``): the
column's number, ``1`` to ``7`` from the left (as the Connect Four solvers write games, e.g.
``"4453"``); action ``column`` is written ``column + 1``.
"""

from __future__ import annotations

import numpy as np

from mcts_envs.core.game import GameInfo, GameKernels, KernelGame, VectorKernels, parse_error
from mcts_envs.core.grid_record import grid_record, read_grid_record
from mcts_envs.games.connect_four import kernels as k
from mcts_envs.records import quote

TEXT_FORMAT = (
    "6 rows (top to bottom) of 7 cells x/o/. separated by '/', a space, and the side to move "
    "(x or o)"
)


def cell_bit(row: int, column: int) -> int:
    """The bit of the cell in ``row`` (0 the bottom) and ``column`` (0 the left)."""
    return column * k.COLUMN_BITS + row


class ConnectFour(KernelGame):
    """Connect Four: ``x`` (``player_0``) moves first; a stone falls to the lowest empty cell of
    its column; four in a row across, up or diagonally wins; ``Discrete(7)`` columns."""

    info = GameInfo(
        name="connect_four",
        num_actions=k.COLUMNS,
        max_game_length=k.NUM_CELLS,
        has_chance=False,
        observation_shape=(k.ROWS, k.COLUMNS, 2),
        state_size=k.STATE_SIZE,
        max_legal_actions=k.COLUMNS,
    )
    kernels = GameKernels.from_module(k)
    vector_kernels = VectorKernels.from_module(k)
    svg_module = "mcts_envs.games.connect_four.svg"
    json_module = "mcts_envs.games.connect_four.json_state"
    symmetry_module = "mcts_envs.games.connect_four.symmetry"
    state_problem = staticmethod(k.state_problem)
    state_problems = k.STATE_PROBLEMS

    def initial_state(self) -> np.ndarray:
        return np.zeros(k.STATE_SIZE, np.int64)

    def observation(self, state: np.ndarray, player: int) -> np.ndarray:
        planes = np.empty((k.ROWS, k.COLUMNS, 2), np.int8)
        k.observation_planes(self.check_state(state), self.check_player(player), planes)
        return planes

    def board(self, state: np.ndarray) -> np.ndarray:
        """``int8[6, 7]``, row 0 the top: 0 empty, 1 ``x`` (``player_0``), 2 ``o`` (``player_1``)."""
        self.check_state(state)
        cells = np.zeros((k.ROWS, k.COLUMNS), np.int8)
        for player in (0, 1):
            bits = int(state[player])
            for row in range(k.ROWS):
                for column in range(k.COLUMNS):
                    if (bits >> cell_bit(row, column)) & 1:
                        cells[k.ROWS - 1 - row, column] = player + 1
        return cells

    def moves_played(self, state: np.ndarray) -> int:
        """The stones on the board (every move drops one)."""
        self.check_state(state)
        return bin(int(state[0]) | int(state[1])).count("1")

    notation = "a column's number, 1 to 7 from the left"

    def action_to_string(self, state: np.ndarray, action: int) -> str:
        """The column's number from the left: ``"1"`` for action 0, ``"7"`` for action 6."""
        return str(int(action) + 1)

    def to_text(self, state: np.ndarray) -> str:
        return grid_record(self.board(self.check_state(state)), ".xo", "xo"[int(state[2])])

    def from_text(self, text: str) -> np.ndarray:
        def fail(problem: str):
            return parse_error("connect_four", text, problem, TEXT_FORMAT)

        rows, side = read_grid_record(text, (k.ROWS, k.COLUMNS), ".xo", fail)
        state = self.initial_state()
        for index, line in enumerate(rows):
            row = k.ROWS - 1 - index
            for column, char in enumerate(line):
                if char != ".":
                    state["xo".index(char)] |= 1 << cell_bit(row, column)
        occupied = int(state[0]) | int(state[1])
        for column in range(k.COLUMNS):
            for row in range(1, k.ROWS):
                below = (occupied >> cell_bit(row - 1, column)) & 1
                if (occupied >> cell_bit(row, column)) & 1 and not below:
                    raise fail(
                        f"a stone in column {column + 1} lies above an empty cell (stones fall "
                        "to the lowest empty cell)"
                    )
        if side not in ("x", "o"):
            raise fail(f"bad side to move {quote(side)}")
        xs, os_ = bin(int(state[0])).count("1"), bin(int(state[1])).count("1")
        if xs - os_ not in (0, 1):
            raise fail(f"{xs} x stones and {os_} o stones cannot happen (x moves first)")
        state[2] = 0 if xs == os_ else 1
        if "xo"[int(state[2])] != side:
            raise fail(
                f"with {xs} x and {os_} o stones the side to move is {'xo'[int(state[2])]!r}"
            )
        x_four, o_four = k.has_four(state[0]), k.has_four(state[1])
        if x_four and o_four:
            raise fail("both players have four in a row")
        if (x_four and side != "o") or (o_four and side != "x"):
            raise fail("the winner must have made the last move")
        if x_four or o_four:
            winner = 0 if x_four else 1
            if not self._one_last_stone_makes_the_fours(int(state[winner]), occupied):
                raise fail(
                    "the game would have ended earlier: no single last stone makes every four "
                    "in a row"
                )
            state[3] = k.X_WON + winner
        elif xs + os_ == k.NUM_CELLS:
            state[3] = k.DRAW
        return state

    @staticmethod
    def _one_last_stone_makes_the_fours(bits: int, occupied: int) -> bool:
        """Whether some stone of ``bits`` on top of its column (so possibly the last one played)
        is in every four in a row of ``bits``: without it no four is left."""
        for column in range(k.COLUMNS):
            column_bits = occupied & int(k.COLUMN_MASKS[column])
            if not column_bits:
                continue
            top = 1 << (column_bits.bit_length() - 1)
            if bits & top and not k.has_four(bits & ~top):
                return True
        return False
