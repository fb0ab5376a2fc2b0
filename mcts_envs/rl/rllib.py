"""RLlib glue (the ``rllib`` extra): the games as RLlib multi-agent envs with action masks.

RLlib's action-masking ``RLModule`` (``ActionMaskingTorchRLModule``, new API stack) reads
observations ``{"observations": ..., "action_mask": ...}``; PettingZoo envs give
``{"observation": ..., "action_mask": ...}``, so RLlib's ``PettingZooEnv`` on its own fails with
``KeyError: 'observations'``. :class:`MaskedPettingZooEnv` renames the key and flattens the planes
to ``float32`` vectors (RLlib's default encoder would otherwise build a CNN whose kernels do not
fit a 3x3 board); :func:`register_env` registers a game under a name RLlib's env runners can
build; :func:`masked_ppo_config` is a PPO config where one shared module plays both seats::

    import ray
    from mcts_envs.rl.rllib import masked_ppo_config

    ray.init(num_cpus=2)
    config = masked_ppo_config("tictactoe").env_runners(num_env_runners=0)
    algo = config.build_algo()
    result = algo.train()

Rewards come from RLlib's ``PettingZooEnv``: after the last move every agent still in the game
gets its final reward (the loser its -1) on its own last observation.

Importing this module imports ``ray.rllib``; install with ``pip install -e ".[rllib]"`` (RLlib
2.60 pins gymnasium 1.2.2; the package works on gymnasium 1.2 and 1.4).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from mcts_envs.core.errors import InvalidOptionError, require_optional
from mcts_envs.core.registry import get_entry, make

require_optional("ray.rllib", "rllib")

from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv  # noqa: E402

__all__ = ["SHARED_MODULE", "MaskedPettingZooEnv", "env_name", "masked_ppo_config", "register_env"]

#: The module id of the one policy that plays both seats in :func:`masked_ppo_config`.
SHARED_MODULE = "shared"


class MaskedPettingZooEnv(PettingZooEnv):
    """RLlib's ``PettingZooEnv`` over a game, observations as the action-masking module reads them.

    Each agent's observation is ``{"observations": float32[H * W * C], "action_mask":
    float32[num_actions]}`` (the planes flattened, values 0/1; the mask 1 for legal actions), with
    the matching ``Dict`` space in ``observation_spaces``.

    Args:
        env: a PettingZoo AEC env of this package (``mcts_envs.make(game)``).
    """

    def __init__(self, env: Any) -> None:
        super().__init__(env)
        mask_space = env.observation_space(env.possible_agents[0])["action_mask"]
        plane_space = env.observation_space(env.possible_agents[0])["observation"]
        size = int(np.prod(plane_space.shape))
        space = spaces.Dict(
            {
                "observations": spaces.Box(0.0, 1.0, (size,), np.float32),
                "action_mask": spaces.Box(0.0, 1.0, mask_space.shape, np.float32),
            }
        )
        self.observation_spaces = {agent: space for agent in self._agent_ids}
        self.observation_space = spaces.Dict(self.observation_spaces)

    @staticmethod
    def _convert(observation: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        return {
            "observations": np.asarray(observation["observation"], np.float32).reshape(-1),
            "action_mask": np.asarray(observation["action_mask"], np.float32),
        }

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        observations, infos = super().reset(seed=seed, options=options)
        return {agent: self._convert(obs) for agent, obs in observations.items()}, infos

    def step(self, action: dict):
        observations, rewards, terminated, truncated, infos = super().step(action)
        converted = {agent: self._convert(obs) for agent, obs in observations.items()}
        return converted, rewards, terminated, truncated, infos


def env_name(game: str) -> str:
    """The name :func:`register_env` gives ``game``, e.g. ``"mcts_envs_tictactoe"``."""
    return f"mcts_envs_{get_entry(game).name}"


def register_env(game: str) -> str:
    """Register ``game`` with RLlib (``ray.tune.registry``); returns the env name to use in
    ``config.environment(name, env_config=...)``.

    ``env_config`` holds options of :func:`mcts_envs.make` (``max_moves``, game options,
    ``raw=True`` for the unwrapped env, where an illegal action raises instead of losing).

    Raises:
        UnknownGameError: if ``game`` is not registered.
    """
    from ray.tune.registry import register_env as ray_register_env

    name = get_entry(game).name
    ray_register_env(
        env_name(name), lambda config: MaskedPettingZooEnv(make(name, **dict(config or {})))
    )
    return env_name(name)


def masked_ppo_config(
    game: str,
    env_config: dict[str, Any] | None = None,
    hidden: tuple[int, ...] = (256, 256),
) -> Any:
    """A ``PPOConfig`` for self-play on ``game``: one masked module plays both seats.

    The env is registered (:func:`register_env`); both agents map to the module
    :data:`SHARED_MODULE`, an ``ActionMaskingTorchRLModule`` with ``hidden`` layers. Chain RLlib's
    own methods on the result (``.env_runners(...)``, ``.training(...)``) before
    ``build_algo()``.

    Args:
        game: a registered game name.
        env_config: options of :func:`mcts_envs.make` for every env built.
        hidden: the module's hidden layer sizes.

    Raises:
        UnknownGameError: if ``game`` is not registered.
        InvalidOptionError: for empty or non-positive ``hidden`` sizes.
    """
    if not hidden or any(not isinstance(h, int) or h < 1 for h in hidden):
        raise InvalidOptionError(f"hidden must be positive layer sizes, got {hidden!r}")
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import (
        ActionMaskingTorchRLModule,
    )

    module = RLModuleSpec(
        module_class=ActionMaskingTorchRLModule,
        model_config={"head_fcnet_hiddens": list(hidden), "head_fcnet_activation": "relu"},
    )
    return (
        PPOConfig()
        .environment(register_env(game), env_config=dict(env_config or {}))
        .multi_agent(
            policies={SHARED_MODULE},
            policy_mapping_fn=lambda agent_id, episode, **kwargs: SHARED_MODULE,
        )
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={SHARED_MODULE: module}))
    )
