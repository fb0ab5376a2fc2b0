"""``import mcts_envs.<game>_v<N>``: every built-in game's env module under its short name.

The short modules are made from the registry (:data:`~mcts_envs.core.registry.BUILTIN_GAMES`),
not written per game: :class:`EnvModuleFinder`, on ``sys.meta_path`` once ``mcts_envs`` is
imported, answers exactly those names (after the file-system finders, so a real module always
wins). The module it makes holds the env module's game card (its ``__doc__``) and public names
(``env``, ``raw_env``); the env module itself, ``mcts_envs.envs.<game>_v<N>``, is imported on
first use of the short one, so ``import mcts_envs`` still imports no game.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
from types import ModuleType

from mcts_envs.core.registry import builtin_game

#: The package whose short env modules the finder answers.
PACKAGE = "mcts_envs"


class EnvModuleFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds and loads ``mcts_envs.<game>_v<N>`` for the built-in games (nothing else)."""

    def find_spec(
        self, fullname: str, path: object = None, target: object = None
    ) -> importlib.machinery.ModuleSpec | None:
        package, _, short = fullname.rpartition(".")
        game = builtin_game(short) if package == PACKAGE else None
        if game is None or short != game.env_name:
            return None
        return importlib.machinery.ModuleSpec(fullname, self, origin=game.env_module)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> None:
        return None  # the default module

    def exec_module(self, module: ModuleType) -> None:
        target = importlib.import_module(module.__spec__.origin)
        module.__doc__ = target.__doc__
        names = list(getattr(target, "__all__", ("env", "raw_env")))
        for name in names:
            setattr(module, name, getattr(target, name))
        module.__all__ = names


def install_env_module_finder() -> None:
    """Put one :class:`EnvModuleFinder` at the end of ``sys.meta_path`` (again: no change)."""
    if not any(isinstance(finder, EnvModuleFinder) for finder in sys.meta_path):
        sys.meta_path.append(EnvModuleFinder())
