"""Core of mcts-envs: the Game protocol, the registry, errors and seeding."""

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
from mcts_envs.core.game import CHANCE, TERMINAL, Game, GameInfo, GameKernels, KernelGame
from mcts_envs.core.registry import get_entry, list_games, make, make_game

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
