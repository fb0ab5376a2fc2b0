"""Connect Four rules as compiled kernels on column-major bitboards (docs/RULES.md section 6).

The board has 7 columns (0-6 from the left) of 6 rows (0-5 from the bottom). Bit
``column * 7 + row`` of a bitboard is that cell; bit ``column * 7 + 6`` of each column is a
sentinel that is never set, so the shifts that find four in a row never run from one column
into the next. A stone falls to the lowest empty cell of its column.

State layout (``int64[4]``):

====  ==========================================================
 0    ``player_0`` (``x``, moves first) bitboard
 1    ``player_1`` (``o``) bitboard
 2    player to move (0 or 1; flips after every move, also the last)
 3    status: 0 ongoing, 1 ``x`` won, 2 ``o`` won, 3 draw
====  ==========================================================

Actions are columns ``0..6``; a column is legal while its top cell (row 5) is empty.
"""

from __future__ import annotations

import math

import numpy as np

from mcts_envs.core.bits import lowest_bit_index, popcount
from mcts_envs.core.errors import IllegalActionError
from mcts_envs.core.game import TERMINAL, TWO_BOARDS_PROBLEMS, two_boards_problem
from mcts_envs.core.hashing import hash_words
from mcts_envs.core.numba_cache import njit
from mcts_envs.core.outcomes import no_chance_outcomes, returns_from_status, win_score_from_status
from mcts_envs.core.seeding import rng_below

COLUMNS = 7
ROWS = 6
#: Bits per column: the six rows and the sentinel.
COLUMN_BITS = ROWS + 1
NUM_CELLS = COLUMNS * ROWS
STATE_SIZE = 4
ONGOING, X_WON, O_WON, DRAW = 0, 1, 2, 3

#: The bottom cell of every column.
BOTTOM_ROW = sum(1 << (column * COLUMN_BITS) for column in range(COLUMNS))
#: The top cell (row 5) of every column: a column is full when its bit here is set.
TOP_ROW = BOTTOM_ROW << (ROWS - 1)
#: Every playable cell (the sentinels excluded).
FULL_BOARD = BOTTOM_ROW * ((1 << ROWS) - 1)
#: ``COLUMN_MASKS[c]``: the six cells of column ``c``.
COLUMN_MASKS = np.array(
    [((1 << ROWS) - 1) << (column * COLUMN_BITS) for column in range(COLUMNS)], np.int64
)
#: Bit shifts from a cell to its neighbour along each line: up, right, up-right, down-right.
DIRECTIONS = (1, COLUMN_BITS, COLUMN_BITS + 1, COLUMN_BITS - 1)


def _build_windows() -> np.ndarray:
    """The 69 lines of four cells (24 across, 21 up, 12 on each diagonal) as bit masks."""
    windows = []
    for column in range(COLUMNS):
        for row in range(ROWS):
            for d_column, d_row in ((1, 0), (0, 1), (1, 1), (1, -1)):
                end_column, end_row = column + 3 * d_column, row + 3 * d_row
                if 0 <= end_column < COLUMNS and 0 <= end_row < ROWS:
                    cells = [
                        (column + i * d_column) * COLUMN_BITS + row + i * d_row for i in range(4)
                    ]
                    windows.append(sum(1 << cell for cell in cells))
    return np.array(windows, np.int64)


#: Every line of four cells on the board as a bit mask (69 of them).
WINDOWS = _build_windows()
#: Weight of a line holding 0, 1, 2 or 3 of one side's stones and none of the other's.
WINDOW_WEIGHTS = np.array([0.0, 1.0, 4.0, 16.0])
#: Scale of the heuristic's squashing: a difference of this much weight moves it by about 0.23.
HEURISTIC_SCALE = 24.0

#: What :func:`state_problem` codes mean (the shared bitboard checks, then gravity).
STATE_PROBLEMS = (*TWO_BOARDS_PROBLEMS, "a stone lies above an empty cell of its column")


@njit(cache=True)
def state_problem(state):
    """0 if every kernel can run on ``state``, else an index of :data:`STATE_PROBLEMS` (the
    check of ``Game.check_state``): the shared bitboard checks, then that every column's stones
    lie from the bottom up without a gap."""
    problem = two_boards_problem(state[0], state[1], FULL_BOARD, state[2], state[3])
    if problem:
        return problem
    occupied = state[0] | state[1]
    if (occupied + BOTTOM_ROW) & occupied:  # a full run of stones carries into the next empty cell
        return len(TWO_BOARDS_PROBLEMS)
    return 0


@njit(cache=True)
def has_four(bits):
    """Whether the bitboard ``bits`` holds four in a row (across, up or diagonal)."""
    for shift in DIRECTIONS:
        pairs = bits & (bits >> shift)
        if pairs & (pairs >> (2 * shift)):
            return True
    return False


@njit(cache=True)
def current_player(state):
    """0 or 1 while the game goes on, else ``TERMINAL``."""
    if state[3] != ONGOING:
        return TERMINAL
    return state[2]


@njit(cache=True)
def open_columns(state):
    """The bitboard of the top cells (row 5) that are empty: one bit per legal column."""
    return TOP_ROW & ~(state[0] | state[1])


