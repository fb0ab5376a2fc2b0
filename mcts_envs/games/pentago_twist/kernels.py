"""Pentago Twist rules as compiled kernels on 36-bit bitboards (docs/RULES.md section 3).

Cells are numbered row-major 0..35 (``cell = row * 6 + col``, row 0 at the top); bit ``cell`` of a
bitboard is set when the cell holds that player's stone. The four 3x3 quadrants are numbered
0 top-left, 1 top-right, 2 bottom-left, 3 bottom-right.

A move places a stone on an empty cell, then transforms one quadrant (any of the four):
op 0 rotates it 90 degrees clockwise, op 1 flips it left-right (each of its rows reversed).
``action = cell * 8 + quadrant * 2 + op``, so ``action & 7`` is the *transform index*
``quadrant * 2 + op`` and ``action >> 3`` the cell. After the transform: five in a row (row,
column or diagonal; six counts) for both players is a draw, for exactly one player a win for that
player (also when it is the mover's opponent), otherwise a full board is a draw.

State layout (``int64[4]``):

====  ==========================================================
 0    ``player_0`` (white) bitboard
 1    ``player_1`` (black) bitboard
 2    player to move (0 or 1; flips after every move, also the last)
 3    status: 0 ongoing, 1 white won, 2 black won, 3 draw
====  ==========================================================

The state is a function of the board alone (the side to move follows from the stone counts and
the status from the lines), which is what makes the text record round-trip.

Tables (module constants, built once at import):

* :data:`TRANSFORMED`: ``TRANSFORMED[t, pattern]`` is the 36-bit board of the 9-bit quadrant
  ``pattern`` after transform ``t`` (``t = quadrant * 2 + op``), placed in its quadrant;
* :data:`QUADRANT_MASKS`, :data:`QUADRANT_SHIFTS`: the cells and the first bit of each quadrant;
* :data:`LINES`: the 32 five-cell lines (12 in rows, 12 in columns, 4 + 4 diagonals).
"""

from __future__ import annotations

import numpy as np

from mcts_envs.core.bits import lowest_bit_index, popcount, set_bit_tables
from mcts_envs.core.errors import IllegalActionError
from mcts_envs.core.game import TERMINAL, two_boards_problem
from mcts_envs.core.hashing import hash_words
from mcts_envs.core.numba_cache import njit
from mcts_envs.core.outcomes import no_chance_outcomes, returns_from_status, win_score_from_status
from mcts_envs.core.seeding import rng_below

SIZE = 6
NUM_CELLS = 36
NUM_TRANSFORMS = 8
NUM_ACTIONS = NUM_CELLS * NUM_TRANSFORMS
FULL_BOARD = (1 << NUM_CELLS) - 1
STATE_SIZE = 4
WHITE, BLACK, TO_MOVE, STATUS = 0, 1, 2, 3
ONGOING, WHITE_WON, BLACK_WON, DRAW = 0, 1, 2, 3
ROTATE, FLIP = 0, 1
QUADRANT_NAMES = ("top-left", "top-right", "bottom-left", "bottom-right")
OP_NAMES = ("rotate", "flip")


def _bit(row: int, col: int) -> int:
    return 1 << (row * SIZE + col)


