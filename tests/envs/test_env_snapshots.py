"""The AEC env's saved state carries its ``np_random``; a seeded random first player; infos of
fixed keys and types; PettingZoo's ``render_test`` on the core install (no pygame)."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

import mcts_envs
from mcts_envs.core.errors import InvalidOptionError

GAMES = mcts_envs.list_games()


def play(env, rng, steps=None):
    """Random play with ``rng``; returns what every agent saw: (agent, action, reward, flags,
    observation bytes, infos)."""
    transcript = []
    while env.agents and (steps is None or len(transcript) < steps):
        agent = env.agent_selection
        obs, reward, terminated, truncated, info = env.last()
        action = None
        if not (terminated or truncated):
            action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        transcript.append(
            (agent, action, reward, terminated, truncated, obs["observation"].tobytes(), str(info))
        )
        env.step(action)
    return transcript


@pytest.mark.parametrize("name", GAMES)
def test_a_restored_snapshot_replays_the_game_draws_included(name):
    env = mcts_envs.make(name)
    env.reset(seed=11)
    play(env, np.random.default_rng(0), steps=6)
    snapshot = env.unwrapped.snapshot()
    first = play(env, np.random.default_rng(1))
    record = env.unwrapped.record()
    for _ in range(2):  # a snapshot restores any number of times
        env.unwrapped.restore(snapshot)
        assert play(env, np.random.default_rng(1)) == first
        assert env.unwrapped.record() == record


def test_a_tantrix_position_alone_draws_other_tiles():
    """What the snapshot adds: ``set_game_state`` keeps the generator where it is."""
    env = mcts_envs.make("tantrix")
    env.reset(seed=4)
    play(env, np.random.default_rng(0), steps=5)
    snapshot = env.unwrapped.snapshot()
    first = play(env, np.random.default_rng(1), steps=40)
    env.unwrapped.restore(snapshot)
    assert play(env, np.random.default_rng(1), steps=40) == first
    env.unwrapped.set_game_state(snapshot.game_state)
    assert play(env, np.random.default_rng(1), steps=40) != first


def test_restore_refuses_what_is_not_its_snapshot():
    env = mcts_envs.make("tictactoe")
    env.reset(seed=0)
    other = mcts_envs.make("ultimate_tictactoe")
    other.reset(seed=0)
    before = env.unwrapped.game_state.copy()
    with pytest.raises(InvalidOptionError, match="cannot restore a snapshot of ultimate"):
        env.unwrapped.restore(other.unwrapped.snapshot())
    with pytest.raises(TypeError, match="EnvSnapshot"):
        env.unwrapped.restore(before)
    np.testing.assert_array_equal(env.unwrapped.game_state, before)


@pytest.mark.parametrize("name", GAMES)
def test_a_random_first_player_is_seeded_and_agents_keep_their_seats(name):
    """Over seeded resets both agents hold seat 0; each agent sees its seat's observation, the
    winner's reward follows the seat that won, and the record lists players in seat order."""
    game = mcts_envs.make_game(name)
    firsts = set()
    for seed in range(8):
        env = mcts_envs.make(name, random_first_player=True, max_moves=60)
        env.reset(seed=seed)
        raw = env.unwrapped
        twin = mcts_envs.make(name, random_first_player=True)
        twin.reset(seed=seed)
        assert twin.unwrapped.first_player == raw.first_player
        first = raw.first_player
        firsts.add(first)
        rng = np.random.default_rng(seed)
        final_rewards = {}
        for agent in env.agent_iter():
            obs, reward, terminated, truncated, _ = env.last()
            index = env.possible_agents.index(agent)
            if terminated or truncated:
                final_rewards[agent] = reward
                env.step(None)
                continue
            state = raw.game_state
            assert game.current_player(state) == index ^ first
            np.testing.assert_array_equal(
                obs["observation"], game.observation(state, index ^ first)
            )
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        if game.current_player(raw.game_state) == mcts_envs.TERMINAL:
            returns = game.returns(raw.game_state)
            for index, agent in enumerate(env.possible_agents):
                assert final_rewards[agent] == returns[index ^ first]
        assert raw.record()["players"] == [f"player_{first}", f"player_{1 - first}"]
    assert firsts == {0, 1}
    plain = mcts_envs.make(name)
    plain.reset(seed=0)
    assert plain.unwrapped.first_player == 0


@pytest.mark.parametrize("name", GAMES)
def test_infos_keep_their_keys_and_types(name):
    """Every step's infos have the reset's keys, each value an int or a list of ints of the
    reset's length (what TorchRL's wrapper and Gymnasium's vector envs batch)."""
    env = mcts_envs.make(name, max_moves=80)
    env.reset(seed=3)

    def shape(info):
        return {
            key: len(value) if isinstance(value, (list, tuple)) else type(value).__name__
            for key, value in info.items()
        }

    expected = shape(env.infos["player_0"])
    for value in env.infos["player_0"].values():
        items = value if isinstance(value, (list, tuple)) else [value]
        assert all(isinstance(item, (int, np.integer)) for item in items), value
    rng = np.random.default_rng(0)
    for _agent in env.agent_iter():
        obs, _, terminated, truncated, info = env.last()
        assert shape(info) == expected
        env.step(
            None if terminated or truncated else int(rng.choice(np.flatnonzero(obs["action_mask"])))
        )


#: PettingZoo's render_test on every env, in a fresh interpreter where importing pygame fails.
RENDER_TEST_WITHOUT_PYGAME = """
import json, sys
sys.modules["pygame"] = None  # as if pygame were not installed (the core install)
from pettingzoo.test import render_test
import mcts_envs
report = {}
for name in mcts_envs.list_games():
    render_test(mcts_envs.get_entry(name).env_factory)
    env = mcts_envs.make(name, render_mode="rgb_array")
    env.reset(seed=0)
    try:
        env.render()
    except Exception as error:
        report[name] = [mcts_envs.make(name).metadata["render_modes"], type(error).__name__, str(error)]
print(json.dumps(report))
"""


def test_render_test_passes_without_pygame_and_pictures_name_the_extra():
    done = subprocess.run(
        [sys.executable, "-c", RENDER_TEST_WITHOUT_PYGAME],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert set(report) == set(GAMES)
    for modes, error, message in report.values():
        assert modes == ["ansi"]
        assert error == "OptionalDependencyError" and "mcts-envs[render]" in message


def test_picture_modes_are_listed_with_pygame():
    pytest.importorskip("pygame")
    assert mcts_envs.make("tictactoe").metadata["render_modes"] == ["ansi", "rgb_array", "human"]
