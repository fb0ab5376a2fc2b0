"""Ataxx (7x7) rules as compiled kernels on 49-bit bitboards (docs/RULES.md section 4).

Squares are numbered row-major from a7 (index 0, top-left) to g1 (index 48, bottom-right):
``square = (7 - rank) * 7 + file`` with files a..g as 0..6. Bit ``square`` of a bitboard is set
when that square holds the player's stone; only bits 0..48 are ever used, so the words stay
positive in an ``int64``.

Actions (``Discrete(834)``):

* ``0..48``: copy to square ``action`` (one action per destination, whichever stone grows);
* ``49..832``: jump ``49 + from_square * 16 + offset_index`` with the offsets of
  :data:`JUMP_OFFSETS` (row change, file change; rows grow downwards, towards rank 1);
* ``833``: pass, legal only when the mover has no move while the game goes on.

State layout (``int64[6]``):

====  ==========================================================================
 0    ``player_0`` (``x``) bitboard
 1    ``player_1`` (``o``) bitboard
 2    player to move (0 or 1; flips after every move and pass)
 3    halfmove clock: plies since the last copy move (jumps and passes add 1)
 4    fullmove number: starts at 1, +1 after each move or pass of ``player_1`` (up to 10**9)
 5    status: 0 ongoing, 1 ``x`` won, 2 ``o`` won, 3 draw
====  ==========================================================================

The game ends when a side has no stones, when no empty square lies within distance 2 of any
stone (nobody can move), or when the halfmove clock reaches 100. The first two endings are
decided by stone count (equal counts draw) and take precedence; the 100-ply ending alone is a
draw.
"""

from __future__ import annotations

import numpy as np
from numba import types
from numba.extending import overload

from mcts_envs.core.bits import lowest_bit_index, popcount, store_word, write_bits_as_bytes
from mcts_envs.core.errors import IllegalActionError
from mcts_envs.core.game import TERMINAL, TWO_BOARDS_PROBLEMS, two_boards_problem
from mcts_envs.core.hashing import hash_words
from mcts_envs.core.numba_cache import njit
from mcts_envs.core.outcomes import no_chance_outcomes, returns_from_status
from mcts_envs.core.seeding import rng_below

BOARD_SIZE = 7
NUM_SQUARES = 49
FULL_BOARD = (1 << NUM_SQUARES) - 1
NUM_JUMP_OFFSETS = 16
FIRST_JUMP = NUM_SQUARES
PASS = NUM_SQUARES + NUM_SQUARES * NUM_JUMP_OFFSETS  # 833
NUM_ACTIONS = PASS + 1  # 834
#: The halfmove clock value that ends the game in a draw (the engines' 50-move rule).
HALFMOVE_LIMIT = 100
#: The fullmove number stops here (no rule reads it), so every state reached from a record
#: that ``from_text`` accepts has a record it accepts too.
MAX_FULLMOVE = 10**9

STATE_SIZE = 6
X_BOARD, O_BOARD, SIDE, HALFMOVE, FULLMOVE, STATUS = 0, 1, 2, 3, 4, 5
ONGOING, X_WON, O_WON, DRAW = 0, 1, 2, 3

#: Upper bound on the number of legal actions: at most E copies (E empty squares) plus at
#: most 16 * min(S, E) jumps (S own stones, S + E <= 49), largest for E = 25: 25 + 16 * 24.
MAX_LEGAL_ACTIONS = 409
#: Upper bound on the plies of a game from the start: at most 45 copies (each adds a stone)
#: and at most 99 other plies between two copies, 100 in the last stretch: 45 + 45 * 99 + 100.
MAX_GAME_LENGTH = 4600

#: The 16 jump offsets ``(row change, file change)`` at Chebyshev distance 2, in action order:
#: row-major around the square, so for a fixed origin the destination grows with the index.
JUMP_OFFSETS = np.array(
    [(-2, -2), (-2, -1), (-2, 0), (-2, 1), (-2, 2),
     (-1, -2), (-1, 2),
     (0, -2), (0, 2),
     (1, -2), (1, 2),
     (2, -2), (2, -1), (2, 0), (2, 1), (2, 2)],
    dtype=np.int64,
)  # fmt: skip