def _quadrant_origin(quadrant: int) -> tuple[int, int]:
    return (quadrant // 2) * 3, (quadrant % 2) * 3


def _build_quadrant_masks() -> np.ndarray:
    masks = np.zeros(4, np.int64)
    for quadrant in range(4):
        top, left = _quadrant_origin(quadrant)
        for row in range(3):
            for col in range(3):
                masks[quadrant] |= _bit(top + row, left + col)
    return masks


def _transform_local(pattern: int, op: int) -> int:
    """A 9-bit quadrant pattern (bit ``row * 3 + col``) after rotation (op 0) or flip (op 1)."""
    result = 0
    for row in range(3):
        for col in range(3):
            # new[row][col] = old[2 - col][row] for a clockwise turn, old[row][2 - col] for a flip
            source = (2 - col) * 3 + row if op == ROTATE else row * 3 + (2 - col)
            if (pattern >> source) & 1:
                result |= 1 << (row * 3 + col)
    return result


def _build_transformed() -> np.ndarray:
    table = np.zeros((NUM_TRANSFORMS, 512), np.int64)
    for transform in range(NUM_TRANSFORMS):
        top, left = _quadrant_origin(transform // 2)
        for pattern in range(512):
            local = _transform_local(pattern, transform % 2)
            board = 0
            for index in range(9):
                if (local >> index) & 1:
                    board |= _bit(top + index // 3, left + index % 3)
            table[transform, pattern] = board
    return table


def _build_lines() -> np.ndarray:
    lines = []
    for direction_row, direction_col in ((0, 1), (1, 0), (1, 1), (1, -1)):
        for row in range(SIZE):
            for col in range(SIZE):
                end_row, end_col = row + 4 * direction_row, col + 4 * direction_col
                if 0 <= end_row < SIZE and 0 <= end_col < SIZE:
                    lines.append(
                        sum(
                            _bit(row + i * direction_row, col + i * direction_col) for i in range(5)
                        )
                    )
    return np.array(lines, np.int64)


def _build_plane_bytes() -> np.ndarray:
    table = np.zeros((16, 16, 8), np.int8)
    for own in range(16):
        for other in range(16):
            for i in range(4):
                table[own, other, 2 * i] = (own >> i) & 1
                table[own, other, 2 * i + 1] = (other >> i) & 1
    return table


QUADRANT_MASKS = _build_quadrant_masks()
#: Bit index of the top-left cell of each quadrant.
QUADRANT_SHIFTS = np.array([0, 3, 18, 21], np.int64)
TRANSFORMED = _build_transformed()
LINES = _build_lines()

# Start cells of five-cell runs for the shift test in ``has_five`` (a run starting there stays
# inside the board): rows start in columns 0-1, columns in rows 0-1, diagonals both.
_ROW_STARTS = sum(_bit(r, c) for r in range(6) for c in range(2))
_COLUMN_STARTS = sum(_bit(r, c) for r in range(2) for c in range(6))
_DIAGONAL_STARTS = sum(_bit(r, c) for r in range(2) for c in range(2))  # towards bottom-right
_ANTI_DIAGONAL_STARTS = sum(_bit(r, c) for r in range(2) for c in range(4, 6))  # bottom-left

#: ``CELL_ACTIONS[cell, t] == cell * 8 + t``: the actions of a cell, in order.
CELL_ACTIONS = np.arange(NUM_ACTIONS, dtype=np.int64).reshape(NUM_CELLS, NUM_TRANSFORMS)
#: ``ROW_COUNT[pattern]``: set bits of a 6-bit row; ``ROW_NTH[pattern, n]``: the column of its
#: n-th lowest set bit (n < ``ROW_COUNT[pattern]``; 0 elsewhere).
ROW_COUNT, ROW_NTH = set_bit_tables(SIZE)
#: ``PLANE_BYTES[own, other]``: the observation bytes of 4 consecutive cells whose stones are the
#: 4-bit patterns ``own`` and ``other``: ``[own bit 0, other bit 0, own bit 1, other bit 1, ...]``.
PLANE_BYTES = _build_plane_bytes()

#: Weight of an open line (no opponent stone) holding n own stones, n = 0..5 (see heuristic).
LINE_WEIGHTS = np.array([0, 1, 4, 16, 64, 256], np.int64)


@njit(cache=True, inline="always")
def has_five(bits):
    """Whether the bitboard ``bits`` holds five stones in a row (row, column or diagonal).

    Per direction ``d`` (cell step 1, 6, 7 or 5): ``pairs`` marks the starts of two in a row,
    ``fours`` of four (two pairs ``2 * d`` apart), and a five is a four with a stone ``4 * d``
    further; the start masks keep runs that stay on the board.
    """
    pairs = bits & (bits >> 1)
    rows = pairs & (pairs >> 2) & (bits >> 4) & _ROW_STARTS
    pairs = bits & (bits >> 6)
    columns = pairs & (pairs >> 12) & (bits >> 24) & _COLUMN_STARTS
    pairs = bits & (bits >> 7)
    diagonals = pairs & (pairs >> 14) & (bits >> 28) & _DIAGONAL_STARTS
    pairs = bits & (bits >> 5)
    anti = pairs & (pairs >> 10) & (bits >> 20) & _ANTI_DIAGONAL_STARTS
    return (rows | columns | diagonals | anti) != 0


@njit(cache=True, inline="always")
def transform_bits(bits, transform):
    """``bits`` with quadrant ``transform >> 1`` rotated (``transform & 1 == 0``) or flipped."""
    quadrant = transform >> 1
    local = bits >> QUADRANT_SHIFTS[quadrant]  # the quadrant's rows at bits 0-2, 6-8, 12-14
    pattern = (local & 7) | ((local >> 3) & 0o70) | ((local >> 6) & 0o700)
    return (bits & ~QUADRANT_MASKS[quadrant]) | TRANSFORMED[transform, pattern]


@njit(cache=True)
def state_problem(state):
    """0 if every kernel can run on ``state``, else an index of
    :data:`mcts_envs.core.game.TWO_BOARDS_PROBLEMS` (the check of ``Game.check_state``)."""
    return two_boards_problem(state[WHITE], state[BLACK], FULL_BOARD, state[TO_MOVE], state[STATUS])


@njit(cache=True)
def current_player(state):
    """0 or 1 while the game goes on, else ``TERMINAL``."""
    if state[STATUS] != ONGOING:
        return TERMINAL
    return state[TO_MOVE]


@njit(cache=True)
def legal_actions(state, out):
    """Writes ``cell * 8 + t`` for each empty cell and t in 0..7 (increasing); returns the count.

    Visits only the empty cells (lowest first, removing each in turn) and copies each one's row
    of :data:`CELL_ACTIONS`. Indices are unsigned so the eight copies compile to vector moves
    (signed ones carry numba's negative-index wraparound, which kept them scalar: twice slower).
    """
    if state[STATUS] != ONGOING:
        return 0
    empty = FULL_BOARD & ~(state[WHITE] | state[BLACK])
    count = np.uint64(0)
    while empty:
        bit = empty & -empty
        empty ^= bit  # (``empty &= empty - 1`` measured three times slower in this loop)
        actions = CELL_ACTIONS[lowest_bit_index(bit)]
        for transform in range(NUM_TRANSFORMS):
            out[count + np.uint64(transform)] = actions[np.uint64(transform)]
        count += np.uint64(NUM_TRANSFORMS)
    return np.int64(count)


@njit(cache=True)
def legal_mask(state, mask):
    """Writes every entry of ``mask`` (``bool[NUM_ACTIONS]``): True exactly at the actions
    :func:`legal_actions` lists (the 8 of each empty cell while the game goes on).

    The whole row is written cell by cell (8 equal bytes each), which is cheaper than clearing
    and setting ~175 scattered entries; ``VectorGame`` uses it for its mask rows.
    """
    empty = np.int64(0)
    if state[STATUS] == ONGOING:
        empty = FULL_BOARD & ~(state[WHITE] | state[BLACK])
    for cell in range(NUM_CELLS):
        on = (empty >> cell) & 1 != 0
        base = cell * NUM_TRANSFORMS
        for transform in range(NUM_TRANSFORMS):
            mask[base + transform] = on


@njit(cache=True, inline="always")
def play_bits(state, stone, transform):
    """Places the mover's ``stone`` (a one-bit board), transforms, resolves the end (in place)."""
    player = state[TO_MOVE]
    # the stone goes to the mover's board without a store and reload (player 0: mask -1 for
    # white, 0 for black; player 1 the other way round)
    white = transform_bits(state[WHITE] | (stone & (player - 1)), transform)
    black = transform_bits(state[BLACK] | (stone & -player), transform)
    state[WHITE] = white
    state[BLACK] = black
    white_five = has_five(white)
    black_five = has_five(black)
    if white_five and black_five:
        state[STATUS] = DRAW
    elif white_five:
        state[STATUS] = WHITE_WON
    elif black_five:
        state[STATUS] = BLACK_WON
    elif (white | black) == FULL_BOARD:
        state[STATUS] = DRAW
    state[TO_MOVE] = 1 - player


@njit(cache=True)
def apply_action(state, action):
    """Plays ``action = cell * 8 + quadrant * 2 + op`` for the player to move (in place).

    Raises:
        IllegalActionError: for an action outside ``0..287``.
    """
    if action < 0 or action >= NUM_ACTIONS:
        raise IllegalActionError("pentago_twist: an action is cell * 8 + transform in 0..287")
    play_bits(state, np.int64(1) << (action >> 3), action & 7)


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
def line_potential(own, other):
    """Sum over the 32 lines free of ``other``'s stones of ``LINE_WEIGHTS[own stones in it]``."""
    total = 0
    for line in LINES:
        if other & line == 0:
            total += LINE_WEIGHTS[popcount(own & line)]
    return total


@njit(cache=True)
def heuristic(state, player):
    """Exact value at the end; otherwise ``0.5 + 0.5 * (own - other) / (own + other + 1)``.

    ``own`` and ``other`` are the players' line potentials: over the 32 five-cell lines that hold
    no opponent stone, the weight 1, 4, 16, 64 of a line with 1, 2, 3, 4 own stones (each extra
    stone counts four times more, as a line near completion is worth much more than a start).
    The value lies strictly inside (0, 1) while the game goes on, 0.5 when the potentials are equal.
    Rotations and flips are not looked ahead: this is a static count.
    """
    if state[STATUS] != ONGOING:
        if state[STATUS] == DRAW:
            return 0.5
        return 1.0 if state[STATUS] == WHITE_WON + player else 0.0
    own = line_potential(state[player], state[1 - player])
    other = line_potential(state[1 - player], state[player])
    return 0.5 + 0.5 * (own - other) / (own + other + 1.0)


@njit(cache=True, inline="always")
def nth_bit(bits, n):
    """The ``n``-th lowest set bit of the bitboard ``bits`` as a one-bit board (``n`` counted from
    0, below the number of set bits).

    Without branches: the rows holding fewer than ``n + 1`` set bits in total up to and including
    themselves come before the bit's row; :data:`ROW_NTH` finds it inside its row.
    """
    row_index = 0
    before = 0  # set bits in the rows before the bit's row
    seen = 0
    for row in range(SIZE):
        in_row = ROW_COUNT[(bits >> (row * SIZE)) & 63]
        past = seen + in_row <= n
        row_index += past
        before += in_row * past
        seen += in_row
    pattern = (bits >> (row_index * SIZE)) & 63
    return np.int64(1) << (row_index * SIZE + ROW_NTH[pattern, n - before])


@njit(cache=True)
def random_action(state, rng):
    """A uniformly random legal action of an ongoing ``state`` (undefined on a full board),
    drawn without listing them: the same choice as ``legal[rng_below(rng, count)]`` over
    :func:`legal_actions`' list (cells in increasing order, the 8 transforms of each).
    ``VectorGame`` draws its random actions with it.
    """
    empty = FULL_BOARD & ~(state[WHITE] | state[BLACK])
    pick = rng_below(rng, popcount(empty) * NUM_TRANSFORMS)
    return lowest_bit_index(nth_bit(empty, pick >> 3)) * NUM_TRANSFORMS + (pick & 7)


@njit(cache=True)
def random_playout(state, rng):
    """Plays uniformly random legal actions in place until the game is over.

    Draws an index into the legal actions (as :func:`legal_actions` orders them) and plays it, so
    it makes the same choice as ``legal[rng_below(rng, count)]`` would.
    """
    empty = FULL_BOARD & ~(state[WHITE] | state[BLACK])
    empty_count = popcount(empty)
    while state[STATUS] == ONGOING:
        pick = rng_below(rng, empty_count * NUM_TRANSFORMS)
        play_bits(state, nth_bit(empty, pick >> 3), pick & 7)
        empty = FULL_BOARD & ~(state[WHITE] | state[BLACK])
        empty_count -= 1


#: ``observation_planes`` writes every entry of ``out`` (no need to zero it first).
OBSERVATION_WRITES_EVERY_ENTRY = True


@njit(cache=True, inline="always")
def _write_planes(own, other, out):
    """Cells 4g..4g+3 (g = 0..8) from one row of :data:`PLANE_BYTES` each."""
    for group in range(NUM_CELLS // 4):
        source = PLANE_BYTES[(own >> (4 * group)) & 15, (other >> (4 * group)) & 15]
        for i in range(4):
            cell = 4 * group + i
            out[cell // SIZE, cell % SIZE, 0] = source[2 * i]
            out[cell // SIZE, cell % SIZE, 1] = source[2 * i + 1]


@njit(cache=True)
def observation_planes(state, player, out):
    """Writes ``int8[6, 6, 2]`` planes into ``out``: plane 0 ``player``'s stones, 1 the other's."""
    own = state[player]
    other = state[1 - player]
    if out.shape[1] == SIZE and out.shape[2] == 2:
        # the same writes, where the compiler knows the shape: for a C-contiguous ``out`` the 8
        # bytes of each group are then adjacent and move as one word (twice faster)
        _write_planes(own, other, out)
    else:
        _write_planes(own, other, out)


@njit(cache=True)
def hash_state(state):
    """A 64-bit hash of the state for transposition tables (all words; see
    :mod:`mcts_envs.core.hashing`)."""
    return hash_words(state)
