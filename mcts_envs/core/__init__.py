"""Core of mcts-envs: the Game protocol, the registry, errors and seeding."""

from __future__ import annotations

from mcts_envs.core.constants import CHANCE, TERMINAL
from mcts_envs.core.errors import (
    ActionTypeError,
    EnvUsageError,
    IllegalActionError,
    InvalidOptionError,
    InvalidRecordError,
    InvalidSeedError,
    InvalidStateError,
    MctsEnvsError,
    OptionalDependencyError,
    ResetRequiredError,
    StateTypeError,
    UnknownGameError,
)
from mcts_envs.core.registry import get_entry, list_games, make, make_game

#: Names of :mod:`mcts_envs.core.game` (which imports numba), imported on first access.
_GAME_NAMES = ("Game", "GameInfo", "GameKernels", "KernelGame")


def __getattr__(name: str):  # PEP 562: ``import mcts_envs.core`` stays free of numba
    if name not in _GAME_NAMES:
        raise AttributeError(f"module 'mcts_envs.core' has no attribute {name!r}")
    from mcts_envs.core import game

    value = globals()[name] = getattr(game, name)
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_GAME_NAMES))


__all__ = [
    "CHANCE",
    "TERMINAL",
    "ActionTypeError",
    "EnvUsageError",
    "Game",
    "GameInfo",
    "GameKernels",
    "IllegalActionError",
    "InvalidOptionError",
    "InvalidRecordError",
    "InvalidSeedError",
    "InvalidStateError",
    "KernelGame",
    "MctsEnvsError",
    "OptionalDependencyError",
    "ResetRequiredError",
    "StateTypeError",
    "UnknownGameError",
    "get_entry",
    "list_games",
    "make",
    "make_game",
]
