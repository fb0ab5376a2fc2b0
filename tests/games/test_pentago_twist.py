"""Pentago Twist against a slow pure-Python reference, hand-made positions and text records.

The reference below works on 2-D lists with an explicit rotation or flip of a 3x3 sub-grid and a
cell-by-cell search for five in a row; it shares no code with the bitboard kernels.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

import mcts_envs
from mcts_envs import InvalidRecordError
from mcts_envs.core.game import TERMINAL
from mcts_envs.core.seeding import make_rng, rng_below
from mcts_envs.games.pentago_twist import kernels as k
from mcts_envs.games.pentago_twist.game import PentagoTwist, make_action, split_action
from mcts_envs.games.pentago_twist.svg import CELL, GAP, MARGIN, QUADRANT_FILL, STATUS

EMPTY_TEXT = "....../....../....../....../....../...... w"

# --- the slow reference ----------------------------------------------------------------------
# A position is (board, mover, status): board a 6x6 list of lists of 0 (empty), 1 (white), 2
# (black); mover 0 or 1; status "ongoing", "white", "black" or "draw".


def ref_initial():
    return [[0] * 6 for _ in range(6)], 0, "ongoing"


def ref_has_five(board, colour):
    if sum(row.count(colour) for row in board) < 5:
        return False
    for row in range(6):
        for col in range(6):
            for d_row, d_col in ((0, 1), (1, 0), (1, 1), (1, -1)):
                run = 0
                r, c = row, col
                while 0 <= r < 6 and 0 <= c < 6 and board[r][c] == colour:
                    run += 1
                    r, c = r + d_row, c + d_col
                if run >= 5:
                    return True
    return False


def ref_legal(position):
    board, _, status = position
    if status != "ongoing":
        return []
    actions = []
    for row in range(6):
        for col in range(6):
            if board[row][col] == 0:
                for quadrant in range(4):
                    for op in range(2):
                        actions.append((row * 6 + col) * 8 + quadrant * 2 + op)
    return actions


def ref_apply(position, action):
    board, mover, _ = position
    board = [row[:] for row in board]
    cell, quadrant, op = action // 8, (action // 2) % 4, action % 2
    board[cell // 6][cell % 6] = mover + 1
    top, left = 3 * (quadrant // 2), 3 * (quadrant % 2)
    sub = [[board[top + i][left + j] for j in range(3)] for i in range(3)]
    if op == 0:  # rotate clockwise: the top row becomes the right column
        new = [[sub[2 - j][i] for j in range(3)] for i in range(3)]
    else:  # flip left-right: each row reversed
        new = [[sub[i][2 - j] for j in range(3)] for i in range(3)]
    for i in range(3):
        for j in range(3):
            board[top + i][left + j] = new[i][j]
    white, black = ref_has_five(board, 1), ref_has_five(board, 2)
    if white and black:
        status = "draw"
    elif white:
        status = "white"
    elif black:
        status = "black"
    elif all(all(row) for row in board):
        status = "draw"
    else:
        status = "ongoing"
    return board, 1 - mover, status


def ref_key(position):
    board, mover, status = position
    return tuple(tuple(row) for row in board), mover, status


def model_key(game, state):
    status = {k.ONGOING: "ongoing", k.WHITE_WON: "white", k.BLACK_WON: "black", k.DRAW: "draw"}
    board = game.board(state)
    return tuple(tuple(int(v) for v in row) for row in board), int(state[2]), status[int(state[3])]


def ref_from_text(text):
    rows, side = text.split()
    board = [[".wb".index(ch) for ch in row] for row in rows.split("/")]
    return board, "wb".index(side), "ongoing"


@pytest.fixture(scope="module")
def game():
    return PentagoTwist()


# --- perft -----------------------------------------------------------------------------------


def perft_layers(game, state, position, depth):
    """Perft merging transpositions, in the model and in the reference, layer by layer.

    Yields, per depth, ``(model_counts, reference_counts)``: each maps a distinct position (as
    :func:`ref_key`) to the number of move sequences reaching it; their values sum to the perft
    number. Terminal positions have no legal action, so they contribute nothing deeper.
    """
    model = {state.tobytes(): (state, 1)}
    reference = {ref_key(position): (position, 1)}
    for _ in range(depth):
        model_next: dict[bytes, tuple[np.ndarray, int]] = {}
        for parent, paths in model.values():
            for action in game.legal_actions(parent):
                child = game.apply_unchecked(parent, int(action))
                key = child.tobytes()
                previous = model_next.get(key)
                model_next[key] = (child, paths + (previous[1] if previous else 0))
        reference_next: dict[tuple, tuple] = {}
        for parent, paths in reference.values():
            for action in ref_legal(parent):
                child = ref_apply(parent, action)
                key = ref_key(child)
                previous = reference_next.get(key)
                reference_next[key] = (child, paths + (previous[1] if previous else 0))
        model, reference = model_next, reference_next
        yield (
            {model_key(game, child): paths for child, paths in model.values()},
            {key: paths for key, (_, paths) in reference.items()},
        )


def test_perft_to_depth_3_matches_reference_position_by_position(game):
    """Every distinct position at each depth is reached by as many move sequences in the model
    as in the reference, and the perft numbers are 288, 288 * 280, 288 * 280 * 272."""
    expected_totals = [288, 288 * 280, 288 * 280 * 272]
    layers = perft_layers(game, game.initial_state(), ref_initial(), 3)
    for depth, (model_counts, reference_counts) in enumerate(layers):
        assert model_counts == reference_counts, f"depth {depth + 1}"
        assert sum(model_counts.values()) == expected_totals[depth]
    assert len(model_counts) > 5000  # distinct positions after 3 plies: the merge is not trivial


def test_perft_from_a_tactical_position_with_terminal_children(game):
    """Depth 2 from a position where many moves end the game (wins, losses, draws by both five).

    From the empty board a rotation's direction cannot show in perft (the whole game mirrored
    gives the same counts); here it does, and terminal children must stop the count.
    """
    text = "wwww../.w..../....../bbb.../...b../...b.. w"
    layers = list(perft_layers(game, game.from_text(text), ref_from_text(text), 2))
    for model_counts, reference_counts in layers:
        assert model_counts == reference_counts
    statuses = Counter(key[2] for key in layers[0][0])
    assert statuses["white"] and statuses["black"] and statuses["draw"] and statuses["ongoing"]
    assert sum(layers[0][0].values()) == 8 * 26


def test_random_games_agree_with_reference_move_by_move(game):
    """Legal lists in order and the whole-row legal mask (``legal_mask``, what VectorGame's mask
    rows come from), against the reference, in every position of 150 random games."""
    rng = np.random.default_rng(2024)
    outcomes = Counter()
    mask = np.ones(k.NUM_ACTIONS, np.bool_)  # stale entries must be overwritten
    for _ in range(150):
        state, position = game.initial_state(), ref_initial()
        while True:
            assert model_key(game, state) == ref_key(position)
            legal = game.legal_actions(state)
            assert legal.tolist() == ref_legal(position)
            k.legal_mask(state, mask)
            assert np.flatnonzero(mask).tolist() == ref_legal(position)
            if game.current_player(state) == TERMINAL:
                break
            action = int(legal[rng.integers(len(legal))])
            state, position = game.apply(state, action), ref_apply(position, action)
        outcomes[position[2]] += 1
    assert outcomes["white"] > 0 and outcomes["black"] > 0


def test_compiled_playout_plays_the_documented_uniform_choice(game):
    for seed in range(20):
        final = game.random_playout(game.initial_state(), seed)
        rng = make_rng(seed)
        state = game.initial_state()
        while game.current_player(state) != TERMINAL:
            legal = game.legal_actions(state)
            state = game.apply(state, int(legal[rng_below(rng, len(legal))]))
        np.testing.assert_array_equal(final, state)


def test_random_action_is_the_documented_uniform_choice(game):
    # random_action (VectorGame's draws) picks what indexing the listed legal actions picks
    play, listed = make_rng(3), make_rng(8)
    drawn, expected = make_rng(8), []
    state = game.initial_state()
    choices = 0
    while game.current_player(state) != TERMINAL:
        legal = game.legal_actions(state)
        for _ in range(5):
            choice = int(k.random_action(state, drawn))
            assert choice == int(legal[rng_below(listed, len(legal))])
            expected.append(choice)
            choices += 1
        state = game.apply(state, int(legal[rng_below(play, len(legal))]))
    assert choices >= 5 * 9 and len(set(expected)) > 20  # a game lasts 9 moves or more


# --- tables ----------------------------------------------------------------------------------


def test_transform_tables_rotate_clockwise_and_flip_left_right():
    corner = 1 << 0  # top-left cell of quadrant 0
    assert k.transform_bits(corner, 0) == 1 << 2  # rotate: top-left -> top-right
    assert k.transform_bits(1 << 2, 0) == 1 << 14  # top-right -> bottom-right (row 2, col 2)
    assert k.transform_bits(corner, 1) == 1 << 2  # flip: top-left -> top-right
    assert k.transform_bits(1 << 12, 1) == 1 << 14  # flip keeps rows: bottom-left -> bottom-right
    assert k.transform_bits(1 << 7, 0) == 1 << 7  # the centre stays
    rng = np.random.default_rng(0)
    for bits in rng.integers(0, 1 << 36, size=200):
        bits = int(bits)
        for quadrant in range(4):
            rotated = bits
            for _ in range(4):
                rotated = int(k.transform_bits(rotated, quadrant * 2))
            assert rotated == bits
            flipped = int(
                k.transform_bits(int(k.transform_bits(bits, quadrant * 2 + 1)), quadrant * 2 + 1)
            )
            assert flipped == bits
            other = ~int(k.QUADRANT_MASKS[quadrant]) & k.FULL_BOARD
            assert int(k.transform_bits(bits, quadrant * 2)) & other == bits & other


def test_five_detection_matches_line_masks_and_reference():
    assert len(k.LINES) == 32 and all(bin(int(line)).count("1") == 5 for line in k.LINES)
    rng = np.random.default_rng(1)
    for _ in range(2000):
        density = rng.uniform(0.3, 0.9)
        cells = rng.random(36) < density
        bits = sum(1 << i for i in range(36) if cells[i])
        by_lines = any(bits & int(line) == int(line) for line in k.LINES)
        board = [[int(cells[r * 6 + c]) for c in range(6)] for r in range(6)]
        assert bool(k.has_five(bits)) == by_lines == ref_has_five(board, 1)


def test_lookup_tables_and_bit_helpers():
    for cell in range(36):
        assert k.CELL_ACTIONS[cell].tolist() == [
            make_action(cell // 6, cell % 6, q, op) for q in range(4) for op in range(2)
        ]
    rng = np.random.default_rng(3)
    for bits in [k.FULL_BOARD, 1, 1 << 35, *rng.integers(1, 1 << 36, size=300).tolist()]:
        cells = [cell for cell in range(36) if (bits >> cell) & 1]
        assert [k.nth_bit(bits, n) for n in range(len(cells))] == [1 << cell for cell in cells]
    for own in range(16):
        for other in range(16):
            expected = [[(own >> i) & 1, (other >> i) & 1] for i in range(4)]
            assert k.PLANE_BYTES[own, other].reshape(4, 2).tolist() == expected


def test_observations_match_the_reference_board_in_random_games(game):
    """Every position of random games, from both players' views, against a cell-by-cell reading
    of the reference's 2-D board (and the planes are written whatever ``out`` held before)."""
    rng = np.random.default_rng(7)
    out = np.empty((6, 6, 2), np.int8)
    for _ in range(60):
        state, position = game.initial_state(), ref_initial()
        while True:
            for player in (0, 1):
                expected = np.zeros((6, 6, 2), np.int8)
                for row in range(6):
                    for col in range(6):
                        owner = position[0][row][col]
                        if owner:
                            expected[row, col, 0 if owner == player + 1 else 1] = 1
                np.testing.assert_array_equal(game.observation(state, player), expected)
                out.fill(rng.integers(-128, 128))
                k.observation_planes(state, player, out)
                np.testing.assert_array_equal(out, expected)
                # a strided view (6, 6, 2), and an array of another shape: entries past the
                # planes are left alone
                wide = np.full((6, 6, 4), 9, np.int8)
                k.observation_planes(state, player, wide[:, :, 1:3])
                np.testing.assert_array_equal(wide[:, :, 1:3], expected)
                assert (wide[:, :, 0] == 9).all() and (wide[:, :, 3] == 9).all()
                tall = np.full((6, 6, 3), 9, np.int8)
                k.observation_planes(state, player, tall)
                np.testing.assert_array_equal(tall[:, :, :2], expected)
                assert (tall[:, :, 2] == 9).all()
            if game.current_player(state) == TERMINAL:
                break
            legal = game.legal_actions(state)
            action = int(legal[rng.integers(len(legal))])
            state, position = game.apply(state, action), ref_apply(position, action)


