"""Tic-Tac-Toe rules as compiled kernels on 9-bit bitboards (docs/RULES.md section 1).

Cells are numbered row-major 0..8 (``cell = row * 3 + col``); bit ``cell`` of a bitboard is set
when the cell holds that player's mark.

State layout (``int64[4]``):

====  ==========================================================
 0    ``player_0`` (X) bitboard
 1    ``player_1`` (O) bitboard
 2    player to move (0 or 1; flips after every move, also the last)
 3    status: 0 ongoing, 1 X won, 2 O won, 3 draw
====  ==========================================================
"""

from __future__ import annotations

import numpy as np

from mcts_envs.core.bits import popcount
from mcts_envs.core.errors import IllegalActionError
from mcts_envs.core.game import TERMINAL, two_boards_problem
from mcts_envs.core.hashing import hash_words
from mcts_envs.core.numba_cache import njit
from mcts_envs.core.outcomes import no_chance_outcomes, returns_from_status, win_score_from_status
from mcts_envs.core.seeding import rng_below

NUM_CELLS = 9
FULL_BOARD = (1 << NUM_CELLS) - 1
STATE_SIZE = 4
ONGOING, X_WON, O_WON, DRAW = 0, 1, 2, 3

#: The eight lines of three (rows, columns, diagonals) as bit masks.
LINES = np.array(
    [
        0b000000111,
        0b000111000,
        0b111000000,
        0b001001001,
        0b010010010,
        0b100100100,
        0b100010001,
        0b001010100,
    ],
    dtype=np.int64,
)


def _build_three_in_a_row_table() -> np.ndarray:
    table = np.zeros(1 << NUM_CELLS, dtype=np.bool_)
    for bits in range(1 << NUM_CELLS):
        table[bits] = any(bits & int(line) == int(line) for line in LINES)
    return table


#: ``THREE_IN_A_ROW[bits]`` is True when the 9-bit board ``bits`` contains a full line.
THREE_IN_A_ROW = _build_three_in_a_row_table()


def _build_nth_empty_table() -> np.ndarray:
    table = np.full((1 << NUM_CELLS, NUM_CELLS), -1, dtype=np.int8)
    for occupied in range(1 << NUM_CELLS):
        empty = [cell for cell in range(NUM_CELLS) if not (occupied >> cell) & 1]
        table[occupied, : len(empty)] = empty
    return table


#: ``NTH_EMPTY[occupied, k]`` is the ``k``-th empty cell (increasing order) of the 9-bit
#: occupancy ``occupied``, or -1: random playouts pick a cell without a branchy scan.
NTH_EMPTY = _build_nth_empty_table()
#: ``EMPTY_COUNT[occupied]``: the number of empty cells of the 9-bit occupancy ``occupied``.
EMPTY_COUNT = (NTH_EMPTY >= 0).sum(axis=1).astype(np.uint8)


def _build_row_planes() -> np.ndarray:
    """``ROW_PLANES[own | other << 3, :6]``: the observation entries (3 cells x 2 planes) of one
    row of the board whose 3 mark bits are ``own`` (the viewer's) and ``other``."""
    table = np.zeros((1 << 6, 8), np.int8)  # entries 6, 7: padding
    for index in range(1 << 6):
        own, other = index & 7, index >> 3
        for col in range(3):
            table[index, 2 * col] = (own >> col) & 1
            table[index, 2 * col + 1] = (other >> col) & 1
    return table


#: Observation entries of a row of the board (see :func:`observation_planes`).
ROW_PLANES = _build_row_planes()


@njit(cache=True)
def state_problem(state):
    """0 if every kernel can run on ``state``, else an index of
    :data:`mcts_envs.core.game.TWO_BOARDS_PROBLEMS` (the check of ``Game.check_state``)."""
    return two_boards_problem(state[0], state[1], FULL_BOARD, state[2], state[3])


@njit(cache=True)
def current_player(state):
    """0 or 1 while the game goes on, else ``TERMINAL``."""
    if state[3] != ONGOING:
        return TERMINAL
    return state[2]


@njit(cache=True)
def legal_actions(state, out):
    """Writes the empty cells into ``out`` (increasing), returns their count (0 if over).

    Copied from :data:`NTH_EMPTY` (no branch per cell).
    """
    if state[3] != ONGOING:
        return 0
    occupied = np.uint64(state[0] | state[1])  # unsigned: table reads skip index wrapping
    count = np.int64(EMPTY_COUNT[occupied])
    for k in range(count):
        out[k] = NTH_EMPTY[occupied, k]
    return count


