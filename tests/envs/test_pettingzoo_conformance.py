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


#: Cycles short enough that no game of the kind can end before them (Tic-Tac-Toe's first win is
#: its fifth move), so every game is cut by ``max_cycles`` as PettingZoo's check expects.
MAX_CYCLES = {"tictactoe": 2}


def agent_step_counts(env, rng):
    """The turn-based half of PettingZoo's ``max_cycles_test``: ``agent_iter`` visits per agent.

    PettingZoo's own function samples ``action_space(a).sample()`` (illegal moves end a board game)
    and needs a ``parallel_env`` (a turn-based game has none), so its loop is replicated here with
    legal random actions.
    """
    counts = np.zeros(len(env.possible_agents), np.int64)
    for agent in env.agent_iter():
        counts[env.possible_agents.index(agent)] += 1
        obs, _, terminated, truncated, _ = env.last()
        action = None
        if not (terminated or truncated):
            action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        env.step(action)
    return counts


def test_pettingzoo_max_cycles_test_cannot_run_on_turn_based_games_theirs_included():
    """What the docs say: PettingZoo's ``max_cycles_test(module)`` builds
    ``module.parallel_env(max_cycles=...)``; a turn-based game has no parallel env, so it stops
    there for PettingZoo's own board games as for ours (the test below replays its loop)."""
    from pettingzoo.test import max_cycles_test

    tictactoe_v3 = pytest.importorskip("pettingzoo.classic.tictactoe_v3")
    connect_four_v3 = pytest.importorskip("pettingzoo.classic.connect_four_v3")
    for module in (tictactoe_v3, connect_four_v3, mcts_envs.tictactoe_v0):
        with pytest.raises(AttributeError, match="parallel_env"):
            max_cycles_test(module)


@pytest.mark.parametrize("name", GAMES)
def test_max_cycles_test(name):
    """PettingZoo's cycle: one step of every agent; ``max(counts) - 1 == max_cycles`` (and the
    median too when the agents alternate; Tantrix's repeated moves count as the mover's steps)."""
    max_cycles = MAX_CYCLES.get(name, 4)
    uneven = 0
    for seed in range(6):
        env = env_factory(name)(max_cycles=max_cycles)
        env.reset(seed=seed)
        counts = agent_step_counts(env, np.random.default_rng(seed))
        assert max_cycles == np.max(counts) - 1, counts
        assert env.unwrapped.agent_moves[int(np.argmax(counts))] == max_cycles
        if name != "tantrix":
            assert max_cycles == np.median(counts) - 1, counts
        uneven += counts[0] != counts[1]
    if name == "tantrix":
        assert uneven, "no Tantrix game had an agent move twice in a row before the cut"


def test_max_moves_counts_both_agents_and_the_first_limit_truncates():
    env = mcts_envs.make("ultimate_tictactoe", max_moves=5)
    env.reset(seed=0)
    counts = agent_step_counts(env, np.random.default_rng(0))
    assert env.unwrapped.num_moves == 5 and list(counts) == [4, 3]
    both = mcts_envs.make("ultimate_tictactoe", max_cycles=2, max_moves=9)
    both.reset(seed=0)
    agent_step_counts(both, np.random.default_rng(0))
    assert both.unwrapped.num_moves == 4
