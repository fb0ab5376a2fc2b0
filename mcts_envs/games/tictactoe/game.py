"""The Tic-Tac-Toe :class:`~mcts_envs.core.game.Game` (rules in :mod:`.kernels`).

Text record: three rows of ``x``, ``o`` or ``.`` separated by ``/``, a space, then the side to
move, e.g. ``"x.o/.x./..o x"``. The side must agree with the marks (X moves when both have as
many marks); a finished game keeps the side that would move next.

Move notation (:meth:`TicTacToe.action_to_string`, read back by ``string_to_action``): the
square, column ``a``-``c`` from the left and row ``1``-``3`` from the bottom as on a chess board:
``b2`` is the centre (action 4), ``a3`` the top-left corner (action 0), ``c1`` the bottom-right.
"""

from __future__ import annotations

import numpy as np

from mcts_envs.core.game import (
    TWO_BOARDS_PROBLEMS,
    GameInfo,
    GameKernels,
    KernelGame,
    VectorKernels,
    parse_error,
)
from mcts_envs.core.grid_record import grid_record, read_grid_record
from mcts_envs.games.tictactoe import kernels as k
from mcts_envs.records import quote

TEXT_FORMAT = "3 rows of x/o/. separated by '/', a space, and the side to move (x or o)"


class TicTacToe(KernelGame):
    """Tic-Tac-Toe: X (``player_0``) moves first; three in a row wins; ``Discrete(9)`` cells."""

    info = GameInfo(
        name="tictactoe",
        num_actions=9,
        max_game_length=9,
        has_chance=False,
        observation_shape=(3, 3, 2),
        state_size=k.STATE_SIZE,
        max_legal_actions=9,
    )
    kernels = GameKernels.from_module(k)
    vector_kernels = VectorKernels.from_module(k)
    svg_module = "mcts_envs.games.tictactoe.svg"
    json_module = "mcts_envs.games.tictactoe.json_state"
    symmetry_module = "mcts_envs.games.tictactoe.symmetry"
    state_problem = staticmethod(k.state_problem)
    state_problems = TWO_BOARDS_PROBLEMS

    def initial_state(self) -> np.ndarray:
        return np.zeros(k.STATE_SIZE, np.int64)

    def observation(self, state: np.ndarray, player: int) -> np.ndarray:
        planes = np.empty((3, 3, 2), np.int8)
        k.observation_planes(self.check_state(state), self.check_player(player), planes)
        return planes

    def board(self, state: np.ndarray) -> np.ndarray:
        """``int8[3, 3]``: 0 empty, 1 X (``player_0``), 2 O (``player_1``)."""
        self.check_state(state)
        cells = np.zeros(9, np.int8)
        for player in (0, 1):
            for cell in range(9):
                if (int(state[player]) >> cell) & 1:
                    cells[cell] = player + 1
        return cells.reshape(3, 3)

    def moves_played(self, state: np.ndarray) -> int:
        """The marks on the board (every move places one)."""
        self.check_state(state)
        return bin(int(state[0]) | int(state[1])).count("1")

    notation = "a square: column a-c from the left, row 1-3 from the bottom (b2 is the centre)"

    def action_to_string(self, state: np.ndarray, action: int) -> str:
        """The square of ``action`` (``cell = row * 3 + col``, row 0 at the top): ``"a3"`` for 0."""
        row, col = divmod(int(action), 3)
        return f"{'abc'[col]}{3 - row}"

    def to_text(self, state: np.ndarray) -> str:
        return grid_record(self.board(self.check_state(state)), ".xo", "xo"[int(state[2])])

    def from_text(self, text: str) -> np.ndarray:
        def fail(problem: str):
            return parse_error("tictactoe", text, problem, TEXT_FORMAT)

        rows, side = read_grid_record(text, (3, 3), ".xo", fail)
        state = self.initial_state()
        for cell, char in enumerate("".join(rows)):
            if char != ".":
                state["xo".index(char)] |= 1 << cell
        if side not in ("x", "o"):
            raise fail(f"bad side to move {quote(side)}")
        xs, os_ = bin(int(state[0])).count("1"), bin(int(state[1])).count("1")
        if xs - os_ not in (0, 1):
            raise fail(f"{xs} X marks and {os_} O marks cannot happen (X moves first)")
        state[2] = 0 if xs == os_ else 1
        if "xo"[int(state[2])] != side:
            raise fail(f"with {xs} X and {os_} O marks the side to move is {'xo'[int(state[2])]!r}")
        x_line, o_line = k.THREE_IN_A_ROW[state[0]], k.THREE_IN_A_ROW[state[1]]
        if x_line and o_line:
            raise fail("both players have three in a row")
        if (x_line and side != "o") or (o_line and side != "x"):
            raise fail("the winner must have made the last move")
        if x_line:
            state[3] = k.X_WON
        elif o_line:
            state[3] = k.O_WON
        elif xs + os_ == 9:
            state[3] = k.DRAW
        return state
