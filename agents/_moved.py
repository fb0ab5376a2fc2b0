"""Modules that moved in 0.2 (``agents/`` laid out as players, evaluation and front ends),
importable under their old names for one release with a ``DeprecationWarning``.

``import agents.arena`` gives the module :mod:`agents.evaluation.arena` itself (the same object, so
``isinstance`` checks and monkeypatching see one module). Remove this file in 0.3.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import warnings
from types import ModuleType

#: Old module name -> new module name.
MOVED = {
    "agents.arena": "agents.evaluation.arena",
    "agents.tournament": "agents.evaluation.tournament",
    "agents.ratings": "agents.evaluation.ratings",
    "agents.plots": "agents.evaluation.plots",
    "agents.mistakes": "agents.evaluation.mistakes",
    "agents.expert": "agents.evaluation.expert",
    "agents.backends.ray_backend": "agents.evaluation.backends.ray_backend",
    "agents.workers": "agents.evaluation.backends.workers",
    "agents.adapters": "agents.learned.adapters",
    "agents.torch_evaluator": "agents.learned.torch_evaluator",
    "agents.rl": "agents.learned.rl",
    "agents.backends": "agents.evaluation.backends",
    "agents.cli": "agents.frontends.cli",
    "agents.expert_cli": "agents.frontends.expert",
    "agents.play": "agents.frontends.play",
    "agents.uai": "agents.frontends.uai",
    "agents.web": "agents.frontends.web",
    "agents.web.app": "agents.frontends.web.app",
    "agents.web.command": "agents.frontends.serve",
    "agents.web.limits": "agents.frontends.web.limits",
    "agents.web.page": "agents.frontends.web.page",
    "agents.web.session": "agents.frontends.web.session",
    "agents.web.store": "agents.frontends.web.store",
    "agents.warmup": "agents.frontends.warmup",
}


class _MovedFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds an old module name and loads it as the module under its new name."""

    def find_spec(self, name: str, path: object = None, target: object = None):
        if name not in MOVED:
            return None
        return importlib.util.spec_from_loader(name, self)

    def create_module(self, spec) -> ModuleType:
        new = MOVED[spec.name]
        warnings.warn(
            f"{spec.name} moved to {new}; the old name goes in mcts-envs 0.3",
            DeprecationWarning,
            stacklevel=2,
        )
        module = importlib.import_module(new)
        self._spec = module.__spec__
        return module

    def exec_module(self, module: ModuleType) -> None:
        module.__spec__ = self._spec  # the import system set the alias's spec: keep the real one


def install() -> None:
    """Make the old names importable (idempotent)."""
    if not any(isinstance(finder, _MovedFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, _MovedFinder())
