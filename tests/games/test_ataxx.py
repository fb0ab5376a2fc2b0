"""Ataxx (docs/RULES.md section 4) against a slow pure-Python reference written here.

The reference keeps a position as two sets of ``(row, col)`` coordinates (row 0 is rank 7, col 0
is file a) and finds moves by looking at every square: no bitboards, no tables from the package.
"""

from __future__ import annotations

import numpy as np
import pytest
from numba.core.errors import TypingError

from mcts_envs import TERMINAL, IllegalActionError, InvalidRecordError, ataxx_v0
from mcts_envs.core.seeding import make_rng
from mcts_envs.games.ataxx import Ataxx
from mcts_envs.games.ataxx import kernels as k

GAME = Ataxx()
START = "x5o/7/7/7/7/7/o5x x 0 1"
COORDS = [(row, col) for row in range(7) for col in range(7)]
# The action encoding as docs/RULES.md 4.6 and the game card spell it out.
OFFSETS = [(-2, -2), (-2, -1), (-2, 0), (-2, 1), (-2, 2), (-1, -2), (-1, 2), (0, -2),
           (0, 2), (1, -2), (1, 2), (2, -2), (2, -1), (2, 0), (2, 1), (2, 2)]  # fmt: skip
PASS = 833


# -- the reference ----------------------------------------------------------------------------
class Ref:
    """A position: ``stones[0]`` x's squares, ``stones[1]`` o's, side to move and clocks."""

    def __init__(self, stones, side, halfmove=0, fullmove=1):
        self.stones = (frozenset(stones[0]), frozenset(stones[1]))
        self.side = side
        self.halfmove = halfmove
        self.fullmove = fullmove


def distance(a, b):
    return max(abs(a[0] - b[0]), abs(a[1] - b[1]))


def ref_moves_of(ref, player):
    """Copies ('copy', to) and jumps ('jump', from, to) of ``player``, ignoring the game end."""
    occupied = ref.stones[0] | ref.stones[1]
    moves = set()
    for origin in ref.stones[player]:
        for to in COORDS:
            if to not in occupied and distance(origin, to) == 1:
                moves.add(("copy", to))
            elif to not in occupied and distance(origin, to) == 2:
                moves.add(("jump", origin, to))
    return moves


def ref_result(ref):
    """None while the game goes on, else 'x', 'o' or 'draw'."""
    x, o = ref.stones
    if not x or not o or not (ref_moves_of(ref, 0) or ref_moves_of(ref, 1)):
        if len(x) > len(o):
            return "x"
        if len(o) > len(x):
            return "o"
        return "draw"
    if ref.halfmove >= 100:
        return "draw"
    return None


def ref_legal(ref):
    if ref_result(ref) is not None:
        return set()
    return ref_moves_of(ref, ref.side) or {("pass",)}


def ref_apply(ref, move):
    own, other = set(ref.stones[ref.side]), set(ref.stones[1 - ref.side])
    halfmove = ref.halfmove + 1
    if move[0] != "pass":
        to = move[-1]
        if move[0] == "copy":
            halfmove = 0
        else:
            own.remove(move[1])
        own.add(to)
        flipped = {square for square in other if distance(square, to) == 1}
        own |= flipped
        other -= flipped
    stones = (own, other) if ref.side == 0 else (other, own)
    fullmove = ref.fullmove + (1 if ref.side == 1 else 0)
    return Ref(stones, 1 - ref.side, halfmove, fullmove)


def ref_from_state(state):
    stones = tuple(
        {COORDS[s] for s in range(49) if (int(state[player]) >> s) & 1} for player in (0, 1)
    )
    return Ref(stones, int(state[2]), int(state[3]), int(state[4]))


def ref_fen(ref):
    ranks = []
    for row in range(7):
        text, run = "", 0
        for col in range(7):
            char = (
                "x" if (row, col) in ref.stones[0] else "o" if (row, col) in ref.stones[1] else ""
            )
            if not char:
                run += 1
                continue
            text += (str(run) if run else "") + char
            run = 0
        ranks.append(text + (str(run) if run else ""))
    return f"{'/'.join(ranks)} {'xo'[ref.side]} {ref.halfmove} {ref.fullmove}"


