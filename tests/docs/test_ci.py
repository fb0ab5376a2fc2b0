"""CI runs what the README says: the README's test command is the one `.ci/run` calls, and the
README's main command installs the core package only."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _two_commands() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## The two commands", 1)[1]
    block = re.search(r"```bash\n(.*?)```", section, re.DOTALL)
    assert block, "README.md: no bash block under 'The two commands'"
    return [line for line in block.group(1).splitlines() if line.strip()]


def test_ci_runs_the_readmes_test_command_exactly():
    main, tests = _two_commands()
    assert "pytest" in tests and "[dev]" in tests
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert tests in ci, f".ci/run does not run the README's test command: {tests!r}"


def test_the_main_command_needs_the_core_install_only():
    main, _ = _two_commands()
    install = main.split("&&")[0]
    assert "pip install" in install and "[" not in install, main
    assert "mcts-envs match" in main
