"""The Ultimate Tic-Tac-Toe :class:`~mcts_envs.core.game.Game` (rules in :mod:`.kernels`).

Text record: the 9x9 grid as 9 rows of ``x``, ``o`` or ``.`` separated by ``/`` (row 0 is the top
row of boards 0-2), the side to move (``x``/``o``) and the board the mover is sent to (``0``-``8``,
or ``-`` for any open board). The empty board is ``"........./.../......... x -"``.

Move notation (:meth:`UltimateTicTacToe.action_to_string`, read back by ``string_to_action``):
the square on the whole 9x9 grid, column ``a``-``i`` from the left and row ``1``-``9`` from the
bottom: ``e5`` is the centre of the centre board, ``a9`` the top-left square (board 0, cell 0),
``i1`` the bottom-right one (board 8, cell 8).
"""

from __future__ import annotations

import numpy as np

from mcts_envs.core.game import GameInfo, GameKernels, KernelGame, VectorKernels, parse_error
from mcts_envs.games.tictactoe.kernels import THREE_IN_A_ROW
from mcts_envs.games.ultimate_tictactoe import kernels as k
from mcts_envs.records import quote

TEXT_FORMAT = (
    "9 rows of 9 characters x/o/. separated by '/', the side to move (x or o) and the target "
    "board (0-8 or -), space-separated"
)


