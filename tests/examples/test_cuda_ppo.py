"""The GPU PPO example runs end to end at its --quick size under numba's CUDA simulator (no GPU
here: the "device" arrays are host arrays, the network runs on the CPU), on both its games."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("numba_cuda")

ROOT = Path(__file__).resolve().parents[2]

RUN = (
    "import json, sys\n"
    "from tests.examples.loading import load_example\n"
    "figures = load_example('cuda_ppo').main(['--quick', '--game', sys.argv[1]])\n"
    "print(json.dumps(figures))\n"
)


@pytest.mark.parametrize("game", ["tictactoe", "connect_four"])
def test_cuda_ppo_example_trains_under_the_simulator(game):
    done = subprocess.run(
        [sys.executable, "-c", RUN, game],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "NUMBA_ENABLE_CUDASIM": "1"},
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    assert figures["update"] == 2
    assert figures["loss"] == figures["loss"]  # finite, not NaN
    # 8 envs x 4 agent steps: every game is counted once, and none ends in under 3 agent moves
    # (5 moves of Tic-Tac-Toe, 7 of Connect Four)
    games = figures["wins"] + figures["losses"] + figures["draws"]
    assert 0 <= games <= 8 * 4 // 3 + 8
