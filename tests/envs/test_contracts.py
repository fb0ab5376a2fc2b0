"""The env contracts users rely on: PettingZoo's state(), module imports, options, positions,
records, order errors, and equivalence of env()'s safety layer with PettingZoo's own wrappers."""

from __future__ import annotations

import importlib
import io
import warnings

import numpy as np
import pettingzoo
import pytest
from pettingzoo.utils.wrappers import (
    AssertOutOfBoundsWrapper,
    OrderEnforcingWrapper,
    TerminateIllegalWrapper,
)

import mcts_envs
from mcts_envs import EnvUsageError, InvalidOptionError, InvalidRecordError
from mcts_envs.agents.frontends.cli import main
from mcts_envs.records import read_records, replay_states, write_records

GAMES = mcts_envs.list_games()
STATE_TEST = importlib.import_module("pettingzoo.test.state_test")


@pytest.mark.parametrize("name", GAMES)
def test_pettingzoo_state_tests_pass(name):
    env = mcts_envs.make(name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        STATE_TEST.test_state_space(env)
        STATE_TEST.test_state(env, num_cycles=10)


@pytest.mark.parametrize("name", GAMES)
def test_state_is_player_0_view_plus_side_to_move(name):
    env = mcts_envs.make(name, raw=True)
    env.reset(seed=2)
    rng = np.random.default_rng(0)
    for _ in range(6):
        if not env.agents or env.terminations[env.agent_selection]:
            break
        state = env.state()
        assert env.state_space.contains(state)
        expected = env.game.observation(env.game_state, 0)
        np.testing.assert_array_equal(state[..., :-1], expected)
        side = 1 if env.agent_selection == "player_1" else 0
        assert np.all(state[..., -1] == side)
        legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
        env.step(int(rng.choice(legal)))


@pytest.mark.parametrize("module", mcts_envs.ENV_MODULES)
def test_env_modules_import_as_submodules(module):
    imported = importlib.import_module(f"mcts_envs.{module}")
    assert getattr(mcts_envs, module) is imported
    assert callable(imported.env) and callable(imported.raw_env)
    assert imported.__doc__ and "Observation" in imported.__doc__


def test_pettingzoo_knows_each_game_under_the_id_of_its_entry_only():
    # The ids registered at import (by entry point) and when a game registers are one id.
    ids = {mcts_envs.core.registry.get_entry(name).pettingzoo_id for name in GAMES}
    assert {key for key in pettingzoo.aec_registry if key.startswith("mcts_envs/")} == ids
    assert "mcts_envs/tictactoe-v0" in ids


def test_pettingzoo_make_accepts_max_cycles_and_truncates():
    env = pettingzoo.make("aec", "mcts_envs/tictactoe-v0", max_cycles=2)
    env.reset(seed=0)
    for action in (0, 4, 1):
        env.step(action)
        assert not any(env.truncations.values()), "a cycle is one move of every agent"
    env.step(2)
    assert all(env.truncations.values())
    assert mcts_envs.make("tictactoe", max_moves=2).unwrapped.max_moves == 2
    with pytest.raises(InvalidOptionError, match="max_cycles must be None or a positive int"):
        mcts_envs.make("tictactoe", max_cycles=0, max_moves=3)


def test_unknown_game_options_name_the_allowed_ones():
    with pytest.raises(InvalidOptionError, match="colors, first_player"):
        mcts_envs.make("tantrix", colour="red")
    with pytest.raises(InvalidOptionError, match="game options: none"):
        mcts_envs.make("tictactoe", size=4)


def test_env_spec_is_not_shadowed():
    env = mcts_envs.make("tictactoe")
    assert not hasattr(env.unwrapped, "spec") or env.unwrapped.spec is None


def test_set_game_state_refreshes_mask_rewards_and_record():
    env = mcts_envs.make("tictactoe", raw=True)
    env.reset(seed=0)
    game = env.game
    env.set_game_state(game.from_text("xx./oo./... x"))
    assert env.agent_selection == "player_0"
    np.testing.assert_array_equal(
        np.flatnonzero(env.observe("player_0")["action_mask"]), [2, 5, 6, 7, 8]
    )
    env.step(2)
    assert env.rewards == {"player_0": 1.0, "player_1": -1.0}
    record = env.record()
    assert record["initial"] == "xx./oo./... x" and record["actions"] == [2]
    with pytest.raises(TypeError, match="shape"):
        env.set_game_state(np.zeros(2, np.int64))
    with pytest.raises(InvalidRecordError):
        env.set_game_state(np.array([3, 3, 0, 0], np.int64))  # X and O on the same cells


@pytest.mark.parametrize("name", GAMES)
def test_env_records_are_read_by_read_records_and_replay(name, tmp_path):
    env = mcts_envs.make(name)
    env.reset(seed=5)
    rng = np.random.default_rng(5)
    for _agent in env.agent_iter(400):
        obs, _, terminated, truncated, _ = env.last()
        action = (
            None if terminated or truncated else int(rng.choice(np.flatnonzero(obs["action_mask"])))
        )
        env.step(action)
    record = env.unwrapped.record()
    path = tmp_path / "games.jsonl"
    write_records(path, [record])
    (loaded,) = read_records(path)
    game, states = replay_states(loaded)
    assert game.to_text(states[-1]) == record["final"]
    out = io.StringIO()
    assert main(["replay", str(path), "--delay", "0"], out=out) == 0
    assert "result:" in out.getvalue()


def test_raw_env_out_of_order_says_what_to_do():
    env = mcts_envs.make("tictactoe", raw=True)
    for call in (lambda: env.step(0), lambda: env.observe("player_0"), env.last, env.state):
        with pytest.raises(EnvUsageError, match="reset"):
            call()
    env.reset(seed=0)
    for action in (0, 3, 1, 4, 2):
        env.step(action)
    env.step(None)
    env.step(None)
    with pytest.raises(EnvUsageError, match="call reset"):
        env.step(None)
    with pytest.raises(EnvUsageError, match="call reset"):
        env.last()


def pettingzoo_stack(name):
    raw = mcts_envs.make(name, raw=True)
    return OrderEnforcingWrapper(
        AssertOutOfBoundsWrapper(TerminateIllegalWrapper(raw, illegal_reward=-1))
    )


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_safety_layer_matches_pettingzoo_wrappers(name, seed):
    """env() behaves as PettingZoo's own TerminateIllegal/AssertOutOfBounds/OrderEnforcing stack,
    illegal moves included (one in ten moves is an in-range illegal action)."""
    transcripts = []
    for env in (mcts_envs.make(name), pettingzoo_stack(name)):
        rng = np.random.default_rng(seed)
        env.reset(seed=seed)
        transcript = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for agent in env.agent_iter(300):
                obs, reward, terminated, truncated, _ = env.last()
                if terminated or truncated:
                    action = None
                else:
                    mask = obs["action_mask"]
                    pool = np.flatnonzero(mask == 0) if rng.random() < 0.1 else np.flatnonzero(mask)
                    action = int(rng.choice(pool if len(pool) else np.flatnonzero(mask)))
                transcript.append(
                    (agent, action, reward, terminated, truncated, obs["observation"].tobytes())
                )
                env.step(action)
        transcript.append(dict(env.unwrapped._cumulative_rewards))
        transcripts.append(transcript)
    assert transcripts[0] == transcripts[1]