def move_of_action(action):
    """Decode an action with the documented encoding (independent of the package tables)."""
    if action == PASS:
        return ("pass",)
    if action < 49:
        return ("copy", COORDS[action])
    origin, offset = divmod(action - 49, 16)
    row, col = COORDS[origin]
    return ("jump", (row, col), (row + OFFSETS[offset][0], col + OFFSETS[offset][1]))


def check_against_reference(state):
    """Engine and reference agree on the legal moves, the end and the FEN of ``state``."""
    ref = ref_from_state(state)
    legal = GAME.legal_actions(state)
    moves = [move_of_action(int(a)) for a in legal]
    assert len(set(moves)) == len(moves)
    assert set(moves) == ref_legal(ref), GAME.to_text(state)
    # the whole-row mask (written from bitboards, not from the list), over a row of ones
    mask = np.ones(PASS + 1, np.bool_)
    k.legal_mask(state, mask)
    assert {move_of_action(int(a)) for a in np.flatnonzero(mask)} == ref_legal(ref)
    result = ref_result(ref)
    assert (GAME.current_player(state) == TERMINAL) == (result is not None)
    if result is not None:
        expected = {"x": [1.0, -1.0], "o": [-1.0, 1.0], "draw": [0.0, 0.0]}[result]
        assert GAME.returns(state).tolist() == expected
    assert GAME.to_text(state) == ref_fen(ref)
    return legal, ref


# -- perft ------------------------------------------------------------------------------------
def engine_perft(state, depth):
    """Leaf count at ``depth`` through the forward model (a pass is a move; terminal = 0)."""
    legal = GAME.legal_actions(state)
    if depth == 1:
        return len(legal)
    return sum(engine_perft(GAME.apply(state, int(a)), depth - 1) for a in legal)


def ref_perft(ref, depth):
    moves = ref_legal(ref)
    if depth == 1:
        return len(moves)
    return sum(ref_perft(ref_apply(ref, move), depth - 1) for move in moves)


def test_perft_start_position_to_depth_4():
    start = GAME.initial_state()
    counts = [engine_perft(start, depth) for depth in (1, 2, 3, 4)]
    assert counts == [ref_perft(ref_from_state(start), depth) for depth in (1, 2, 3, 4)]
    # The published libataxx figures agree with the reference above.
    assert counts == [16, 256, 6460, 155888]


@pytest.mark.parametrize(
    "fen",
    [
        "x5o/7/2xo3/7/7/7/o5x x 0 1",
        "7/7/7/3x3/7/7/7 o 0 1",  # o has no stones: over at once
        "xxxxxxx/ooooooo/xxxxxxx/ooooooo/xxxxxxx/ooooooo/xxxxxx1 x 3 20",
        "x1o4/1o5/ooo4/7/7/7/6x x 0 1",
        "xoxoxox/oxoxoxo/xoxoxox/oxoxoxo/7/7/7 o 98 30",
    ],
)
def test_perft_other_positions_depth_3(fen):
    state = GAME.from_text(fen)
    ref = ref_from_state(state)
    assert [engine_perft(state, d) for d in (1, 2, 3)] == [ref_perft(ref, d) for d in (1, 2, 3)]


# -- passes and endings -----------------------------------------------------------------------
def test_pass_is_forced_when_the_mover_is_walled_in():
    # x's only stone on a7 is surrounded to distance 2 by o: x must pass, o then plays on.
    state = GAME.from_text("xoo4/ooo4/ooo4/7/7/7/7 x 7 4")
    assert GAME.current_player(state) == 0
    assert GAME.legal_actions(state).tolist() == [PASS]
    assert GAME.move_to_uai(state, PASS) == "0000"
    after = GAME.apply(state, PASS)
    assert GAME.to_text(after) == "xoo4/ooo4/ooo4/7/7/7/7 o 8 4"
    assert GAME.current_player(after) == 1 and PASS not in GAME.legal_actions(after)
    check_against_reference(after)
    # o passing does advance the fullmove number.
    walled_o = GAME.from_text("oxx4/xxx4/xxx4/7/7/7/7 o 0 9")
    assert GAME.legal_actions(walled_o).tolist() == [PASS]
    assert GAME.to_text(GAME.apply(walled_o, PASS)) == "oxx4/xxx4/xxx4/7/7/7/7 x 1 10"


def test_pass_is_illegal_while_a_move_exists():
    assert PASS not in GAME.legal_actions(GAME.initial_state())
    with pytest.raises(IllegalActionError):
        GAME.apply(GAME.initial_state(), PASS)