# --- hand-made positions ---------------------------------------------------------------------


def play(game, text, action):
    state = game.from_text(text)
    child = game.apply(state, action)
    reference = ref_apply(ref_from_text(text), action)
    assert model_key(game, child) == ref_key(reference)
    return child


def test_win_after_a_rotation(game):
    # White: row 0 cols 0-2 and r2c3; placing r1c3 then rotating quadrant 1 clockwise turns its
    # left column (r2c3, r1c3) into r0c3, r0c4: five in row 0.
    text = "www.../....../...w../.b..../....b./b.b... w"
    action = make_action(1, 3, 1, k.ROTATE)
    assert action == 74
    child = play(game, text, action)
    assert child[k.STATUS] == k.WHITE_WON
    np.testing.assert_array_equal(game.returns(child), [1.0, -1.0])
    assert game.from_text(text)[k.STATUS] == k.ONGOING
    assert play(game, text, make_action(1, 3, 1, k.FLIP))[k.STATUS] == k.ONGOING


def test_win_after_a_flip(game):
    # White: row 0 = w w w . w w after placing r0c4; flipping quadrant 1 closes the gap.
    text = "www..w/....../....../.b..../....b./b.b... w"
    child = play(game, text, make_action(0, 4, 1, k.FLIP))
    assert child[k.STATUS] == k.WHITE_WON
    assert play(game, text, make_action(0, 4, 1, k.ROTATE))[k.STATUS] == k.ONGOING
    assert play(game, text, make_action(0, 4, 3, k.FLIP))[k.STATUS] == k.ONGOING