FILE_A = sum(1 << (row * BOARD_SIZE) for row in range(BOARD_SIZE))
FILE_G = FILE_A << (BOARD_SIZE - 1)
NOT_FILE_A = FULL_BOARD & ~FILE_A
NOT_FILE_G = FULL_BOARD & ~FILE_G


def _build_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    neighbours = np.zeros(NUM_SQUARES, np.int64)
    jumps = np.zeros(NUM_SQUARES, np.int64)
    jump_targets = np.full((NUM_SQUARES, NUM_JUMP_OFFSETS), -1, np.int64)
    offset_index = np.full((NUM_SQUARES, NUM_SQUARES), -1, np.int64)
    for square in range(NUM_SQUARES):
        row, col = divmod(square, BOARD_SIZE)
        for d_row in range(-1, 2):
            for d_col in range(-1, 2):
                r, c = row + d_row, col + d_col
                if (d_row, d_col) != (0, 0) and 0 <= r < BOARD_SIZE and 0 <= c < BOARD_SIZE:
                    neighbours[square] |= 1 << (r * BOARD_SIZE + c)
        for index, (d_row, d_col) in enumerate(JUMP_OFFSETS.tolist()):
            r, c = row + d_row, col + d_col
            if 0 <= r < BOARD_SIZE and 0 <= c < BOARD_SIZE:
                target = r * BOARD_SIZE + c
                jumps[square] |= 1 << target
                jump_targets[square, index] = target
                offset_index[square, target] = index
    return neighbours, jumps, jump_targets, offset_index


#: ``NEIGHBOUR_MASKS[s]``: the squares at distance 1 of ``s`` (copy sources and captures).
#: ``JUMP_MASKS[s]``: the squares at distance exactly 2 of ``s``.
#: ``JUMP_TARGETS[s, i]``: the square ``s`` + offset ``i``, or -1 off the board.
#: ``JUMP_OFFSET_INDEX[s, t]``: the offset index of the jump ``s -> t``, or -1 if none.
NEIGHBOUR_MASKS, JUMP_MASKS, JUMP_TARGETS, JUMP_OFFSET_INDEX = _build_tables()
#: ``JUMP_DELTAS[i]``: the change of square index of a jump with offset ``i``.
JUMP_DELTAS = JUMP_OFFSETS[:, 0] * BOARD_SIZE + JUMP_OFFSETS[:, 1]
#: ``JUMP_ORIGIN_MASKS[i]``: the squares from which offset ``i`` stays on the board.
JUMP_ORIGIN_MASKS = np.array(
    [sum(1 << s for s in range(NUM_SQUARES) if JUMP_TARGETS[s, i] >= 0) for i in range(16)],
    dtype=np.int64,
)


def _jump_actions() -> np.ndarray:
    actions = np.full(NUM_SQUARES * 64, -1, np.int16)
    for origin in range(NUM_SQUARES):
        for offset in range(NUM_JUMP_OFFSETS):
            target = JUMP_TARGETS[origin, offset]
            if target >= 0:
                actions[origin * 64 + target] = FIRST_JUMP + origin * NUM_JUMP_OFFSETS + offset
    return actions


#: ``JUMP_ACTIONS[origin * 64 + target]``: the action of the jump ``origin -> target``, or -1
#: if the two squares are not at distance exactly 2.
JUMP_ACTIONS = _jump_actions()


def _action_squares() -> tuple[np.ndarray, np.ndarray]:
    targets = np.full(NUM_ACTIONS, -1, np.int64)
    origin_bits = np.zeros(NUM_ACTIONS, np.int64)
    targets[:NUM_SQUARES] = np.arange(NUM_SQUARES)
    for origin in range(NUM_SQUARES):
        for offset in range(NUM_JUMP_OFFSETS):
            action = FIRST_JUMP + origin * NUM_JUMP_OFFSETS + offset
            targets[action] = JUMP_TARGETS[origin, offset]
            origin_bits[action] = 1 << origin
    return targets, origin_bits


