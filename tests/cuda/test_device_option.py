"""``VectorGame``'s ``device`` option: the CPU path never imports numba-cuda, a bad device and a
CPU-only game are refused by name (issue 43)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from mcts_envs.core.errors import InvalidOptionError
from mcts_envs.vector import VectorGame

ROOT = Path(__file__).resolve().parents[2]


def run_fresh(code: str, **environment: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
        env={**os.environ, **environment},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout.strip().splitlines()[-1]


#: Modules of numba-cuda, its CUDA bindings and the package's CUDA backend. (numba-cuda and
#: cuda-bindings install start-up hooks, ``_numba_cuda_redirector`` and
#: ``_cuda_bindings_redirector``, that every Python of the environment imports: theirs, not ours.)
CUDA_MODULES = ("numba.cuda", "numba_cuda", "cuda.", "mcts_envs.cuda")


def test_the_cpu_vector_imports_no_cuda_module():
    code = (
        "import sys\n"
        "from mcts_envs.vector import VectorGame\n"
        "vg = VectorGame('tictactoe', 4, 0, threads=True)\n"
        "vg.reset(); vg.step(vg.random_actions()); vg.random_rollout(3)\n"
        "VectorGame('ataxx', 2, 1, device='cpu').reset()\n"
        f"print(sorted(m for m in sys.modules if m.startswith({CUDA_MODULES!r})))\n"
    )
    assert run_fresh(code) == "[]"


def test_an_unknown_device_is_refused_by_name():
    with pytest.raises(InvalidOptionError, match=r"device must be one of 'cpu', 'cuda', got 'gpu'"):
        VectorGame("tictactoe", 4, device="gpu")


def test_the_cpu_vector_says_where_it_runs():
    assert VectorGame("tictactoe", 2).device == "cpu"


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ("'tantrix', 4", "tantrix runs on the CPU only (device='cpu'): its kernels allocate"),
        ("'tictactoe', 4, threads=True", "threads=True is an option of device='cpu'"),
        ("'tictactoe', 0", "num_envs must be an int >= 1, got 0"),
        ("'tictactoe', 4, illegal_action='skip'", "illegal_action must be one of"),
    ],
)
def test_a_cuda_vector_refuses_what_it_cannot_run(arguments, message):
    pytest.importorskip("numba_cuda")
    code = (
        "from mcts_envs.core.errors import InvalidOptionError\n"
        "from mcts_envs.vector import VectorGame\n"
        "try:\n"
        f"    VectorGame({arguments}, device='cuda')\n"
        "except InvalidOptionError as error:\n"
        "    print(str(error).replace(chr(10), ' '))\n"
    )
    assert message in run_fresh(code, NUMBA_ENABLE_CUDASIM="1")
