"""Every registered env passes PettingZoo's own checks and keeps its game through copy and pickle."""

from __future__ import annotations

import copy
import pickle
import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test

import mcts_envs

GAMES = mcts_envs.list_games()


def env_factory(name):
    return mcts_envs.get_entry(name).env_factory


@pytest.mark.parametrize("name", GAMES)
def test_api_test(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(env_factory(name)(), num_cycles=200)


@pytest.mark.parametrize("name", GAMES)
def test_seed_test(name):
    seed_test(env_factory(name), num_cycles=50)


@pytest.mark.parametrize("name", GAMES)
def test_render_test(name):
    render_test(env_factory(name))


@pytest.mark.parametrize("name", GAMES)
def test_spaces_are_created_once_and_masks_are_int8(name):
    env = env_factory(name)()
    env.reset(seed=0)
    assert env.observation_space("player_0") is env.observation_space("player_0")
    assert env.action_space("player_1") is env.action_space("player_1")
    obs = env.observe(env.agent_selection)
    assert obs["action_mask"].dtype == np.int8
    assert obs["action_mask"].any()
    other = "player_1" if env.agent_selection == "player_0" else "player_0"
    assert not env.observe(other)["action_mask"].any(), "the agent not on move gets a zero mask"
    assert env.unwrapped.game is not None and env.unwrapped.game_state is not None


def play(env, rng, steps=None):
    """Random play with ``rng`` for ``steps`` agent turns (or to the end); returns the transcript."""
    transcript = []
    while env.agents and (steps is None or len(transcript) < steps):
        agent = env.agent_selection
        obs, reward, terminated, truncated, _ = env.last()
        action = None
        if not (terminated or truncated):
            action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        transcript.append((agent, action, reward, terminated, obs["observation"].tobytes()))
        env.step(action)
    return transcript


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("how", ["deepcopy", "pickle"])
def test_copies_mid_game_keep_playing_identically(name, how):
    env = env_factory(name)()
    env.reset(seed=7)
    play(env, np.random.default_rng(1), steps=4)
    twin = copy.deepcopy(env) if how == "deepcopy" else pickle.loads(pickle.dumps(env))
    np.testing.assert_array_equal(twin.unwrapped.game_state, env.unwrapped.game_state)
    assert twin.agent_selection == env.agent_selection
    rest = play(env, np.random.default_rng(2))
    rest_twin = play(twin, np.random.default_rng(2))
    assert rest == rest_twin


@pytest.mark.parametrize("name", GAMES)
def test_same_seed_same_game_and_record(name):
    records = []
    for _ in range(2):
        env = env_factory(name)()
        env.reset(seed=123)
        play(env, np.random.default_rng(3))
        records.append(env.unwrapped.record())
    assert records[0] == records[1]
    assert records[0]["final"] is not None
