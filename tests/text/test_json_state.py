"""JSON states: ``game.to_json`` / ``game.from_json`` round trips, schemas and malformed objects."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest

import mcts_envs
from mcts_envs import InvalidRecordError
from tests.core.test_game_laws import random_states

GAMES = mcts_envs.list_games()
#: Random games per game (Tantrix games are long).
NUM_GAMES = {"tantrix": 2}


@pytest.mark.parametrize("name", GAMES)
def test_round_trip_on_random_games(name):
    jsonschema = pytest.importorskip("jsonschema")
    game = mcts_envs.make_game(name)
    schema = game.json_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    statuses = set()
    for seed in range(NUM_GAMES.get(name, 6)):
        for state in random_states(game, seed):
            obj = game.to_json(state)
            text = json.dumps(obj)  # plain JSON types only
            assert set(obj) == set(schema["properties"]), "to_json writes every field"
            validator.validate(obj)
            back = game.from_json(json.loads(text))
            np.testing.assert_array_equal(back, state)
            required_only = {key: obj[key] for key in schema["required"]}
            np.testing.assert_array_equal(game.from_json(required_only), state)
            statuses.add(obj["status"])
    assert len(statuses) >= 2, "the games reach more than one status"


def _initial(name):
    game = mcts_envs.make_game(name)
    env = mcts_envs.make(name, raw=True)
    env.reset(seed=3)
    return game, game.to_json(env.game_state)


# (game, change to the initial object, words the error must contain)
MALFORMED = [
    ("tictactoe", lambda o: o.pop("to_move"), "missing field(s) to_move"),
    ("tictactoe", lambda o: o.update(board=["...", "..", "..."]), "field board[1]"),
    ("tictactoe", lambda o: o.update(board=["...", "...", "..X"]), "field board[2]"),
    ("tictactoe", lambda o: o.update(board="........."), "field board: must be of type array"),
    ("tictactoe", lambda o: o.update(board=["xxx", "...", "..."]), "not a valid position"),
    ("tictactoe", lambda o: o.update(to_move="o"), "side to move is 'x'"),
    ("tictactoe", lambda o: o.update(status="x_won"), "field 'status'"),
    ("tictactoe", lambda o: o.update(moves_played=True), "moves_played: must be of type integer"),
    ("tictactoe", lambda o: o.update(colour="x"), "unknown field(s) 'colour'"),
    ("tictactoe", lambda o: o.update(game="ataxx"), "field game: must be 'tictactoe'"),
    ("ultimate_tictactoe", lambda o: o.update(target_board=9), "target_board: 9 is above"),
    ("ultimate_tictactoe", lambda o: o.update(target_board="-"), "target_board: must be of type"),
    ("ultimate_tictactoe", lambda o: o["local_boards"].__setitem__(0, "x"), "'local_boards'"),
    ("pentago_twist", lambda o: o.update(to_move="x"), "field to_move"),
    ("pentago_twist", lambda o: o.update(moves_played=3), "field 'moves_played'"),
    ("ataxx", lambda o: o.update(halfmove_clock=-1), "halfmove_clock: -1 is below the minimum 0"),
    ("ataxx", lambda o: o.update(fullmove_number=1.5), "fullmove_number: must be of type integer"),
    ("ataxx", lambda o: o["stones"].update(x=3), "field 'stones'"),
    ("ataxx", lambda o: o.update(board=["x......"] * 7), "field 'status'"),
    ("tantrix", lambda o: o["hands"][0].append(1), "hands[0]"),
    ("tantrix", lambda o: o["hands"][0].__setitem__(0, 57), "hands[0][0]: 57 is above"),
    ("tantrix", lambda o: o.update(colors=["red", "red"]), "colors must be two different"),
    ("tantrix", lambda o: o.update(colors=["red", "pink"]), "colors[1]: 'pink' is not one of"),
    ("tantrix", lambda o: o.update(mover=2), "mover: 2 is above the maximum 1"),
    ("tantrix", lambda o: o.update(last_drawn={"tile": 1}), "last_drawn: missing field(s) player"),
    ("tantrix", lambda o: o.update(board=[{"q": 1, "r": 0, "tile": 1, "orientation": 0}]),
     "first tile must be at 0,0"),
    ("tantrix", lambda o: o.update(bag_count=3), "field 'bag_count'"),
]  # fmt: skip


@pytest.mark.parametrize(("name", "change", "words"), MALFORMED)
def test_malformed_objects_are_refused_naming_the_field(name, change, words):
    game, obj = _initial(name)
    bad = copy.deepcopy(obj)
    change(bad)
    with pytest.raises(InvalidRecordError) as error:
        game.from_json(bad)
    assert words in str(error.value)
    assert str(error.value).startswith(f"{name}:")
    np.testing.assert_array_equal(game.from_json(obj), game.from_json(copy.deepcopy(obj)))


@pytest.mark.parametrize("value", [None, [], "x.o/.x./..o x", 3])
def test_a_json_state_is_an_object(value):
    game = mcts_envs.make_game("tictactoe")
    with pytest.raises(InvalidRecordError, match=r"\(top level\): must be of type object"):
        game.from_json(value)


def test_schema_descriptions_say_what_is_expected():
    game = mcts_envs.make_game("ataxx")
    with pytest.raises(InvalidRecordError) as error:
        game.from_json(game.to_json(game.initial_state()) | {"board": ["x"] * 7})
    assert "board[0]" in str(error.value) and "expected 7 of x, o or ." in str(error.value)


def _nested(depth: int) -> list:
    value: list = []
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize("name", mcts_envs.list_games())
def test_huge_ints_and_deep_nesting_are_invalid_records(name):
    """Issue 39: a field of 10**5000 raised a plain ValueError (the int could not be printed in
    the message) and 100,000 nested lists a RecursionError (their repr)."""
    game = mcts_envs.make_game(name)
    base = game.to_json(game.initial_state())
    hostile = {
        "a huge int": 10**5000,
        "a huge negative int": -(10**5000),
        "huge ints in a list": [10**5000] * 3,
        "100,000 nested lists": _nested(100_000),
        "nested lists in an object": {"a": _nested(100_000)},
    }
    cases = [_nested(100_000), 10**5000]
    cases += [base | {key: value} for key in base for value in hostile.values()]
    for case in cases:
        with pytest.raises(InvalidRecordError) as caught:
            game.from_json(case)
        assert len(str(caught.value)) < 1500
