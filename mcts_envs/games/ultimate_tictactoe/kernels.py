"""Ultimate Tic-Tac-Toe rules as compiled kernels (docs/RULES.md section 2).

Nine local boards in a 3x3 grid, each a 9-bit bitboard (cells row-major 0..8); boards are
numbered row-major 0..8 too. Action = ``board * 9 + cell``. Three in a row on a local board uses
:data:`mcts_envs.games.tictactoe.kernels.THREE_IN_A_ROW`, the same table as Tic-Tac-Toe.

State layout (``int64[25]``):

========  =================================================================
 0..8     ``player_0`` (X) bits of local boards 0..8
 9..17    ``player_1`` (O) bits of local boards 0..8
 18       boards won by X (9 bits)
 19       boards won by O (9 bits)
 20       closed boards: won or full (9 bits)
 21       board the mover is sent to, or -1 for "any open board"
 22       player to move (0 or 1; flips after every move, also the last)
 23       status: 0 ongoing, 1 X won, 2 O won, 3 draw
 24       number of moves played
========  =================================================================
"""

from __future__ import annotations

import numpy as np

from mcts_envs.core.bits import popcount, set_bit_tables
from mcts_envs.core.errors import IllegalActionError
from mcts_envs.core.game import TERMINAL
from mcts_envs.core.hashing import hash_words
from mcts_envs.core.numba_cache import njit
from mcts_envs.core.outcomes import no_chance_outcomes, returns_from_status, win_score_from_status
from mcts_envs.core.seeding import rng_below
from mcts_envs.games.tictactoe.kernels import LINES, THREE_IN_A_ROW

NUM_BOARDS = 9
NUM_CELLS = 81
FULL = 0x1FF
STATE_SIZE = 25
X_BOARDS, O_BOARDS = 0, 9
WON_X, WON_O, CLOSED, TARGET, TO_MOVE, STATUS, PLY = 18, 19, 20, 21, 22, 23, 24
ANY_BOARD = -1


#: ``BIT_COUNT[bits]``: set bits of a 9-bit board; ``NTH_BIT[bits, k]``: the k-th set cell, increasing.
BIT_COUNT, NTH_BIT = set_bit_tables(9)
#: ``EMPTY_CELLS[occupied]``: empty cells of a 9-bit occupancy; ``NTH_EMPTY_CELL[occupied, k]``:
#: its k-th empty cell, increasing (compact ``uint8`` copies of the tables above, complemented).
EMPTY_CELLS = BIT_COUNT[::-1].astype(np.uint8)
NTH_EMPTY_CELL = NTH_BIT[::-1].astype(np.uint8)


def _build_row_planes() -> np.ndarray:
    """``ROW_PLANES[index, :15]``: the 15 observation entries (3 cells x 5 planes) of one row of three
    cells of a local board, for ``index = own | other << 3 | own_won << 6 | other_won << 7 |
    playable << 8`` (``own``, ``other``: the row's 3 mark bits of each player; the flags: the
    board is won by the viewer, by the opponent, is one the mover may play in)."""
    table = np.zeros((1 << 9, 16), np.int8)  # entry 15: padding (0): rows of 16 bytes
    for index in range(1 << 9):
        own, other = index & 7, (index >> 3) & 7
        own_won, other_won, playable = (index >> 6) & 1, (index >> 7) & 1, (index >> 8) & 1
        for col in range(3):
            own_mark, other_mark = (own >> col) & 1, (other >> col) & 1
            empty = not own_mark and not other_mark
            table[index, 5 * col : 5 * col + 5] = (
                own_mark,
                other_mark,
                own_won,
                other_won,
                playable and empty,
            )
    return table


#: Observation entries of a row of three cells of a local board (see :func:`observation_planes`).
ROW_PLANES = _build_row_planes()
#: ``SPREAD_3[bits]``: bit ``b`` of the 9-bit ``bits`` moved to bit ``3 * b``.
SPREAD_3 = np.array(
    [sum(((bits >> b) & 1) << (3 * b) for b in range(9)) for bits in range(1 << 9)], np.uint64
)
ONGOING, X_WON, O_WON, DRAW = 0, 1, 2, 3


#: What :func:`state_problem` codes mean (0: none).
STATE_PROBLEMS = (
    "",
    "a local board (words 0..17) has bits outside 0..511",
    "a cell holds both marks (words b and 9 + b overlap)",
    "the won or closed boards (words 18..20) have bits outside 0..511",
    "a board is won by both players, or won but not closed (words 18..20)",
    "a full local board is not closed (word 20)",
    "the target board (word 21) is not -1 or a board 0..8 (an open one while the game goes on)",
    "the player to move (word 22) is not 0 or 1",
    "the status (word 23) is not 0 (ongoing), 1, 2 (won) or 3 (draw)",
    "the game goes on with every board closed",
    "the number of moves (word 24) is not the number of marks",
)


