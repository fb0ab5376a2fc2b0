"""The package imports and plays with a read-only home and package (issue 39: an import
traceback), and with no writable folder at all (compiled without a disk cache, one warning).

Each case runs in a child process (a fresh interpreter, its own numba state).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

PLAY = """
import json, warnings
warnings.simplefilter("always")
with warnings.catch_warnings(record=True) as caught:
    import mcts_envs
    game = mcts_envs.make_game("tictactoe")
    final = game.random_playout(game.initial_state(), seed=1)
    returns = game.returns(final).tolist()
print(json.dumps({
    "file": mcts_envs.__file__,
    "returns": returns,
    "warnings": [type(w.message).__name__ for w in caught],
}))
"""

NO_FOLDER = """
import tempfile
tempfile.tempdir = {blocked!r}  # no temporary folder can be made
from numba.core import caching
from mcts_envs.core import numba_cache
# numba's own locators (beside the source, the user cache) fail as on a read-only install
caching.CacheImpl._locator_classes[:] = [numba_cache.PackageCacheLocator]
"""


def run_child(code: str, env: dict[str, str], pythonpath: str) -> dict:
    completed = subprocess.run(
        [sys.executable, "-c", code],
        cwd=env["HOME"] if Path(env["HOME"]).is_dir() else "/",
        env=env | {"PYTHONPATH": pythonpath, "PYTHONDONTWRITEBYTECODE": "1"},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    assert "Traceback" not in completed.stderr, completed.stderr[-3000:]
    return json.loads(completed.stdout.splitlines()[-1])


def clean_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("XDG_CACHE_HOME", "NUMBA_CACHE_DIR")}
    env.pop("MCTS_ENVS_CACHE_DIR", None)
    return env | {"HOME": str(home)}


def test_no_writable_folder_compiles_without_a_cache_and_warns_once(tmp_path):
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")  # HOME, the cache root and the temp root all fail
    env = clean_env(blocked)
    result = run_child(NO_FOLDER.format(blocked=str(blocked)) + PLAY, env, str(ROOT))
    assert sum(result["returns"]) == 0 and len(result["returns"]) == 2
    assert result["warnings"].count("NoCacheWarning") == 1, result


def _immutable(path: Path, on: bool) -> bool:
    flag = "+i" if on else "-i"
    done = subprocess.run(["chattr", "-R", flag, str(path)], capture_output=True)
    return done.returncode == 0


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0 or shutil.which("chattr") is None,
    reason="read-only folders for root need chattr +i",
)
def test_a_read_only_home_and_package_import_and_play(tmp_path):
    """The issue's repro: HOME and the package folder read-only (made immutable: root ignores
    permissions); the compiled code goes to the temporary folder."""
    home, package = tmp_path / "home", tmp_path / "package"
    home.mkdir()
    shutil.copytree(
        ROOT / "mcts_envs", package / "mcts_envs", ignore=shutil.ignore_patterns("__pycache__")
    )
    if not (_immutable(home, True) and _immutable(package, True)):
        _immutable(home, False)
        _immutable(package, False)
        pytest.skip("chattr +i is not allowed here")
    try:
        result = run_child(PLAY, clean_env(home), str(package))
    finally:
        _immutable(home, False)
        _immutable(package, False)
    assert result["file"].startswith(str(package))
    assert sum(result["returns"]) == 0 and len(result["returns"]) == 2
