"""The env's state contracts: set_game_state after the game, pickles, calls before reset()."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import mcts_envs
from mcts_envs import EnvUsageError, InvalidStateError, MctsEnvsError, StateTypeError
from mcts_envs.core.errors import ResetRequiredError

GAMES = mcts_envs.list_games()


def played_out(name: str = "tictactoe"):
    """A raw env whose game is over and whose agents have all been stepped out."""
    env = mcts_envs.make(name, raw=True)
    env.reset(seed=0)
    for action in (0, 3, 1, 4, 2):
        env.step(action)
    env.step(None)
    env.step(None)
    assert not env.agents
    return env


def test_set_game_state_after_every_agent_left_raises_and_changes_nothing():
    env = played_out()
    before = (env.game_state.copy(), list(env.history), dict(env.rewards), env.record())
    with pytest.raises(EnvUsageError, match=r"call reset\(\)"):
        env.set_game_state(env.game.initial_state())
    np.testing.assert_array_equal(env.game_state, before[0])
    assert (env.history, env.rewards, env.record()) == before[1:]
    env.reset(seed=1)
    env.set_game_state(env.game.from_text("xx./oo./... x"))  # after reset() it works again
    assert env.agent_selection == "player_0"


def test_set_game_state_wrong_dtype_or_shape_is_a_package_type_error():
    env = mcts_envs.make("tictactoe", raw=True)
    env.reset(seed=0)
    for bad in (np.zeros(4, np.float64), np.zeros(5, np.int64), [0, 0, 0, 0]):
        with pytest.raises(StateTypeError) as caught:
            env.set_game_state(bad)
        assert isinstance(caught.value, TypeError) and isinstance(caught.value, MctsEnvsError)
    with pytest.raises(InvalidStateError, match="bits outside"):
        env.set_game_state(np.array([1 << 40, 0, 0, 0], np.int64))


@pytest.mark.parametrize("name", GAMES)
def test_unpickled_env_with_a_tampered_state_raises_instead_of_crashing(name):
    env = mcts_envs.make(name, raw=True)
    env.reset(seed=3)
    env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    data = pickle.dumps(env)
    restored = pickle.loads(data)  # an intact pickle restores the game in progress
    np.testing.assert_array_equal(restored.game_state, env.game_state)
    tampered = env.game_state.copy()
    tampered[:] = np.iinfo(np.int64).min  # every word far out of range
    env.game_state = tampered
    with pytest.raises(InvalidStateError, match="cannot restore"):
        pickle.loads(pickle.dumps(env))


@pytest.mark.parametrize(
    "call",
    [
        lambda env: env.step(0),
        lambda env: env.last(),
        lambda env: env.observe("player_0"),
        lambda env: env.render(),
    ],
    ids=["step", "last", "observe", "render"],
)
def test_safe_env_before_reset_raises_the_package_error(call):
    env = mcts_envs.make("tictactoe", render_mode="ansi")
    with pytest.raises(ResetRequiredError, match=r"reset\(\)") as caught:
        call(env)
    # the raw env's error, still an AssertionError as PettingZoo's wrappers raise
    assert isinstance(caught.value, EnvUsageError) and isinstance(caught.value, AssertionError)
    raw = mcts_envs.make("tictactoe", raw=True, render_mode="ansi")
    with pytest.raises(ResetRequiredError):
        call(raw)
