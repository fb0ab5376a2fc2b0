"""Ultimate Tic-Tac-Toe against a slow, obviously correct pure-Python reference (docs/RULES.md 2)."""

from __future__ import annotations

import numpy as np
import pytest

from mcts_envs import TERMINAL, InvalidRecordError, make_game

GAME = make_game("ultimate_tictactoe")

# ---- reference: a position is (cells, target, player); cells[b][c] in {0 empty, 1 X, 2 O} ----
LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


def line_owner(marks):
    """1 or 2 if that player has three in a row in the nine ``marks``, else 0."""
    for a, b, c in LINES:
        if marks[a] != 0 and marks[a] == marks[b] == marks[c]:
            return marks[a]
    return 0


def board_status(cells, board):
    """'X', 'O', 'full' or 'open' for a local board."""
    owner = line_owner(cells[board])
    if owner:
        return "XO"[owner - 1]
    return "full" if all(cells[board]) else "open"


def reference_result(cells):
    """'X', 'O', 'draw' or None (game goes on)."""
    won = [{"X": 1, "O": 2}.get(board_status(cells, b), 0) for b in range(9)]
    owner = line_owner(won)
    if owner:
        return "XO"[owner - 1]
    if all(board_status(cells, b) != "open" for b in range(9)):
        return "draw"
    return None


def reference_moves(position):
    cells, target, _player = position
    if reference_result(cells) is not None:
        return []
    boards = [target] if target is not None and board_status(cells, target) == "open" else range(9)
    return [
        b * 9 + c
        for b in boards
        if board_status(cells, b) == "open"
        for c in range(9)
        if cells[b][c] == 0
    ]


def reference_play(position, move):
    cells, _target, player = position
    board, cell = divmod(move, 9)
    cells = [list(row) for row in cells]
    cells[board][cell] = player
    return (cells, cell, 3 - player)


def reference_start():
    return ([[0] * 9 for _ in range(9)], None, 1)


def reference_perft(position, depth):
    if depth == 0:
        return 1
    return sum(
        reference_perft(reference_play(position, m), depth - 1) for m in reference_moves(position)
    )


def perft(state, depth):
    """Number of action sequences of length ``depth`` (through the forward model)."""
    if depth == 0:
        return 1
    return sum(perft(GAME.apply(state, int(a)), depth - 1) for a in GAME.legal_actions(state))


@pytest.mark.parametrize("depth", [1, 2, 3, 4])
def test_perft_from_the_empty_board_matches_the_reference(depth):
    expected = reference_perft(reference_start(), depth)
    assert perft(GAME.initial_state(), depth) == expected
    if depth == 1:
        assert expected == 81
    if depth == 2:
        assert (
            expected == 81 * 9 - 9
        )  # sent to board c: 9 empty cells, 8 when c is the board played


def test_random_games_agree_with_the_reference_move_by_move():
    rng = np.random.default_rng(0)
    for _ in range(40):
        state, position = GAME.initial_state(), reference_start()
        while True:
            legal = GAME.legal_actions(state).tolist()
            assert legal == reference_moves(position)
            if not legal:
                break
            move = int(rng.choice(legal))
            state, position = GAME.apply(state, move), reference_play(position, move)
        result = reference_result(position[0])
        returns = GAME.returns(state)
        assert GAME.current_player(state) == TERMINAL
        assert {"X": (1, -1), "O": (-1, 1), "draw": (0, 0)}[result] == tuple(returns)


