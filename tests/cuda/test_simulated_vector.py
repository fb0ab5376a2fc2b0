"""The CUDA vector plays the CPU vector's games under numba's CUDA simulator (issue 43).

Each game runs :mod:`tests.cuda.simulated_vector` in a fresh process with
``NUMBA_ENABLE_CUDASIM=1`` (numba-cuda reads it when it is imported): random steps with
auto-resets and truncation, penalties and refused steps, ``active``, the device loop,
``set_states``, ``copy_states`` and ``observe``, every batch compared entry by entry with the
CPU ``VectorGame`` of the same seed and actions. A few seconds per game once the CPU code is in
numba's cache.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import mcts_envs

pytest.importorskip("numba_cuda")

from mcts_envs.cuda import CPU_ONLY_GAMES  # needs numba-cuda installed

ROOT = Path(__file__).resolve().parents[2]
#: Every registered game but those that stay on the CPU.
GAMES = tuple(game for game in mcts_envs.list_games() if game not in CPU_ONLY_GAMES)


def run_simulated(module: str, *args: str, timeout: float = 600) -> subprocess.CompletedProcess:
    """``python -m module args`` in a fresh process under numba's CUDA simulator."""
    environment = {**os.environ, "NUMBA_ENABLE_CUDASIM": "1"}
    return subprocess.run(
        [sys.executable, "-m", module, *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=environment,
        timeout=timeout,
    )


@pytest.mark.parametrize("game", GAMES)
def test_cuda_vector_plays_the_cpu_vectors_games_under_the_simulator(game):
    done = run_simulated("tests.cuda.simulated_vector", game)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-4000:]
    assert done.stdout.strip().splitlines()[-1] == f"ok {game}"


def test_the_gpu_benchmark_script_runs_under_the_simulator_and_says_so():
    done = subprocess.run(
        [
            sys.executable, "gpu_throughput.py", "--warm-cache", "--games", "tictactoe",
            "--sizes", "8", "--seconds", "0.01", "--repeats", "1", "--loop-steps", "16",
            "--python-steps", "1", "--no-pgx",
        ],
        capture_output=True, text=True, cwd=ROOT / "benchmarks", timeout=600,
        env={**os.environ, "NUMBA_ENABLE_CUDASIM": "1"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert "numba's CUDA simulator (no GPU: not a speed)" in done.stdout.splitlines()[0]
    assert any(line.startswith("| tictactoe | 8 |") for line in done.stdout.splitlines())
