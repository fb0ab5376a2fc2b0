"""Every Python code block of README.md and docs/*.md runs, each in a fresh namespace.

A block meant as a fragment (it continues an earlier block or needs a file the reader makes) is
preceded by the line ``<!-- fragment -->`` and skipped explicitly. Blocks run in a temporary
working directory that holds the files of ``examples/`` (as the shell blocks do,
``tests/docs/test_shell_blocks.py``), so files they write do not land in the checkout; what a
block imports or registers from there (``my_agents``) is forgotten after it. Blocks that need an
optional dependency skip when it is missing.
"""

from __future__ import annotations

import importlib.util
import re
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FRAGMENT = "<!-- fragment -->"
FENCE = re.compile(r"^```python\s*$(.*?)^```\s*$", re.MULTILINE | re.DOTALL)
#: Imports a block may need beyond the core package -> (the module that must be importable, the
#: extra that provides it). RLlib is not in the dev install: .ci/rllib runs its block.
OPTIONAL = {
    "torch": ("torch", "train"),
    "sb3_contrib": ("sb3_contrib", "train"),
    "torchrl": ("torchrl", "dev"),
    "tianshou": ("tianshou", "dev"),
    "ray": ("ray", "ray"),
    "textarena": ("textarena", "textarena"),
    "mcts_envs.rl.rllib": ("ray.rllib", "rllib"),
}


def _importable(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ImportError:  # a parent package is missing
        return False


def markdown_files() -> list[Path]:
    """README.md and every Markdown page of the docs."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def python_blocks(path: Path) -> list[tuple[int, str, bool]]:
    """``(line, code, is_fragment)`` for each Python block of ``path``."""
    text = path.read_text(encoding="utf-8")
    blocks = []
    for match in FENCE.finditer(text):
        before = text[: match.start()].rstrip("\n").rsplit("\n", 1)[-1].strip()
        line = text.count("\n", 0, match.start()) + 1
        blocks.append((line, match.group(1), before == FRAGMENT))
    return blocks


CASES = [
    pytest.param(path, code, fragment, id=f"{path.relative_to(ROOT)}:{line}")
    for path in markdown_files()
    for line, code, fragment in python_blocks(path)
]


def test_the_docs_have_python_blocks():
    assert len(CASES) >= 10


@pytest.mark.parametrize(("path", "code", "fragment"), CASES)
def test_code_block_runs(path, code, fragment, tmp_path, monkeypatch, capsys):
    if fragment:
        pytest.skip("marked as a fragment")
    for name, (module, extra) in OPTIONAL.items():
        imported = re.search(rf"^\s*(import|from) {re.escape(name)}\b", code, re.MULTILINE)
        if imported and not _importable(module):
            pytest.skip(f"needs {module} (the {extra!r} extra)")
    from mcts_envs.agents import spec

    for example in (ROOT / "examples").glob("*.py"):
        shutil.copy(example, tmp_path)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))  # import_agent_module adds the folder
    monkeypatch.setattr(spec, "AGENT_KINDS", dict(spec.AGENT_KINDS))  # register_agent adds kinds
    monkeypatch.setattr(spec, "_REGISTERED_CLASSES", dict(spec._REGISTERED_CLASSES))
    modules = set(sys.modules)
    namespace = {"__name__": "__main__"}
    try:
        exec(compile(code, f"{path.relative_to(ROOT)}", "exec"), namespace)
    finally:
        for name in set(sys.modules) - modules:  # modules imported from the temporary folder
            if str(tmp_path) in str(getattr(sys.modules[name], "__file__", None)):
                del sys.modules[name]
