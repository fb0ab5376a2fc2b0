"""Two-player Tantrix rules as compiled kernels (docs/RULES.md section 5).

State layout (``int64[STATE_SIZE]``; grid geometry in :mod:`.hexgrid`, tiles in :mod:`.tiles`):

=================  ==============================================================================
``STATUS``         ``DEAL`` / ``DRAW`` (chance nodes), ``DECIDE``, ``FINISHED``, ``DEADLOCK``
``MOVER``          player whose turn it is (the one who draws at a ``DRAW`` node)
``PHASE``          ``PHASE_FORCED_FIRST``, ``PHASE_FREE`` or ``PHASE_FORCED_AFTER`` (rule 10)
``BAG_COUNT``      number of tiles in the bag
``BAG_BITS``       bit ``t`` set when tile ``t`` (0-based) is in the bag: a set, never an order
``NUM_PLACED``     tiles on the board
``COLOUR_0/1``     colour index of each player (0 red, 1 yellow, 2 blue, 3 green)
``FIRST_RULE``     ``FIRST_HIGHEST_TILE`` or ``FIRST_PLAYER_0`` (rule 5)
``BASE_Q/R``       axial coordinates of grid index 0 (the window origin minus the border)
``Q_MIN..R_MAX``   bounding box of the placed tiles (axial)
``FRONTIER_COUNT`` number of empty cells next to a tile (list ``FRONTIER``, grid indices, sorted)
``FORCED_COUNT``   number of empty cells with >= 3 placed neighbours (list ``FORCED``, sorted)
``LAST_DRAWN``     tile drawn by the last chance event (-1 none); ``LAST_DRAWER`` who drew it
``DEALT``          tiles dealt so far (0..12; the deal alternates ``player_0``, ``player_1``)
``HAND_COUNT_0/1`` tiles in each hand; ``HAND_0`` / ``HAND_1``: six slots, sorted, -1 empty
``PLACEMENTS``     player decisions so far
``PLACED``         grid indices of the placed tiles, in placement order
``GRID``           ``SIDE * SIDE`` words: tile code and placed-neighbour count per cell
=================  ==============================================================================

Actions: ``action = (window_cell * 6 + orientation) * 6 + hand_slot``. Chance outcomes: the
0-based number of the tile drawn from the bag (uniform over the bag).

The frontier, the forced spaces, the neighbour counts and the bounding box are updated as each
tile is placed; move generation only looks at frontier (or forced) cells, tests the six
orientations of each hand tile with one AND/compare, reads restriction (a) from the neighbours'
demand words, and tests restrictions (b)/(c) once per cell (not per tile) by continuing the
board's own closure (computed once per move generation) from the new tile.
"""

from __future__ import annotations

import numpy as np

from mcts_envs.core.bits import lowest_bit_index, popcount
from mcts_envs.core.errors import IllegalActionError, InvalidRecordError
from mcts_envs.core.game import CHANCE, TERMINAL
from mcts_envs.core.hashing import finish_hash, hash_range, mix_word
from mcts_envs.core.numba_cache import njit
from mcts_envs.core.numba_compat import borrow
from mcts_envs.core.seeding import rng_below
from mcts_envs.games.tantrix.hexgrid import (
    BASE_OFFSET,
    CODE_MASK,
    COUNT_ONE,
    COUNT_SHIFT,
    EDGE_LOW_BITS,
    FORCED_CAPACITY,
    FRONTIER_CAPACITY,
    GRID_CELLS,
    HALF_WINDOW,
    NEIGHBOUR_OFFSET,
    NUM_CODES,
    NUM_WINDOW_CELLS,
    SIDE,
    WINDOW,
    cell_demands,
    edge_fields_mask,
    grid_index,
    tile_code,
    window_cell,
    window_row_column,
)
from mcts_envs.games.tantrix.scoring import best_line
from mcts_envs.games.tantrix.tiles import NUM_TILES, TILE_EDGE_COLOURS, TILE_ONE_HOT

HAND_SIZE = 6
DEAL_SIZE = 2 * HAND_SIZE
NUM_ACTIONS = NUM_WINDOW_CELLS * 6 * HAND_SIZE
#: Free moves are generated with at most 55 tiles placed: frontier <= 4 * 55 + 2 cells.
MAX_LEGAL_ACTIONS = (4 * (NUM_TILES - 1) + 2) * 6 * HAND_SIZE
MAX_CHANCE_OUTCOMES = NUM_TILES
ALL_TILES = (1 << NUM_TILES) - 1
#: Move generation's scratch: the hand's 24 colour sets and 36 words, then at most a demand
#: word per grid cell and ``2 * GRID_CELLS`` words of closure lists and flags.
_HAND_WORDS = 24 + 36
GENERATE_SCRATCH = _HAND_WORDS + 3 * GRID_CELLS
#: The ``scratch`` of :func:`apply_and_list` (read by ``VectorGame``).
APPLY_AND_LIST_SCRATCH = GENERATE_SCRATCH

# -- status, phases, options ------------------------------------------------------------------
DEAL, DRAW, DECIDE, FINISHED, DEADLOCK = 0, 1, 2, 3, 4
PHASE_FORCED_FIRST, PHASE_FREE, PHASE_FORCED_AFTER = 0, 1, 2
FIRST_HIGHEST_TILE, FIRST_PLAYER_0 = 0, 1

# -- why a placement is illegal (placement_problem) -------------------------------------------
LEGAL = 0
NOT_A_DECISION = 1
EMPTY_SLOT = 2
OCCUPIED = 3
NOT_TOUCHING = 4
GOLDEN_RULE = 5
MUST_FILL_FORCED = 6
RESTRICTION_A = 7
RESTRICTION_BC = 8
NOT_AT_ORIGIN = 9
PROBLEM_NAMES = (
    "legal",
    "no player decision here",
    "empty hand slot",
    "cell occupied",
    "not touching any tile",
    "golden rule: colours differ on a shared edge",
    "a forced space must be filled (only forced fills are allowed in this phase)",
    "restriction (a): an empty cell would have three links of one colour",
    "restriction (b)/(c): a four-sided space now or once forced spaces are filled",
    "the first tile goes at the origin",
)

# -- state layout -----------------------------------------------------------------------------
STATUS = 0
MOVER = 1
PHASE = 2
BAG_COUNT = 3
BAG_BITS = 4
NUM_PLACED = 5
COLOUR_0 = 6
COLOUR_1 = 7
FIRST_RULE = 8
BASE_Q = 9
BASE_R = 10
Q_MIN = 11
Q_MAX = 12
R_MIN = 13
R_MAX = 14
FRONTIER_COUNT = 15
FORCED_COUNT = 16
LAST_DRAWN = 17
LAST_DRAWER = 18
DEALT = 19
HAND_COUNT_0 = 20
HAND_COUNT_1 = 21
PLACEMENTS = 22
HAND_0 = 24
HAND_1 = HAND_0 + HAND_SIZE
PLACED = HAND_1 + HAND_SIZE
FRONTIER = PLACED + NUM_TILES
FORCED = FRONTIER + FRONTIER_CAPACITY
GRID = FORCED + FORCED_CAPACITY
STATE_SIZE = GRID + GRID_CELLS
ORIGIN_INDEX = BASE_OFFSET * SIDE + BASE_OFFSET

# closure marks
_PENDING = 1
_TREATED = 2