def test_wipe_out_ends_the_game():
    state = GAME.from_text("xo5/7/7/7/7/7/7 x 5 3")
    after = GAME.apply(state, GAME.uai_to_move(state, "a6"))
    assert GAME.to_text(after) == "xx5/x6/7/7/7/7/7 o 0 3"
    assert GAME.current_player(after) == TERMINAL
    assert GAME.returns(after).tolist() == [1.0, -1.0]
    assert GAME.score(after).tolist() == [1.0, 0.0]
    assert len(GAME.legal_actions(after)) == 0
    # A position with one side already wiped out is over, whoever is to move.
    assert GAME.current_player(GAME.from_text("7/7/7/3o3/7/7/7 o 0 1")) == TERMINAL
    assert GAME.returns(GAME.from_text("7/7/7/3o3/7/7/7 o 0 1")).tolist() == [-1.0, 1.0]


def test_full_board_ends_by_stone_count():
    # One empty square g1; x copies into it (from f2) and captures f1 and g2.
    fen = "ooooooo/ooooooo/ooooooo/xxxxxxx/xxxxxxx/xxxxxxo/xxxxxo1 x 40 25"
    state = GAME.from_text(fen)
    check_against_reference(state)
    after = GAME.apply(state, GAME.uai_to_move(state, "g1"))
    assert GAME.to_text(after) == "ooooooo/ooooooo/ooooooo/xxxxxxx/xxxxxxx/xxxxxxx/xxxxxxx o 0 25"
    assert GAME.current_player(after) == TERMINAL
    assert GAME.returns(after).tolist() == [1.0, -1.0]  # 28 against 21
    assert GAME.score(after) == pytest.approx([28 / 49, 21 / 49])
    # With o to move instead, o fills g1, flips f2 and wins 25 to 24.
    o_turn = GAME.from_text(fen.replace(" x ", " o "))
    o_after = GAME.apply(o_turn, GAME.uai_to_move(o_turn, "g1"))
    assert GAME.to_text(o_after) == (
        "ooooooo/ooooooo/ooooooo/xxxxxxx/xxxxxxx/xxxxxoo/xxxxxoo x 0 26"
    )
    assert GAME.returns(o_after).tolist() == [-1.0, 1.0]
    check_against_reference(o_after)


def test_full_board_without_a_move_for_either_side_is_over():
    state = GAME.from_text("ooooooo/ooooooo/ooooooo/ooooxxx/xxxxxxx/xxxxxxx/xxxxxxx x 0 30")
    assert GAME.current_player(state) == TERMINAL
    assert GAME.returns(state).tolist() == [-1.0, 1.0]  # o 25, x 24


def test_halfmove_clock_reaching_100_is_a_draw():
    state = GAME.from_text("x5o/7/7/7/7/7/o5x x 99 60")
    jump = GAME.apply(state, GAME.uai_to_move(state, "a7c5"))
    assert GAME.to_text(jump) == "6o/7/2x4/7/7/7/o5x o 100 60"
    assert GAME.current_player(jump) == TERMINAL
    assert GAME.returns(jump).tolist() == [0.0, 0.0]
    copy = GAME.apply(state, GAME.uai_to_move(state, "b6"))
    assert GAME.current_player(copy) == 1 and int(copy[3]) == 0
    assert GAME.current_player(GAME.from_text("x5o/7/7/7/7/7/o5x x 100 60")) == TERMINAL
    assert GAME.current_player(GAME.from_text("x5o/7/7/7/7/7/o5x x 98 60")) == 0


def test_pass_can_reach_the_clock_limit():
    state = GAME.from_text("xoo4/ooo4/ooo4/7/7/7/7 x 99 4")
    after = GAME.apply(state, PASS)
    assert GAME.current_player(after) == TERMINAL
    assert GAME.returns(after).tolist() == [0.0, 0.0]


def test_wipe_out_on_the_100th_ply_is_decided_by_stones():
    # x jumps a7 -> c6 at clock 99 and captures o's last stone: the stone count decides.
    state = GAME.from_text("x6/7/3o3/7/7/7/7 x 99 50")
    after = GAME.apply(state, GAME.uai_to_move(state, "a7c6"))
    assert GAME.current_player(after) == TERMINAL
    assert GAME.returns(after).tolist() == [1.0, -1.0]