def grid_position(board: int, cell: int) -> tuple[int, int]:
    """(row, col) on the 9x9 grid of ``cell`` of local ``board``."""
    return (board // 3) * 3 + cell // 3, (board % 3) * 3 + cell % 3


class UltimateTicTacToe(KernelGame):
    """Ultimate Tic-Tac-Toe: nine local boards, ``Discrete(81)`` with ``action = board * 9 + cell``."""

    info = GameInfo(
        name="ultimate_tictactoe",
        num_actions=81,
        max_game_length=81,
        has_chance=False,
        observation_shape=(9, 9, 5),
        state_size=k.STATE_SIZE,
        max_legal_actions=81,
    )
    kernels = GameKernels.from_module(k)
    vector_kernels = VectorKernels.from_module(k)
    svg_module = "mcts_envs.games.ultimate_tictactoe.svg"
    json_module = "mcts_envs.games.ultimate_tictactoe.json_state"
    symmetry_module = "mcts_envs.games.ultimate_tictactoe.symmetry"
    state_problem = staticmethod(k.state_problem)
    state_problems = k.STATE_PROBLEMS

    def initial_state(self) -> np.ndarray:
        return k.initial_state()

    def observation(self, state: np.ndarray, player: int) -> np.ndarray:
        planes = np.empty((9, 9, 5), np.int8)
        k.observation_planes(self.check_state(state), self.check_player(player), planes)
        return planes

    def grid(self, state: np.ndarray) -> np.ndarray:
        """``int8[9, 9]``: 0 empty, 1 X (``player_0``), 2 O (``player_1``), on the global grid."""
        self.check_state(state)
        grid = np.zeros((9, 9), np.int8)
        for board in range(9):
            for cell in range(9):
                row, col = grid_position(board, cell)
                if (int(state[k.X_BOARDS + board]) >> cell) & 1:
                    grid[row, col] = 1
                elif (int(state[k.O_BOARDS + board]) >> cell) & 1:
                    grid[row, col] = 2
        return grid

    def board_owners(self, state: np.ndarray) -> np.ndarray:
        """``int8[9]`` per local board: 0 open, 1 won by X, 2 won by O, 3 drawn (full)."""
        self.check_state(state)
        owners = np.zeros(9, np.int8)
        for board in range(9):
            if (int(state[k.WON_X]) >> board) & 1:
                owners[board] = 1
            elif (int(state[k.WON_O]) >> board) & 1:
                owners[board] = 2
            elif (int(state[k.CLOSED]) >> board) & 1:
                owners[board] = 3
        return owners

    def moves_played(self, state: np.ndarray) -> int:
        """The marks on the grid (the state's ply counter: every move places one)."""
        return int(self.check_state(state)[k.PLY])

    notation = (
        "a square of the 9x9 grid: column a-i from the left, row 1-9 from the bottom "
        "(e5 is the centre of the centre board)"
    )

    def action_to_string(self, state: np.ndarray, action: int) -> str:
        """The grid square of ``action = board * 9 + cell``: ``"a9"`` for 0, ``"e5"`` for 40."""
        row, col = grid_position(int(action) // 9, int(action) % 9)
        return f"{'abcdefghi'[col]}{9 - row}"

    def to_text(self, state: np.ndarray) -> str:
        grid = self.grid(self.check_state(state))
        rows = "/".join("".join(".xo"[v] for v in row) for row in grid)
        target = int(state[k.TARGET])
        return f"{rows} {'xo'[int(state[k.TO_MOVE])]} {'-' if target < 0 else target}"

    def from_text(self, text: str) -> np.ndarray:
        def fail(problem: str):
            return parse_error("ultimate_tictactoe", text, problem, TEXT_FORMAT)

        if not isinstance(text, str):
            raise fail(f"a record is a str, not {type(text).__name__}")
        parts = text.split()
        if len(parts) != 3:
            raise fail(f"found {len(parts)} space-separated fields instead of 3")
        rows, side, target = parts
        rows = rows.split("/")
        if len(rows) != 9 or any(len(row) != 9 for row in rows):
            raise fail("the grid must be 9 rows of 9 characters")
        state = k.initial_state()
        for row, line in enumerate(rows):
            for col, char in enumerate(line):
                if char not in ".xo":
                    raise fail(f"bad character {quote(char)} at row {row}, column {col}")
                if char != ".":
                    board = (row // 3) * 3 + col // 3
                    cell = (row % 3) * 3 + col % 3
                    base = k.X_BOARDS if char == "x" else k.O_BOARDS
                    state[base + board] |= 1 << cell
        if side not in ("x", "o"):
            raise fail(f"bad side to move {quote(side)}")
        xs = sum(bin(int(v)).count("1") for v in state[k.X_BOARDS : k.X_BOARDS + 9])
        os_ = sum(bin(int(v)).count("1") for v in state[k.O_BOARDS : k.O_BOARDS + 9])
        if xs - os_ not in (0, 1):
            raise fail(f"{xs} X marks and {os_} O marks cannot happen (X moves first)")
        state[k.TO_MOVE] = 0 if xs == os_ else 1
        if "xo"[int(state[k.TO_MOVE])] != side:
            raise fail(
                f"with {xs} X and {os_} O marks the side to move is {'xo'[int(state[k.TO_MOVE])]!r}"
            )
        state[k.PLY] = xs + os_
        for board in range(9):
            x_bits, o_bits = int(state[k.X_BOARDS + board]), int(state[k.O_BOARDS + board])
            if THREE_IN_A_ROW[x_bits] and THREE_IN_A_ROW[o_bits]:
                raise fail(f"both players have three in a row on board {board}")
            if THREE_IN_A_ROW[x_bits]:
                state[k.WON_X] |= 1 << board
            elif THREE_IN_A_ROW[o_bits]:
                state[k.WON_O] |= 1 << board
            if THREE_IN_A_ROW[x_bits] or THREE_IN_A_ROW[o_bits] or (x_bits | o_bits) == k.FULL:
                state[k.CLOSED] |= 1 << board
        x_line, o_line = THREE_IN_A_ROW[state[k.WON_X]], THREE_IN_A_ROW[state[k.WON_O]]
        if x_line and o_line:
            raise fail("both players have three boards in a row")
        if (x_line and side != "o") or (o_line and side != "x"):
            # the game ends with the winning move, so the winner moved last (RULES.md 2.4)
            raise fail("the winner of the game must have made the last move")
        if x_line:
            state[k.STATUS] = k.X_WON
        elif o_line:
            state[k.STATUS] = k.O_WON
        elif state[k.CLOSED] == k.FULL:
            state[k.STATUS] = k.DRAW
        if target == "-":
            state[k.TARGET] = k.ANY_BOARD
        elif target in tuple("012345678"):
            if (int(state[k.CLOSED]) >> int(target)) & 1 and state[k.STATUS] == k.ONGOING:
                raise fail(f"target board {target} is already won or full (write '-')")
            state[k.TARGET] = int(target)
        else:
            raise fail(f"bad target board {quote(target)} (allowed: 0-8 or -)")
        return state
