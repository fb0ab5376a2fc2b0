"""MkDocs hook: lay out the package as it is installed, for the API reference.

The repository keeps the agents in its top-level ``agents/`` folder, installed as
``mcts_envs.agents`` (``setup.py``). mkdocstrings reads sources from folders, so before the
build this hook makes ``build/docs-source/mcts_envs/``: a link to every entry of ``mcts_envs/``
and ``agents`` linked to ``agents/`` (copies where the file system has no symbolic links).
"""

from __future__ import annotations

import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TREE = ROOT / "build" / "docs-source" / "mcts_envs"


def _link(target: Path, link: Path) -> None:
    try:
        link.symlink_to(target, target_is_directory=target.is_dir())
    except OSError:
        if target.is_dir():
            shutil.copytree(target, link, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(target, link)


def lay_out() -> Path:
    """(Re)make the installed layout under ``build/docs-source``; returns the package folder."""
    if TREE.is_symlink() or TREE.is_file():
        TREE.unlink()
    elif TREE.exists():
        shutil.rmtree(TREE)
    TREE.mkdir(parents=True)
    for entry in sorted((ROOT / "mcts_envs").iterdir()):
        if entry.name != "__pycache__":
            _link(entry, TREE / entry.name)
    _link(ROOT / "agents", TREE / "agents")
    return TREE


def on_startup(command: str, dirty: bool) -> None:
    lay_out()
