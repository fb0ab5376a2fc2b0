"""MaskablePPO's ``CnnPolicy`` trains on every game with ``mcts_envs.rl.sb3.BoardCNN``.

SB3's default ``NatureCNN`` (8x8 stride-4 kernels) fits none of the boards but Tantrix's 58x58
grid; ``BoardCNN`` fits them all.
Real sb3-contrib and torch (the ``train`` extra), tiny sizes.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

import torch
from gymnasium import spaces
from sb3_contrib import MaskablePPO
from stable_baselines3.common.torch_layers import NatureCNN

import mcts_envs
from mcts_envs.core.errors import InvalidOptionError
from mcts_envs.rl import LearnerVectorEnv
from mcts_envs.rl.sb3 import BoardCNN, SB3VecEnv

torch.set_num_threads(1)

#: The smallest image side NatureCNN takes: 8x8 stride 4, 4x4 stride 2, 3x3 stride 1.
NATURE_CNN_MIN_SIDE = 36


@pytest.mark.parametrize("game", mcts_envs.list_games())
def test_maskable_ppo_cnn_policy_trains_with_board_cnn(game):
    """Two PPO updates on image observations: the extractor is the board CNN, its weights
    move, and the trained policy's actions are legal."""
    env = SB3VecEnv(LearnerVectorEnv(game, 2, seed=0, image=True))
    model = MaskablePPO(
        "CnnPolicy",
        env,
        n_steps=4,
        batch_size=8,
        n_epochs=1,
        seed=0,
        policy_kwargs={
            "features_extractor_class": BoardCNN,
            "features_extractor_kwargs": {"features_dim": 16, "channels": (8,)},
            "net_arch": [],
        },
    )
    extractor = model.policy.features_extractor
    assert isinstance(extractor, BoardCNN)
    before = [p.detach().clone() for p in extractor.parameters()]
    model.learn(2 * 2 * 4)
    assert model.num_timesteps == 16
    assert any(not torch.equal(a, b) for a, b in zip(before, extractor.parameters(), strict=True))
    observation = env.reset()
    masks = env.action_masks()
    actions, _ = model.predict(observation, action_masks=masks, deterministic=False)
    assert all(masks[i, a] for i, a in enumerate(actions))


@pytest.mark.parametrize("game", mcts_envs.list_games())
def test_board_cnn_fits_boards_where_nature_cnn_does_not(game):
    space = LearnerVectorEnv(game, 1, seed=0, image=True).single_observation_space
    features = BoardCNN(space, features_dim=32)(torch.zeros(3, *space.shape))
    assert tuple(features.shape) == (3, 32)
    if min(space.shape[1:]) < NATURE_CNN_MIN_SIDE:  # all but Tantrix's 58x58 grid
        with pytest.raises(RuntimeError):  # the kernels are larger than the board
            NatureCNN(space, normalized_image=False)


def test_board_cnn_pools_large_boards_to_max_side():
    cnn = BoardCNN(spaces.Box(0, 255, (2, 30, 12), np.uint8), channels=(4,), max_side=9)
    assert cnn.linear[0].in_features == 4 * 9 * 9
    cnn = BoardCNN(spaces.Box(0, 255, (2, 3, 3), np.uint8), channels=(4,))
    assert cnn.linear[0].in_features == 4 * 3 * 3


@pytest.mark.parametrize(
    ("space", "kwargs", "match"),
    [
        (spaces.Box(0, 1, (9,), np.float32), {}, r"image space of shape \(C, H, W\)"),
        (spaces.Box(0, 255, (2, 3, 3), np.uint8), {"channels": ()}, "at least one"),
        (spaces.Box(0, 255, (2, 3, 3), np.uint8), {"features_dim": 0}, "positive"),
    ],
)
def test_board_cnn_refuses_bad_spaces_and_sizes(space, kwargs, match):
    with pytest.raises(InvalidOptionError, match=match):
        BoardCNN(space, **kwargs)