#: What :func:`state_problem` codes mean (0: none).
STATE_PROBLEMS = (
    "",
    "a scalar word (status, mover, phase, colours, first rule, last draw, tiles dealt, hand "
    "counts, placements or the unused word 23) is out of range",
    "the bag (words 3 and 4) is not a set of tiles 0..55 of its count",
    "a hand slot holds no tile 0..55",
    "a tile is missing or appears twice among the bag, the hands and the board",
    "a grid word is not a tile code and a neighbour count 0..6",
    "the placed list does not match the tiles on the grid, or a tile lies at the grid's edge",
    "the board spans more cells than it has tiles, or its frontier is longer than a "
    "connected board's (4 per tile + 2)",
    "the window origin or bounding box (words 9..14) does not match the placed tiles",
    "a neighbour count on the grid does not match the placed tiles",
    "the frontier or forced-space list (words 15, 16 and their lists) does not match the grid",
    "a chance node without a tile in the bag or without room in the receiver's hand",
)
#: Largest window origin coordinate accepted by :func:`state_problem` (the board spans at most
#: 56 cells from the origin, so reachable origins stay far below it; it bounds the arithmetic).
_BASE_LIMIT = 1 << 20
#: The bits a grid word may use: the tile code and the neighbour count.
_GRID_WORD_BITS = (1 << (COUNT_SHIFT + 3)) - 1


@njit(cache=True)
def _scalars_problem(state):
    """:func:`state_problem`'s checks of the words before the lists (0 or a code)."""
    if not (DEAL <= state[STATUS] <= DEADLOCK and 0 <= state[MOVER] <= 1):
        return 1
    if not (
        PHASE_FORCED_FIRST <= state[PHASE] <= PHASE_FORCED_AFTER and 0 <= state[FIRST_RULE] <= 1
    ):
        return 1
    if not (0 <= state[COLOUR_0] <= 3 and 0 <= state[COLOUR_1] <= 3 and state[23] == 0):
        return 1
    if not (-1 <= state[LAST_DRAWN] < NUM_TILES and -1 <= state[LAST_DRAWER] <= 1):
        return 1
    if not (0 <= state[DEALT] <= DEAL_SIZE and 0 <= state[PLACEMENTS] <= NUM_TILES):
        return 1
    if not (0 <= state[HAND_COUNT_0] <= HAND_SIZE and 0 <= state[HAND_COUNT_1] <= HAND_SIZE):
        return 1
    if not (
        0 <= state[NUM_PLACED] <= NUM_TILES and 0 <= state[FRONTIER_COUNT] <= FRONTIER_CAPACITY
    ):
        return 1
    if not 0 <= state[FORCED_COUNT] <= FORCED_CAPACITY:
        return 1
    bits = state[BAG_BITS]
    if bits < 0 or bits & ~ALL_TILES or popcount(bits) != state[BAG_COUNT]:
        return 2
    return 0