@njit(cache=True)
def state_problem(state):
    """0 if every kernel can run on ``state``, else an index of :data:`STATE_PROBLEMS` (the
    check of ``Game.check_state``): every open board has an empty cell and the target is open,
    so move lists and playouts never index past the tables."""
    full_boards, marks = 0, 0
    for board in range(NUM_BOARDS):
        x, o = state[X_BOARDS + board], state[O_BOARDS + board]
        if x < 0 or x > FULL or o < 0 or o > FULL:
            return 1
        if x & o:
            return 2
        if x | o == FULL:
            full_boards |= 1 << board
        marks += BIT_COUNT[x | o]
    won_x, won_o, closed = state[WON_X], state[WON_O], state[CLOSED]
    if min(won_x, won_o, closed) < 0 or max(won_x, won_o, closed) > FULL:
        return 3
    if won_x & won_o or (won_x | won_o) & ~closed:
        return 4
    if full_boards & ~closed:
        return 5
    if state[TO_MOVE] != 0 and state[TO_MOVE] != 1:
        return 7
    if state[STATUS] < ONGOING or state[STATUS] > DRAW:
        return 8
    target = state[TARGET]
    if target < ANY_BOARD or target >= NUM_BOARDS:
        return 6
    if state[STATUS] == ONGOING and target != ANY_BOARD and (closed >> target) & 1:
        return 6
    if state[STATUS] == ONGOING and closed == FULL:
        return 9
    if state[PLY] != marks:
        return 10
    return 0


@njit(cache=True)
def initial_state():
    """The empty board, X to move anywhere."""
    state = np.zeros(STATE_SIZE, np.int64)
    state[TARGET] = ANY_BOARD
    return state


@njit(cache=True)
def current_player(state):
    """0 or 1 while the game goes on, else ``TERMINAL``."""
    if state[STATUS] != ONGOING:
        return TERMINAL
    return state[TO_MOVE]


@njit(cache=True, inline="always")
def playable_boards(state):
    """Bits of the boards the mover may play in (0 once the game is over).

    The mover plays in the board it was sent to; if that board is closed (won or full) or the
    game just started, in any open board.
    """
    if state[STATUS] != ONGOING:
        return 0
    boards = FULL & ~state[CLOSED]
    target = state[TARGET]
    if target != ANY_BOARD:
        boards &= np.int64(1) << target
    return boards


@njit(cache=True, inline="always")
def _list_empty_cells(state, board, out, count):
    """Appends the actions of the empty cells of ``board`` to ``out[count:]``; returns the new
    count (cells from :data:`NTH_EMPTY_CELL`, no branch per cell)."""
    occupied = np.uint64(state[X_BOARDS + board] | state[O_BOARDS + board])
    empty = np.int64(EMPTY_CELLS[occupied])
    base = board * 9
    for k in range(empty):
        out[count + k] = base + NTH_EMPTY_CELL[occupied, k]
    return count + empty


@njit(cache=True)
def legal_actions(state, out):
    """Writes the legal actions (increasing) into ``out``; returns their count.

    The empty cells of the :func:`playable_boards`.
    """
    if state[STATUS] != ONGOING:
        return 0
    target = state[TARGET]
    if target != ANY_BOARD and not (state[CLOSED] >> target) & 1:
        return _list_empty_cells(state, target, out, 0)
    boards = playable_boards(state)
    count = 0
    for board in range(NUM_BOARDS):
        if (boards >> board) & 1:
            count = _list_empty_cells(state, board, out, count)
    return count


@njit(cache=True)
def apply_action(state, action):
    """Plays ``action`` for the player to move and updates boards, target and status (in place).

    Raises:
        IllegalActionError: for an action outside ``0..80`` (it would write past the boards).
    """
    if action < 0 or action >= 81:
        raise IllegalActionError("ultimate_tictactoe: an action is board * 9 + cell in 0..80")
    play(state, action)


@njit(cache=True)
def play(state, action):
    """:func:`apply_action` without the range check (for the playout's own moves)."""
    player = state[TO_MOVE]
    board = action // 9
    cell = action % 9
    own_index = (X_BOARDS if player == 0 else O_BOARDS) + board
    state[own_index] |= np.int64(1) << cell
    board_bit = np.int64(1) << board
    if THREE_IN_A_ROW[state[own_index]]:
        state[WON_X + player] |= board_bit
        state[CLOSED] |= board_bit
        if THREE_IN_A_ROW[state[WON_X + player]]:
            state[STATUS] = X_WON + player
    elif (state[X_BOARDS + board] | state[O_BOARDS + board]) == FULL:
        state[CLOSED] |= board_bit
    if state[STATUS] == ONGOING and state[CLOSED] == FULL:
        state[STATUS] = DRAW
    if (state[CLOSED] >> cell) & 1:
        state[TARGET] = ANY_BOARD
    else:
        state[TARGET] = cell
    state[TO_MOVE] = 1 - player
    state[PLY] += 1


#: No chance nodes in this game (the shared kernel of :mod:`mcts_envs.core.outcomes`).
chance_outcomes = no_chance_outcomes


@njit(cache=True)
def returns(state, out):
    """+1/-1/0 per player at the end (zeros while the game goes on)."""
    returns_from_status(state[STATUS], out)