def test_a_move_that_gives_the_opponent_five_loses(game):
    # Black: r3c0-2 and the left column of quadrant 3 (r4c3, r5c3); white plays elsewhere and
    # rotates quadrant 3, which completes black's row 3.
    text = ".w...w/w...w./..w.../bbb.../...b../...b.. w"
    child = play(game, text, make_action(0, 3, 3, k.ROTATE))
    assert child[k.STATUS] == k.BLACK_WON
    np.testing.assert_array_equal(game.returns(child), [-1.0, 1.0])
    assert game.current_player(child) == TERMINAL


def test_five_for_both_is_a_draw(game):
    # White completes row 0 by placing r0c4; rotating quadrant 3 also completes black's row 3.
    text = "wwww../.w..../....../bbb.../...b../...b.. w"
    child = play(game, text, make_action(0, 4, 3, k.ROTATE))
    assert child[k.STATUS] == k.DRAW
    np.testing.assert_array_equal(game.returns(child), [0.0, 0.0])
    np.testing.assert_array_equal(game.score(child), [0.5, 0.5])
    # the same placement with a flip of quadrant 3 leaves black without five: white wins
    assert play(game, text, make_action(0, 4, 3, k.FLIP))[k.STATUS] == k.WHITE_WON


def test_full_board_without_five_is_a_draw(game):
    text = ".wbbww/wbwwbb/wbwbww/bbwwbb/wwbbww/bbwwbb b"
    state = game.from_text(text)
    assert game.legal_actions(state).tolist() == list(range(8))
    child = play(game, text, make_action(0, 0, 0, k.ROTATE))
    assert child[k.STATUS] == k.DRAW
    assert (int(child[0]) | int(child[1])) == k.FULL_BOARD
    assert game.to_text(child) == "wwbbww/bbwwbb/wwbbww/bbwwbb/wwbbww/bbwwbb w"
    assert len(game.legal_actions(child)) == 0