#: ``ACTION_TARGETS[a]``: the square action ``a`` puts a stone on, or -1 (the pass, a jump off
#: the board). ``ACTION_ORIGIN_BITS[a]``: the bit of a jump's origin, 0 for the other actions.
ACTION_TARGETS, ACTION_ORIGIN_BITS = _action_squares()


def _jump_windows() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    left = np.maximum(16 - np.arange(NUM_SQUARES), 0).astype(np.int64)
    right = np.maximum(np.arange(NUM_SQUARES) - 16, 0).astype(np.int64)
    on_board = np.zeros(NUM_SQUARES, np.int64)
    for square in range(NUM_SQUARES):
        for offset in range(NUM_JUMP_OFFSETS):
            if JUMP_TARGETS[square, offset] >= 0:
                on_board[square] |= 1 << offset
    return left, right, on_board


#: The 5x5 window around square ``s`` starts at square ``s - 16`` (two rows up, two files
#: left): ``(empty << JUMP_WINDOW_LEFT[s]) >> JUMP_WINDOW_RIGHT[s]`` puts that square at bit 0
#: (bits shifted in from off the board are zeros). ``JUMP_ON_BOARD[s]``: bit ``i`` is set when
#: offset ``i`` from ``s`` stays on the board.
JUMP_WINDOW_LEFT, JUMP_WINDOW_RIGHT, JUMP_ON_BOARD = _jump_windows()


def _jump_middle_offsets() -> np.ndarray:
    # Window bits 7 and 11 (row -1, files -2 and +2) arrive at gathered bits 0 and 4, bits 14
    # and 18 (row 0) at 1 and 5, bits 21 and 25 (row +1) at 2 and 6 (see jump_pattern).
    window_bit_of_gathered = {0: 7, 4: 11, 1: 14, 5: 18, 2: 21, 6: 25}
    table = np.zeros(128, np.int64)
    for gathered in range(128):
        for bit, window_bit in window_bit_of_gathered.items():
            if (gathered >> bit) & 1:
                row, file = divmod(window_bit, BOARD_SIZE)
                table[gathered] |= 1 << JUMP_OFFSETS.tolist().index([row - 2, file - 2])
    return table


#: ``JUMP_MIDDLE_OFFSETS[g]``: the offsets (as bits 5..10) of the middle window squares
#: gathered in ``g`` by :func:`jump_pattern`.
JUMP_MIDDLE_OFFSETS = _jump_middle_offsets()
#: :data:`JUMP_MASKS` with a 0 appended at index 64 (``lowest_square(0)``), so that looking up
#: the next origin of an exhausted set of stones reads an empty mask instead of past the end.
JUMP_MASKS_PADDED = np.concatenate([JUMP_MASKS, np.zeros(64 + 1 - NUM_SQUARES, np.int64)])


@njit(cache=True, inline="always")
def lowest_square(bits):
    """The index of the lowest set bit of a bitboard (64 for an empty one)."""
    return lowest_bit_index(bits)


@njit(cache=True)
def dilate(bits):
    """``bits`` plus every square at distance 1 of a square of ``bits``."""
    row = bits | ((bits & NOT_FILE_G) << 1) | ((bits & NOT_FILE_A) >> 1)
    return (row | (row << BOARD_SIZE) | (row >> BOARD_SIZE)) & FULL_BOARD


@njit(cache=True)
def can_move(own, empty):
    """Whether a player with stones ``own`` has a copy or jump onto ``empty``."""
    return (dilate(dilate(own)) & empty) != 0


