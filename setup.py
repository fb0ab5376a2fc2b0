"""Packages of the distribution, and the compiled code of a wheel built by
``scripts/build_wheel.py``. Everything else is in ``pyproject.toml``.

* The repository's top-level ``agents/`` folder is installed as ``mcts_envs.agents``, so nothing
  lands in site-packages' top-level ``agents/`` (``openai-agents`` and TensorFlow's ``agents``
  install there).
* When ``MCTS_ENVS_COMPILED_DIR`` names a folder (the build script sets it), its files are packed
  as ``mcts_envs/_compiled/`` and the wheel is tagged for this Python and platform (compiled
  code is specific to both); otherwise the wheel is pure Python.
"""

from __future__ import annotations

import os
import platform
import shutil
import sys
from pathlib import Path

from setuptools import find_packages, setup
from setuptools.command.build_py import build_py

try:
    from setuptools.command.bdist_wheel import bdist_wheel
except ImportError:  # setuptools < 70.1 (a build without isolation): the wheel package's
    from wheel.bdist_wheel import bdist_wheel

AGENTS_FOLDER = "agents"
AGENTS_PACKAGE = "mcts_envs.agents"
COMPILED = os.environ.get("MCTS_ENVS_COMPILED_DIR", "").strip()

#: Folders of agents/ that hold data only (package data, no modules).
AGENTS_DATA = ["data", "data.ladders"]

packages = (
    find_packages(include=["mcts_envs", "mcts_envs.*"])
    + [
        AGENTS_PACKAGE + name[len(AGENTS_FOLDER) :]
        for name in find_packages(include=[AGENTS_FOLDER, f"{AGENTS_FOLDER}.*"])
    ]
    + [f"{AGENTS_PACKAGE}.{folder}" for folder in AGENTS_DATA]
)


class BuildWithCompiledCode(build_py):
    """``build_py`` that also copies the compiled code into ``mcts_envs/_compiled``."""

    def run(self) -> None:
        super().run()
        if COMPILED:
            target = Path(self.build_lib) / "mcts_envs" / "_compiled"
            shutil.rmtree(target, ignore_errors=True)
            shutil.copytree(COMPILED, target)


class PlatformWheel(bdist_wheel):
    """A wheel tagged for this Python and platform when it carries compiled code."""

    def finalize_options(self) -> None:
        super().finalize_options()
        if COMPILED:
            self.root_is_pure = False

    def get_tag(self) -> tuple[str, str, str]:
        python, abi, plat = super().get_tag()
        if COMPILED and sys.platform.startswith("linux"):
            # The code links to nothing but the C library and numba's runtime.
            plat = f"manylinux_2_17_{platform.machine().lower()}"
        return python, abi, plat


setup(
    packages=packages,
    package_dir={AGENTS_PACKAGE: AGENTS_FOLDER},
    cmdclass={"build_py": BuildWithCompiledCode, "bdist_wheel": PlatformWheel},
)
