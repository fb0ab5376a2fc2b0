"""Symmetry maps tested by playing the transformed game through the forward model.

For every symmetry of every game that has them: a seeded random game is replayed from the image
of its start with the images of its actions; at every step the image game's legal actions, mask,
observations, state and results must be the images of the original's.
"""

from __future__ import annotations

import importlib

import numpy as np
import pytest

import mcts_envs
from mcts_envs.core.errors import InvalidOptionError
from mcts_envs.core.game import TERMINAL
from mcts_envs.core.symmetry import game_symmetries, games_with_symmetries

GAMES = {
    "tictactoe": 200,
    "ultimate_tictactoe": 100,
    "ataxx": 120,
    "pentago_twist": 40,
    "connect_four": 42,
}


def _module(name):
    """The symmetry module the game's class declares."""
    return importlib.import_module(mcts_envs.make_game(name).symmetry_module)


def _random_game(game, seed, limit):
    generator = np.random.default_rng(seed)
    state = game.initial_state()
    actions = []
    while game.current_player(state) != TERMINAL and len(actions) < limit:
        action = int(generator.choice(game.legal_actions(state)))
        actions.append(action)
        state = game.apply(state, action)
    return actions


def test_games_with_symmetries():
    assert games_with_symmetries() == sorted([*GAMES, "tantrix"]) == mcts_envs.list_games()


def test_a_game_without_declared_symmetries_says_so(monkeypatch):
    game_class = type(mcts_envs.make_game("connect_four"))
    monkeypatch.setattr(game_class, "symmetry_module", None)
    with pytest.raises(InvalidOptionError, match="connect_four declares no symmetry maps"):
        game_symmetries("connect_four")


@pytest.mark.parametrize("name", sorted(GAMES))
def test_transformed_games_replay_through_the_forward_model(name):
    game = mcts_envs.make_game(name)
    symmetries = game_symmetries(name)
    transform_state = _module(name).transform_state
    assert symmetries.names[0] == "identity"
    plies = 0
    for seed in range(3):
        actions = _random_game(game, seed, GAMES[name])
        for symmetry in range(len(symmetries)):
            state = game.initial_state()
            image = transform_state(symmetry, state)
            for action in [*actions, None]:
                player = game.current_player(state)
                assert game.current_player(image) == player
                assert game.key(image) == game.key(transform_state(symmetry, state))
                assert np.array_equal(
                    game.legal_actions(image),
                    np.sort(symmetries.transform_actions(symmetry, game.legal_actions(state))),
                )
                assert np.array_equal(
                    game.action_mask(image),
                    symmetries.transform_vector(symmetry, game.action_mask(state)),
                )
                for viewer in (0, 1):
                    assert np.array_equal(
                        game.observation(image, viewer),
                        symmetries.transform_observation(symmetry, game.observation(state, viewer)),
                    )
                if action is None:
                    break
                state = game.apply(state, action)
                image = game.apply(image, symmetries.transform_action(symmetry, action))
                plies += 1
            assert np.array_equal(game.returns(image), game.returns(state))
            assert np.array_equal(game.score(image), game.score(state))
    assert plies > 0


@pytest.mark.parametrize("name", ["tictactoe", "ultimate_tictactoe", "ataxx"])
def test_square_observation_maps_agree_with_numpy_rotations(name):
    """An independent oracle for the cell maps: numpy's own rotations and flips."""
    symmetries = game_symmetries(name)
    height, width = symmetries.board_shape
    planes = np.random.default_rng(0).integers(0, 100, size=(height, width, 3))
    expected = [
        planes,
        np.rot90(planes, -1),
        np.rot90(planes, 2),
        np.rot90(planes, 1),
        planes[:, ::-1],
        planes[::-1, :],
        planes.transpose(1, 0, 2),
        np.rot90(planes, 2).transpose(1, 0, 2),
    ]
    for symmetry, want in enumerate(expected):
        assert np.array_equal(symmetries.transform_observation(symmetry, planes), want)
        batch = np.stack([planes, planes])
        assert np.array_equal(symmetries.transform_observation(symmetry, batch)[1], want)


