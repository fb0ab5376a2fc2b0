"""mcts-envs: board-game environments (PettingZoo AEC with action masks) for RL research.

Importing the package imports every env module (``mcts_envs.<game>_v<N>``, game cards in
:mod:`mcts_envs.envs`), which registers each game with :func:`make` and with PettingZoo. Import
an env module either way: ``import mcts_envs.tictactoe_v0`` or ``from mcts_envs import
tictactoe_v0``.
"""

from __future__ import annotations

# The env modules, imported explicitly (each registers its game with make() and PettingZoo).
from mcts_envs import (
    ataxx_v0,
    pentago_twist_v0,
    tantrix_v0,
    tictactoe_v0,
    ultimate_tictactoe_v0,
)
from mcts_envs.core import (
    CHANCE,
    TERMINAL,
    ActionTypeError,
    EnvUsageError,
    Game,
    GameInfo,
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
    get_entry,
    list_games,
    make,
    make_game,
)

__version__ = "0.1.0"

#: The env modules' names, e.g. ``"tictactoe_v0"``.
ENV_MODULES = [
    "ataxx_v0",
    "pentago_twist_v0",
    "tantrix_v0",
    "tictactoe_v0",
    "ultimate_tictactoe_v0",
]

# gymnasium.make("mcts_envs/TicTacToe-v0", opponent=...): the single-agent views, one id per game
from mcts_envs.envs.single_agent import register_gymnasium_envs as _register_gymnasium  # noqa: E402

_register_gymnasium()

__all__ = [
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
    "ataxx_v0",
    "get_entry",
    "list_games",
    "make",
    "make_game",
    "pentago_twist_v0",
    "tantrix_v0",
    "tictactoe_v0",
    "ultimate_tictactoe_v0",
]
