"""Learner views: rewards from the learner's seat (also when the opponent wins), seats alternating,
opponent pools, agent opponents, and a real MaskablePPO run on the SB3 adapter."""

from __future__ import annotations

import numpy as np
import pytest

import mcts_envs
from mcts_envs.rl import LearnerVectorEnv, OpponentPool, policy_opponent, random_opponent
from mcts_envs.rl.opponents import OpponentView


def first_legal(observation, mask):
    return mask.argmax(axis=1)


def test_learner_gets_minus_one_when_the_opponent_wins_and_seats_alternate():
    # env 0: learner is player_0; env 1: learner is player_1 (X, the opponent, opens)
    env = LearnerVectorEnv("tictactoe", 2, opponent=policy_opponent(first_legal), seed=0)
    obs, infos = env.reset(seed=0)
    assert infos["seat"].tolist() == [0, 1]
    game = env.game
    # env 1: X took cell 0 already. Learner (O) plays 3 then 4; X plays 1 then 2 and wins.
    # env 0: learner (X) plays 6 then 7; O (first legal) plays 0 then 1.
    obs, reward, terminated, truncated, infos = env.step(np.array([6, 3]))
    assert reward.tolist() == [0.0, 0.0] and not terminated.any()
    obs, reward, terminated, truncated, infos = env.step(np.array([7, 4]))
    assert terminated.tolist() == [False, True]
    assert reward.tolist() == [0.0, -1.0]
    final = infos["final_state"][1]
    assert game.returns(final).tolist() == [1.0, -1.0]
    assert game.to_text(final) == "xxx/oo./... o"
    np.testing.assert_array_equal(infos["final_obs"][1], game.observation(final, 1))
    assert infos["_final_obs"].tolist() == [False, True]
    # env 1 starts a new game with the learner as player_0: an empty board, learner to move
    assert infos["seat"].tolist() == [0, 0]
    assert obs[1].sum() == 0 and infos["action_mask"][1].all()
    obs, reward, terminated, truncated, infos = env.step(np.array([8, 4]))
    assert terminated.tolist() == [True, False] and reward.tolist() == [1.0, 0.0]  # 6-7-8


@pytest.mark.parametrize("random_first_player", [False, True])
def test_rewards_match_the_forward_model_over_many_random_games(random_first_player):
    env = LearnerVectorEnv(
        "ultimate_tictactoe",
        8,
        opponent=random_opponent(1),
        seed=2,
        random_first_player=random_first_player,
    )
    obs, infos = env.reset(seed=2)
    rng = np.random.default_rng(3)
    seats_seen, firsts_seen, games = set(), set(), 0
    for _ in range(300):
        seats = infos["seat"].copy()
        firsts = env.vector.batch.first_player.copy()  # who holds the game's seat 0, per game
        firsts_seen |= set(firsts.tolist())
        game_seats = seats ^ firsts  # the learner's seat in the game's own terms
        for i in range(8):
            planes = env.game.observation(env.vector.states[i], int(game_seats[i]))
            np.testing.assert_array_equal(obs[i], planes)
            assert env.game.current_player(env.vector.states[i]) == game_seats[i]
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in infos["action_mask"]])
        obs, reward, terminated, truncated, infos = env.step(actions)
        for i in np.flatnonzero(terminated):
            final = infos["final_state"][i]
            assert reward[i] == env.game.returns(final)[game_seats[i]]
            np.testing.assert_array_equal(
                infos["final_obs"][i], env.game.observation(final, int(game_seats[i]))
            )
            seats_seen.add(int(seats[i]))
            games += 1
        assert (reward[~terminated] == 0).all()
    assert games > 8 and seats_seen == {0, 1}
    assert firsts_seen == ({0, 1} if random_first_player else {0})


def test_reset_seed_reproduces_games_with_a_seeded_opponent():
    def run():
        env = LearnerVectorEnv("tictactoe", 4, seed=5)
        obs, infos = env.reset(seed=5)
        trace = [obs.copy()]
        for _ in range(12):
            obs, reward, *_ = env.step(infos_mask_first(env))
            trace.append(obs.copy())
        return np.stack(trace)

    def infos_mask_first(env):
        return env.action_masks().argmax(axis=1)

    np.testing.assert_array_equal(run(), run())