def test_connect_four_mirror_agrees_with_numpy_and_keeps_the_centre_column():
    symmetries = game_symmetries("connect_four")
    assert symmetries.names == ("identity", "mirror_left_right")
    planes = np.random.default_rng(0).integers(0, 100, size=(6, 7, 2))
    assert np.array_equal(symmetries.transform_observation(1, planes), planes[:, ::-1])
    assert [symmetries.transform_action(1, column) for column in range(7)] == [6, 5, 4, 3, 2, 1, 0]


def test_ataxx_quarter_turn_of_the_start_swaps_the_colours_of_the_corners():
    game = mcts_envs.make_game("ataxx")
    image = _module("ataxx").transform_state(1, game.initial_state())
    assert game.to_text(image) == "o5x/7/7/7/7/7/x5o x 0 1"


def test_ataxx_jump_maps_keep_origin_and_destination():
    game = mcts_envs.make_game("ataxx")
    symmetries = game_symmetries("ataxx")
    state = game.from_text("o6/7/7/3x3/7/7/7 x 0 1")  # x in the centre: all 16 jumps
    jumps = [a for a in game.legal_actions(state) if 49 <= a < 833]
    assert len(jumps) == 16
    # rotate90 clockwise: the jump d4 -> d6 (two rows up) becomes d4 -> f4 (two files right)
    up = next(a for a in jumps if game.action_to_string(state, a) == "d4d6")
    assert game.action_to_string(state, symmetries.transform_action(1, up)) == "d4f4"


def test_pentago_twist_keeps_only_the_half_turn():
    """Mirrors swap clockwise and counter-clockwise; quarter turns swap the flip's axis."""
    symmetries = game_symmetries("pentago_twist")
    assert symmetries.names == ("identity", "rotate180")
    # place at a1 (cell 0) and rotate the top-left quadrant -> cell 35, bottom-right quadrant
    assert symmetries.transform_action(1, 0 * 8 + 0 * 2 + 0) == 35 * 8 + 3 * 2 + 0
    assert symmetries.transform_action(1, 0 * 8 + 1 * 2 + 1) == 35 * 8 + 2 * 2 + 1


def test_bad_symmetry_arguments_are_refused_clearly():
    symmetries = game_symmetries("tictactoe")
    with pytest.raises(InvalidOptionError, match=r"0\.\.7"):
        symmetries.transform_action(8, 0)
    with pytest.raises(InvalidOptionError, match="last axis of 9"):
        symmetries.transform_vector(1, np.zeros(10))
    with pytest.raises(InvalidOptionError, match=r"0\.\.5"):
        game_symmetries("tantrix").transform_action(6, np.zeros((58, 58, 27), np.int8), 0)


def test_tantrix_rotations_replay_through_the_forward_model():
    """Same draws, turned placements: the image game's decisions are the images, at every step."""
    game = mcts_envs.make_game("tantrix")
    rotations = game_symmetries("tantrix")
    assert len(rotations) == 6
    checked = 0
    for seed in (3,):  # one whole game (about 60 decisions, the window recentred often)
        generator = np.random.default_rng(seed)
        states = [game.initial_state() for _ in range(6)]
        while game.current_player(states[0]) != TERMINAL and checked < 400:
            player = game.current_player(states[0])
            if player < 0:  # chance: the same tile for every image
                outcomes, probabilities = game.chance_outcomes(states[0])
                draw = int(outcomes[generator.choice(len(outcomes), p=probabilities)])
                states = [game.apply(s, draw) for s in states]
                continue
            legal = game.legal_actions(states[0])
            action = int(generator.choice(legal))
            observations = [game.observation(states[0], viewer) for viewer in (0, 1)]
            mask = game.action_mask(states[0])
            for symmetry in range(1, 6):
                image = states[symmetry]
                assert game.current_player(image) == player
                for viewer in (0, 1):
                    assert np.array_equal(
                        game.observation(image, viewer),
                        rotations.transform_observation(symmetry, observations[viewer]),
                    )
                assert np.array_equal(
                    game.action_mask(image),
                    rotations.transform_vector(symmetry, observations[0], mask),
                )
            states = [states[0]] + [
                game.apply(states[s], rotations.transform_action(s, observations[player], action))
                for s in range(1, 6)
            ]
            states[0] = game.apply(states[0], action)
            checked += 1
        for image in states[1:]:
            assert np.array_equal(game.score(image), game.score(states[0]))
    assert checked > 40