@njit(cache=True)
def legal_mask(state, mask):
    """Writes every entry of ``mask`` (``bool[9]``): True exactly at the cells
    :func:`legal_actions` lists (the empty ones while the game goes on).

    Nine fixed writes without a branch per cell; ``VectorGame`` writes its mask rows with it
    instead of clearing and setting entries one by one.
    """
    empty = np.int64(0)
    if state[3] == ONGOING:
        empty = FULL_BOARD & ~(state[0] | state[1])
    for cell in range(NUM_CELLS):
        mask[cell] = (empty >> cell) & 1 != 0


@njit(cache=True)
def random_action(state, rng):
    """A uniformly random legal action of an ongoing ``state``, drawn without listing them: the
    same choice as ``legal[rng_below(rng, count)]`` over :func:`legal_actions`' list.
    ``VectorGame`` draws its random actions with it (then it keeps no list beside the mask).
    """
    occupied = np.uint64(state[0] | state[1])  # unsigned: table reads skip index wrapping
    return np.int64(NTH_EMPTY[occupied, rng_below(rng, EMPTY_COUNT[occupied])])


@njit(cache=True)
def apply_action(state, action):
    """Marks ``action`` for the player to move, then updates the status (in place).

    Raises:
        IllegalActionError: for an action outside ``0..8`` (it would index past the tables).
    """
    if action < 0 or action >= 9:
        raise IllegalActionError("tictactoe: an action is a cell 0..8")
    mark(state, action)


@njit(cache=True)
def mark(state, action):
    """:func:`apply_action` without the range check (for the playout's own moves)."""
    player = state[2]
    state[player] |= np.int64(1) << action
    if THREE_IN_A_ROW[state[player]]:
        state[3] = X_WON + player
    elif (state[0] | state[1]) == FULL_BOARD:
        state[3] = DRAW
    state[2] = 1 - player


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
def line_potential(own, other):
    """Sum over lines free of ``other``'s marks of the number of ``own`` marks in them."""
    total = 0
    for line in LINES:
        if other & line == 0:
            total += popcount(own & line)
    return total


@njit(cache=True)
def heuristic(state, player):
    """Exact value at the end; otherwise 0.5 + (own - opponent line potential) / 48, in [0, 1].

    The line potential counts, over the eight lines not blocked by the opponent, the player's
    marks in them (at most 24), so the value stays within [0, 1].
    """
    if state[3] != ONGOING:
        if state[3] == DRAW:
            return 0.5
        return 1.0 if state[3] == X_WON + player else 0.0
    own = line_potential(state[player], state[1 - player])
    other = line_potential(state[1 - player], state[player])
    return 0.5 + (own - other) / 48.0


@njit(cache=True)
def random_playout(state, rng):
    """Plays uniformly random moves in place until the game is over."""
    while state[3] == ONGOING:
        mark(state, random_action(state, rng))


#: ``observation_planes`` writes every entry of ``out`` (no need to zero it first).
OBSERVATION_WRITES_EVERY_ENTRY = True


@njit(cache=True)
def observation_planes(state, player, out):
    """Writes ``int8[3, 3, 2]`` planes into ``out``: plane 0 ``player``'s marks, plane 1 the other's.

    Each row of the board is 6 consecutive entries of ``out``, copied from :data:`ROW_PLANES`.
    The shape check lets the compiler fold the index arithmetic into constant offsets (and
    copy each row's 6 entries as two wider blocks).

    Raises:
        ValueError: if ``out`` is not ``[3, 3, 2]``.
    """
    if out.shape[0] != 3 or out.shape[1] != 3 or out.shape[2] != 2:
        raise ValueError("tictactoe: observation_planes writes an int8[3, 3, 2] array")
    own = state[player]
    other = state[1 - player]
    for row in range(3):
        index = np.uint64((own >> (3 * row)) & 7 | ((other >> (3 * row)) & 7) << 3)
        for entry in range(6):
            out[row, entry // 2, entry % 2] = ROW_PLANES[index, entry]


@njit(cache=True)
def hash_state(state):
    """A 64-bit hash of the state for transposition tables (all words; see
    :mod:`mcts_envs.core.hashing`)."""
    return hash_words(state)
