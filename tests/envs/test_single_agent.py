"""The single-agent Gymnasium view passes Gymnasium's checker and reports the learner's result."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import mcts_envs
from mcts_envs.envs.single_agent import SingleAgentEnv


@pytest.mark.parametrize("name", mcts_envs.list_games())
def test_gymnasium_env_checker_passes_with_default_arguments(name):
    check_env(SingleAgentEnv(name), skip_render_check=True)


def test_image_observations_are_uint8_channel_first():
    env = SingleAgentEnv("ultimate_tictactoe", image=True)
    check_env(env, skip_render_check=True)
    obs, _ = env.reset(seed=0)
    assert obs.shape == (5, 9, 9) and obs.dtype == np.uint8
    planes = env.aec.game.observation(env.aec.game_state, 0 if env.learner == "player_0" else 1)
    np.testing.assert_array_equal(obs, np.moveaxis(planes, -1, 0).astype(int) * 255)
    assert set(np.unique(obs)) <= {0, 255}


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
                seat = info["seat"]  # 0 or 1, as LearnerVectorEnv's
                assert total == game.returns(state)[seat]
                return transcript, info["seat"]

    seats = set()
    for seed in range(20):
        first, seat = play(seed)
        assert play(seed) == (first, seat)
        seats.add(seat)
    assert seats == {0, 1}


def test_opponent_callable_and_bad_seat():
    calls = []

    def first_legal(aec):
        calls.append(aec.agent_selection)
        return int(np.flatnonzero(aec.observe(aec.agent_selection)["action_mask"])[0])

    env = SingleAgentEnv("tictactoe", opponent=first_legal, seat="player_1", illegal_action="raise")
    env.reset(seed=0)
    assert calls == ["player_0"]
    with pytest.raises(mcts_envs.IllegalActionError):
        env.step(0)  # the opponent took cell 0
    with pytest.raises(mcts_envs.InvalidOptionError, match="seat"):
        SingleAgentEnv("tictactoe", seat="both")
    # A spec string is an agents-package concept: the error says how to turn it into an agent.
    with pytest.raises(mcts_envs.InvalidOptionError, match=r"make_agent\('random'\)"):
        SingleAgentEnv("tictactoe", opponent="random")


def episode(env, seed, actions_rng_seed=0):
    obs, info = env.reset(seed=seed)
    rng = np.random.default_rng(actions_rng_seed)
    moves = []
    while True:
        action = int(rng.choice(np.flatnonzero(env.action_masks())))
        obs, reward, terminated, truncated, info = env.step(action)
        moves.append(action)
        if terminated or truncated:
            return env.aec.record()["actions"], reward


def test_reset_seed_restores_and_reseeds_a_seeded_opponent_agent():
    from mcts_envs.agents.spec import make_agent

    env = SingleAgentEnv("tictactoe", opponent=make_agent("random", seed=0).act)
    first = episode(env, 3, actions_rng_seed=1)
    assert episode(env, 3, actions_rng_seed=1) == first
    assert episode(env, 3, actions_rng_seed=1) == first
    # with a factory, the opponent's own seed follows the episode seed
    env = SingleAgentEnv(
        "tictactoe", seat="player_1", opponent_factory=lambda s: make_agent("random", seed=s).act
    )
    first = episode(env, 3, actions_rng_seed=1)
    assert episode(env, 3, actions_rng_seed=1) == first
    openings = {episode(env, seed, actions_rng_seed=1)[0][0] for seed in range(12)}
    assert len(openings) > 1  # the opponent (player_0) opens differently across seeds


def test_step_after_the_end_is_a_clear_error():
    import gymnasium

    env = SingleAgentEnv("tictactoe")
    with pytest.raises(gymnasium.error.ResetNeeded, match="reset"):
        env.step(0)
    episode(env, 0)
    with pytest.raises(gymnasium.error.ResetNeeded, match="episode is over"):
        env.step(0)
    env = SingleAgentEnv("tictactoe", seat="player_1")  # the random opponent moved first
    env.reset(seed=1)
    taken = int(np.flatnonzero(env.action_masks() == 0)[0])
    before = env.aec.game_state.copy()
    _, reward, terminated, _, info = env.step(taken)
    assert terminated and reward == -1.0 and info["illegal_action"]
    np.testing.assert_array_equal(env.aec.game_state, before)
    with pytest.raises(gymnasium.error.ResetNeeded):
        env.step(0)


def test_registered_with_gymnasium_make():
    import gymnasium

    from mcts_envs.agents.spec import make_agent
    from mcts_envs.envs.single_agent import gymnasium_id

    assert gymnasium_id("tictactoe") == "mcts_envs/TicTacToe-v0"
    assert gymnasium_id("ultimate_tictactoe") == "mcts_envs/UltimateTicTacToe-v0"
    env = gymnasium.make(
        "mcts_envs/TicTacToe-v0", opponent=make_agent("minimax2", seed=0).act, seat="player_1"
    )
    obs, info = env.reset(seed=0)
    assert isinstance(env.unwrapped, SingleAgentEnv)
    assert info["seat"] == 1 and obs.sum() == 1  # minimax2 made the first move
    for name in mcts_envs.list_games():
        assert gymnasium_id(name) in gymnasium.registry
