"""``LearnerVectorEnv`` copies mid-episode: ``copy.deepcopy`` and ``pickle`` (what Ray, RLlib and
checkpointing code do) give an env that plays on as the original does, without moving with it:
the original steps first, then the copy gets the same learner actions and must return the same
observations, rewards, flags and infos (its opponent, a seeded random one, copied along)."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

import mcts_envs
from mcts_envs.rl import LearnerVectorEnv


def learner_steps(env, rng, steps):
    results = []
    for _ in range(steps):
        masks = env.action_masks()
        actions = np.array([rng.choice(np.flatnonzero(row)) for row in masks])
        results.append((actions, env.step(actions)))
    return results


@pytest.mark.parametrize("name", mcts_envs.list_games())
@pytest.mark.parametrize("how", ["deepcopy", "pickle"])
def test_a_learner_env_copy_plays_on_apart_and_identically(name, how):
    env = LearnerVectorEnv(name, 3, seed=2, max_moves=16)
    env.reset(seed=2)
    learner_steps(env, np.random.default_rng(0), 2)
    twin = copy.deepcopy(env) if how == "deepcopy" else pickle.loads(pickle.dumps(env))
    assert twin.vector is not env.vector and twin.opponent is not env.opponent
    played = learner_steps(env, np.random.default_rng(1), 10)
    ended = 0
    for actions, (obs, rewards, terminated, truncated, infos) in played:
        again = twin.step(actions)
        np.testing.assert_array_equal(again[0], obs)
        np.testing.assert_array_equal(again[1], rewards)
        np.testing.assert_array_equal(again[2], terminated)
        np.testing.assert_array_equal(again[3], truncated)
        assert sorted(again[4]) == sorted(infos)
        np.testing.assert_array_equal(again[4]["action_mask"], infos["action_mask"])
        if "final_obs" in infos:
            for a, b in zip(again[4]["final_obs"], infos["final_obs"], strict=True):
                assert (a is None) == (b is None) and (a is None or np.array_equal(a, b))
        ended += int((terminated | truncated).sum())
    assert ended > 0  # through the end of games and their auto-reset