@njit(cache=True)
def legal_actions(state, out):
    """Writes the columns that are not full into ``out`` (increasing), returns their count
    (0 if the game is over)."""
    if state[3] != ONGOING:
        return 0
    open_tops = open_columns(state)
    count = 0
    for column in range(COLUMNS):
        if (open_tops >> (column * COLUMN_BITS + ROWS - 1)) & 1:
            out[count] = column
            count += 1
    return count


@njit(cache=True)
def legal_mask(state, mask):
    """Writes every entry of ``mask`` (``bool[7]``): True exactly at the columns
    :func:`legal_actions` lists."""
    open_tops = np.int64(0)
    if state[3] == ONGOING:
        open_tops = open_columns(state)
    for column in range(COLUMNS):
        mask[column] = (open_tops >> (column * COLUMN_BITS + ROWS - 1)) & 1 != 0


@njit(cache=True)
def random_action(state, rng):
    """A uniformly random legal column of an ongoing ``state``: the same choice as
    ``legal[rng_below(rng, count)]`` over :func:`legal_actions`' list."""
    open_tops = open_columns(state)
    pick = rng_below(rng, popcount(open_tops))
    for _ in range(pick):
        open_tops &= open_tops - 1  # drop the lowest open column
    return np.int64(lowest_bit_index(open_tops) // COLUMN_BITS)


@njit(cache=True)
def drop(state, column):
    """Drops a stone of the player to move into ``column`` (not full), then updates the status
    and the side to move (in place); the playouts' move without checks."""
    player = state[2]
    empty = COLUMN_MASKS[column] & ~(state[0] | state[1])
    state[player] |= empty & -empty  # the lowest empty cell
    if has_four(state[player]):
        state[3] = X_WON + player
    elif (state[0] | state[1]) == FULL_BOARD:
        state[3] = DRAW
    state[2] = 1 - player


@njit(cache=True)
def apply_action(state, action):
    """Drops a stone into column ``action`` for the player to move (in place).

    Raises:
        IllegalActionError: for a column outside ``0..6`` or a full one.
    """
    if action < 0 or action >= COLUMNS:
        raise IllegalActionError("connect_four: an action is a column 0..6")
    if (state[0] | state[1]) & (np.int64(1) << (action * COLUMN_BITS + ROWS - 1)):
        raise IllegalActionError("connect_four: that column is full")
    drop(state, action)


#: No chance nodes in this game (the shared kernel of :mod:`mcts_envs.core.outcomes`).
chance_outcomes = no_chance_outcomes


@njit(cache=True)
def returns(state, out):
    """+1/-1/0 per player at the end (zeros while the game goes on)."""
    returns_from_status(state[3], out)


@njit(cache=True)
def score(state, out):
    """1 for a win, 0 for a loss, 0.5 each for a draw or an unfinished game."""
    win_score_from_status(state[3], out)


@njit(cache=True)
def line_weight(own, other):
    """Sum over the lines of four free of ``other``'s stones of :data:`WINDOW_WEIGHTS` by the
    number of ``own`` stones in them."""
    total = 0.0
    for window in WINDOWS:
        if other & window == 0:
            total += WINDOW_WEIGHTS[popcount(own & window)]
    return total


@njit(cache=True)
def heuristic(state, player):
    """Exact value at the end; otherwise ``0.5 + 0.5 * tanh((own - other) / 24)`` in (0, 1),
    with own and other the :func:`line_weight` of ``player`` and the opponent: lines of four
    that a side can still complete, weighted 1, 4 and 16 by the stones it has in them."""
    if state[3] != ONGOING:
        if state[3] == DRAW:
            return 0.5
        return 1.0 if state[3] == X_WON + player else 0.0
    own = line_weight(state[player], state[1 - player])
    other = line_weight(state[1 - player], state[player])
    return 0.5 + 0.5 * math.tanh((own - other) / HEURISTIC_SCALE)


@njit(cache=True)
def random_playout(state, rng):
    """Plays uniformly random moves in place until the game is over."""
    while state[3] == ONGOING:
        drop(state, random_action(state, rng))


#: ``observation_planes`` writes every entry of ``out`` (no need to zero it first).
OBSERVATION_WRITES_EVERY_ENTRY = True


@njit(cache=True)
def observation_planes(state, player, out):
    """Writes ``int8[6, 7, 2]`` planes into ``out``: plane 0 ``player``'s stones, plane 1 the
    other's; row 0 is the top row (as PettingZoo's ``connect_four_v3``), column 0 the left.

    Raises:
        ValueError: if ``out`` is not ``[6, 7, 2]``.
    """
    if out.shape[0] != ROWS or out.shape[1] != COLUMNS or out.shape[2] != 2:
        raise ValueError("connect_four: observation_planes writes an int8[6, 7, 2] array")
    own = state[player]
    other = state[1 - player]
    for row in range(ROWS):
        for column in range(COLUMNS):
            bit = column * COLUMN_BITS + ROWS - 1 - row
            out[row, column, 0] = (own >> bit) & 1
            out[row, column, 1] = (other >> bit) & 1


@njit(cache=True)
def hash_state(state):
    """A 64-bit hash of the state for transposition tables (all words; see
    :mod:`mcts_envs.core.hashing`)."""
    return hash_words(state)
