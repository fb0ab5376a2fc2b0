"""Stable-Baselines3 glue (the ``train`` extra): a ``VecEnv`` over a learner env, and self-play.

:class:`SB3VecEnv` presents a :class:`~mcts_envs.rl.vector_env.LearnerVectorEnv` as SB3's
``VecEnv``: ``MaskablePPO`` (sb3-contrib) reads the masks through ``env_method("action_masks")``;
ended games put ``terminal_observation`` (and ``TimeLimit.truncated``) in their info as SB3
expects, and ``episode`` statistics (``r``, ``l``, ``t``) as SB3's ``Monitor`` would, so
``ep_rew_mean`` is logged. :class:`SelfPlayCallback` adds a frozen copy of the model to an
:class:`~mcts_envs.rl.selfplay.OpponentPool` every ``snapshot_every`` steps. :class:`BoardCNN` is
a features extractor for ``CnnPolicy`` sized for boards (SB3's default ``NatureCNN`` uses 8x8 and
4x4 kernels with strides 4 and 2, larger than every board here)::

    model = MaskablePPO("CnnPolicy", SB3VecEnv(LearnerVectorEnv(game, 16, image=True)),
                        policy_kwargs={"features_extractor_class": BoardCNN})

Importing this module imports ``stable_baselines3``; install with ``pip install torch==2.13.0``
(a CPU build; see the README) then ``pip install -e ".[train]"``.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from mcts_envs.core.errors import require_optional

stable_baselines3 = require_optional("stable_baselines3", "train")

import torch  # noqa: E402
from stable_baselines3.common.callbacks import BaseCallback  # noqa: E402
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor  # noqa: E402
from stable_baselines3.common.vec_env import VecEnv  # noqa: E402

from mcts_envs.core.errors import InvalidOptionError  # noqa: E402
from mcts_envs.rl.selfplay import OpponentPool  # noqa: E402
from mcts_envs.rl.vector_env import LearnerVectorEnv, to_image  # noqa: E402

__all__ = ["BoardCNN", "SB3VecEnv", "SelfPlayCallback", "policy_snapshot"]


class SB3VecEnv(VecEnv):
    """SB3 ``VecEnv`` view of a :class:`LearnerVectorEnv` (auto-reset, masks, episode stats).

    ``seed(s)`` then ``reset()`` (what SB3's ``learn`` does) re-seeds the games and the opponent
    with ``s``.
    """

    def __init__(self, env: LearnerVectorEnv) -> None:
        self.env = env
        self.render_mode = None
        super().__init__(env.num_envs, env.single_observation_space, env.single_action_space)
        self._actions: np.ndarray | None = None
        self._returns = np.zeros(env.num_envs, np.float64)
        self._lengths = np.zeros(env.num_envs, np.int64)
        self._start = time.perf_counter()

    def reset(self) -> np.ndarray:
        seed = self._seeds[0] if self._seeds and self._seeds[0] is not None else None
        observation, _infos = self.env.reset(seed=seed)
        self._reset_seeds()
        self._returns[:] = 0.0
        self._lengths[:] = 0
        return observation

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions).reshape(self.num_envs).astype(np.int64)

    def step_wait(self):
        observation, reward, terminated, truncated, infos = self.env.step(self._actions)
        dones = terminated | truncated
        self._returns += reward
        self._lengths += 1
        info_list: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        for i in np.flatnonzero(dones):
            info_list[i] = {
                "terminal_observation": infos["final_obs"][i],
                "TimeLimit.truncated": bool(truncated[i] and not terminated[i]),
                "episode": {
                    "r": float(self._returns[i]),
                    "l": int(self._lengths[i]),
                    "t": round(time.perf_counter() - self._start, 6),
                },
            }
            self._returns[i] = 0.0
            self._lengths[i] = 0
        return observation, reward.astype(np.float32), dones, info_list

    def action_masks(self) -> np.ndarray:
        """``bool[N, num_actions]`` (also served per env through ``env_method``)."""
        return self.env.action_masks()

    def close(self) -> None:
        return None

    def _indices_list(self, indices: Any) -> list[int]:
        return list(self._get_indices(indices))

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        value = (
            getattr(self, attr_name) if attr_name == "render_mode" else getattr(self.env, attr_name)
        )
        return [value for _ in self._indices_list(indices)]

    def has_attr(self, attr_name: str) -> bool:
        return hasattr(self.env, attr_name)

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        setattr(self.env, attr_name, value)

    def env_method(self, method_name: str, *args: Any, indices: Any = None, **kwargs: Any) -> list:
        selected = self._indices_list(indices)
        if method_name == "action_masks":
            masks = self.env.action_masks()
            return [masks[i] for i in selected]
        result = getattr(self.env, method_name)(*args, **kwargs)
        return [result for _ in selected]

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        return [False for _ in self._indices_list(indices)]

    def get_images(self) -> Sequence[np.ndarray | None]:
        return [None for _ in range(self.num_envs)]


def policy_snapshot(model: Any, *, image: bool = False, deterministic: bool = False):
    """A frozen copy of ``model``'s policy as ``fn(observation, mask) -> actions`` on batches.

    Args:
        model: a ``MaskablePPO`` (or any SB3 model whose ``policy.predict`` takes
            ``action_masks``).
        image: convert the game's planes as ``LearnerVectorEnv(image=True)`` does.
        deterministic: play the most likely action (default: sample, for variety in self-play).
    """
    policy = copy.deepcopy(model.policy)
    policy.set_training_mode(False)

    def act(observation: np.ndarray, mask: np.ndarray) -> np.ndarray:
        obs = to_image(observation) if image else observation
        actions, _ = policy.predict(obs, action_masks=mask, deterministic=deterministic)
        return np.asarray(actions).reshape(-1)

    return act


class SelfPlayCallback(BaseCallback):
    """Adds a frozen snapshot of the model to ``pool`` every ``snapshot_every`` env steps.

    Args:
        pool: the :class:`OpponentPool` the learner env plays against.
        snapshot_every: env steps (summed over envs) between snapshots.
        image: passed to :func:`policy_snapshot`.
    """

    def __init__(self, pool: OpponentPool, snapshot_every: int, *, image: bool = False) -> None:
        super().__init__()
        self.pool = pool
        self.snapshot_every = int(snapshot_every)
        self.image = image
        self._last = 0

    def _on_training_start(self) -> None:
        if len(self.pool) == 0:
            self.pool.add(policy_snapshot(self.model, image=self.image), name="step_0")

    def _on_step(self) -> bool:
        if self.num_timesteps - self._last >= self.snapshot_every:
            self._last = self.num_timesteps
            self.pool.add(
                policy_snapshot(self.model, image=self.image), name=f"step_{self.num_timesteps}"
            )
        return True


class BoardCNN(BaseFeaturesExtractor):
    """A small CNN features extractor for board images (``features_extractor_class``).

    3x3 convolutions with padding 1 keep the board's size (a 3x3 Tic-Tac-Toe board stays 3x3),
    each followed by a ReLU; boards larger than ``max_side`` (Tantrix's 58x58 grid) are then
    average-pooled to ``max_side`` per side, so the linear layer stays small; a linear layer and a
    ReLU give ``features_dim`` features. Input: the ``uint8 [C, H, W]`` images of ``image=True``
    envs (SB3 scales them to [0, 1] before the extractor).

    Args:
        observation_space: a ``Box`` of shape ``(C, H, W)``.
        features_dim: output features.
        channels: output channels of each convolution (at least one).
        max_side: the largest grid side fed to the linear layer.

    Raises:
        InvalidOptionError: for a space that is not ``(C, H, W)`` or bad sizes.
    """

    def __init__(
        self,
        observation_space: Any,
        features_dim: int = 256,
        channels: Sequence[int] = (32, 64),
        max_side: int = 9,
    ) -> None:
        shape = getattr(observation_space, "shape", None)
        if shape is None or len(shape) != 3:
            raise InvalidOptionError(
                f"BoardCNN needs an image space of shape (C, H, W) (envs with image=True), got "
                f"{observation_space!r}"
            )
        sizes = [features_dim, max_side, *channels]
        if not channels or any(not isinstance(n, int) or n < 1 for n in sizes):
            raise InvalidOptionError(
                f"features_dim, max_side and channels must be positive ints (at least one "
                f"channel size), got features_dim={features_dim!r}, channels={channels!r}, "
                f"max_side={max_side!r}"
            )
        super().__init__(observation_space, features_dim)
        in_channels, height, width = (int(n) for n in shape)
        layers: list[torch.nn.Module] = []
        for out_channels in channels:
            layers += [torch.nn.Conv2d(in_channels, out_channels, 3, padding=1), torch.nn.ReLU()]
            in_channels = out_channels
        side = (min(height, max_side), min(width, max_side))
        if side != (height, width):
            layers.append(torch.nn.AdaptiveAvgPool2d(side))
        layers.append(torch.nn.Flatten())
        self.cnn = torch.nn.Sequential(*layers)
        self.linear = torch.nn.Sequential(
            torch.nn.Linear(in_channels * side[0] * side[1], features_dim), torch.nn.ReLU()
        )

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        """``[B, features_dim]`` features of ``[B, C, H, W]`` (scaled) images."""
        return self.linear(self.cnn(observations))
