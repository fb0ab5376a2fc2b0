"""Adapters that let learned policies play wherever agents do (env loops, the arena).

:class:`PolicyAgent` wraps any function ``fn(observation, action_mask) -> action``;
:class:`MaskablePPOAgent` wraps a Stable-Baselines3 ``sb3_contrib.MaskablePPO`` model (optional
dependency, imported only when used). To use an adapter in the arena or the CLI, register a class
that builds it: ``register_agent("mypolicy", MyPolicyAgent)``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from agents.base import ForwardModelAgent
from mcts_envs.core.errors import IllegalActionError, require_optional
from mcts_envs.core.game import Game, check_action_type

PolicyFunction = Callable[[np.ndarray, np.ndarray], Any]


class PolicyAgent(ForwardModelAgent):
    """An agent from a function ``fn(observation, action_mask) -> action``.

    ``act(env)`` reads the observation and ``int8`` mask of ``env.agent_selection`` (any
    PettingZoo env with dict observations); ``act_state(game, state)`` builds them with the
    forward model (``game.observation(state, player)``, ``game.action_mask(state)``), so the
    function sees the same inputs in both cases. The returned action must be legal.

    Args:
        fn: the policy.
        name: label for tables and records.
    """

    def __init__(self, fn: PolicyFunction, *, name: str = "policy") -> None:
        if not callable(fn):
            raise TypeError(
                f"PolicyAgent needs a callable fn(observation, action_mask), got {fn!r}"
            )
        self.fn = fn
        self.name = name

    def _decide(self, observation: np.ndarray, mask: np.ndarray) -> int:
        action = self.fn(observation, mask)
        if isinstance(action, np.ndarray) and action.size == 1:
            action = action.reshape(())
        action = check_action_type(action)
        if not 0 <= action < len(mask) or not mask[action]:
            raise IllegalActionError(
                f"policy {self.name!r} returned action {action}, which the mask does not allow; "
                f"legal: {np.flatnonzero(mask).tolist()}"
            )
        return action

    def act(self, env: Any) -> int:
        observed = env.observe(env.agent_selection)
        return self._decide(observed["observation"], np.asarray(observed["action_mask"]))

    def act_state(self, game: Game, state: np.ndarray) -> int:
        player = game.current_player(state)
        return self._decide(game.observation(state, player), game.action_mask(state))


class MaskablePPOAgent(PolicyAgent):
    """Plays a trained ``sb3_contrib.MaskablePPO`` model (a model object or a saved path).

    Args:
        model: the model, or a path for ``MaskablePPO.load``.
        deterministic: take the most likely action (else sample from the policy).
        name: label for tables and records.

    Raises:
        OptionalDependencyError: if ``sb3_contrib`` is not installed and a path is given.
    """

    def __init__(self, model: Any, *, deterministic: bool = True, name: str = "maskable_ppo"):
        if isinstance(model, str):
            sb3_contrib = require_optional("sb3_contrib", "train")
            model = sb3_contrib.MaskablePPO.load(model)
        self.model = model
        self.deterministic = deterministic

        def predict(observation: np.ndarray, mask: np.ndarray) -> int:
            action, _ = model.predict(
                observation, action_masks=mask.astype(bool), deterministic=deterministic
            )
            return int(np.asarray(action).reshape(()))

        super().__init__(predict, name=name)
