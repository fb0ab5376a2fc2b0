"""Move notation: every game writes and reads its moves the same way (the play command's input)."""

from __future__ import annotations

import numpy as np
import pytest

import mcts_envs
from mcts_envs.core.errors import ActionTypeError, IllegalActionError, InvalidRecordError
from mcts_envs.core.game import CHANCE, TERMINAL


@pytest.mark.parametrize("name", mcts_envs.list_games())
def test_every_legal_move_reads_back_to_itself(name):
    game = mcts_envs.make_game(name)
    rng = np.random.default_rng(7)
    state = game.initial_state()
    checked = 0
    while game.current_player(state) != TERMINAL and checked < 3000:
        if game.current_player(state) == CHANCE:
            outcomes, probabilities = game.chance_outcomes(state)
            state = game.apply(state, int(rng.choice(outcomes, p=probabilities)))
            continue
        legal = game.legal_actions(state)
        names = [game.action_to_string(state, int(a)) for a in legal]
        assert len(set(names)) == len(names), "two legal moves share a name"
        for action, text in zip(legal, names, strict=True):
            assert game.string_to_action(state, text) == action
            assert game.string_to_action(state, f"  {text.upper()} ") == action
        checked += len(legal)
        state = game.apply(state, int(rng.choice(legal)))


# Independent coordinates: (column letter, row number from the bottom) -> (row from top, column).
@pytest.mark.parametrize(
    ("text", "action"), [("b2", 4), ("a3", 0), ("c3", 2), ("a1", 6), ("c1", 8)]
)
def test_tictactoe_squares_are_chess_like(text, action):
    game = mcts_envs.make_game("tictactoe")
    assert game.string_to_action(game.initial_state(), text) == action


@pytest.mark.parametrize(
    ("text", "board", "cell"),
    [("a9", 0, 0), ("e5", 4, 4), ("i1", 8, 8), ("d6", 4, 0), ("c7", 0, 8), ("g9", 2, 0)],
)
def test_ultimate_squares_are_on_the_whole_grid(text, board, cell):
    game = mcts_envs.make_game("ultimate_tictactoe")
    assert game.string_to_action(game.initial_state(), text) == board * 9 + cell


@pytest.mark.parametrize(
    ("text", "row", "col", "quadrant", "op"),
    [
        ("c4 tl rotate", 2, 2, 0, 0),
        ("c4tlr", 2, 2, 0, 0),
        ("a6 br flip", 0, 0, 3, 1),
        ("F1 q1 F", 5, 5, 1, 1),
        ("d3 bottom-left rot", 3, 3, 2, 0),
    ],
)
def test_pentago_moves_and_abbreviations(text, row, col, quadrant, op):
    game = mcts_envs.make_game("pentago_twist")
    action = game.string_to_action(game.initial_state(), text)
    assert action == (row * 6 + col) * 8 + quadrant * 2 + op


def test_tantrix_placement_short_form_and_full_form():
    game = mcts_envs.make_game("tantrix")
    state = game.from_text(
        "colors=RY first=player_0 status=decide mover=0 phase=free last=- "
        "hands=3.9.17.22.40.51/2.5.8.30.41.44 board=0,0:56@2"
    )
    action = game.string_to_action(state, "9@4 -1,0")
    assert game.decode_action(action)[1:] == (4, 1)  # orientation 4, hand slot 1 (tile 9)
    assert game.axial_of_cell(state, game.decode_action(action)[0]) == (-1, 0)
    assert game.string_to_action(state, "#9@4 at (-1,0)") == action
    assert game.action_to_string(state, action) == "#9@4 at (-1,0)"


def test_ataxx_takes_uai_strings():
    game = mcts_envs.make_game("ataxx")
    start = game.initial_state()
    assert game.action_to_string(start, game.string_to_action(start, " A7C5 ")) == "a7c5"
    assert game.string_to_action(start, "b6") == game.uai_to_move(start, "b6")


def test_bad_moves_say_how_moves_are_written():
    game = mcts_envs.make_game("tictactoe")
    state = game.apply(game.initial_state(), 4)
    with pytest.raises(IllegalActionError, match=r"'b2' is not a legal move.*column a-c.*a3"):
        game.string_to_action(state, "b2")
    with pytest.raises(IllegalActionError, match="not a legal move"):
        game.string_to_action(state, "r0c0")
    with pytest.raises(ActionTypeError):
        game.string_to_action(state, 4)
    ataxx = mcts_envs.make_game("ataxx")
    # like every game's: a string that is no move at all is an illegal move (issue 39)
    with pytest.raises(IllegalActionError, match=r"not a UAI move string.*legal here: b7"):
        ataxx.string_to_action(ataxx.initial_state(), "z9")
    with pytest.raises(InvalidRecordError, match="UAI"):  # the UAI reader keeps its own error
        ataxx.uai_to_move(ataxx.initial_state(), "z9")
