"""Every shell block of README.md and docs/*.md runs as a newcomer copies it
(:mod:`tests.docs.shell_blocks` says which commands are never run, and how templates and
markers are checked).

Each block runs with ``bash -e`` in a fresh temporary folder that holds the files of
``examples/`` twice: at the top (as a reader who saved ``my_agents.py`` or ``my_engine.py`` has
them) and under ``examples/`` (as in a clone), with the installed ``mcts-envs`` and ``python``
first on ``PATH`` and standard input empty (``play`` and ``replay`` end at once).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from importlib.metadata import metadata
from pathlib import Path

import pytest

from tests.docs.shell_blocks import (
    PLACEHOLDER,
    ShellBlock,
    commands,
    shell_blocks,
    untagged_command_blocks,
)

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
#: Seconds a block may take (the slowest default block takes under a minute on 2 loaded cores).
BLOCK_TIMEOUT = 600


def markdown_files() -> list[Path]:
    """README.md and every Markdown page of the docs."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


BLOCKS = [block for path in markdown_files() for block in shell_blocks(path)]


def block_id(block: ShellBlock) -> str:
    return f"{block.path.relative_to(ROOT)}:{block.line}"


def _param(block: ShellBlock):
    marks = [pytest.mark.slow] if block.marker == "slow" else []
    return pytest.param(block, id=block_id(block), marks=marks)


def test_the_docs_have_shell_blocks_and_run_most_of_them():
    runnable = [b for b in BLOCKS if b.marker is None and b.template_note is None]
    assert len(BLOCKS) >= 20 and len(runnable) >= len(BLOCKS) // 2


@pytest.mark.parametrize("path", markdown_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_commands_sit_in_tagged_blocks(path):
    assert untagged_command_blocks(path) == [], f"{path}: tag these blocks ```bash"


@pytest.mark.parametrize("block", [_param(b) for b in BLOCKS])
def test_templates_say_so_and_hold_placeholders(block):
    placeholders = PLACEHOLDER.findall(block.code)
    if block.template_note is None:
        assert not placeholders, f"placeholders {placeholders} in a block not marked Template:"
    else:
        assert placeholders, "a block marked Template: holds no <PLACEHOLDER>"
        assert block.marker is None


@pytest.mark.parametrize("block", [_param(b) for b in BLOCKS if b.marker == "not run"])
def test_a_block_not_run_names_the_test_that_runs_it_in_small(block):
    cited = re.findall(r"tests/[\w/]+\.py", block.reason or "")
    assert cited, f"the reason names no test file: {block.reason!r}"
    assert all((ROOT / name).is_file() for name in cited), cited


def test_installs_name_only_extras_that_exist():
    extras = set(metadata("mcts-envs").get_all("Provides-Extra"))  # the installed package's
    named = set()
    for block in BLOCKS:
        for command in commands(block.code):
            if command.text.startswith("pip install"):
                for group in re.findall(r"\[([\w,-]+)\]", command.text):
                    named.update(group.split(","))
    assert named and named <= extras, named - extras


def test_every_ppo_model_the_docs_load_is_one_a_docs_command_saves():
    """``ppo:path=FOLDER/model.zip`` names a folder that a documented training command writes
    with ``--out FOLDER`` (the training example saves ``model.zip`` there)."""
    loaded, saved = set(), set()
    for path in markdown_files():
        text = path.read_text(encoding="utf-8")
        loaded.update(re.findall(r"ppo:path=(\w[\w./-]*)/model\.zip", text))
    for block in BLOCKS:
        for command in commands(block.code):
            if "train_maskable_ppo.py" in command.text:
                saved.update(re.findall(r"--out ([\w./-]+)", command.text))
    assert loaded and loaded <= saved, (loaded, saved)


@pytest.fixture
def reader_folder(tmp_path: Path) -> Path:
    for source in EXAMPLES.glob("*.py"):
        shutil.copy(source, tmp_path)
    shutil.copytree(EXAMPLES, tmp_path / "examples")
    return tmp_path


def _environment() -> dict[str, str]:
    environment = dict(os.environ)
    environment["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{environment['PATH']}"
    environment["MPLBACKEND"] = "Agg"
    environment.pop("PYTHONPATH", None)
    return environment


@pytest.mark.parametrize(
    "block", [_param(b) for b in BLOCKS if b.marker != "not run" and b.template_note is None]
)
def test_shell_block_runs(block, reader_folder):
    runnable = [command.text for command in commands(block.code) if command.never_run is None]
    if not runnable:
        pytest.skip("every command is one the tests never run: " + "; ".join(
            f"{c.text.split()[0]}: {c.never_run}" for c in commands(block.code)
        ))  # fmt: skip
    finished = subprocess.run(
        ["bash", "-e", "-o", "pipefail", "-c", "\n".join(runnable)],
        cwd=reader_folder,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=BLOCK_TIMEOUT,
        env=_environment(),
    )
    shown = f"{block_id(block)}\n{finished.stdout[-3000:]}\n{finished.stderr[-3000:]}"
    assert finished.returncode == 0, shown
    assert "Traceback" not in finished.stderr, shown
