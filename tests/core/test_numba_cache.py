"""The package's cache of compiled code (mcts_envs.core.numba_cache) does not depend on where the
package lives: a copy elsewhere loads every kernel the original compiled, a wheel's shipped code
seeds an empty cache, an edit to a callee gives its callers new keys, and an unwritable cache root
falls back instead of failing. Compiles are counted with numba's compile events
(scripts/count_compiles.py), never with wall time."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
COUNTER = ROOT / "scripts" / "count_compiles.py"
#: Paths that compile generic code taking kernels as arguments (what recompiled at another path
#: before kernel identities ignored file paths), the batched API and a kernel of each kind.
WORKLOAD = """
from mcts_envs.agents.spec import make_agent
from mcts_envs.core.playouts import random_playout_statistics
from mcts_envs.core.registry import make_game
from mcts_envs.vector import VectorGame

game = make_game("tictactoe")
state = game.initial_state()
random_playout_statistics(game, state, 4, 0)
make_agent("minimax2", seed=0).act_state(game, state)
vector = VectorGame("tictactoe", 4, seed=0)
vector.reset(seed=0)
vector.step(vector.random_actions())
print("ok")
"""


def _installed_layout(target: Path) -> Path:
    """A copy of the package as a wheel lays it out (``agents/`` inside ``mcts_envs``)."""
    ignore = shutil.ignore_patterns("__pycache__", "_compiled", "*.npz", "*.jsonl.gz")
    shutil.copytree(ROOT / "mcts_envs", target / "mcts_envs", ignore=ignore)
    shutil.copytree(ROOT / "agents", target / "mcts_envs" / "agents", ignore=ignore)
    return target


def _run(code: str, cache: Path, where: Path | None = None) -> tuple[int, str]:
    """Run ``code`` in a new process with cache root ``cache``: from the checkout, or from the
    copy at ``where``. Returns the compiles counted and the output."""
    env = dict(os.environ, MCTS_ENVS_CACHE_DIR=str(cache))
    env.pop("PYTHONPATH", None)
    if where is not None:
        env["PYTHONPATH"] = str(where)
    done = subprocess.run(
        [sys.executable, str(COUNTER), "-c", code],
        capture_output=True,
        text=True,
        cwd=where or ROOT,
        env=env,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    found = re.search(r"numba compiled (\d+) functions", done.stderr)
    assert found, done.stderr[-2000:]
    return int(found.group(1)), done.stdout + done.stderr


@pytest.fixture(scope="module")
def warmed(tmp_path_factory) -> Path:
    """A cache root filled by the workload run from the checkout."""
    cache = tmp_path_factory.mktemp("cache")
    compiled, _ = _run(WORKLOAD, cache)
    assert compiled > 0  # an empty root: the checkout compiled what the copies should load
    return cache


def test_a_copy_at_another_path_loads_every_kernel(warmed, tmp_path):
    copy = _installed_layout(tmp_path / "elsewhere")
    code = WORKLOAD + "import mcts_envs; print('from', mcts_envs.__file__)"
    compiled, output = _run(code, warmed, copy)
    assert f"from {copy}" in output  # the copy ran, not the checkout
    assert compiled == 0, output[-3000:]


def test_shipped_code_seeds_an_empty_cache(warmed, tmp_path):
    """A wheel's ``mcts_envs/_compiled/<numba>/`` is copied into an empty cache on first use."""
    copy = _installed_layout(tmp_path / "wheel")
    shutil.copytree(warmed, copy / "mcts_envs" / "_compiled")
    empty = tmp_path / "empty"
    compiled, output = _run(WORKLOAD, empty, copy)
    assert compiled == 0, output[-3000:]
    assert any(empty.rglob("*.nbi"))  # seeded: the user cache now holds the shipped code


def test_shipped_code_of_another_numba_says_so_and_compiles(warmed, tmp_path):
    copy = _installed_layout(tmp_path / "other")
    (version,) = [p.name for p in warmed.iterdir() if p.name.startswith("numba-")]
    shutil.copytree(warmed / version, copy / "mcts_envs" / "_compiled" / "numba-0.0.1")
    code = (
        "from mcts_envs.core.registry import make_game\n"
        "game = make_game('tictactoe')\n"
        "game.legal_actions(game.initial_state())"
    )
    compiled, output = _run(code, tmp_path / "empty", copy)
    assert "carries compiled code for numba-0.0.1" in output
    assert compiled > 0


def test_an_edit_to_a_callee_changes_its_callers_keys_only(tmp_path):
    copy = _installed_layout(tmp_path / "edited")
    probe = (
        "import json, mcts_envs.agents\n"
        "import mcts_envs.games.tictactoe.kernels, mcts_envs.core.hashing, mcts_envs.core.bits\n"
        "from mcts_envs.core.numba_cache import module_key\n"
        "names = ['mcts_envs.games.tictactoe.kernels', 'mcts_envs.core.hashing',"
        " 'mcts_envs.core.bits']\n"
        "print(json.dumps({n: module_key(n) for n in names}))\n"
    )

    def keys() -> dict[str, str]:
        env = dict(os.environ, PYTHONPATH=str(copy))
        done = subprocess.run(
            [sys.executable, "-c", probe], capture_output=True, text=True, cwd=copy, env=env
        )
        assert done.returncode == 0, done.stderr[-2000:]
        return json.loads(done.stdout.splitlines()[-1])

    before = keys()
    with open(copy / "mcts_envs" / "core" / "bits.py", "a", encoding="utf-8") as bits:
        bits.write("\n# an edit\n")
    after = keys()
    assert after["mcts_envs.core.bits"] != before["mcts_envs.core.bits"]
    # tictactoe's kernels import bits: their compiled code may inline it, so their key changes
    assert after["mcts_envs.games.tictactoe.kernels"] != before["mcts_envs.games.tictactoe.kernels"]
    assert after["mcts_envs.core.hashing"] == before["mcts_envs.core.hashing"]  # no bits import


def test_an_unwritable_cache_root_falls_back_to_a_temporary_folder(tmp_path):
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    code = "from mcts_envs.core.registry import make_game\nprint(make_game('tictactoe').info.name)"
    _, output = _run(code, blocked / "cache")
    assert "tictactoe" in output


@pytest.mark.parametrize(
    ("settings", "expected"),
    [
        ({}, "portable"),
        ({"MCTS_ENVS_HOST_CPU": "1"}, "None"),  # numba's own choice: the host CPU
        ({"NUMBA_CPU_NAME": "nehalem"}, "nehalem"),  # a user's own setting is kept
    ],
)
def test_the_cpu_target_is_portable_unless_told_otherwise(settings, expected):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NUMBA_CPU", "MCTS_ENVS_HOST"))}
    code = (
        "import numba, mcts_envs.core.numba_cache as cache\n"
        "name = numba.config.CPU_NAME\n"
        "print('portable' if name == cache.PORTABLE_CPU else name)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env={**env, **settings}
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split()[-1] == expected