@njit(cache=True)
def update_status(state):
    """Sets ``state[STATUS]`` from the board and the halfmove clock (see module docstring)."""
    x_bits = state[X_BOARD]
    o_bits = state[O_BOARD]
    empty = FULL_BOARD & ~(x_bits | o_bits)
    if x_bits == 0 or o_bits == 0 or not can_move(x_bits | o_bits, empty):
        x_count = popcount(x_bits)
        o_count = popcount(o_bits)
        if x_count > o_count:
            state[STATUS] = X_WON
        elif o_count > x_count:
            state[STATUS] = O_WON
        else:
            state[STATUS] = DRAW
    elif state[HALFMOVE] >= HALFMOVE_LIMIT:
        state[STATUS] = DRAW
    else:
        state[STATUS] = ONGOING


@njit(cache=True)
def initial_state():
    """The start position ``x5o/7/7/7/7/7/o5x x 0 1``."""
    state = np.zeros(STATE_SIZE, np.int64)
    state[X_BOARD] = (1 << 0) | (1 << 48)
    state[O_BOARD] = (1 << 6) | (1 << 42)
    state[FULLMOVE] = 1
    return state


#: What :func:`state_problem` codes mean (0: none).
STATE_PROBLEMS = (
    *TWO_BOARDS_PROBLEMS,
    f"the halfmove clock (word 3) is not 0..{MAX_FULLMOVE}, or not below {HALFMOVE_LIMIT} in a "
    "game that goes on",
    f"the fullmove number (word 4) is not 1..{MAX_FULLMOVE}",
    "the game goes on while a player has no stones",
)


@njit(cache=True)
def state_problem(state):
    """0 if every kernel can run on ``state``, else an index of :data:`STATE_PROBLEMS` (the
    check of ``Game.check_state``)."""
    problem = two_boards_problem(
        state[X_BOARD], state[O_BOARD], FULL_BOARD, state[SIDE], state[STATUS]
    )
    if problem:
        return problem
    clock = state[HALFMOVE]
    if clock < 0 or clock > MAX_FULLMOVE or (state[STATUS] == ONGOING and clock >= HALFMOVE_LIMIT):
        return len(TWO_BOARDS_PROBLEMS)
    if state[FULLMOVE] < 1 or state[FULLMOVE] > MAX_FULLMOVE:
        return len(TWO_BOARDS_PROBLEMS) + 1
    if state[STATUS] == ONGOING and (state[X_BOARD] == 0 or state[O_BOARD] == 0):
        return len(TWO_BOARDS_PROBLEMS) + 2
    return 0


@njit(cache=True)
def current_player(state):
    """0 or 1 while the game goes on, else ``TERMINAL``."""
    if state[STATUS] != ONGOING:
        return TERMINAL
    return state[SIDE]


@njit(cache=True, inline="always")
def jump_origins(empty):
    """The squares from which a jump lands on a square of ``empty``."""
    origins = 0
    for offset in range(NUM_JUMP_OFFSETS):
        origins |= shift(empty, -JUMP_DELTAS[offset]) & JUMP_ORIGIN_MASKS[offset]
    return origins


@njit(cache=True)
def legal_actions(state, out):
    """Writes the legal actions into ``out`` in increasing order, returns their count.

    Copies by destination, then jumps by origin and offset index, or the pass alone when the
    mover has no move; 0 when the game is over.
    """
    if state[STATUS] != ONGOING:
        return 0
    side = state[SIDE]
    own = state[side]
    empty = FULL_BOARD & ~(state[X_BOARD] | state[O_BOARD])
    count = 0
    copies = dilate(own) & empty
    while copies:
        out[count] = lowest_square(copies)
        count += 1
        copies &= copies - 1
    # The jumps in one flat loop over (origin, target) pairs, origins with a jump only, lowest
    # first: moving on to the next origin is a branch-free select, not the exit of an inner
    # loop, whose unpredictable trip counts (0 to 16 targets) cost more than the writes.
    origins = own & jump_origins(empty)
    if origins:
        row = lowest_square(origins) << 6  # the origin's row of JUMP_ACTIONS
        targets = JUMP_MASKS[lowest_square(origins)] & empty
        origins &= origins - 1
        next_row = lowest_square(origins) << 6
        next_targets = JUMP_MASKS_PADDED[lowest_square(origins)] & empty
        while True:
            out[count] = JUMP_ACTIONS[row | lowest_square(targets)]
            count += 1
            targets &= targets - 1
            if targets == 0 and origins == 0:
                break
            done = -np.int64(targets == 0)  # all ones when this origin's targets are done
            row ^= (row ^ next_row) & done
            targets |= next_targets & done
            origins &= ~(origins & -origins & done)
            next_row = lowest_square(origins) << 6
            next_targets = JUMP_MASKS_PADDED[lowest_square(origins)] & empty
    if count == 0:
        out[0] = PASS
        count = 1
    return count


