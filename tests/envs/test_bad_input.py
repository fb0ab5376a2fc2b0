"""Bad input to the env gets the documented error and leaves the env usable."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import mcts_envs
from mcts_envs import ActionTypeError, IllegalActionError, InvalidOptionError

GAMES = mcts_envs.list_games()


def first_decision(name, raw):
    """An env at its first decision where some in-range action is illegal."""
    env = mcts_envs.make(name, raw=raw)
    env.reset(seed=0)
    while env.observe(env.agent_selection)["action_mask"].all():
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    return env


def illegal_in_range(env):
    mask = env.observe(env.agent_selection)["action_mask"]
    illegal = np.flatnonzero(mask == 0)
    return int(illegal[0]) if len(illegal) else None


@pytest.mark.parametrize("name", GAMES)
def test_raw_env_raises_on_illegal_and_stays_usable(name):
    env = first_decision(name, raw=True)
    state, agent = env.game_state.copy(), env.agent_selection
    bad = illegal_in_range(env)
    with pytest.raises(IllegalActionError, match="not legal"):
        env.step(bad)
    with pytest.raises(IllegalActionError, match="outside the action space"):
        env.step(env.game.info.num_actions)
    with pytest.raises(IllegalActionError):
        env.step(-1)
    with pytest.raises(ActionTypeError, match="integer"):
        env.step("0")
    with pytest.raises(ActionTypeError):
        env.step(0.0)
    np.testing.assert_array_equal(env.game_state, state)
    assert env.agent_selection == agent
    legal = int(np.flatnonzero(env.observe(agent)["action_mask"])[0])
    env.step(np.int64(legal))  # NumPy integers are fine
    assert env.history[-1] == legal or legal in env.history


@pytest.mark.parametrize("name", GAMES)
def test_env_out_of_range_raises_but_illegal_in_range_ends_the_game(name):
    env = first_decision(name, raw=False)
    with pytest.raises(IllegalActionError, match="outside the action space"):
        env.step(10**6)
    with pytest.raises(ActionTypeError):
        env.step([1])
    agent = env.agent_selection
    bad = illegal_in_range(env)
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        env.step(bad)
    assert all(env.terminations.values())
    assert env._cumulative_rewards[agent] == -1.0
    while env.agents:
        env.step(None)
    assert env.agents == []
    env.reset(seed=1)  # usable again
    assert not any(env.terminations.values())


def test_step_before_reset_and_bad_options_are_clear():
    env = mcts_envs.make("tictactoe")
    with pytest.raises(AttributeError, match="reset"):
        _ = env.agent_selection
    with pytest.raises(InvalidOptionError, match="render_mode"):
        mcts_envs.make("tictactoe", render_mode="video")
    with pytest.raises(InvalidOptionError, match="max_moves"):
        mcts_envs.make("tictactoe", max_moves=0)


def test_max_moves_truncates():
    env = mcts_envs.make("ultimate_tictactoe", max_moves=5)
    env.reset(seed=0)
    steps = 0
    for _agent in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            assert truncated and steps == 5
            env.step(None)
            continue
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
        steps += 1
    assert env.agents == []
