"""Every game's text records under a structure-aware fuzzer (see :mod:`tests.games.record_fuzz`).

Each record is either rejected with ``InvalidRecordError`` (short message) or accepted and then
survives seeded random playouts and a checked ``apply`` loop with every invariant holding. The
fuzzer runs in a child process, so a kernel that crashes (segfault) fails the test with the record
that crashed it instead of killing pytest.
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


def fuzz(game: str, count: int, seed: int, step_checked: int, timeout: float) -> dict:
    """Run the fuzzer in a child process; fail on a crash or any broken contract."""
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])
    )
    command = [sys.executable, "-m", "tests.games.record_fuzz", game, str(count), str(seed)]
    result = subprocess.run(
        [*command, str(step_checked)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    lines = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    started = [line for line in lines if "start" in line]
    if result.returncode != 0:
        last = started[-1] if started else {"record": "(before the first record)"}
        pytest.fail(
            f"{game}: the fuzzer process died with code {result.returncode} on record "
            f"{last['record']!r}\n{result.stderr[-2000:]}"
        )
    failures = [line for line in lines if "fail" in line]
    assert not failures, f"{game}: {len(failures)} broken contracts, first: {failures[:3]}"
    summary = lines[-1]
    assert summary.get("done") == count, summary
    return summary


@pytest.mark.parametrize("game", GAMES)
def test_fuzzed_records_are_rejected_cleanly_or_play_safely(game):
    summary = fuzz(game, count=500, seed=20261122, step_checked=15, timeout=300)
    # the mix must exercise both outcomes: a fuzzer that only produced garbage would prove little
    assert 0.1 * 500 < summary["accepted"] < 0.9 * 500, summary


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_fuzzed_records_large_run(game, seed):
    fuzz(game, count=5000, seed=seed, step_checked=200, timeout=3600)