@njit(cache=True, inline="always")
def jump_pattern(empty, origin):
    """Bit ``i`` set when the jump of offset ``i`` from ``origin`` lands on a square of ``empty``.

    Reads the 5x5 window around ``origin`` in one shift: rows -2 and +2 are 5 adjacent bits,
    taken as they are (offsets 0..4 and 11..15); the 6 middle squares (files -2 and +2 of rows
    -1..+1) are gathered into 7 bits and mapped by :data:`JUMP_MIDDLE_OFFSETS` (offsets 5..10).
    The offsets that leave the board (whose bits wrapped round a file edge) are dropped.
    """
    window = (empty << JUMP_WINDOW_LEFT[origin]) >> JUMP_WINDOW_RIGHT[origin]
    middle = ((window >> 7) & 0x11) | ((window >> 13) & 0x22) | ((window >> 19) & 0x44)
    pattern = (window & 0x1F) | JUMP_MIDDLE_OFFSETS[middle] | ((window >> 17) & 0xF800)
    return pattern & JUMP_ON_BOARD[origin]


@njit(cache=True)
def legal_mask(state, mask):
    """Writes every entry of ``mask`` (``bool[834]``): True exactly at the actions
    :func:`legal_actions` lists.

    The row is cleared at once, then written from bitboards without listing the moves: the
    copies as 49 bytes, and the 16 jump bytes of each stone that has a jump (16 fixed writes
    from :func:`jump_pattern`). ``VectorGame`` writes its mask rows with it.
    """
    for action in range(np.uint64(NUM_ACTIONS)):
        mask[action] = False
    if state[STATUS] != ONGOING:
        return
    own = state[state[SIDE]]
    empty = FULL_BOARD & ~(state[X_BOARD] | state[O_BOARD])
    copies = dilate(own) & empty
    for first in range(0, NUM_SQUARES - 1, 8):  # squares 0..47 in 6 words, then 48
        write_bits_as_bytes(copies >> first, mask, first)
    mask[NUM_SQUARES - 1] = (copies >> (NUM_SQUARES - 1)) != 0
    origins = own & jump_origins(empty)
    if copies == 0 and origins == 0:
        mask[PASS] = True
    while origins:
        origin = lowest_square(origins)
        origins &= origins - 1
        pattern = jump_pattern(empty, origin)
        first = FIRST_JUMP + origin * NUM_JUMP_OFFSETS
        write_bits_as_bytes(pattern, mask, first)
        write_bits_as_bytes(pattern >> 8, mask, first + 8)


@njit(cache=True)
def play(state, origin, target):
    """Plays a copy (``origin < 0``), a jump (``origin -> target``) or a pass (``target < 0``).

    No legality check; updates clocks, side to move and status.
    """
    side = state[SIDE]
    if target >= 0:
        own = state[side]
        other = state[1 - side]
        if origin < 0:
            own |= np.int64(1) << target
            state[HALFMOVE] = 0
        else:
            own ^= (np.int64(1) << origin) | (np.int64(1) << target)
            state[HALFMOVE] += 1
        captured = NEIGHBOUR_MASKS[target] & other
        state[side] = own | captured
        state[1 - side] = other ^ captured
    else:
        state[HALFMOVE] += 1
    if side == 1 and state[FULLMOVE] < MAX_FULLMOVE:
        state[FULLMOVE] += 1
    state[SIDE] = 1 - side
    update_status(state)