# --- text records ----------------------------------------------------------------------------


def test_text_round_trip_and_side_to_move(game):
    state = game.initial_state()
    assert game.to_text(state) == EMPTY_TEXT
    np.testing.assert_array_equal(game.from_text(EMPTY_TEXT), state)
    state = game.apply(state, make_action(1, 4, 3, k.FLIP))  # the game card's worked example: 87
    assert make_action(1, 4, 3, k.FLIP) == 87 and split_action(87) == (1, 4, 3, 1)
    assert game.to_text(state) == "....../....w./....../....../....../...... b"
    for seed in range(10):
        final = game.random_playout(game.initial_state(), seed)
        np.testing.assert_array_equal(game.from_text(game.to_text(final)), final)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("....../....../....../....../...... w", "rows"),
        ("....../....../....../....../....../....... w", "characters"),
        ("....../....../....../....../....../.....x w", "bad character"),
        (EMPTY_TEXT.replace(" w", " x"), "side"),
        (EMPTY_TEXT.replace(" w", ""), "fields"),
        ("w...../....../....../....../....../...... w", "side to move"),
        ("b...../....../....../....../....../...... b", "cannot happen"),
        ("ww..../....../....../....../....../...... b", "cannot happen"),
        (b"....../....../....../....../....../...... w", "str"),
    ],
)
def test_malformed_text_raises_a_clear_error(game, text, problem):
    with pytest.raises(InvalidRecordError, match=problem) as error:
        game.from_text(text)
    assert "pentago_twist" in str(error.value) and "w/b/." in str(error.value)