# -- captures ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("fen", "move", "expected"),
    [
        # jump into corner a7: the three neighbours b7, a6, b6 flip, c7 and a5 (distance 2) do not
        ("1oo4/oo5/o1x4/7/7/7/7 x 0 1", "c5a7", "xxo4/xx5/o6/7/7/7/7 o 1 1"),
        # copy into corner a1 next to b1: a2 and b2 flip, c1 (distance 2) does not
        ("7/7/7/7/7/oo5/1xo4 x 3 8", "a1", "7/7/7/7/7/xx5/xxo4 o 0 8"),
        # jump into corner g1 from e3: f2, g2, f1 flip; e2 is at distance 2 and stays
        ("7/7/7/7/4x2/4ooo/5o1 x 0 1", "e3g1", "7/7/7/7/7/4oxx/5xx o 1 1"),
        # jump onto the edge d7: c7, e7, c6, d6, e6 flip; b7 and f7 stay
        ("1oo1oo1/2ooo2/3x3/7/7/7/7 x 0 1", "d5d7", "1oxxxo1/2xxx2/7/7/7/7/7 o 1 1"),
        # no wrap-around between files g and a: copying to g6 leaves a5 (the next square) alone
        ("6x/7/o6/7/7/7/7 x 0 1", "g6", "6x/6x/o6/7/7/7/7 o 0 1"),
        # and copying to g7 leaves a6 (the square after g7) alone
        ("7/o5x/7/7/7/7/7 x 0 1", "g7", "6x/o5x/7/7/7/7/7 o 0 1"),
    ],
)
def test_captures_on_edges_and_corners(fen, move, expected):
    state = GAME.from_text(fen)
    check_against_reference(state)
    after = GAME.apply(state, GAME.uai_to_move(state, move))
    assert GAME.to_text(after) == expected
    check_against_reference(after)


def test_wrap_around_moves_are_not_generated():
    # A lone x on g7 (square 6) must not copy to a6 (square 7) or jump to a5/b5 (13+1, 13+2).
    state = GAME.from_text("6x/7/7/7/7/7/o6 x 0 1")
    uai = sorted(GAME.move_to_uai(state, int(a)) for a in GAME.legal_actions(state))
    assert uai == sorted(["f7", "f6", "g6", "g7e7", "g7e6", "g7e5", "g7f5", "g7g5"])
    check_against_reference(state)


# -- random games against the reference -------------------------------------------------------
def test_random_games_match_the_reference_move_by_move():
    rng = np.random.default_rng(2024)
    endings = set()
    for _ in range(6):
        state = GAME.initial_state()
        ref = ref_from_state(state)
        while True:
            legal, checked = check_against_reference(state)
            assert ref_fen(checked) == ref_fen(ref)
            if len(legal) == 0:
                endings.add(ref_result(ref))
                break
            action = int(rng.choice(legal))
            state = GAME.apply(state, action)
            ref = ref_apply(ref, move_of_action(action))
    assert endings <= {"x", "o", "draw"}


def test_random_games_with_passes_and_jumps_only_match_the_reference():
    # Jump-heavy play from sparse positions reaches passes and the 100-ply rule.
    rng = np.random.default_rng(5)
    seen_pass = seen_clock_draw = False
    for fen in ["x6/7/7/7/7/7/6o x 80 1", "xoo4/ooo4/ooo4/7/7/7/7 x 0 1"]:
        for _ in range(4):
            state = GAME.from_text(fen)
            ref = ref_from_state(state)
            while True:
                legal, _ = check_against_reference(state)
                if len(legal) == 0:
                    seen_clock_draw |= ref.halfmove >= 100 and ref_result(ref) == "draw"
                    break
                jumps = [a for a in legal if 49 <= a < PASS]
                action = int(rng.choice(jumps if jumps and rng.random() < 0.9 else legal))
                seen_pass |= action == PASS
                state = GAME.apply(state, action)
                ref = ref_apply(ref, move_of_action(action))
    assert seen_pass and seen_clock_draw


def action_of_move(move):
    """Encode a reference move with the documented encoding (the inverse of move_of_action)."""
    if move[0] == "pass":
        return PASS
    if move[0] == "copy":
        return COORDS.index(move[1])
    (row, col), (to_row, to_col) = move[1], move[2]
    return 49 + COORDS.index((row, col)) * 16 + OFFSETS.index((to_row - row, to_col - col))


