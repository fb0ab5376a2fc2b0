"""Every command of experiments/README.md runs as written from the repository root after the
README's install, without ``PYTHONPATH``: the experiment scripts check their command lines
(``experiments.common.PARSE_ONLY``: parsed, then stopped before any game), the ``mcts-envs``
commands play two short games (:data:`PLAY_BRIEFLY` and ``--out`` added), the examples' arguments
parse."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from experiments.common import PARSE_ONLY

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "experiments" / "README.md"
FENCE = re.compile(r"^```bash\s*$(.*?)^```\s*$", re.MULTILINE | re.DOTALL)


def readme_commands() -> list[str]:
    """The commands of the README's ``bash`` blocks: continuation lines joined, comments and
    blank lines dropped."""
    commands = []
    for block in FENCE.findall(README.read_text(encoding="utf-8")):
        for command in block.replace("\\\n", " ").splitlines():
            words = shlex.split(command, comments=True)
            if words:
                commands.append(shlex.join(words))
    return commands


COMMANDS = readme_commands()
EXPERIMENTS = [c for c in COMMANDS if c.startswith("python -m experiments.")]
CLI = [c for c in COMMANDS if c.startswith("mcts-envs ")]
EXAMPLES = [c for c in COMMANDS if c.startswith("python examples/")]


#: What the tests add to an ``mcts-envs`` command: two games of at most four decisions each (the
#: commands' own budgets of up to 1 s a move would otherwise make each test a minute long).
PLAY_BRIEFLY = ("--games", "2", "--max-moves", "4")


def clean_environment(**extra: str) -> dict[str, str]:
    """This process's environment without ``PYTHONPATH``, plus ``extra``."""
    environment = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return {**environment, **extra}


def test_the_readme_says_how_to_install_and_every_command_is_checked():
    text = README.read_text(encoding="utf-8")
    assert 'pip install -e ".[dev]"' in text and "repository root" in text
    assert len(EXPERIMENTS) >= 10 and CLI and EXAMPLES
    assert len(EXPERIMENTS) + len(CLI) + len(EXAMPLES) == len(COMMANDS)


@pytest.mark.parametrize("command", EXPERIMENTS)
def test_an_experiment_command_parses_as_written(command):
    words = shlex.split(command)
    result = subprocess.run(
        [sys.executable, *words[1:]],
        cwd=ROOT,
        env=clean_environment(**{PARSE_ONLY: "1"}),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    parsed = json.loads(result.stdout.strip().splitlines()[-1])
    if "--games" in words:
        assert parsed["games"] == int(words[words.index("--games") + 1])


@pytest.mark.parametrize("command", CLI)
def test_a_command_line_command_plays_as_written(command, tmp_path):
    words = shlex.split(command)
    if "experiments.openspiel_agent" in words:
        pytest.importorskip("pyspiel")
    program = shutil.which(words[0])
    if program is None:
        pytest.skip(f"{words[0]} is not on PATH (not installed)")
    out = tmp_path / "records.jsonl"
    result = subprocess.run(
        [program, *words[1:], *PLAY_BRIEFLY, "--out", str(out), "--overwrite", "--no-progress"],
        cwd=ROOT,
        env=clean_environment(),
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert len(out.read_text().splitlines()) == 2


@pytest.mark.parametrize("command", EXAMPLES)
def test_an_example_command_parses(command):
    words = shlex.split(command)
    path = ROOT / words[1]
    spec = importlib.util.spec_from_file_location(f"readme_example_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.parse_args(words[2:]) is not None