# --- heuristic, observation, env -------------------------------------------------------------


def test_heuristic_is_complementary_and_prefers_open_lines(game):
    for seed in range(5):
        state = game.initial_state()
        rng = np.random.default_rng(seed)
        while game.current_player(state) != TERMINAL:
            own, other = game.heuristic(state, 0), game.heuristic(state, 1)
            assert 0.0 < own < 1.0 and own + other == pytest.approx(1.0)
            legal = game.legal_actions(state)
            state = game.apply(state, int(legal[rng.integers(len(legal))]))
        expected = (game.returns(state) + 1.0) / 2.0
        assert [game.heuristic(state, p) for p in (0, 1)] == expected.tolist()
    strong = game.from_text("wwww../....../....../....../....../bbbb.. w")
    assert game.heuristic(strong, 0) == pytest.approx(0.5)
    weak = game.from_text("wwww../....../....../....../b...../.b.b.b w")
    assert game.heuristic(weak, 0) > 0.5 > game.heuristic(weak, 1)


def test_observation_is_from_the_observers_view(game):
    state = game.from_text("w...../....../....../....../....../.....b w")
    white_view, black_view = game.observation(state, 0), game.observation(state, 1)
    assert white_view.shape == (6, 6, 2) and white_view.dtype == np.int8
    assert white_view[0, 0, 0] == 1 and white_view[5, 5, 1] == 1 and white_view.sum() == 2
    np.testing.assert_array_equal(black_view, white_view[:, :, ::-1])


def test_env_plays_renders_and_separates_quadrants():
    env = mcts_envs.make("pentago_twist_v0", render_mode="ansi")
    env.reset(seed=0)
    assert env.action_space("player_0").n == 288
    assert env.observe("player_0")["action_mask"].sum() == 288
    env.step(87)
    text = env.render()
    lines = text.splitlines()
    assert lines[3] == "5 | . . . | . W . | 5" and lines[5] == "  +-------+-------+"
    assert lines[-1] == "to move: black"
    picture_env = mcts_envs.make("pentago_twist_v0", render_mode="rgb_array")
    picture_env.reset(seed=0)
    picture = picture_env.render()
    assert picture.dtype == np.uint8 and picture.ndim == 3 and picture.shape[2] == 3
    # the gap between the quadrants shows the background colour through the middle of the board
    board_pixels = 2 * MARGIN + 6 * CELL + GAP  # the SVG board's square, the status below
    assert picture.shape == (board_pixels + STATUS, board_pixels, 3)
    background = [0xEB, 0xE6, 0xDC]
    middle_column = picture[:board_pixels, board_pixels // 2, :]
    middle_row = picture[board_pixels // 2, :, :]
    assert (middle_column == background).all() and (middle_row == background).all()
    quadrant_colour = [int(QUADRANT_FILL[i : i + 2], 16) for i in (1, 3, 5)]
    assert (picture[:board_pixels, :board_pixels] == quadrant_colour).all(axis=2).mean() > 0.2
    picture_env.close()
