"""Every public ``Game`` method on raw state arrays (see :mod:`tests.games.state_fuzz`).

The arrays never went through ``validate_state`` (random words, reachable states with words
changed, wrong dtypes and shapes); every call must return or raise a package error, never take
the interpreter down. The fuzzer runs in a child process, so a segfault fails the test with the
array that caused it instead of killing pytest.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import mcts_envs

ROOT = Path(__file__).resolve().parents[2]
GAMES = mcts_envs.list_games()


def fuzz(game: str, count: int, seed: int, timeout: float) -> dict:
    """Run the fuzzer in a child process; fail on a crash, a hang or any broken contract."""
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])
    )
    command = [sys.executable, "-m", "tests.games.state_fuzz", game, str(count), str(seed)]
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
        last = started[-1] if started else {"array": "(before the first array)"}
        pytest.fail(
            f"{game}: the fuzzer process died with code {result.returncode} on array "
            f"{last['array']!r}\n{result.stderr[-2000:]}"
        )
    failures = [line for line in lines if "fail" in line]
    assert not failures, f"{game}: {len(failures)} broken contracts, first: {failures[:3]}"
    summary = lines[-1]
    assert summary.get("done") == count, summary
    return summary


@pytest.mark.parametrize("game", GAMES)
def test_public_methods_survive_raw_state_arrays(game):
    summary = fuzz(game, count=300, seed=20261123, timeout=600)
    # accepted arrays exercise the kernels, refused ones the checks: both must occur
    assert 0.05 * 300 < summary["accepted"] < 0.95 * 300, summary
    assert summary["methods"] >= 15, summary


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
def test_public_methods_survive_raw_state_arrays_large_run(game):
    fuzz(game, count=5000, seed=7, timeout=3600)