@njit(cache=True)
def state_problem(state):
    """0 if every kernel can run on ``state``, else an index of :data:`STATE_PROBLEMS` (the
    check of ``Game.check_state``; O(words), a few microseconds).

    Checks what the kernels index by and loop on: every word in range, the 56 tiles each once
    among the bag, the hands and the board, a board away from the grid's edge with the window
    centred on it and no wider than a connected one (span and frontier; each placement keeps
    both), neighbour counts and the frontier and forced lists as placing the tiles made them,
    and a chance node with a tile to draw and room for it. It does not check
    the rules (the golden rule, a move for the player at a decision): ``validate_state`` does.
    """
    problem = _scalars_problem(state)
    if problem:
        return problem
    seen = state[BAG_BITS]
    for player in range(2):
        for slot in range(state[HAND_COUNT_0 + player]):
            tile = state[HAND_0 + player * HAND_SIZE + slot]
            if tile < 0 or tile >= NUM_TILES:
                return 3
            if (seen >> tile) & 1:
                return 4
            seen |= np.int64(1) << tile
    placed = state[NUM_PLACED]
    base_q, base_r = state[BASE_Q], state[BASE_R]
    if abs(base_q) > _BASE_LIMIT or abs(base_r) > _BASE_LIMIT:
        return 8
    # One pass over the grid, no allocation and no branch (it vectorises): every word in range;
    # tiles, neighbour counts and frontier and forced cells counted (compared with the lists).
    stray, top_code, top_count = 0, 0, 0
    tiles, counts, frontier, forced = 0, 0, 0, 0
    for position in range(GRID, GRID + GRID_CELLS):
        word = state[position]
        code = word & CODE_MASK
        count = word >> COUNT_SHIFT
        stray |= word & ~_GRID_WORD_BITS  # negative or high bits
        top_code = max(top_code, code)
        top_count = max(top_count, count)
        counts += count
        empty = np.int64(code == 0)
        tiles += 1 - empty
        frontier += empty & np.int64(count >= 1)
        forced += empty & np.int64(count >= 3)
    if stray != 0 or top_code >= NUM_CODES or top_count > 6:
        return 5
    if tiles != placed:
        return 6
    # Each tile adds one to each of its six neighbours' counts: with the counts next to every
    # tile exact (checked below) and summing to 6 per tile, every other count is 0.
    if counts != 6 * placed:
        return 9
    q_min, q_max, r_min, r_max = 0, 0, 0, 0
    for i in range(placed):
        index = state[PLACED + i]
        row, column = index // SIDE, index % SIDE
        if index < 0 or not (2 <= row < SIDE - 2 and 2 <= column < SIDE - 2):
            return 6
        code = state[GRID + index] & CODE_MASK
        if code == 0:
            return 6
        tile = (code - 1) // 6
        if (seen >> tile) & 1:  # also a cell listed twice
            return 4
        seen |= np.int64(1) << tile
        for d in range(6):
            cell = index + NEIGHBOUR_OFFSET[d]
            neighbours = 0
            for e in range(6):
                if state[GRID + cell + NEIGHBOUR_OFFSET[e]] & CODE_MASK != 0:
                    neighbours += 1
            if state[GRID + cell] >> COUNT_SHIFT != neighbours:
                return 9
        q, r = base_q + row, base_r + column
        if i == 0 or q < q_min:
            q_min = q
        if i == 0 or q > q_max:
            q_max = q
        if i == 0 or r < r_min:
            r_min = r
        if i == 0 or r > r_max:
            r_max = r
    if seen != ALL_TILES:
        return 4
    if (state[Q_MIN], state[Q_MAX], state[R_MIN], state[R_MAX]) != (q_min, q_max, r_min, r_max):
        return 8
    if (base_q, base_r) != ((q_min + q_max) // 2 - BASE_OFFSET, (r_min + r_max) // 2 - BASE_OFFSET):
        return 8
    # What a connected board guarantees and each placement keeps (a new tile touches the board:
    # the span grows by at most 1, the frontier by at most 4): the board stays inside the
    # window and the move lists inside MAX_LEGAL_ACTIONS.
    if placed > 0 and (q_max - q_min >= placed or r_max - r_min >= placed):
        return 7
    if frontier > 4 * placed + 2:
        return 7
    if frontier != state[FRONTIER_COUNT] or forced != state[FORCED_COUNT]:
        return 10
    # The lists: increasing (so distinct) empty cells of the right counts, as many as the grid has.
    previous = -1
    for i in range(frontier):
        index = state[FRONTIER + i]
        if index <= previous or index >= GRID_CELLS:
            return 10
        if state[GRID + index] & CODE_MASK != 0 or state[GRID + index] < COUNT_ONE:
            return 10
        previous = index
    previous = -1
    for i in range(forced):
        index = state[FORCED + i]
        if index <= previous or index >= GRID_CELLS:
            return 10
        if state[GRID + index] & CODE_MASK != 0 or state[GRID + index] < 3 * COUNT_ONE:
            return 10
        previous = index
    status = state[STATUS]
    if is_chance(status):
        receiver = state[DEALT] % 2 if status == DEAL else state[MOVER]
        if state[BAG_COUNT] == 0 or state[HAND_COUNT_0 + receiver] >= HAND_SIZE:
            return 11
        if status == DEAL and state[DEALT] >= DEAL_SIZE:
            return 11
    return 0


@njit(cache=True)
def init_state(state, colour_0, colour_1, first_rule):
    """Fills ``state`` with the position before the deal (a chance node)."""
    state[:] = 0
    state[STATUS] = DEAL
    state[BAG_COUNT] = NUM_TILES
    state[BAG_BITS] = ALL_TILES
    state[COLOUR_0] = colour_0
    state[COLOUR_1] = colour_1
    state[FIRST_RULE] = first_rule
    state[BASE_Q] = -BASE_OFFSET
    state[BASE_R] = -BASE_OFFSET
    state[LAST_DRAWN] = -1
    state[LAST_DRAWER] = -1
    for slot in range(2 * HAND_SIZE):
        state[HAND_0 + slot] = -1


# -- small helpers ----------------------------------------------------------------------------
@njit(cache=True, inline="always")
def hand_start(player):
    return HAND_0 + player * HAND_SIZE


@njit(cache=True)
def add_to_hand(state, player, tile):
    """Inserts ``tile`` into ``player``'s hand, keeping the slots sorted."""
    start = hand_start(player)
    count = state[HAND_COUNT_0 + player]
    position = count
    while position > 0 and state[start + position - 1] > tile:
        state[start + position] = state[start + position - 1]
        position -= 1
    state[start + position] = tile
    state[HAND_COUNT_0 + player] = count + 1


@njit(cache=True)
def remove_from_hand(state, player, slot):
    """Removes and returns the tile in ``player``'s hand slot ``slot`` (later slots move up)."""
    start = hand_start(player)
    count = state[HAND_COUNT_0 + player]
    tile = state[start + slot]
    for i in range(slot, count - 1):
        state[start + i] = state[start + i + 1]
    state[start + count - 1] = -1
    state[HAND_COUNT_0 + player] = count - 1
    return tile


@njit(cache=True)
def list_insert(state, start, count_slot, value):
    """Inserts ``value`` into the sorted list ``state[start:start + state[count_slot]]``."""
    count = state[count_slot]
    position = count
    while position > 0 and state[start + position - 1] > value:
        state[start + position] = state[start + position - 1]
        position -= 1
    state[start + position] = value
    state[count_slot] = count + 1


@njit(cache=True)
def list_remove(state, start, count_slot, value):
    """Removes ``value`` from the list ``state[start:start + state[count_slot]]`` if present."""
    count = state[count_slot]
    for i in range(count):
        if state[start + i] == value:
            for j in range(i, count - 1):
                state[start + j] = state[start + j + 1]
            state[count_slot] = count - 1
            return


@njit(cache=True)
def recentre(state):
    """Moves the window so the placed tiles are centred (see :mod:`.hexgrid`); shifts all lists."""
    center_q = (state[Q_MIN] + state[Q_MAX]) // 2
    center_r = (state[R_MIN] + state[R_MAX]) // 2
    shift_q = center_q - BASE_OFFSET - state[BASE_Q]
    shift_r = center_r - BASE_OFFSET - state[BASE_R]
    if shift_q == 0 and shift_r == 0:
        return
    delta = shift_q * SIDE + shift_r
    # The non-zero grid words are the placed tiles and the frontier (empty cells next to a
    # tile): move just those words instead of the whole grid.
    placed_count = state[NUM_PLACED]
    frontier_count = state[FRONTIER_COUNT]
    moved = placed_count + frontier_count
    moving = np.empty(2 * moved, np.int64)  # grid index, then word, of each moved cell
    for i in range(moved):
        index = state[PLACED + i] if i < placed_count else state[FRONTIER + i - placed_count]
        if not 0 <= index - delta < GRID_CELLS:  # only a disconnected board gets here
            raise InvalidRecordError("tantrix: corrupt state: the board left the window")
        moving[2 * i] = index
        moving[2 * i + 1] = state[GRID + index]
    for i in range(moved):
        state[GRID + moving[2 * i]] = 0
    for i in range(moved):
        state[GRID + moving[2 * i] - delta] = moving[2 * i + 1]
    for i in range(state[NUM_PLACED]):
        state[PLACED + i] -= delta
    for i in range(state[FRONTIER_COUNT]):
        state[FRONTIER + i] -= delta
    for i in range(state[FORCED_COUNT]):
        state[FORCED + i] -= delta
    state[BASE_Q] += shift_q
    state[BASE_R] += shift_r


@njit(cache=True)
def place_tile(state, index, tile, orientation):
    """Puts ``tile`` in ``orientation`` on grid index ``index``; updates counts, lists, window.

    No rule is checked here (see :func:`placement_problem`). After the call, grid indices may
    have moved (recentring): use ``PLACED[NUM_PLACED - 1]`` for the new tile's index.
    """
    grid = state[GRID : GRID + GRID_CELLS]
    q = state[BASE_Q] + index // SIDE
    r = state[BASE_R] + index % SIDE
    if state[NUM_PLACED] == 0:
        state[Q_MIN] = q
        state[Q_MAX] = q
        state[R_MIN] = r
        state[R_MAX] = r
    else:
        state[Q_MIN] = min(state[Q_MIN], q)
        state[Q_MAX] = max(state[Q_MAX], q)
        state[R_MIN] = min(state[R_MIN], r)
        state[R_MAX] = max(state[R_MAX], r)
    if grid[index] >= COUNT_ONE:
        list_remove(state, FRONTIER, FRONTIER_COUNT, index)
    if grid[index] >= 3 * COUNT_ONE:
        list_remove(state, FORCED, FORCED_COUNT, index)
    grid[index] = (grid[index] & ~CODE_MASK) | tile_code(tile, orientation)
    for d in range(6):
        neighbour = index + NEIGHBOUR_OFFSET[d]
        word = grid[neighbour]
        grid[neighbour] = word + COUNT_ONE
        if word & CODE_MASK == 0:
            count = (word >> COUNT_SHIFT) + 1
            if count == 1:
                list_insert(state, FRONTIER, FRONTIER_COUNT, neighbour)
            elif count == 3:
                list_insert(state, FORCED, FORCED_COUNT, neighbour)
    state[PLACED + state[NUM_PLACED]] = index
    state[NUM_PLACED] += 1
    recentre(state)


# -- restrictions -----------------------------------------------------------------------------
# The helpers below that move generation calls per cell (all but ``closure``) are inlined (numba
# IR): a call passing seven arrays cost about a sixth of a list (852 -> 705 ns per decision on
# warm positions).
@njit(cache=True)
def closure(grid, forced, forced_count, placed_index, extra, marks, stack, touched):
    """Runs the controlled-sides closure of rule 11c, optionally after a placement.

    ``placed_index`` (-1 for none) is treated as a tile just placed. Empty cells with three or
    more placed-or-treated neighbours become treated one at a time (a stack). Returns
    ``(legal, touched_count)``: ``legal`` is False as soon as an empty (untreated) cell has four
    or more placed-or-treated neighbours, which covers restriction (b). ``extra[i]`` counts
    treated/new neighbours, ``marks[i]`` is ``_PENDING``/``_TREATED``; both must be zero on entry
    and every index changed is listed in ``touched`` (reset them with :func:`clear_scratch`).
    """
    n_touched = 0
    n_stack = 0
    if placed_index >= 0:
        marks[placed_index] = _TREATED
        touched[n_touched] = placed_index
        n_touched += 1
        for d in range(6):
            e = placed_index + NEIGHBOUR_OFFSET[d]
            if grid[e] & CODE_MASK != 0:
                continue
            if extra[e] == 0 and marks[e] == 0:
                touched[n_touched] = e
                n_touched += 1
            extra[e] += 1
            count = (grid[e] >> COUNT_SHIFT) + extra[e]
            if count >= 4:
                return False, n_touched
            if count == 3:
                marks[e] = _PENDING
                stack[n_stack] = e
                n_stack += 1
    for i in range(forced_count):
        e = forced[i]
        if e == placed_index or marks[e] != 0:
            continue
        if extra[e] == 0:
            touched[n_touched] = e
            n_touched += 1
        if (grid[e] >> COUNT_SHIFT) + extra[e] >= 4:
            return False, n_touched
        marks[e] = _PENDING
        stack[n_stack] = e
        n_stack += 1
    while n_stack > 0:
        n_stack -= 1
        y = stack[n_stack]
        marks[y] = _TREATED
        for d in range(6):
            e = y + NEIGHBOUR_OFFSET[d]
            if grid[e] & CODE_MASK != 0 or marks[e] == _TREATED:
                continue
            if extra[e] == 0 and marks[e] == 0:
                touched[n_touched] = e
                n_touched += 1
            extra[e] += 1
            count = (grid[e] >> COUNT_SHIFT) + extra[e]
            if count >= 4:
                return False, n_touched
            if count == 3 and marks[e] == 0:
                marks[e] = _PENDING
                stack[n_stack] = e
                n_stack += 1
    return True, n_touched


@njit(cache=True, inline="always")
def clear_scratch(extra, marks, touched, n_touched):
    """Zeroes the scratch entries a :func:`closure` call changed."""
    for i in range(n_touched):
        extra[touched[i]] = 0
        marks[touched[i]] = 0


@njit(cache=True, inline="always")
def board_closure(grid, forced, forced_count, marks, extra, rank, stack):
    """The controlled-sides closure of rule 11c on the board as it stands (no placement).

    The same process as :func:`closure` with ``placed_index = -1``, which also keeps what a
    later :func:`space_after` needs: ``marks[i]`` is ``_TREATED`` for the treated cells,
    ``extra[i]`` counts the treated neighbours of each untreated empty cell and ``rank[i]`` is
    the order in which treated cell ``i`` was treated. ``marks`` and ``extra`` must be zero on
    entry. Returns whether the closure completed legally (the other outputs are then complete).
    """
    n_stack = 0
    for i in range(forced_count):
        e = forced[i]
        if marks[e] != 0:
            continue
        if grid[e] >> COUNT_SHIFT >= 4:
            return False
        marks[e] = _PENDING
        stack[n_stack] = e
        n_stack += 1
    order = 0
    while n_stack > 0:
        n_stack -= 1
        y = stack[n_stack]
        marks[y] = _TREATED
        rank[y] = order
        order += 1
        for d in range(6):
            e = y + NEIGHBOUR_OFFSET[d]
            if grid[e] & CODE_MASK != 0 or marks[e] == _TREATED:
                continue
            extra[e] += 1
            count = (grid[e] >> COUNT_SHIFT) + extra[e]
            if count >= 4:
                return False
            if count == 3 and marks[e] == 0:
                marks[e] = _PENDING
                stack[n_stack] = e
                n_stack += 1
    return True


@njit(cache=True, inline="always")
def space_after(grid, index, base_marks, base_extra, rank, extra, marks, stack, touched):
    """Restrictions (b)/(c) for a tile at ``index``, continuing a legal :func:`board_closure`.

    Same answer as :func:`closure` with ``placed_index = index``: the outcome of the treating
    process does not depend on the order in which ready cells are treated (a legal run ends in
    the least closed set, and a run that failed in one order would fail in the order of a
    legal run too; see the tests, which compare this function with :func:`closure` on every
    frontier cell of many random positions). Replaying the board's run with the new tile then
    shows:

    * a treated cell ``index`` (filling a forced space): illegal exactly when a treated
      neighbour was treated before it (that neighbour would now have four sides), otherwise
      every count ends as on the board: legal;
    * an untreated ``index``: illegal when a neighbour is treated (it would reach four sides
      before its turn), otherwise the process goes on from the board's closure with the new
      tile, over the few cells it reaches.

    ``base_marks``, ``base_extra`` and ``rank`` are :func:`board_closure`'s outputs; ``extra``
    and ``marks`` are scratch, zero on entry and on return (``touched`` lists what is reset).
    """
    if base_marks[index] == _TREATED:
        before = rank[index]
        for d in range(6):
            y = index + NEIGHBOUR_OFFSET[d]
            if base_marks[y] == _TREATED and rank[y] < before:
                return False
        return True
    quiet = True  # no empty neighbour reaches three sides: nothing new is treated
    for d in range(6):
        e = index + NEIGHBOUR_OFFSET[d]
        if base_marks[e] == _TREATED:
            return False
        if grid[e] & CODE_MASK == 0 and (grid[e] >> COUNT_SHIFT) + base_extra[e] >= 2:
            quiet = False
    if quiet:
        return True
    legal = True
    n_touched = 0
    n_stack = 0
    marks[index] = _TREATED
    touched[n_touched] = index
    n_touched += 1
    y = index
    while True:
        for d in range(6):
            e = y + NEIGHBOUR_OFFSET[d]
            if grid[e] & CODE_MASK != 0 or base_marks[e] == _TREATED or marks[e] == _TREATED:
                continue
            if extra[e] == 0 and marks[e] == 0:
                touched[n_touched] = e
                n_touched += 1
            extra[e] += 1
            count = (grid[e] >> COUNT_SHIFT) + base_extra[e] + extra[e]
            if count >= 4:
                legal = False
                break
            if count == 3 and marks[e] == 0:
                marks[e] = _PENDING
                stack[n_stack] = e
                n_stack += 1
        if not legal or n_stack == 0:
            break
        n_stack -= 1
        y = stack[n_stack]
        marks[y] = _TREATED
    clear_scratch(extra, marks, touched, n_touched)
    return legal


@njit(cache=True, inline="always")
def forbidden_colours(grid, index):
    """One-hot word of edge colours a tile at ``index`` may not show (restriction (a)).

    Bit ``4 * d + colour`` is set when the empty cell across edge ``d`` already has two links of
    ``colour`` leading into it, so a third would make it unfillable.
    """
    forbidden = 0
    for d in range(6):
        e = index + NEIGHBOUR_OFFSET[d]
        if grid[e] & CODE_MASK != 0 or (grid[e] >> COUNT_SHIFT) < 2:
            continue
        forbidden |= repeated_colours(cell_demands(grid, e)[0]) << (4 * d)
    return forbidden


@njit(cache=True, inline="always")
def repeated_colours(required):
    """Bit ``colour`` (0..3) set for each colour with two or more links in the demand word
    ``required`` of an empty cell (bit ``4 * d + colour`` per placed neighbour, see
    :func:`.hexgrid.cell_demands`)."""
    packed = 0
    for colour in range(4):
        links = required & (EDGE_LOW_BITS << colour)
        if links & (links - 1) != 0:
            packed |= 1 << colour
    return packed


@njit(cache=True, inline="always")
def forbidden_from_demands(grid, index, demands):
    """:func:`forbidden_colours` reading the neighbours' demand words from ``demands`` (set
    for every frontier cell: the empty cells with placed neighbours)."""
    forbidden = 0
    for d in range(6):
        e = index + NEIGHBOUR_OFFSET[d]
        if grid[e] & CODE_MASK != 0 or (grid[e] >> COUNT_SHIFT) < 2:
            continue
        forbidden |= repeated_colours(demands[e]) << (4 * d)
    return forbidden


# -- move generation --------------------------------------------------------------------------
# Move generation numbers a hand tile in an orientation by its action offset, ``orientation *
# HAND_SIZE + slot``.
#: Bit ``HAND_SIZE * k`` for every orientation ``k``: times a set of slots, their tiles' offsets.
EVERY_ORIENTATION = sum(1 << (HAND_SIZE * k) for k in range(6))


def _build_tile_showing() -> np.ndarray:
    showing = np.zeros((NUM_TILES, 24), np.int64)
    for tile in range(NUM_TILES):
        for orientation in range(6):
            for edge in range(6):
                colour = TILE_EDGE_COLOURS[tile, orientation, edge]
                showing[tile, 4 * edge + colour] |= 1 << (HAND_SIZE * orientation)
    return showing


#: ``TILE_SHOWING[t, 4 * edge + colour]``: bit ``HAND_SIZE * k`` set for each orientation ``k``
#: in which tile ``t`` shows ``colour`` at ``edge`` (shifted by a slot: that slot's offsets).
TILE_SHOWING = _build_tile_showing()


@njit(cache=True, inline="always")
def quiet_without_forced(grid, index):
    """Restrictions (b)/(c) fast path on a board without forced spaces: True when no empty
    neighbour of ``index`` has two or more placed neighbours.

    Without forced spaces the board's closure is empty and legal, so a tile at ``index`` can
    only create a controlled space at an empty neighbour that reaches three placed sides; when
    there is none the closure after the placement is empty too.
    """
    for d in range(6):
        word = grid[index + NEIGHBOUR_OFFSET[d]]
        if word & CODE_MASK == 0 and word >= 2 * COUNT_ONE:
            return False
    return True


@njit(cache=True)
def generate(state, out, forced_only, stop_at_first, scratch=None):
    """Writes the mover's legal placements into ``out`` (increasing), returns their count.

    ``forced_only`` restricts to forced spaces (phases (a) and (c)); ``stop_at_first`` returns as
    soon as one is found (a yes/no test; ``out`` may then be None: nothing is written).
    Restrictions apply while the bag is not empty. ``scratch``: working memory of at least
    ``GENERATE_SCRATCH`` words (any contents, never ``out``), or None to allocate it when needed
    (an allocation, 57 ns, cost about a twelfth of a list on warm positions).

    Raises:
        ValueError: if ``scratch`` is shorter than ``GENERATE_SCRATCH``.
    """
    if scratch is not None and scratch.shape[0] < GENERATE_SCRATCH:
        raise ValueError("tantrix: move generation's scratch needs GENERATE_SCRATCH words")
    player = state[MOVER]
    hand_count = state[HAND_COUNT_0 + player]
    if hand_count == 0:
        return 0
    count = 0
    if state[NUM_PLACED] == 0:
        if forced_only:
            return 0
        cell = window_cell(ORIGIN_INDEX)
        for orientation in range(6):
            for slot in range(hand_count):
                if out is not None:
                    out[count] = (cell * 6 + orientation) * 6 + slot
                count += 1
                if stop_at_first:
                    return count
        return count
    list_count = state[FORCED_COUNT] if forced_only else state[FRONTIER_COUNT]
    if list_count == 0:
        return 0
    # One uninitialised block for all the scratch (an allocation costs about as much as a
    # closure): the hand's words or candidate sets; the frontier's demand words (a full list of free
    # moves reads each up to four times: its own, and restriction (a) of its neighbours); the
    # closure lists and flags of restrictions (b)/(c), cleared on first need.
    restricted = state[BAG_COUNT] > 0
    cached = restricted and not forced_only and not stop_at_first
    size = GRID_CELLS if restricted else 8
    demand_size = GRID_CELLS if cached else 1
    if scratch is None:  # noqa: SIM108 - numba prunes this branch by the type of scratch
        block = np.empty(_HAND_WORDS + demand_size + 2 * size, np.int64)
    else:
        block = scratch
    return _generate_in(state, out, forced_only, stop_at_first, block, demand_size, size)


@njit(cache=True)
def _generate_in(state, out, forced_only, stop_at_first, block, demand_size, size):
    """:func:`generate` past its trivial cases, with its scratch ``block``: ``_HAND_WORDS``
    words for the hand, ``demand_size`` for demand words (a word per grid cell when a full list
    of free moves under the restrictions caches them, else 1), then ``2 * size`` for the closure
    lists and flags (``size``: ``GRID_CELLS`` when restrictions apply, else unused).

    Every array below is a borrowed view (:func:`~mcts_envs.core.numba_compat.borrow`: no
    reference counting) of ``state`` or of ``block``, which the caller holds: counting the
    views passed to the closure functions took a third of the time of a list.
    """
    state = borrow(state)
    block = borrow(block)
    player = state[MOVER]
    start = hand_start(player)
    hand_count = state[HAND_COUNT_0 + player]
    count = 0
    grid = state[GRID : GRID + GRID_CELLS]
    restricted = state[BAG_COUNT] > 0
    if forced_only:
        list_start = FORCED
        list_count = state[FORCED_COUNT]
    else:
        list_start = FRONTIER
        list_count = state[FRONTIER_COUNT]
    forced = state[FORCED : FORCED + FORCED_CAPACITY]
    forced_count = state[FORCED_COUNT]
    cached = demand_size > 1
    lists_at = _HAND_WORDS + demand_size
    flags_at = lists_at + 3 * size // 2
    # The hand in every orientation is numbered by its action offset, ``j = orientation *
    # HAND_SIZE + slot`` (a placement at cell ``c`` is action ``36 * c + j``); ``showing[4 * d + c]`` has
    # bit ``j`` set when word ``j`` shows colour ``c`` at edge ``d``. A word obeys the golden
    # rule at a cell iff it shows the demanded colour at every demanded edge, so the fitting
    # words are the AND of ``showing`` over the bits of the cell's demand word.
    showing = block[:24]
    words = block[24:_HAND_WORDS]  # the words themselves, for few cells (``by_word``)
    demands = block[_HAND_WORDS:lists_at]
    lists = block[lists_at:flags_at].view(np.int32)
    stack = lists[:size]
    touched = lists[size : 2 * size]
    rank = lists[2 * size :]
    flags = block[flags_at:].view(np.int8)
    base_marks = flags[:size]
    base_extra = flags[size : 2 * size]
    extra = flags[2 * size : 3 * size]
    marks = flags[3 * size :]
    scratch_ready = False
    base_legal = True
    # Few cells (a yes/no test stops early, forced spaces are few): test the words one by one
    # rather than build the 24 colour sets first.
    by_word = stop_at_first or forced_only
    if by_word:
        for orientation in range(6):
            for slot in range(hand_count):
                words[6 * orientation + slot] = TILE_ONE_HOT[state[start + slot], orientation]
    else:
        showing[:] = 0
        for slot in range(hand_count):
            tile = state[start + slot]
            for bit in range(24):
                showing[bit] |= TILE_SHOWING[tile, bit] << slot
    all_words = ((np.int64(1) << hand_count) - 1) * EVERY_ORIENTATION
    if cached:
        for item in range(list_count):
            index = state[FRONTIER + item]
            demands[index] = cell_demands(grid, index)[0]
    for item in range(list_count):
        index = state[list_start + item]
        required = demands[index] if cached else cell_demands(grid, index)[0]
        if by_word:
            mask = edge_fields_mask(required)
            fitting = 0
            for orientation in range(6):
                for slot in range(hand_count):
                    j = 6 * orientation + slot
                    if (words[j] & mask) == required:
                        fitting |= np.int64(1) << j
        else:
            fitting = all_words
            for d in range(6):
                field = (required >> (4 * d)) & 15
                if field != 0:  # one colour bit: 1, 2, 4 or 8 -> colour 0..3
                    fitting &= showing[4 * d + (field >> 1) - (field >> 3)]
        if fitting == 0:
            continue
        if restricted:
            if cached:
                forbidden = forbidden_from_demands(grid, index, demands)
            else:
                forbidden = forbidden_colours(grid, index)
            if forbidden != 0:
                if by_word:
                    candidates = fitting
                    while candidates != 0:
                        j = lowest_bit_index(candidates)
                        candidates &= candidates - 1
                        if words[j] & forbidden != 0:
                            fitting &= ~(np.int64(1) << j)
                else:
                    bits = forbidden
                    while bits != 0:
                        fitting &= ~showing[lowest_bit_index(bits)]
                        bits &= bits - 1
                if fitting == 0:
                    continue
            if forced_count > 0 or not quiet_without_forced(grid, index):
                if not scratch_ready:
                    # Only grid rows (axial q) q_min - 2 .. q_max + 2 are ever read: a cell
                    # outside q_min - 1 .. q_max + 1 has at most two neighbours inside, so it
                    # is never treated (the new tile is at most one row out), and the closures
                    # only read treated cells, the new tile and their neighbours.
                    low = max(0, state[Q_MIN] - state[BASE_Q] - 2) * SIDE
                    high = min(SIDE, state[Q_MAX] - state[BASE_Q] + 3) * SIDE
                    for part in range(4):
                        flags[part * size + low : part * size + high] = 0
                    base_legal = board_closure(
                        grid, forced, forced_count, base_marks, base_extra, rank, stack
                    )
                    scratch_ready = True
                if base_legal:
                    if not space_after(
                        grid, index, base_marks, base_extra, rank, extra, marks, stack, touched
                    ):
                        continue
                else:
                    legal, n_touched = closure(
                        grid, forced, forced_count, index, extra, marks, stack, touched
                    )
                    clear_scratch(extra, marks, touched, n_touched)
                    if not legal:
                        continue
        cell_base = window_cell(index) * 36
        while fitting != 0:
            if out is not None:
                out[count] = cell_base + lowest_bit_index(fitting)
            count += 1
            if stop_at_first:
                return count
            fitting &= fitting - 1
    return count


@njit(cache=True)
def placement_problem(state, action):
    """Why ``action`` is illegal for the mover (one of the problem codes), or ``LEGAL``."""
    if state[STATUS] != DECIDE or action < 0 or action >= NUM_ACTIONS:
        return NOT_A_DECISION
    player = state[MOVER]
    slot = action % HAND_SIZE
    orientation = (action // HAND_SIZE) % 6
    cell = action // 36
    if slot >= state[HAND_COUNT_0 + player]:
        return EMPTY_SLOT
    tile = state[hand_start(player) + slot]
    index = grid_index(cell)
    grid = state[GRID : GRID + GRID_CELLS]
    if state[NUM_PLACED] == 0:
        return LEGAL if index == ORIGIN_INDEX else NOT_AT_ORIGIN
    if grid[index] & CODE_MASK != 0:
        return OCCUPIED
    neighbours = grid[index] >> COUNT_SHIFT
    if neighbours == 0:
        return NOT_TOUCHING
    required, mask = cell_demands(grid, index)
    word = TILE_ONE_HOT[tile, orientation]
    if (word & mask) != required:
        return GOLDEN_RULE
    if state[PHASE] != PHASE_FREE and neighbours < 3:
        return MUST_FILL_FORCED
    if state[BAG_COUNT] > 0:
        if word & forbidden_colours(grid, index) != 0:
            return RESTRICTION_A
        extra = np.zeros(GRID_CELLS, np.int8)
        marks = np.zeros(GRID_CELLS, np.int8)
        stack = np.empty(GRID_CELLS, np.int32)
        touched = np.empty(GRID_CELLS, np.int32)
        forced = state[FORCED : FORCED + FORCED_CAPACITY]
        legal, _ = closure(grid, forced, state[FORCED_COUNT], index, extra, marks, stack, touched)
        if not legal:
            return RESTRICTION_BC
    return LEGAL


# -- turn structure ---------------------------------------------------------------------------
@njit(cache=True)
def advance(state):
    """Moves on to the next decision after a placement or draw (rules 10, 13, 14)."""
    advance_listing(state, None)


@njit(cache=True)
def advance_listing(state, out, scratch=None):
    """:func:`advance`; with an ``out`` (room for ``MAX_LEGAL_ACTIONS``), also lists the legal
    placements of the decision it stops at into it: the search for the next player with a move
    then generates that list whole instead of stopping at the first move. Returns the count
    listed at a decision (1 when ``out`` is None), -1 at the end of the game. ``scratch``: as
    :func:`generate`'s."""
    listing = out is not None
    while True:
        if state[NUM_PLACED] == NUM_TILES:
            state[STATUS] = FINISHED
            return -1
        mover = state[MOVER]
        end_turn = False
        if state[HAND_COUNT_0 + mover] == 0:
            end_turn = True
        elif state[PHASE] == PHASE_FORCED_FIRST:
            count = generate(state, out, True, not listing, scratch)
            if count > 0:
                state[STATUS] = DECIDE
                return count
            state[PHASE] = PHASE_FREE
        if not end_turn and state[PHASE] == PHASE_FREE:
            count = generate(state, out, False, not listing, scratch)
            if count > 0:
                state[STATUS] = DECIDE
                return count
            state[STATUS] = DEADLOCK
            return -1
        if not end_turn:  # PHASE_FORCED_AFTER
            count = generate(state, out, True, not listing, scratch)
            if count > 0:
                state[STATUS] = DECIDE
                return count
        other = 1 - mover
        if state[HAND_COUNT_0 + other] > 0:
            state[MOVER] = other
        state[PHASE] = PHASE_FORCED_FIRST


@njit(cache=True, inline="always")
def is_chance(status):
    """Whether ``status`` is a chance node (a deal or a draw)."""
    return status <= DRAW


@njit(cache=True)
def current_player(state):
    """The mover at a decision, ``CHANCE`` at a deal or draw, ``TERMINAL`` at the end."""
    status = state[STATUS]
    if status == DECIDE:
        return state[MOVER]
    if is_chance(status):
        return CHANCE
    return TERMINAL


@njit(cache=True)
def chance_outcomes(state, outcomes, probabilities):
    """At a deal or draw: the tiles in the bag (increasing), each with probability 1 / bag size."""
    if not is_chance(state[STATUS]):
        return 0
    bits = state[BAG_BITS]
    count = 0
    for tile in range(NUM_TILES):
        if (bits >> tile) & 1:
            outcomes[count] = tile
            count += 1
    probability = 1.0 / count
    for i in range(count):
        probabilities[i] = probability
    return count


@njit(cache=True)
def legal_actions(state, out):
    """The mover's legal placements (increasing); at a chance node the possible outcomes."""
    status = state[STATUS]
    if status == DECIDE:
        return generate(state, out, state[PHASE] != PHASE_FREE, False)
    if is_chance(status):
        probabilities = np.empty(NUM_TILES, np.float64)
        return chance_outcomes(state, out, probabilities)
    return 0


@njit(cache=True)
def apply_chance(state, tile):
    """Deals or draws ``tile`` from the bag, then moves on to the next decision.

    Raises:
        IllegalActionError: if ``tile`` is not in the bag.
        InvalidRecordError: if the hand receiving it is full (a corrupt state).
    """
    _chance(state, tile, None)


@njit(cache=True)
def _chance(state, tile, out, scratch=None):
    """:func:`apply_chance`; returns as :func:`apply_and_list` (``out`` None: lists nothing)."""
    if tile < 0 or tile >= NUM_TILES or not (state[BAG_BITS] >> tile) & 1:
        raise IllegalActionError("tantrix: the chance outcome is not a tile in the bag")
    receiver = state[DEALT] % 2 if state[STATUS] == DEAL else state[MOVER]
    if state[HAND_COUNT_0 + receiver] >= HAND_SIZE:
        raise InvalidRecordError("tantrix: corrupt state: a tile drawn into a full hand")
    state[BAG_BITS] &= ~(np.int64(1) << tile)
    state[BAG_COUNT] -= 1
    if state[STATUS] == DEAL:
        player = state[DEALT] % 2
        add_to_hand(state, player, tile)
        state[DEALT] += 1
        state[LAST_DRAWN] = tile
        state[LAST_DRAWER] = player
        if state[DEALT] < DEAL_SIZE:
            return -1
        first = 0
        if state[FIRST_RULE] == FIRST_HIGHEST_TILE:
            top_0 = state[HAND_0 + HAND_SIZE - 1]
            top_1 = state[HAND_1 + HAND_SIZE - 1]
            first = 0 if top_0 > top_1 else 1
        state[MOVER] = first
        state[PHASE] = PHASE_FORCED_FIRST
        state[STATUS] = DECIDE
        return advance_listing(state, out, scratch)
    player = state[MOVER]
    add_to_hand(state, player, tile)
    state[LAST_DRAWN] = tile
    state[LAST_DRAWER] = player
    state[STATUS] = DECIDE
    return advance_listing(state, out, scratch)


@njit(cache=True)
def apply_action(state, action):
    """Plays a placement (or, at a chance node, deals/draws tile ``action``) in place.

    Raises:
        IllegalActionError: for an action no legal move can be: outside the action space, an
            empty hand slot, an occupied cell or one touching no tile (they would corrupt the
            state); the other rules are the caller's to check (see :func:`placement_problem`).
    """
    _play(state, action, None)


@njit(cache=True)
def apply_and_list(state, action, legal, scratch):
    """:func:`apply_action`, then the legal actions of the new position into ``legal`` (room for
    ``MAX_LEGAL_ACTIONS``) when it is a player decision: returns their count, or -1 at a chance
    node or the end (``legal`` then unspecified). The list equals :func:`legal_actions`'s, one
    move generation cheaper: finding the next player with a move lists the moves. ``scratch``:
    ``int64[APPLY_AND_LIST_SCRATCH]`` working memory (any contents; not ``legal``).
    """
    return _play(state, action, legal, scratch)


@njit(cache=True)
def _play(state, action, out, scratch=None):
    """:func:`apply_action`; returns as :func:`apply_and_list` (``out`` None: lists nothing)."""
    if state[STATUS] != DECIDE:
        return _chance(state, action, out, scratch)
    player = state[MOVER]
    slot = action % HAND_SIZE
    orientation = (action // HAND_SIZE) % 6
    if action < 0 or action >= NUM_ACTIONS or slot >= state[HAND_COUNT_0 + player]:
        raise IllegalActionError("tantrix: not a placement of a tile in the mover's hand")
    index = grid_index(action // 36)
    word = state[GRID + index]
    if (
        word & CODE_MASK != 0
        or (word < COUNT_ONE and state[NUM_PLACED] > 0)
        or (state[NUM_PLACED] == 0 and index != ORIGIN_INDEX)
    ):
        raise IllegalActionError("tantrix: a placement must touch the board on an empty cell")
    tile = remove_from_hand(state, player, slot)
    place_tile(state, index, tile, orientation)
    state[PLACEMENTS] += 1
    if state[PHASE] == PHASE_FREE:
        state[PHASE] = PHASE_FORCED_AFTER
    if state[BAG_COUNT] > 0:
        state[STATUS] = DRAW
        return -1
    state[STATUS] = DECIDE
    return advance_listing(state, out, scratch)


# -- scores and results -----------------------------------------------------------------------
@njit(cache=True)
def line_scores(state, out):
    """Writes each player's best-line score (rule 15) into ``out[2]``."""
    grid = state[GRID : GRID + GRID_CELLS]
    placed = state[PLACED : PLACED + NUM_TILES]
    for player in range(2):
        out[player] = best_line(grid, placed, state[NUM_PLACED], state[COLOUR_0 + player])[0]


@njit(cache=True)
def returns(state, out):
    """+1/-1 by best line at the end, 0 each for equal lines or deadlock (zeros before the end)."""
    out[0] = 0.0
    out[1] = 0.0
    if state[STATUS] != FINISHED:
        return
    scores = np.zeros(2, np.float64)
    line_scores(state, scores)
    if scores[0] > scores[1]:
        out[0] = 1.0
        out[1] = -1.0
    elif scores[1] > scores[0]:
        out[0] = -1.0
        out[1] = 1.0


@njit(cache=True)
def score(state, out):
    """``own / (own + opponent)`` best-line share per player (0.5 each when both are 0)."""
    line_scores(state, out)
    total = out[0] + out[1]
    if total == 0:
        out[0] = 0.5
        out[1] = 0.5
    else:
        out[0] = out[0] / total
        out[1] = out[1] / total


@njit(cache=True)
def heuristic(state, player):
    """Exact result at the end (1 win, 0.5 draw, 0 loss); else the best-line share."""
    out = np.zeros(2, np.float64)
    if state[STATUS] == FINISHED or state[STATUS] == DEADLOCK:
        returns(state, out)
        return (out[player] + 1.0) * 0.5
    score(state, out)
    return out[player]


@njit(cache=True)
def random_tile_from_bag(state, rng):
    """A tile drawn uniformly from the (non-empty) bag with ``rng``: entry ``rng_below(rng,
    bag size)`` of the tiles in increasing order."""
    bits = state[BAG_BITS]
    for _ in range(rng_below(rng, state[BAG_COUNT])):
        bits &= bits - 1
    return lowest_bit_index(bits)


@njit(cache=True)
def random_outcome(state, rng):
    """A chance outcome of the deal or draw ``state`` drawn with its probabilities (uniform over
    the bag, :func:`random_tile_from_bag`); ``VectorGame`` samples chance with it."""
    return random_tile_from_bag(state, rng)


@njit(cache=True)
def random_playout(state, rng):
    """Plays uniformly random placements and draws in place until the game ends."""
    buffer = np.empty(MAX_LEGAL_ACTIONS, np.int64)
    scratch = np.empty(GENERATE_SCRATCH, np.int64)
    count = -1  # the legal actions listed in ``buffer`` by the last move, if any
    while True:
        status = state[STATUS]
        if status == DECIDE:
            if count < 0:
                count = generate(state, buffer, state[PHASE] != PHASE_FREE, False, scratch)
            if count == 0:
                raise InvalidRecordError("tantrix: corrupt state: a decision without moves")
            count = _play(state, buffer[rng_below(rng, count)], buffer, scratch)
        elif is_chance(status):
            count = _chance(state, random_tile_from_bag(state, rng), buffer, scratch)
        else:
            return


@njit(cache=True)
def playout_statistics(state, rng, counts, phases):
    """Like :func:`random_playout`, also writing the legal-action count and phase of each decision.

    Decision ``i`` is made with ``i`` tiles on the board. Returns the number of decisions
    (``counts`` and ``phases`` need room for ``NUM_TILES`` entries).
    """
    buffer = np.empty(MAX_LEGAL_ACTIONS, np.int64)
    decisions = 0
    while True:
        status = state[STATUS]
        if status == DECIDE:
            count = generate(state, buffer, state[PHASE] != PHASE_FREE, False)
            if count == 0:
                raise InvalidRecordError("tantrix: corrupt state: a decision without moves")
            counts[decisions] = count
            phases[decisions] = state[PHASE]
            decisions += 1
            apply_action(state, buffer[rng_below(rng, count)])
        elif is_chance(status):
            apply_chance(state, random_tile_from_bag(state, rng))
        else:
            return decisions


#: Colour that a placed tile shows at its edge ``d``, by grid code (row 0, empty, unused).
CODE_EDGE_COLOURS = np.zeros((1 + NUM_TILES * 6, 6), np.int64)
CODE_EDGE_COLOURS[1:] = TILE_EDGE_COLOURS.reshape(NUM_TILES * 6, 6)

#: Number of observation channels and layout of the feature plane (channel 26).
NUM_CHANNELS = 27
FEATURE_CHANNEL = 26
FEATURES_PER_SLOT = 25
FEATURE_HANDS = 0
FEATURE_COLOURS = 2 * HAND_SIZE * FEATURES_PER_SLOT
FEATURE_BAG = FEATURE_COLOURS + 8
FEATURE_PHASE = FEATURE_BAG + NUM_TILES
FEATURE_ON_MOVE = FEATURE_PHASE + 3


#: Window row and column of each feature-plane position (no division per feature written).
FEATURE_ROW = np.arange(FEATURE_ON_MOVE + 1, dtype=np.int64) // WINDOW
FEATURE_COLUMN = np.arange(FEATURE_ON_MOVE + 1, dtype=np.int64) % WINDOW


@njit(cache=True, inline="always")
def _set_feature(out, position, value):
    out[FEATURE_ROW[position], FEATURE_COLUMN[position], FEATURE_CHANNEL] = value


@njit(cache=True)
def observation_planes(state, player, out):
    """Writes the ``int8[WINDOW, WINDOW, 27]`` observation of ``player`` into ``out`` (zeroed).

    Channels ``4 * edge + k`` (k = 0..3) one-hot the colour at each edge of a placed tile, colours
    relative to ``player``: k = 0 own colour, 1 opponent's, 2 and 3 the other two in colour order.
    Channel 24 occupancy, 25 forced spaces (empty cells with >= 3 placed neighbours), 26 a
    feature plane read row-major (see the game card): hands (``player`` first), colours, bag,
    phase.
    """
    own = state[COLOUR_0 + player]
    opponent = state[COLOUR_0 + 1 - player]
    # relative colour index of each colour, two bits per colour
    relative = (0 << (2 * own)) | (1 << (2 * opponent))
    k = 2
    for colour in range(4):
        if colour != own and colour != opponent:
            relative |= k << (2 * colour)
            k += 1
    grid = state[GRID : GRID + GRID_CELLS]
    for p in range(state[NUM_PLACED]):
        index = state[PLACED + p]
        i, j = window_row_column(index)
        code = grid[index] & CODE_MASK
        for d in range(6):
            colour = CODE_EDGE_COLOURS[code, d]
            out[i, j, 4 * d + ((relative >> (2 * colour)) & 3)] = 1
        out[i, j, 24] = 1
    for f in range(state[FORCED_COUNT]):
        i, j = window_row_column(state[FORCED + f])
        out[i, j, 25] = 1
    position = 0
    # hands: 2 players x 6 slots x (present + 6 edges x 4 relative colours), player first
    for h in range(2):
        owner = player if h == 0 else 1 - player
        start = hand_start(owner)
        for slot in range(HAND_SIZE):
            base = position + slot * 25
            if slot < state[HAND_COUNT_0 + owner]:
                tile = state[start + slot]
                _set_feature(out, base, 1)
                for d in range(6):
                    colour = TILE_EDGE_COLOURS[tile, 0, d]
                    _set_feature(out, base + 1 + 4 * d + ((relative >> (2 * colour)) & 3), 1)
        position += HAND_SIZE * 25
    # colours: own one-hot (4), opponent one-hot (4)
    _set_feature(out, position + own, 1)
    _set_feature(out, position + 4 + opponent, 1)
    position += 8
    # bag: 56 flags (tile numbers 1..56)
    bits = state[BAG_BITS]
    for tile in range(NUM_TILES):
        if (bits >> tile) & 1:
            _set_feature(out, position + tile, 1)
    position += NUM_TILES
    # phase one-hot (3), then whether ``player`` is the mover
    if state[STATUS] == DECIDE:
        _set_feature(out, position + state[PHASE], 1)
        if state[MOVER] == player:
            _set_feature(out, position + 3, 1)


@njit(cache=True)
def observation_update(state, player, out):
    """:func:`observation_planes` into an ``out`` that need not be zeroed: ``out`` must hold an
    observation these kernels wrote for an earlier position of the same game (any player's view,
    any window placement) or zeros; afterwards it equals ``player``'s full observation of ``state``.

    Clears only what such an observation can have set, then writes as :func:`observation_planes`.
    Tiles are never removed, so an earlier board spans at most the current ``q`` and ``r``
    ranges; its window was centred on it, so its tiles sat within ``HALF_WINDOW - span // 2 ..
    HALF_WINDOW + (span + 1) // 2`` of each window axis, and so did its forced spaces (a cell
    outside the tiles' ``q`` or ``r`` range has at most two placed neighbours). That
    parallelogram (all channels) is cleared, and the feature plane's entries. Used by
    :class:`mcts_envs.vector.VectorGame` between the positions of one game (a new game's row is
    zeroed whole).
    """
    span_q = state[Q_MAX] - state[Q_MIN]
    span_r = state[R_MAX] - state[R_MIN]
    low_i = max(0, HALF_WINDOW - span_q // 2)
    high_i = min(WINDOW, HALF_WINDOW + (span_q + 1) // 2 + 1)
    low_j = HALF_WINDOW - span_r // 2
    high_j = HALF_WINDOW + (span_r + 1) // 2 + 1
    for i in range(low_i, high_i):
        out[i, low_j:high_j, :] = 0
    for row in range(FEATURE_ON_MOVE // WINDOW + 1):
        for column in range(min(WINDOW, FEATURE_ON_MOVE + 1 - row * WINDOW)):
            out[row, column, FEATURE_CHANNEL] = 0
    observation_planes(state, player, out)


@njit(cache=True)
def hash_state(state):
    """A 64-bit hash of the state for transposition tables: the header, hands and placement
    list (everything before ``FRONTIER``) and the grid words of the placed cells. The frontier
    and forced lists and the rest of the grid follow from those, so equal positions hash equal
    and the 4,000-word grid is never read whole."""
    h = hash_range(state, 0, FRONTIER, np.uint64(0x9E3779B97F4A7C15))
    for i in range(state[NUM_PLACED]):
        h = mix_word(h, state[GRID + state[PLACED + i]])
    return finish_hash(h)