def ref_planes(ref, player):
    reach = {move[-1] for move in ref_moves_of(ref, player)}
    planes = np.zeros((7, 7, 4), np.int8)
    for row, col in COORDS:
        planes[row, col, 0] = (row, col) in ref.stones[player]
        planes[row, col, 1] = (row, col) in ref.stones[1 - player]
        planes[row, col, 2] = (row, col) not in ref.stones[0] | ref.stones[1]
        planes[row, col, 3] = (row, col) in reach
    return planes


def test_legal_actions_in_increasing_order_and_planes_match_the_reference_everywhere():
    # The exact list (increasing action numbers, as documented: the order seeds and records
    # rely on) and both players' planes, through contiguous and strided output arrays, over
    # every position of random games of all lengths (sparse openings to full boards).
    rng = np.random.default_rng(11)
    strided = np.zeros((7, 7, 8), np.int8)
    for game in range(12):
        state = GAME.initial_state() if game % 3 else GAME.from_text("x6/7/7/3o3/7/7/6o x 0 1")
        while True:
            ref = ref_from_state(state)
            legal = GAME.legal_actions(state)
            expected = sorted(action_of_move(move) for move in ref_legal(ref))
            assert legal.tolist() == expected, GAME.to_text(state)
            mask = np.ones(PASS + 1, np.bool_)  # the whole-row mask, over a stale row
            k.legal_mask(state, mask)
            assert np.flatnonzero(mask).tolist() == expected, GAME.to_text(state)
            for player in (0, 1):
                planes = ref_planes(ref, player)
                assert np.array_equal(GAME.observation(state, player), planes)
                k.observation_planes(state, player, strided[:, :, ::2])
                assert np.array_equal(strided[:, :, ::2], planes)
            if len(legal) == 0:
                break
            state = GAME.apply(state, int(rng.choice(legal)))


def test_jump_tables_match_the_documented_encoding():
    for origin, (row, col) in enumerate(COORDS):
        for target, (to_row, to_col) in enumerate(COORDS):
            expected = -1
            if distance((row, col), (to_row, to_col)) == 2:
                expected = action_of_move(("jump", (row, col), (to_row, to_col)))
            assert k.JUMP_ACTIONS[origin * 64 + target] == expected
    assert k.JUMP_MASKS_PADDED[k.lowest_square(0)] == 0
    rng = np.random.default_rng(3)
    for density in (0.05, 0.3, 0.7, 0.95):
        for _ in range(50):
            empty = {sq for sq in COORDS if rng.random() < density}
            bits = sum(1 << COORDS.index(sq) for sq in empty)
            origins = {sq for sq in COORDS if any(distance(sq, e) == 2 for e in empty)}
            assert k.jump_origins(bits) == sum(1 << COORDS.index(sq) for sq in origins)


def test_play_action_equals_play_with_the_decoded_squares_for_every_action():
    # play_action's branch-free copy/jump against play (one branch per kind), for all 834
    # actions, legal or not (occupied targets, foreign origins), so no state ever differs.
    rng = np.random.default_rng(8)
    for _ in range(40):
        state = GAME.initial_state()
        for _ in range(int(rng.integers(0, 120))):
            legal = GAME.legal_actions(state)
            if len(legal) == 0:
                break
            state = GAME.apply(state, int(rng.choice(legal)))
        state[k.STATUS] = k.ONGOING
        state[k.HALFMOVE] = rng.integers(0, 99)
        for action in range(k.NUM_ACTIONS):
            fast, slow = state.copy(), state.copy()
            k.play_action(fast, action)
            move = move_of_action(action)
            if move[0] == "copy":
                k.play(slow, -1, action)
            elif move[0] == "jump" and all(0 <= x < 7 for x in move[2]):
                k.play(slow, COORDS.index(move[1]), COORDS.index(move[2]))
            else:
                k.play(slow, -1, -1)
            assert fast.tolist() == slow.tolist(), (GAME.to_text(state), action)


def test_compiled_random_actions_are_legal_and_uniform():
    state = GAME.from_text("x5o/7/2x4/7/4o2/7/o5x x 0 1")
    legal = set(GAME.legal_actions(state).tolist())
    rng = make_rng(3)
    draws = [int(k.random_action(state, rng)) for _ in range(len(legal) * 200)]
    counts = np.bincount(draws, minlength=834)
    assert set(np.flatnonzero(counts).tolist()) == legal
    # each of the n actions is drawn 200 times on average; allow a wide, seed-fixed margin
    assert counts[list(legal)].min() > 120 and counts.max() < 290


