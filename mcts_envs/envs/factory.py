"""Turns a game into its env module's public factories (``env``, ``raw_env``) and registers it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mcts_envs.core.registry import RegistryEntry, register_game
from mcts_envs.envs.aec import GameEnv, _EnvDefinition
from mcts_envs.envs.safety import SafeEnv


def define_env(
    name: str,
    version: int,
    game_factory: Callable[..., Any],
    renderer_factory: Callable[[Any], Any],
    module: str,
    render_fps: int = 2,
) -> tuple[Callable[..., Any], Callable[..., Any]]:
    """Build ``(env, raw_env)`` for a game and register both with mcts_envs and PettingZoo.

    Args:
        name: the game's name (``"tictactoe"``); the env is ``f"{name}_v{version}"``.
        version: env version.
        game_factory: ``(**game_kwargs) -> Game``.
        renderer_factory: ``(game) -> board renderer`` (see :mod:`mcts_envs.envs.rendering`).
        module: the env module's import path (its opening docstring is the game card), for
            PettingZoo's entry point.
        render_fps: frames per second of the ``human`` render mode.

    Returns:
        ``env(**kwargs)`` (with PettingZoo's classic safety) and ``raw_env(**kwargs)``.
    """
    definition = _EnvDefinition(f"{name}_v{version}", game_factory, renderer_factory, render_fps)

    def raw_env(**kwargs: Any) -> GameEnv:
        """The unwrapped env: an illegal action raises ``IllegalActionError``."""
        return GameEnv(definition, **kwargs)

    def env(**kwargs: Any) -> SafeEnv:
        """The env with PettingZoo's classic safety: order checks, range checks, illegal = loss."""
        return SafeEnv(GameEnv(definition, **kwargs))

    raw_env.__qualname__ = raw_env.__name__ = "raw_env"
    env.__qualname__ = env.__name__ = "env"
    raw_env.__module__ = env.__module__ = module
    register_game(
        RegistryEntry(name, version, game_factory, env, raw_env, env_module=module),
        entry_point=f"{module}:env",
    )
    return env, raw_env
