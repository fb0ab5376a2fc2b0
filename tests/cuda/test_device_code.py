"""Every CUDA kernel of the vector compiles to PTX for a real GPU's compute capability, from the
games' unchanged kernels (issue 43); Tantrix's allocating kernels do not, which is why it stays
on the CPU.

Without a GPU the simulator runs the kernels' Python (tests/cuda/test_simulated_vector.py); these
tests prove numba-cuda compiles the same functions to device code. Each game takes 10-20 s, so
they are marked slow and run by ``.ci/cuda`` (called by ``.ci/run``).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.cuda.test_simulated_vector import GAMES

pytest.importorskip("numba_cuda")

ROOT = Path(__file__).resolve().parents[2]


def compile_device_code(game: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "tests.cuda.device_code", game, "8.0"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=900,
    )


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
def test_every_kernel_compiles_to_ptx(game):
    done = compile_device_code(game)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-4000:]
    lines = done.stdout.strip().splitlines()
    assert lines[-1] == f"ok {game}"
    compiled = {line.split(":")[0].split()[1] for line in lines[:-1]}
    assert compiled == {
        "check", "step", "random_actions", "rollout", "set_rows", "observe", "gather", "scatter"
    }  # fmt: skip


@pytest.mark.slow
def test_tantrix_allocating_kernels_do_not_compile_to_device_code():
    """Tantrix is refused by device='cuda' (CPU_ONLY_GAMES) because its kernels call np.empty:
    when this test fails, they no longer do, and Tantrix can join the GPU games."""
    done = compile_device_code("tantrix")
    assert done.returncode != 0
    assert "No implementation of function Function(<built-in function empty>)" in done.stderr
