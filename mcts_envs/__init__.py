"""mcts-envs: board-game environments (PettingZoo AEC with action masks) for RL research.

Importing the package is quick: it registers every game with :func:`make`, PettingZoo and
Gymnasium by name and imports no game (and no numba) until one is used. The env modules
(``mcts_envs.<game>_v<N>``, one per line of the registry's ``BUILTIN_GAMES``, each naming its
``mcts_envs.envs`` module with the game card, as PettingZoo's ``classic`` modules do) are imported
on first use, either way: ``import mcts_envs.tictactoe_v0``, ``from mcts_envs import tictactoe_v0``
or ``mcts_envs.tictactoe_v0``.
"""

from __future__ import annotations

import importlib
from typing import Any

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
from mcts_envs.core.registry import (
    BUILTIN_ENV_MODULES,
    BUILTIN_GAMES,
    get_entry,
    list_games,
    make,
    make_game,
    register_builtin_envs,
)

__version__ = "0.1.0"

#: The env modules' names, e.g. ``"tictactoe_v0"``.
ENV_MODULES = list(BUILTIN_ENV_MODULES)

#: Names imported on first access (PEP 562): the env modules, and the core names whose
#: module imports numba.
_LAZY = {name: f"mcts_envs.{name}" for name in ENV_MODULES}
_LAZY.update(dict.fromkeys(("Game", "GameInfo"), "mcts_envs.core.game"))


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'mcts_envs' has no attribute {name!r}")
    value = importlib.import_module(module)
    if not module.endswith(f".{name}"):
        value = getattr(value, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


# pettingzoo.make("aec", "mcts_envs/<game>-v0") and gymnasium.make("mcts_envs/<Game>-v0"), by name
register_builtin_envs()
from mcts_envs.envs.gymnasium_registration import register_gymnasium_envs  # noqa: E402

register_gymnasium_envs()

__all__ = [  # the env modules from the registry last
    "BUILTIN_GAMES",
    "CHANCE",
    "ENV_MODULES",
    "TERMINAL",
    "ActionTypeError",
    "EnvUsageError",
    "Game",
    "GameInfo",
    "IllegalActionError",
    "InvalidOptionError",
    "InvalidRecordError",
    "InvalidSeedError",
    "InvalidStateError",
    "MctsEnvsError",
    "OptionalDependencyError",
    "ResetRequiredError",
    "StateTypeError",
    "UnknownGameError",
    "get_entry",
    "list_games",
    "make",
    "make_game",
    *ENV_MODULES,
]