@njit(cache=True)
def apply_action(state, action):
    """Plays a legal ``action`` for the player to move, in place.

    Raises:
        IllegalActionError: for an action outside ``0..833`` or a jump off the board.
    """
    if action < 0 or action > PASS:
        raise IllegalActionError("ataxx: an action is in 0..833")
    if ACTION_TARGETS[action] < 0 and action != PASS:
        raise IllegalActionError("ataxx: a jump off the board")
    play_action(state, action)


@njit(cache=True)
def play_action(state, action):
    """:func:`apply_action` without the range checks (for the playout's own moves).

    A copy or jump is played without a branch on its kind (random play mixes them
    unpredictably): the same as :func:`play` with the origin and target of ``action``.
    """
    target = ACTION_TARGETS[action]
    if target < 0:  # the pass (or a jump off the board, which play also takes as a pass)
        play(state, -1, -1)
        return
    side = state[SIDE]
    own = state[side]
    other = state[1 - side]
    origin_bit = ACTION_ORIGIN_BITS[action]
    jump = -np.int64(origin_bit != 0)  # all ones for a jump
    target_bit = np.int64(1) << target
    # a copy: own | target; a jump: own ^ origin ^ target (as play writes them)
    own = (own | target_bit) ^ (own & target_bit & jump) ^ origin_bit
    state[HALFMOVE] = (state[HALFMOVE] + 1) & jump
    captured = NEIGHBOUR_MASKS[target] & other
    state[side] = own | captured
    state[1 - side] = other ^ captured
    if side == 1 and state[FULLMOVE] < MAX_FULLMOVE:
        state[FULLMOVE] += 1
    state[SIDE] = 1 - side
    update_status(state)


#: No chance nodes in this game (the shared kernel of :mod:`mcts_envs.core.outcomes`).
chance_outcomes = no_chance_outcomes


@njit(cache=True)
def returns(state, out):
    """+1/-1/0 per player at the end (zeros while the game goes on)."""
    returns_from_status(state[STATUS], out)


@njit(cache=True)
def score(state, out):
    """Each player's share of the stones on the board (0.5 each on an empty board)."""
    x_count = popcount(state[X_BOARD])
    o_count = popcount(state[O_BOARD])
    total = x_count + o_count
    if total == 0:
        out[0] = 0.5
        out[1] = 0.5
    else:
        out[0] = x_count / total
        out[1] = o_count / total


@njit(cache=True)
def heuristic(state, player):
    """``player``'s share of the stones (the Ataxx paper's minimax2); exact 1/0/0.5 at the end."""
    status = state[STATUS]
    if status != ONGOING:
        if status == DRAW:
            return 0.5
        return 1.0 if status == X_WON + player else 0.0
    own = popcount(state[player])
    return own / (own + popcount(state[1 - player]))


@njit(cache=True)
def nth_square(bits, index):
    """The square of the ``index``-th (from 0, lowest first) set bit of ``bits``."""
    for _ in range(index):
        bits &= bits - 1
    return lowest_square(bits)


@njit(cache=True)
def shift(bits, delta):
    """``bits`` moved by ``delta`` squares (left shift when positive, right when negative)."""
    if delta > 0:
        return bits << delta
    return bits >> -delta


@njit(cache=True)
def jump_targets_by_offset(own, empty, offset):
    """The empty squares reached by jumps of offset ``offset`` from the stones ``own``."""
    return shift(own & JUMP_ORIGIN_MASKS[offset], JUMP_DELTAS[offset]) & empty