def from_boards(boards, side, target):
    """A state from nine local boards, each 9 characters row-major (converted to the text grid)."""
    boards = boards + ["........."] * (9 - len(boards))
    grid = [["."] * 9 for _ in range(9)]
    for board, marks in enumerate(boards):
        for cell, char in enumerate(marks):
            grid[(board // 3) * 3 + cell // 3][(board % 3) * 3 + cell % 3] = char
    return GAME.from_text("/".join("".join(row) for row in grid) + f" {side} {target}")


def test_sent_to_a_won_board_plays_anywhere_open():
    # Board 0 won by X (top row), two O marks in board 1; O may play in any open board.
    state = from_boards(["xxx......", "oo......."], "o", "-")
    legal = GAME.legal_actions(state)
    assert not any(a // 9 == 0 for a in legal)
    assert len(legal) == 81 - 9 - 2
    after = GAME.apply(state, 1 * 9 + 3)  # O: board 1, cell 3 -> X is sent to board 3
    assert {a // 9 for a in GAME.legal_actions(after)} == {3}
    after = GAME.apply(after, 3 * 9 + 0)  # X: board 3, cell 0 -> O is sent to board 0 (won)
    assert {a // 9 for a in GAME.legal_actions(after)} == set(range(1, 9))


def test_sent_to_a_full_drawn_board_plays_anywhere_and_the_draw_belongs_to_nobody():
    # Board 0 full without a line (drawn), boards 1 and 2 won by X: the top row is no global line.
    boards = [
        "xoxxoooxx",
        "xxx......",
        "xxx......",
        ".........",
        ".........",
        ".........",
        "oo.oo....",
        "o.o......",
        "o........",
    ]
    state = from_boards(boards, "x", "-")
    assert GAME.board_owners(state).tolist()[:3] == [3, 1, 1]
    assert GAME.current_player(state) == 0, "a drawn board does not complete X's top row"
    legal = GAME.legal_actions(state)
    assert {a // 9 for a in legal} == {3, 4, 5, 6, 7, 8}
    assert len(legal) == 27 + 5 + 7 + 8
    after = GAME.apply(state, 3 * 9 + 0)  # X: board 3, cell 0 -> O is sent to board 0 (full)
    assert {a // 9 for a in GAME.legal_actions(after)} == {3, 4, 5, 6, 7, 8}


def test_three_won_boards_in_a_row_win_the_game():
    state = from_boards(["xxx......", "xxx......", "xx.......", "oo.oo....", "oo.oo...."], "x", 2)
    legal = GAME.legal_actions(state)
    assert {a // 9 for a in legal} == {2}
    winners = [int(a) for a in legal if GAME.is_terminal(GAME.apply(state, int(a)))]
    assert winners == [2 * 9 + 2]
    assert tuple(GAME.returns(GAME.apply(state, 20))) == (1.0, -1.0)


def test_random_games_include_draws_that_the_reference_confirms():
    results = []
    for seed in range(60):
        final = GAME.random_playout(GAME.initial_state(), seed)
        results.append(tuple(GAME.returns(final)))
        if results[-1] == (0.0, 0.0):
            cells = [[0] * 9 for _ in range(9)]
            for board in range(9):
                for cell in range(9):
                    if (int(final[board]) >> cell) & 1:
                        cells[board][cell] = 1
                    elif (int(final[9 + board]) >> cell) & 1:
                        cells[board][cell] = 2
            assert reference_result(cells) == "draw"
    assert (0.0, 0.0) in results and (1.0, -1.0) in results and (-1.0, 1.0) in results


@pytest.mark.parametrize(
    "text, problem",
    [
        (". x -", "9 rows"),
        ("........./" * 8 + "........q x -", "bad character"),
        ("........./" * 8 + "......... y -", "side"),
        ("........./" * 8 + "......... x 9", "target"),
        ("x......../" * 8 + "x........ o -", "cannot happen"),
    ],
)
def test_malformed_records_are_rejected(text, problem):
    with pytest.raises(InvalidRecordError, match=problem):
        GAME.from_text(text)


def test_compiled_playout_plays_the_kth_legal_action_of_its_generator():
    from mcts_envs.core.seeding import make_rng, rng_below

    for seed in range(25):
        rng = make_rng(seed)
        state = GAME.initial_state()
        while not GAME.is_terminal(state):
            legal = GAME.legal_actions(state)
            state = GAME.apply(state, int(legal[rng_below(rng, len(legal))]))
        np.testing.assert_array_equal(GAME.random_playout(GAME.initial_state(), seed), state)


def reference_planes(position, viewer):
    """The ``[9, 9, 5]`` observation of ``viewer`` (0 or 1) from the reference position."""
    cells, _target, _player = position
    planes = np.zeros((9, 9, 5), np.int8)
    legal = set(reference_moves(position))
    for board in range(9):
        status = board_status(cells, board)
        for cell in range(9):
            row, col = (board // 3) * 3 + cell // 3, (board % 3) * 3 + cell % 3
            planes[row, col, 0] = cells[board][cell] == viewer + 1
            planes[row, col, 1] = cells[board][cell] == 2 - viewer
            planes[row, col, 2] = status == "XO"[viewer]
            planes[row, col, 3] = status == "XO"[1 - viewer]
            planes[row, col, 4] = board * 9 + cell in legal
    return planes


def test_observations_agree_with_the_reference_for_both_viewers():
    rng = np.random.default_rng(3)
    for _ in range(6):
        state, position = GAME.initial_state(), reference_start()
        while True:
            for viewer in (0, 1):
                np.testing.assert_array_equal(
                    GAME.observation(state, viewer), reference_planes(position, viewer)
                )
            legal = GAME.legal_actions(state)
            if len(legal) == 0:
                break
            move = int(rng.choice(legal))
            state, position = GAME.apply(state, move), reference_play(position, move)


def reference_state(position, plies):
    """The kernels' ``int64[25]`` state words derived from a reference position alone."""
    cells, target, player = position
    words = [0] * 25
    for board in range(9):
        for cell in range(9):
            if cells[board][cell]:
                words[(cells[board][cell] - 1) * 9 + board] |= 1 << cell
        status = board_status(cells, board)
        words[18] |= (status == "X") << board
        words[19] |= (status == "O") << board
        words[20] |= (status != "open") << board
    closed_target = target is None or board_status(cells, target) != "open"
    words[21] = -1 if closed_target else target
    words[22] = player - 1
    words[23] = {None: 0, "X": 1, "O": 2, "draw": 3}[reference_result(cells)]
    words[24] = plies
    return words


def test_state_words_legal_actions_and_planes_agree_with_the_reference_in_random_games():
    # Every state word after every move, the legal actions in order and both viewers' planes,
    # along 60 random games (the kernels use lookup tables; the reference uses none).
    rng = np.random.default_rng(11)
    for game_index in range(60):
        state, position = GAME.initial_state(), reference_start()
        for plies in range(82):
            assert state.tolist() == reference_state(position, plies)
            legal = GAME.legal_actions(state).tolist()
            assert legal == reference_moves(position)
            if game_index % 4 == 0:
                for viewer in (0, 1):
                    np.testing.assert_array_equal(
                        GAME.observation(state, viewer), reference_planes(position, viewer)
                    )
            if not legal:
                break
            move = int(rng.choice(legal))
            state, position = GAME.apply(state, move), reference_play(position, move)


def test_lookup_tables_match_their_definitions():
    from mcts_envs.games.ultimate_tictactoe import kernels as k

    for bits in range(512):
        empty = [c for c in range(9) if not (bits >> c) & 1]
        assert k.EMPTY_CELLS[bits] == len(empty)
        assert k.NTH_EMPTY_CELL[bits, : len(empty)].tolist() == empty
        assert k.SPREAD_3[bits] == sum(1 << (3 * b) for b in range(9) if (bits >> b) & 1)
        own, other, own_won, other_won, playable = (
            bits & 7,
            (bits >> 3) & 7,
            bits >> 6 & 1,
            bits >> 7 & 1,
            bits >> 8 & 1,
        )
        for col in range(3):
            mine, theirs = (own >> col) & 1, (other >> col) & 1
            expected = [mine, theirs, own_won, other_won, playable and not (mine or theirs)]
            assert k.ROW_PLANES[bits, 5 * col : 5 * col + 5].tolist() == expected


def test_observation_kernel_writes_only_its_view_of_a_strided_array():
    from mcts_envs.games.ultimate_tictactoe.kernels import observation_planes

    state = GAME.initial_state()
    for move in (40, 36, 4, 41, 49):
        state = GAME.apply(state, move)
    wide = np.full((9, 10, 7), 7, np.int8)
    observation_planes(state, 0, wide[:, 1:, 2:])
    np.testing.assert_array_equal(wide[:, 1:, 2:], GAME.observation(state, 0))
    assert (wide[:, 0] == 7).all() and (wide[:, :, :2] == 7).all()
    with pytest.raises(ValueError, match=r"int8\[9, 9, 5\]"):
        observation_planes(state, 0, np.zeros((9, 9, 4), np.int8))
