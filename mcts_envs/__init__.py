"""mcts-envs: board-game environments (PettingZoo AEC with action masks) for RL research.

Importing the package imports every env module in :mod:`mcts_envs.envs` (files named
``<game>_v<N>.py``), which registers each game with :func:`make` and with PettingZoo
(``pettingzoo.make("aec", "mcts_envs/<game>-v<N>")``). Each env module is also an attribute:
``from mcts_envs import tictactoe_v0``.
"""

from __future__ import annotations

import importlib
import pkgutil
import re

from mcts_envs import envs as _envs
from mcts_envs.core import (
    CHANCE,
    TERMINAL,
    ActionTypeError,
    Game,
    GameInfo,
    IllegalActionError,
    InvalidOptionError,
    InvalidRecordError,
    InvalidSeedError,
    MctsEnvsError,
    OptionalDependencyError,
    UnknownGameError,
    get_entry,
    list_games,
    make,
    make_game,
)

__version__ = "0.1.0"

_ENV_MODULE = re.compile(r"^[a-z_]+_v\d+$")


def _import_env_modules() -> list[str]:
    names = []
    for module in pkgutil.iter_modules(_envs.__path__):
        if _ENV_MODULE.match(module.name):
            globals()[module.name] = importlib.import_module(f"mcts_envs.envs.{module.name}")
            names.append(module.name)
    return sorted(names)


ENV_MODULES = _import_env_modules()

# gymnasium.make("mcts_envs/TicTacToe-v0", opponent=...): the single-agent views, one id per game
from mcts_envs.envs.single_agent import register_gymnasium_envs as _register_gymnasium  # noqa: E402

_register_gymnasium()

__all__ = [
    "CHANCE",
    "ENV_MODULES",
    "TERMINAL",
    "ActionTypeError",
    "Game",
    "GameInfo",
    "IllegalActionError",
    "InvalidOptionError",
    "InvalidRecordError",
    "InvalidSeedError",
    "MctsEnvsError",
    "OptionalDependencyError",
    "UnknownGameError",
    "get_entry",
    "list_games",
    "make",
    "make_game",
    *ENV_MODULES,
]