@njit(cache=True)
def random_action(state, rng):
    """A uniformly random legal action of an ongoing ``state`` (the pass when it has no move).

    Counts the copies, then the jumps offset by offset (16 shifts of the whole bitboard), draws
    one index uniformly and decodes it, counting the offsets again up to the drawn one (cheaper
    than keeping the 16 counts in memory). ``VectorGame`` draws its random actions with it.
    """
    side = state[SIDE]
    own = state[side]
    empty = FULL_BOARD & ~(state[X_BOARD] | state[O_BOARD])
    copies = dilate(own) & empty
    copy_count = popcount(copies)
    total = copy_count
    for offset in range(NUM_JUMP_OFFSETS):
        total += popcount(jump_targets_by_offset(own, empty, offset))
    if total == 0:
        return PASS
    pick = rng_below(rng, total)
    if pick < copy_count:
        return nth_square(copies, pick)
    pick -= copy_count
    for offset in range(NUM_JUMP_OFFSETS):
        targets = jump_targets_by_offset(own, empty, offset)
        found = popcount(targets)
        if pick < found:
            origin = nth_square(targets, pick) - JUMP_DELTAS[offset]
            return FIRST_JUMP + origin * NUM_JUMP_OFFSETS + offset
        pick -= found
    return PASS  # not reached: pick < total


@njit(cache=True)
def random_playout(state, rng):
    """Plays uniformly random legal actions in place until the game is over."""
    while state[STATUS] == ONGOING:
        play_action(state, random_action(state, rng))


@njit(cache=True)
def destinations(state, player):
    """The empty squares ``player`` could copy or jump to (its move destinations)."""
    own = state[player]
    empty = FULL_BOARD & ~(state[X_BOARD] | state[O_BOARD])
    return dilate(dilate(own)) & empty


#: ``observation_planes`` writes every entry of ``out`` (no need to zero it first).
OBSERVATION_WRITES_EVERY_ENTRY = True


def _write_planes(own, other, empty, reach, out):
    """Writes the four planes into ``out`` (compiled per layout of ``out``, see below)."""


@overload(_write_planes, jit_options={"cache": True})
def _write_planes_compiled(own, other, empty, reach, out):
    if (
        isinstance(out, types.Array)
        and out.ndim == 3
        and out.layout == "C"
        and out.mutable
        and out.dtype == types.int8
    ):
        # A contiguous int8[7, 7, 4]: the 4 planes of a square are 4 adjacent bytes, written
        # as one 32-bit word (byte p = plane p): 49 word stores straight into the array's
        # memory, which compile to vector code (a reshaped uint32 view cost 26 ns a call
        # against 5 ns for the stores, timed in a compiled loop over random positions).
        def write_words(own, other, empty, reach, out):
            if out.shape[0] != BOARD_SIZE or out.shape[1] != BOARD_SIZE or out.shape[2] != 4:
                raise ValueError("ataxx: observation_planes writes an int8[7, 7, 4] array")
            for square in range(NUM_SQUARES):
                store_word(
                    out,
                    4 * square,
                    np.uint32(
                        ((own >> square) & 1)
                        | (((other >> square) & 1) << 8)
                        | (((empty >> square) & 1) << 16)
                        | (((reach >> square) & 1) << 24)
                    ),
                )

        return write_words

    def write_bytes(own, other, empty, reach, out):
        for square in range(NUM_SQUARES):
            row = square // BOARD_SIZE
            col = square % BOARD_SIZE
            out[row, col, 0] = (own >> square) & 1
            out[row, col, 1] = (other >> square) & 1
            out[row, col, 2] = (empty >> square) & 1
            out[row, col, 3] = (reach >> square) & 1

    return write_bytes


@njit(cache=True)
def observation_planes(state, player, out):
    """Writes ``int8[7, 7, 4]`` planes into ``out`` from ``player``'s view.

    Plane 0 ``player``'s stones, 1 the opponent's, 2 empty squares, 3 the empty squares
    ``player`` could move to (copy or jump destinations).
    """
    own = state[player]
    other = state[1 - player]
    empty = FULL_BOARD & ~(own | other)
    _write_planes(own, other, empty, dilate(dilate(own)) & empty, out)


@njit(cache=True)
def hash_state(state):
    """A 64-bit hash of the state for transposition tables (all words; see
    :mod:`mcts_envs.core.hashing`)."""
    return hash_words(state)
