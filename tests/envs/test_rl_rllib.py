"""RLlib (the ``rllib`` extra) trains on the games through ``mcts_envs.rl.rllib``: real ray.

``ray[rllib]`` pins gymnasium 1.2.2, so the dev install leaves it out and ``.ci/rllib`` runs this
file in a venv of its own; elsewhere it is skipped, with the reason (``pip install -e ".[rllib]"``).
"""

from __future__ import annotations

import numpy as np
import pytest

try:
    import ray
    import ray.rllib  # dm_tree and friends come with ray[rllib] only
except ImportError:
    pytest.skip("needs ray[rllib] (the 'rllib' extra)", allow_module_level=True)

import mcts_envs
from mcts_envs.core.errors import IllegalActionError, InvalidOptionError
from mcts_envs.rl.rllib import SHARED_MODULE, MaskedPettingZooEnv, masked_ppo_config


@pytest.mark.parametrize("game", ["tictactoe", "ultimate_tictactoe"])
def test_masked_env_gives_what_the_action_masking_module_reads(game):
    """Observations are ``{"observations", "action_mask"}`` inside their ``Dict`` space, only
    the agent on move observes, masked random play runs to the end, and both agents get their
    final zero-sum reward on the step that ends the game (the loser its -1)."""
    env = MaskedPettingZooEnv(mcts_envs.make(game, raw=True))
    rng = np.random.default_rng(0)
    finals = []
    for episode in range(6):
        observations, _ = env.reset(seed=episode)
        while True:
            (agent,) = observations
            obs = observations[agent]
            assert set(obs) == {"observations", "action_mask"}
            assert env.observation_spaces[agent].contains(obs)
            action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            observations, rewards, terminated, truncated, _ = env.step({agent: action})
            if terminated["__all__"]:
                assert set(rewards) == {"player_0", "player_1"}
                finals.append(rewards["player_0"] + rewards["player_1"])
                break
            assert not truncated["__all__"] and all(r == 0 for r in rewards.values())
    assert finals == [0.0] * 6


def test_masked_env_refuses_an_illegal_action_on_the_raw_env():
    env = MaskedPettingZooEnv(mcts_envs.make("tictactoe", raw=True))
    env.reset(seed=0)
    env.step({"player_0": 4})
    with pytest.raises(IllegalActionError):
        env.step({"player_1": 4})


def test_masked_ppo_config_refuses_bad_hidden_sizes():
    with pytest.raises(InvalidOptionError, match="hidden"):
        masked_ppo_config("tictactoe", hidden=(0,))


def test_ppo_trains_one_iteration_on_tictactoe():
    """One PPO iteration with the action-masking module playing both seats: on the raw env
    (an illegal action would raise and fail the iteration), episodes are sampled, returns are
    zero-sum between the seats, and the shared module is trained."""
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        config = (
            masked_ppo_config("tictactoe", env_config={"raw": True}, hidden=(64,))
            .env_runners(num_env_runners=0)
            .training(train_batch_size_per_learner=256, minibatch_size=64, num_epochs=1)
            .debugging(seed=0)
        )
        algo = config.build_algo()
        try:
            result = algo.train()
        finally:
            algo.stop()
    finally:
        ray.shutdown()
    runners = result["env_runners"]
    assert runners["num_env_steps_sampled"] >= 256
    assert runners["num_episodes"] > 0
    seats = runners["agent_episode_returns_mean"]
    assert seats["player_0"] + seats["player_1"] == pytest.approx(0.0)
    assert result["learners"][SHARED_MODULE]["num_module_steps_trained"] > 0
