"""Running a fuzzer module in a child process, so that a crash (segfault) or a hang fails the test
with the input that caused it instead of killing pytest.

A fuzzer module prints one JSON object per line: ``{"start": ..., KEY: input}`` before each
input, ``{"fail": ...}`` for each broken contract, and a last summary with ``"done": count``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def run_fuzzer(module: str, game: str, args: list[str], key: str, timeout: float) -> dict:
    """Run ``python -m module game *args``; fail on a crash, a hang or a broken contract.

    Args:
        module: the fuzzer module, e.g. ``"tests.games.state_fuzz"``.
        game: the game to fuzz.
        args: its other arguments; the first is the number of inputs.
        key: the key of a ``start`` line that holds the input (named in a failure).
        timeout: seconds before the child counts as hung.

    Returns:
        The summary line.
    """
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])
    )
    command = [sys.executable, "-m", module, game, *args]
    try:
        result = subprocess.run(
            command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout
        )
    except subprocess.TimeoutExpired as error:
        stdout = error.stdout.decode() if isinstance(error.stdout, bytes) else error.stdout or ""
        started = [line for line in stdout.splitlines() if line.startswith('{"start"')]
        pytest.fail(f"{game}: the fuzzer hung on {started[-1] if started else 'its start'}")
    lines = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    started = [line for line in lines if "start" in line]
    if result.returncode != 0:
        last = started[-1] if started else {key: f"(before the first {key})"}
        pytest.fail(
            f"{game}: the fuzzer process died with code {result.returncode} on {key} "
            f"{last[key]!r}\n{result.stderr[-2000:]}"
        )
    failures = [line for line in lines if "fail" in line]
    assert not failures, f"{game}: {len(failures)} broken contracts, first: {failures[:3]}"
    summary = lines[-1]
    assert summary.get("done") == int(args[0]), summary
    return summary
