"""The training example runs end to end at a tiny size (so it cannot rot): real SB3, real arena."""

from __future__ import annotations

import json

import pytest

from tests.examples.loading import load_example


def test_schedules_move_with_the_spent_budget_and_losses_pay_the_loss_reward():
    """What ``--lr-final`` / ``--ent-final`` and ``--loss-reward`` do, checked directly."""
    pytest.importorskip("sb3_contrib")
    import gymnasium as gym
    import numpy as np
    from stable_baselines3.common.vec_env import DummyVecEnv

    module = load_example("train_maskable_ppo")
    budget = module.Budget(100, None)
    assert budget.linear(1.0, 0.0) == 1.0 and budget.linear(3.0, None) == 3.0
    budget.done_steps = 50
    assert budget.linear(1.0, 0.0) == pytest.approx(0.5) and budget.time_left()
    budget.done_steps = 100
    assert budget.linear(2e-3, 1e-5) == pytest.approx(1e-5)
    timed = module.Budget(10**9, 1e-9)  # a wall-clock budget already spent
    assert timed.fraction() == 1.0 and not timed.time_left()

    class Rewards(gym.Env):  # pays -1, 0, +1 in turn
        observation_space = gym.spaces.Box(0, 1, (1,))
        action_space = gym.spaces.Discrete(2)

        def __init__(self):
            self.t = 0

        def reset(self, seed=None, options=None):
            return np.zeros(1, np.float32), {}

        def step(self, action):
            self.t += 1
            return np.zeros(1, np.float32), float((self.t - 1) % 3 - 1), False, False, {}

    venv = module.loss_reward_wrapper()(DummyVecEnv([Rewards]), loss_reward=-2)
    venv.reset()
    paid = [float(venv.step(np.zeros(1, np.int64))[1][0]) for _ in range(3)]
    assert paid == [-2.0, 0.0, 1.0]


def test_train_maskable_ppo_example_runs_tiny(tmp_path):
    pytest.importorskip("sb3_contrib")
    module = load_example("train_maskable_ppo")
    results = module.main(
        [
            "--steps", "512", "--envs", "8", "--n-steps", "32", "--batch-size", "64",
            "--epochs", "1", "--net", "32", "--snapshot-every", "128", "--eval-every", "256",
            "--eval-games", "8", "--eval-opponent", "minimax2", "--final", "random:6,minimax2:2",
            "--teachers", "perfect~0.5:0.3", "--loss-reward", "-2", "--lr-final", "1e-5",
            "--ent-final", "0",
            "--out", str(tmp_path), "--no-progress",
        ]
    )  # fmt: skip
    assert results["steps"] >= 512
    assert [entry["games"] for entry in results["arena"]] == [6, 2]
    assert all(1 <= entry["distinct_games"] <= entry["games"] for entry in results["arena"])
    assert (tmp_path / "model.zip").exists() and (tmp_path / "curve.png").stat().st_size > 1000
    curve = json.loads((tmp_path / "curve.json").read_text())
    assert [point["steps"] for point in curve][:2] == [0, 256]
    assert json.loads((tmp_path / "results.json").read_text()) == results
    # Tic-Tac-Toe is small enough for the exact outcome against random at every curve point
    exact = results["exact_random"]
    assert exact["win"] + exact["draw"] + exact["loss"] == pytest.approx(1.0)
    assert exact["loss"] == pytest.approx(sum(exact["loss_by_seat"]) / 2)
    assert all("exact_random" in point for point in curve)


def test_teacher_shares_parse_epsilon():
    module = load_example("train_maskable_ppo")
    assert module.spec_shares("alphabeta:0.25,perfect~0.5:0.1,mcts:iterations=9:0.2") == [
        ("alphabeta", 0.0, 0.25),
        ("perfect", 0.5, 0.1),
        ("mcts:iterations=9", 0.0, 0.2),
    ]