def test_compiled_playouts_end_in_positions_the_reference_calls_over():
    for seed in range(20):
        final = GAME.random_playout(GAME.initial_state(), seed)
        ref = ref_from_state(final)
        result = ref_result(ref)
        assert result is not None and GAME.current_player(final) == TERMINAL
        expected = {"x": [1.0, -1.0], "o": [-1.0, 1.0], "draw": [0.0, 0.0]}[result]
        assert GAME.returns(final).tolist() == expected


# -- text records -----------------------------------------------------------------------------
def test_start_position_and_fen_round_trip():
    start = GAME.initial_state()
    assert GAME.to_text(start) == START
    np.testing.assert_array_equal(GAME.from_text(START), start)
    for fen in [
        "x5o/7/7/7/7/7/o5x x 0 1",
        "7/7/7/7/7/7/7 o 12 7",
        "xxxxxxx/ooooooo/xxxxxxx/ooooooo/xxxxxxx/ooooooo/xxxxxxx o 0 99",
        "1x1o1x1/7/3x3/o6/6o/2xo3/x5o o 100 451",
    ]:
        assert GAME.to_text(GAME.from_text(fen)) == fen
    rng = np.random.default_rng(0)
    state = start
    for _ in range(60):
        state = GAME.apply(state, int(rng.choice(GAME.legal_actions(state))))
        np.testing.assert_array_equal(GAME.from_text(GAME.to_text(state)), state)


@pytest.mark.parametrize(
    ("fen", "message"),
    [
        ("x5o/7/7/7/7/o5x x 0 1", "6 ranks"),
        ("x5o/7/7/7/7/7/7/o5x x 0 1", "8 ranks"),
        ("x5o/7/7/7/7/7/o4x x 0 1", "covers 6 squares"),
        ("x6o/7/7/7/7/7/o5x x 0 1", "covers 8 squares"),
        ("x5o/8/7/7/7/7/o5x x 0 1", "bad character '8'"),
        ("x5o/7/7/3X3/7/7/o5x x 0 1", "bad character 'X'"),
        ("x5o/7/7/3p3/7/7/o5x x 0 1", "bad character 'p'"),
        ("x5o/7/7/3-3/7/7/o5x x 0 1", "blocked square"),
        ("x5o/7/7/34/7/7/o5x x 0 1", "two digits"),
        ("x5o/7/7/7/7/7/o5x b 0 1", "side to move"),
        ("x5o/7/7/7/7/7/o5x X 0 1", "side to move"),
        ("x5o/7/7/7/7/7/o5x x -1 1", "negative"),
        ("x5o/7/7/7/7/7/o5x x 0 -3", "negative"),
        ("x5o/7/7/7/7/7/o5x x 1.5 1", "not a non-negative integer"),
        ("x5o/7/7/7/7/7/o5x x zero 1", "not a non-negative integer"),
        ("x5o/7/7/7/7/7/o5x x 0 0", "at least 1"),
        ("x5o/7/7/7/7/7/o5x x 0 99999999999", "above"),
        ("x5o/7/7/7/7/7/o5x x 0", "3 space-separated fields"),
        ("x5o/7/7/7/7/7/o5x", "1 space-separated fields"),
    ],
)
def test_malformed_fen_raises_a_clear_error(fen, message):
    with pytest.raises(InvalidRecordError, match=message) as error:
        GAME.from_text(fen)
    assert "ataxx" in str(error.value) and "expected" in str(error.value)


def test_uai_strings_round_trip_and_name_the_encoding():
    start = GAME.initial_state()
    assert GAME.uai_to_move(start, "b6") == 8
    assert GAME.uai_to_move(start, "a7c5") == 49 + 0 * 16 + 15
    assert GAME.uai_to_move(start, "g1e3") == 49 + 48 * 16 + 0
    assert GAME.uai_to_move(start, "a7b6") == 8, "a copy written with its origin"
    assert GAME.move_to_uai(start, 8) == "b6"
    assert GAME.action_to_string(start, 64) == "a7c5"
    rng = np.random.default_rng(1)
    state = start
    while GAME.current_player(state) != TERMINAL:
        legal = GAME.legal_actions(state)
        for action in legal:
            text = GAME.move_to_uai(state, int(action))
            assert GAME.uai_to_move(state, text) == action
            move = move_of_action(int(action))
            names = (
                ["0000"]
                if move[0] == "pass"
                else ["abcdefg"[col] + str(7 - row) for row, col in move[1:]]
            )
            assert text == "".join(names)
        state = GAME.apply(state, int(rng.choice(legal)))


