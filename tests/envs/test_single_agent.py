"""The single-agent Gymnasium view passes Gymnasium's checker and reports the learner's result."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import mcts_envs
from mcts_envs.envs.single_agent import SingleAgentEnv


@pytest.mark.parametrize("name", mcts_envs.list_games())
def test_gymnasium_env_checker(name):
    check_env(SingleAgentEnv(name, illegal_action="lose"), skip_render_check=True)


def test_rewards_follow_the_learner_seat_and_seeds_reproduce():
    def play(seed):
        env = SingleAgentEnv("tictactoe", seat="alternate")
        obs, info = env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        total, transcript = 0.0, []
        while True:
            legal = np.flatnonzero(env.action_masks())
            np.testing.assert_array_equal(legal, np.flatnonzero(info["action_mask"]))
            action = int(rng.choice(legal))
            obs, reward, terminated, truncated, info = env.step(action)
            transcript.append(action)
            total += reward
            if terminated or truncated:
                game, state = env.aec.game, env.aec.game_state
                seat = 0 if info["seat"] == "player_0" else 1
                assert total == game.returns(state)[seat]
                return transcript, info["seat"]

    seats = set()
    for seed in range(20):
        first, seat = play(seed)
        assert play(seed) == (first, seat)
        seats.add(seat)
    assert seats == {"player_0", "player_1"}


def test_opponent_callable_and_bad_seat():
    calls = []

    def first_legal(aec):
        calls.append(aec.agent_selection)
        return int(np.flatnonzero(aec.observe(aec.agent_selection)["action_mask"])[0])

    env = SingleAgentEnv("tictactoe", opponent=first_legal, seat="player_1")
    env.reset(seed=0)
    assert calls == ["player_0"]
    with pytest.raises(mcts_envs.IllegalActionError):
        env.step(0)  # the opponent took cell 0
    with pytest.raises(mcts_envs.InvalidOptionError, match="seat"):
        SingleAgentEnv("tictactoe", seat="both")