def test_image_observations_and_spaces():
    env = LearnerVectorEnv("tictactoe", 3, seed=0, image=True)
    obs, _ = env.reset(seed=0)
    assert obs.shape == (3, 2, 3, 3) and obs.dtype == np.uint8
    assert env.observation_space.contains(obs)
    assert env.single_observation_space.shape == (2, 3, 3)


def test_illegal_opponent_action_is_reported():
    env = LearnerVectorEnv(
        "tictactoe", 2, opponent=policy_opponent(lambda o, m: np.full(len(m), 4)), seed=0
    )
    env.reset(seed=0)
    with pytest.raises(mcts_envs.IllegalActionError, match=r"opponent .* illegal action 4 in env"):
        env.step(np.array([4, 0]))  # env 0: learner takes 4, then the opponent tries 4 too


def test_opponent_pool_draws_latest_older_and_fixed_members():
    calls = []

    def snapshot(tag):
        def act(observation, mask):
            calls.append(tag)
            return mask.argmax(axis=1)

        return act

    pool = OpponentPool(max_size=3, latest_probability=0.5, seed=0)
    assert pool.draw() == -1  # empty: the random fill-in
    for tag in range(5):
        pool.add(snapshot(tag), name=f"s{tag}")
    assert pool.names == ["s2", "s3", "s4"]
    draws = np.array([pool.draw() for _ in range(2000)])
    assert abs((draws == 2).mean() - 0.5) < 0.05
    assert set(np.unique(draws)) == {0, 1, 2}
    fixed = OpponentPool(seed=0, fixed=[(random_opponent(0), 0.3)])
    fixed.add(snapshot("x"))
    fixed_draws = np.array([fixed.draw() for _ in range(2000)])
    assert abs((fixed_draws == -2).mean() - 0.3) < 0.05
    env = LearnerVectorEnv("tictactoe", 16, opponent=pool, seed=0)
    env.reset(seed=0)
    for _ in range(6):
        env.step(env.action_masks().argmax(axis=1))
    assert set(calls) <= {2, 3, 4} and len(set(calls)) > 1
    with pytest.raises(mcts_envs.InvalidOptionError):
        OpponentPool(fixed=[(random_opponent(0), 0.7), (random_opponent(1), 0.6)])


def test_agent_opponent_plays_the_spec_and_reproduces():
    from mcts_envs.agents.learned.rl import agent_opponent

    opponent = agent_opponent("minimax2", seed=0)
    game = mcts_envs.make_game("tictactoe")
    state = game.from_text("xx./oo./x.. o")  # O to move wins at cell 5
    view = OpponentView(
        game.observation(state, 1)[None],
        (game.action_mask(state) == 1)[None],
        state[None],
        np.array([0]),
        np.array([1]),
        game,
    )
    assert opponent(view).tolist() == [5]
    env = LearnerVectorEnv("tictactoe", 4, opponent=agent_opponent("random", seed=1), seed=0)
    first, _ = env.reset(seed=7)
    again, _ = env.reset(seed=7)
    np.testing.assert_array_equal(first, again)


def test_maskable_ppo_trains_on_the_sb3_adapter_with_self_play():
    pytest.importorskip("sb3_contrib")
    import torch
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported

    from mcts_envs.rl.sb3 import SB3VecEnv, SelfPlayCallback

    torch.set_num_threads(1)
    pool = OpponentPool(seed=0)
    env = SB3VecEnv(LearnerVectorEnv("tictactoe", 8, opponent=pool, seed=0))
    assert is_masking_supported(env)
    env.seed(3)
    env.reset()
    assert get_action_masks(env).shape == (8, 9)
    model = MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=64, n_epochs=1, seed=0)
    model.learn(256, callback=SelfPlayCallback(pool, snapshot_every=128))
    assert len(pool) >= 2 and model.num_timesteps >= 256
    assert len(model.ep_info_buffer) > 0  # episode statistics reach SB3's logger
    env.reset()
    obs, rewards, dones, infos = env.step(env.action_masks().argmax(axis=1))
    for _ in range(10):
        obs, rewards, dones, infos = env.step(env.action_masks().argmax(axis=1))
        for i in np.flatnonzero(dones):
            assert infos[i]["terminal_observation"].shape == (3, 3, 2)
            assert infos[i]["episode"]["r"] == rewards[i]
