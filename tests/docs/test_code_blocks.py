"""Every Python code block of README.md and docs/*.md runs, each in a fresh namespace.

A block meant as a fragment (it continues an earlier block or needs a file the reader makes) is
preceded by the line ``<!-- fragment -->`` and skipped explicitly. Blocks run in a temporary
working directory that holds the files of ``examples/`` (as the shell blocks do,
``tests/docs/test_shell_blocks.py``), so files they write do not land in the checkout; what a
block imports or registers from there (``my_agents``) is forgotten after it. Blocks that need an
optional dependency skip when it is missing. A block that builds a ``VectorGame(...,
device="cuda")`` runs in a fresh process under numba's CUDA simulator (no GPU here), unless it
also needs torch on the GPU (``torch.as_tensor(..., device="cuda")``): that one skips without a
CUDA GPU (``tests/examples/test_cuda_ppo.py`` runs the same hand-off under the simulator).
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
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
#: A block that runs on the GPU backend.
ON_GPU = 'device="cuda"'


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
    if ON_GPU in code:
        run_on_the_simulator(path, code, tmp_path)
        return
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


def run_on_the_simulator(path: Path, code: str, folder: Path) -> None:
    """Run a GPU block in a fresh process under numba's CUDA simulator (numba-cuda reads the
    variable when it is first imported); a block using torch on the GPU runs on a real one, or
    skips without it."""
    if not _importable("numba_cuda"):
        pytest.skip("needs numba-cuda (the 'cuda' extra)")
    environment = {**os.environ, "NUMBA_ENABLE_CUDASIM": "1"}
    if "torch" in code:
        torch = pytest.importorskip("torch")
        if not torch.cuda.is_available():
            pytest.skip("hands device arrays to torch on the GPU: needs a CUDA GPU")
        del environment["NUMBA_ENABLE_CUDASIM"]
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=folder,
        env=environment,
        timeout=600,
    )
    assert done.returncode == 0, f"{path.relative_to(ROOT)}:\n{done.stderr[-3000:]}"