@njit(cache=True)
def score(state, out):
    """1 for a win, 0 for a loss, 0.5 each for a draw or an unfinished game."""
    win_score_from_status(state[STATUS], out)


@njit(cache=True)
def heuristic(state, player):
    """Exact value at the end; otherwise a weighted count in [0, 1] from ``player``'s view.

    Each local board won counts 1 (the centre board 1.5); on the global grid, each line of boards
    still open for a player counts 0.5 per board of it already won. Value =
    0.5 + (own - opponent) / 40, clipped to [0.01, 0.99] so a real win always ranks higher.
    """
    if state[STATUS] != ONGOING:
        if state[STATUS] == DRAW:
            return 0.5
        return 1.0 if state[STATUS] == X_WON + player else 0.0
    own_won = state[WON_X + player]
    other_won = state[WON_X + 1 - player]
    drawn = state[CLOSED] & ~(own_won | other_won)
    own = popcount(own_won) + 0.5 * ((own_won >> 4) & 1)
    other = popcount(other_won) + 0.5 * ((other_won >> 4) & 1)
    for line in LINES:
        if (other_won | drawn) & line == 0:
            own += 0.5 * popcount(own_won & line)
        if (own_won | drawn) & line == 0:
            other += 0.5 * popcount(other_won & line)
    value = 0.5 + (own - other) / 40.0
    return min(0.99, max(0.01, value))


@njit(cache=True)
def random_playout(state, rng):
    """Plays uniformly random legal moves in place until the game is over.

    Each move is the k-th legal action (in increasing order) for ``k = rng_below(rng, count)``,
    found with per-board bit tables instead of listing the legal actions.
    """
    while state[STATUS] == ONGOING:
        target = state[TARGET]
        if target != ANY_BOARD:
            empty = ~(state[X_BOARDS + target] | state[O_BOARDS + target]) & FULL
            pick = rng_below(rng, BIT_COUNT[empty])
            play(state, target * 9 + NTH_BIT[empty, pick])
            continue
        closed = state[CLOSED]
        total = 0
        for board in range(NUM_BOARDS):
            if not (closed >> board) & 1:
                total += BIT_COUNT[~(state[X_BOARDS + board] | state[O_BOARDS + board]) & FULL]
        pick = rng_below(rng, total)
        for board in range(NUM_BOARDS):
            if (closed >> board) & 1:
                continue
            empty = ~(state[X_BOARDS + board] | state[O_BOARDS + board]) & FULL
            if pick < BIT_COUNT[empty]:
                play(state, board * 9 + NTH_BIT[empty, pick])
                break
            pick -= BIT_COUNT[empty]


#: ``observation_planes`` writes every entry of ``out`` (no need to zero it first).
OBSERVATION_WRITES_EVERY_ENTRY = True


@njit(cache=True)
def observation_planes(state, player, out):
    """Writes ``int8[9, 9, 5]`` planes on the 9x9 grid into ``out`` (see the env's game card).

    Planes: 0 ``player``'s marks, 1 the opponent's, 2 cells of boards won by ``player``,
    3 cells of boards won by the opponent, 4 cells where the player on move may play.

    Each row of three cells of a local board is 15 consecutive entries of ``out``, copied from
    :data:`ROW_PLANES`. The shape check lets the compiler fold the index arithmetic into
    constant offsets (and copy each row's 15 entries as two overlapping 8-byte blocks).

    Raises:
        ValueError: if ``out`` is not ``[9, 9, 5]``.
    """
    if out.shape[0] != 9 or out.shape[1] != 9 or out.shape[2] != 5:
        raise ValueError("ultimate_tictactoe: observation_planes writes an int8[9, 9, 5] array")
    own_base = X_BOARDS if player == 0 else O_BOARDS
    other_base = O_BOARDS if player == 0 else X_BOARDS
    own_won = np.uint64(state[WON_X + player])
    other_won = np.uint64(state[WON_X + 1 - player])
    boards = np.uint64(playable_boards(state))  # plane 4: the empty cells of these
    # 3 bits per board (won by player, won by the opponent, playable), board b at bits 3b..3b+2
    flags = SPREAD_3[own_won] | SPREAD_3[other_won] << 1 | SPREAD_3[boards] << 2
    for band in range(3):  # a row of three local boards: grid rows 3 * band .. 3 * band + 2
        for row in range(3):
            grid_row = 3 * band + row
            for col in range(3):
                board = 3 * band + col
                own = (state[own_base + board] >> (3 * row)) & 7
                other = (state[other_base + board] >> (3 * row)) & 7
                # int64 throughout (flags is uint64): numba and NumPy (the CUDA simulator's
                # Python) type a signed-unsigned mix apart
                index = np.uint64(own | other << 3 | np.int64((flags >> (3 * board)) & 7) << 6)
                for entry in range(15):
                    out[grid_row, 3 * col + entry // 5, entry % 5] = ROW_PLANES[index, entry]


@njit(cache=True)
def hash_state(state):
    """A 64-bit hash of the state for transposition tables (all words; see
    :mod:`mcts_envs.core.hashing`)."""
    return hash_words(state)
