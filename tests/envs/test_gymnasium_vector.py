"""Gymnasium 1.x vector conventions: every id's ``vector_entry_point`` gives the batched env, and
its ``final_obs`` / ``final_info`` are what Gymnasium's own ``SyncVectorEnv`` gives in
``SAME_STEP`` mode over the one-game env, on the same seeds, the same opponent and the same
learner actions (step by step: observations, rewards, flags and every info key they share)."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import mcts_envs
from mcts_envs.core.errors import InvalidOptionError
from mcts_envs.envs.single_agent import gymnasium_id
from mcts_envs.rl import LearnerVectorEnv, policy_opponent

GAMES = mcts_envs.list_games()
CHANCE_FREE = [name for name in GAMES if not mcts_envs.make_game(name).info.has_chance]


@pytest.mark.parametrize("name", GAMES)
def test_make_vec_gives_the_batched_env_by_its_vector_entry_point(name):
    env_id = gymnasium_id(name)
    assert gymnasium.spec(env_id).vector_entry_point is not None
    envs = gymnasium.make_vec(env_id, 3, vectorization_mode="vector_entry_point", seed=0)
    assert isinstance(envs.unwrapped, LearnerVectorEnv)
    assert envs.metadata["autoreset_mode"] is AutoresetMode.SAME_STEP
    assert envs.num_envs == 3 and envs.unwrapped.game.info.name == name
    observation, infos = envs.reset(seed=0)
    assert observation.shape == (3, *envs.unwrapped.single_observation_space.shape)
    observation, rewards, terminated, truncated, infos = envs.step(
        infos["action_mask"].argmax(axis=1)
    )
    assert rewards.shape == terminated.shape == (3,)
    default = gymnasium.make_vec(env_id, 2)  # the batched env is also the default mode
    assert isinstance(default.unwrapped, LearnerVectorEnv)


def test_make_vec_options_read_as_the_one_game_env_reads_them():
    envs = gymnasium.make_vec(
        gymnasium_id("tictactoe"), 2, seat="player_1", illegal_action="lose", max_moves=3
    )
    _, infos = envs.reset(seed=0)
    assert infos["seat"].tolist() == [1, 1]  # the opponent has moved: one cell is taken
    taken = infos["action_mask"].argmin(axis=1)
    _, rewards, terminated, _, infos = envs.step(taken)  # illegal: the learner loses the game
    assert rewards.tolist() == [-1, -1] and terminated.all()
    assert infos["final_info"]["illegal_action"].all() and infos["_final_info"].all()
    with pytest.raises(InvalidOptionError, match="render"):
        gymnasium.make_vec(gymnasium_id("tictactoe"), 2, render_mode="ansi")
    with pytest.raises(InvalidOptionError, match="illegal_action must be one of"):
        gymnasium.make_vec(gymnasium_id("tictactoe"), 2, illegal_action="penalty")


def first_legal_aec(env):
    """The one-game env's opponent: the lowest legal action."""
    return int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0])


def first_legal_batched(observation, mask):
    return mask.argmax(axis=1)


def assert_infos_agree(ours, theirs, step):
    """Every key of ours (and its ``_`` mask) is in theirs with the same values; ``final_obs``
    element by element, ``final_info`` recursively."""
    for key, value in ours.items():
        if key in ("final_state", "_final_state"):  # ours only: the forward-model states
            continue
        assert key in theirs, f"step {step}: {key} missing from SyncVectorEnv's infos"
        other = theirs[key]
        if key == "final_info":
            assert_infos_agree(value, other, step)
        elif key == "final_obs":
            assert value.dtype == other.dtype == object
            for a, b in zip(value, other, strict=True):
                assert (a is None) == (b is None), f"step {step}: final_obs"
                if a is not None:
                    np.testing.assert_array_equal(a, b)
        else:
            np.testing.assert_array_equal(
                np.asarray(value, dtype=np.int64), np.asarray(other, dtype=np.int64), key
            )


@pytest.mark.parametrize("name", CHANCE_FREE)
def test_same_step_autoreset_matches_sync_vector_env(name):
    num_envs, steps = 4, 60
    env_id = gymnasium_id(name)
    options = {"seat": "player_0", "max_moves": 24}  # cut long games: truncation compared too
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Gymnasium's passive checker on the one-game envs
        theirs = gymnasium.make_vec(
            env_id,
            num_envs,
            vectorization_mode="sync",
            vector_kwargs={"autoreset_mode": AutoresetMode.SAME_STEP},
            opponent=first_legal_aec,
            **options,
        )
    ours = gymnasium.make_vec(
        env_id,
        num_envs,
        vectorization_mode="vector_entry_point",
        opponent=policy_opponent(first_legal_batched),
        **options,
    )
    assert ours.metadata["autoreset_mode"] == theirs.metadata["autoreset_mode"]
    results = [ours.reset(seed=3), theirs.reset(seed=3)]
    np.testing.assert_array_equal(results[0][0], results[1][0])
    assert_infos_agree(results[0][1], results[1][1], 0)
    rngs = [np.random.default_rng(9), np.random.default_rng(9)]
    ended = 0
    for step in range(1, steps + 1):
        masks = results[1][1]["action_mask"]
        outcomes = []
        for envs, rng in zip((ours, theirs), rngs, strict=True):
            actions = np.array([rng.choice(np.flatnonzero(row)) for row in masks])
            outcomes.append(envs.step(actions))
        (obs, rewards, terminated, truncated, infos), other = outcomes
        np.testing.assert_array_equal(obs, other[0])
        np.testing.assert_array_equal(rewards, other[1])
        np.testing.assert_array_equal(terminated, other[2])
        np.testing.assert_array_equal(truncated, other[3])
        assert ("final_obs" in infos) == ("final_obs" in other[4])
        assert_infos_agree(infos, other[4], step)
        ended += int((terminated | truncated).sum())
        results = [(obs, infos), (other[0], other[4])]
    assert ended > 0
