"""The Game protocol's laws, checked on seeded random games of every registered game.

Parametrised over ``mcts_envs.list_games()``, so a game added to the registry is covered with no
change here.
"""

from __future__ import annotations

import numpy as np
import pytest

import mcts_envs
from mcts_envs import CHANCE, TERMINAL, InvalidRecordError

GAMES = mcts_envs.list_games()
#: Random games per game name (long games get fewer so the suite stays fast).
NUM_GAMES = {"tantrix": 3}
DEFAULT_NUM_GAMES = 12


def random_states(game, seed: int):
    """Yield every state of one random game (chance outcomes drawn by their probabilities)."""
    rng = np.random.default_rng(seed)
    state = game.initial_state()
    yield state
    while game.current_player(state) != TERMINAL:
        if game.current_player(state) == CHANCE:
            outcomes, probabilities = game.chance_outcomes(state)
            action = outcomes[rng.choice(len(outcomes), p=probabilities)]
        else:
            legal = game.legal_actions(state)
            action = legal[rng.integers(len(legal))]
        state = game.apply(state, int(action))
        yield state


@pytest.fixture(params=GAMES)
def game(request):
    return mcts_envs.make_game(request.param)


def test_registry_lists_the_foundation_games():
    assert {"tictactoe", "ultimate_tictactoe"} <= set(GAMES)


def test_laws_on_random_games(game):
    info = game.info
    assert isinstance(game, mcts_envs.Game)
    for seed in range(NUM_GAMES.get(info.name, DEFAULT_NUM_GAMES)):
        decisions = 0
        for state in random_states(game, seed):
            assert state.dtype == np.int64 and state.shape == (info.state_size,)
            player = game.current_player(state)
            legal = game.legal_actions(state)
            mask = game.action_mask(state)
            assert mask.dtype == np.int8 and mask.shape == (info.num_actions,)
            np.testing.assert_array_equal(np.flatnonzero(mask), legal)
            assert np.all(np.diff(legal) > 0), "legal actions are increasing and unique"
            assert len(legal) <= info.max_legal_actions
            played = game.moves_played(state)
            assert played is None or played == decisions, "the position counts its decisions"
            if player in (0, 1):
                decisions += 1
                assert len(legal) > 0, "a player node has a legal action"
            else:
                assert len(legal) == 0
            if player == CHANCE:
                outcomes, probabilities = game.chance_outcomes(state)
                assert info.has_chance and len(outcomes) > 0
                assert len(outcomes) <= info.max_chance_outcomes
                assert np.all(probabilities > 0)
                assert probabilities.sum() == pytest.approx(1.0, abs=1e-12)
            returns = game.returns(state)
            if player == TERMINAL:
                assert returns.sum() == 0.0, "zero-sum"
                assert set(returns.tolist()) <= {-1.0, 0.0, 1.0}
            else:
                assert np.all(returns == 0.0)
            score = game.score(state)
            assert np.all((score >= 0.0) & (score <= 1.0))
            for p in (0, 1):
                assert 0.0 <= game.heuristic(state, p) <= 1.0
                obs = game.observation(state, p)
                assert obs.shape == info.observation_shape and obs.dtype == info.observation_dtype
                assert obs.min() >= 0 and obs.max() <= info.observation_high
            # text records round-trip
            text = game.to_text(state)
            np.testing.assert_array_equal(game.from_text(text), state)
            # key equality follows state equality
            assert game.key(game.clone(state)) == game.key(state)
            # apply never mutates its input; clones are independent
            if len(legal):
                before = state.copy()
                child = game.apply(state, int(legal[-1]))
                np.testing.assert_array_equal(state, before)
                assert child is not state
                twin = game.clone(state)
                twin[:] = -7
                np.testing.assert_array_equal(state, before)
        assert decisions <= info.max_game_length


def test_compiled_random_playout_reproduces_and_ends(game):
    start = game.initial_state()
    finals = [game.random_playout(start, seed) for seed in (11, 11, 12)]
    np.testing.assert_array_equal(finals[0], finals[1])
    for final in finals:
        assert game.current_player(final) == TERMINAL
        assert game.returns(final).sum() == 0.0
    np.testing.assert_array_equal(start, game.initial_state())


@pytest.mark.parametrize("bad", ["", "garbage", "x x x x x x", 42, None])
def test_malformed_text_raises_invalid_record(game, bad):
    with pytest.raises(InvalidRecordError) as error:
        game.from_text(bad)
    assert game.info.name in str(error.value)


def test_apply_rejects_illegal_and_wrong_type(game):
    state = game.initial_state()
    while game.current_player(state) == CHANCE:
        outcomes, _ = game.chance_outcomes(state)
        state = game.apply(state, int(outcomes[0]))
    before = state.copy()
    with pytest.raises(mcts_envs.IllegalActionError, match="legal"):
        game.apply(state, game.info.num_actions)
    with pytest.raises(mcts_envs.ActionTypeError):
        game.apply(state, 1.5)
    with pytest.raises(mcts_envs.ActionTypeError):
        game.apply(state, "3")
    np.testing.assert_array_equal(state, before)
