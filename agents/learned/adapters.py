"""Adapters that let learned policies play wherever agents do (env loops, the arena).

:class:`PolicyAgent` wraps any function ``fn(observation, action_mask) -> action``;
:class:`MaskablePPOAgent` wraps a Stable-Baselines3 ``sb3_contrib.MaskablePPO`` model (optional
dependency, imported only when used); the ``ppo`` agent spec (``"ppo:path=model.zip"``) is
:class:`SavedPPOAgent`, which loads each saved model once per process. To use another adapter in
the arena or the CLI, register a class that builds it: ``register_agent("mypolicy", MyAgent)``,
from a module named with ``--agent-module`` or an ``mcts_envs.agents`` entry point.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from mcts_envs.agents.base import ForwardModelAgent
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
        model: the model, or a path (``str`` or path-like) for ``MaskablePPO.load``.
        deterministic: take the most likely action (else sample from the policy).
        name: label for tables and records.

    Raises:
        OptionalDependencyError: if ``sb3_contrib`` is not installed and a path is given.
        FileNotFoundError: if the path does not exist.
    """

    def __init__(self, model: Any, *, deterministic: bool = True, name: str = "maskable_ppo"):
        if isinstance(model, str | os.PathLike):
            model = load_maskable_ppo(model)
        self.model = model
        self.deterministic = deterministic

        def predict(observation: np.ndarray, mask: np.ndarray) -> int:
            action, _ = model.predict(
                observation, action_masks=mask.astype(bool), deterministic=deterministic
            )
            return int(np.asarray(action).reshape(()))

        super().__init__(predict, name=name)


def load_maskable_ppo(path: str | os.PathLike) -> Any:
    """``MaskablePPO.load(path)``, loaded once per process for each file version.

    Raises:
        OptionalDependencyError: if ``sb3_contrib`` is not installed (the ``train`` extra).
        FileNotFoundError: if ``path`` does not exist.
    """
    resolved = Path(path).expanduser().resolve()
    if not resolved.is_file():
        raise FileNotFoundError(f"no saved model at {path} (expected a MaskablePPO .zip file)")
    return _load_cached(str(resolved), resolved.stat().st_mtime_ns)


@functools.lru_cache(maxsize=8)
def _load_cached(path: str, mtime_ns: int) -> Any:
    """One loaded model per (file, modification time) and process; ``mtime_ns`` keys the cache."""
    sb3_contrib = require_optional("sb3_contrib", "train")
    return sb3_contrib.MaskablePPO.load(path, device="cpu")


class SavedPPOAgent(MaskablePPOAgent):
    """The ``ppo`` agent spec: a saved MaskablePPO model, e.g. ``"ppo:path=model.zip"``.

    The model is loaded once per process (see :func:`load_maskable_ppo`), so a match of many games
    loads it once per worker. ``seed`` is accepted for the arena; a deterministic policy ignores it.

    Args:
        path: the saved model (``.zip`` written by ``model.save``).
        deterministic: take the most likely action (else sample).
        seed: unused (the policy's own sampling uses torch's generator).
    """

    def __init__(self, path: str, deterministic: bool = True, seed: int | None = None):
        super().__init__(load_maskable_ppo(path), deterministic=deterministic, name=f"ppo:{path}")
        self.path = path  # what game records name (mcts_envs.agents.resolved)