@pytest.mark.parametrize(
    ("text", "error", "message"),
    [
        ("h1", InvalidRecordError, "not a UAI move"),
        ("a8", InvalidRecordError, "not a UAI move"),
        ("B6", InvalidRecordError, "not a UAI move"),
        ("a7a4", InvalidRecordError, "3 apart"),
        ("a7a7", InvalidRecordError, "0 apart"),
        ("", InvalidRecordError, "not a UAI move"),
        (8, InvalidRecordError, "str"),
        ("d4", IllegalActionError, "illegal move 'd4'"),
        ("0000", IllegalActionError, "illegal move '0000'"),
        ("c7a7", IllegalActionError, "illegal move"),
        ("g7f6", IllegalActionError, "no stone of the side to move"),
    ],
)
def test_bad_uai_strings_raise_clear_errors(text, error, message):
    with pytest.raises(error, match=message):
        GAME.uai_to_move(GAME.initial_state(), text)


def test_move_to_uai_rejects_illegal_actions():
    with pytest.raises(IllegalActionError, match="outside the action space"):
        GAME.move_to_uai(GAME.initial_state(), 834)
    with pytest.raises(IllegalActionError, match="not legal"):
        GAME.move_to_uai(GAME.initial_state(), 24)


# -- observation, score, heuristic, env -------------------------------------------------------
def test_observation_planes_from_each_side():
    state = GAME.from_text("xoo4/ooo4/ooo4/7/7/7/6x x 0 1")
    for player in (0, 1):
        planes = GAME.observation(state, player)
        ref = ref_from_state(state)
        reach = {move[-1] for move in ref_moves_of(ref, player)}
        for row, col in COORDS:
            assert planes[row, col, 0] == ((row, col) in ref.stones[player])
            assert planes[row, col, 1] == ((row, col) in ref.stones[1 - player])
            assert planes[row, col, 2] == ((row, col) not in ref.stones[0] | ref.stones[1])
            assert planes[row, col, 3] == ((row, col) in reach)
    reach_plane = GAME.observation(state, 0)[:, :, 3]
    assert reach_plane[0, 0] == 0 and reach_plane.sum() == 8
    # the word-store fast path writes only a writable int8[7, 7, 4]
    wrong = np.zeros((8, 8, 8), np.int8)
    with pytest.raises(ValueError, match=r"int8\[7, 7, 4\]"):
        k.observation_planes(state, 0, wrong)
    assert not wrong.any()
    read_only = np.zeros((7, 7, 4), np.int8)
    read_only.flags.writeable = False
    with pytest.raises(TypingError):
        k.observation_planes(state, 0, read_only)
    assert not read_only.any()


def test_score_and_heuristic_are_stone_shares():
    state = GAME.from_text("xoo4/ooo4/ooo4/7/7/7/6x x 0 1")
    assert GAME.score(state).tolist() == pytest.approx([2 / 10, 8 / 10])
    assert GAME.heuristic(state, 0) == pytest.approx(0.2)
    assert GAME.heuristic(state, 1) == pytest.approx(0.8)
    drawn = GAME.from_text("x5o/7/7/7/7/7/o5x x 100 60")
    assert GAME.heuristic(drawn, 0) == 0.5 and GAME.score(drawn).tolist() == [0.5, 0.5]
    won = GAME.from_text("xx5/x6/7/7/7/7/7 o 0 3")
    assert GAME.heuristic(won, 0) == 1.0 and GAME.heuristic(won, 1) == 0.0


def test_env_plays_renders_and_reports_the_clock():
    env = ataxx_v0.env(render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert "a b c d e f g" in text and "\n7 | x . . . . . o | 7\n" in text
    env.step(GAME.uai_to_move(env.unwrapped.game_state, "a7c5"))
    assert env.infos["player_1"] == {"stones": (2, 2), "halfmove_clock": 1}
    picture_env = ataxx_v0.env(render_mode="rgb_array")
    picture_env.reset(seed=0)
    picture = picture_env.render()
    assert picture.dtype == np.uint8 and picture.ndim == 3 and picture.shape[2] == 3
    picture_env.close()
