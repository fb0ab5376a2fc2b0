"""Kill a real ``mcts-envs tournament`` with SIGINT and SIGKILL, resume it, compare the results.

The interrupted-then-resumed file must hold the same games as an uninterrupted run, and no worker
process may outlive a parent killed with SIGKILL.
"""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mcts_envs.agents.evaluation.games import GameRules
from mcts_envs.agents.evaluation.plan import plan_tournament
from mcts_envs.agents.evaluation.run import RunSettings, run_plan
from mcts_envs.agents.frontends.cli import main
from mcts_envs.records import game_identity, read_records

ROOT = Path(__file__).resolve().parents[3]
GAME = "ultimate_tictactoe"
SPECS = ["random", "mcts:iterations=4000"]
GAMES = 16
ARGS = [GAME, *SPECS, "--games-per-pair", str(GAMES), "--seed", "5", "--openings", "random:2"]
ARGS += ["--no-progress", "--bootstrap", "10"]

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")


def _key(record):
    return record["pairing"], record["index"]


def _identities(records):
    return sorted(map(game_identity, records), key=_key)


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    plan = plan_tournament(GameRules(GAME), SPECS, GAMES, seed=5, openings="random:2")
    path = tmp_path_factory.mktemp("reference") / "reference.jsonl"
    run_plan(plan, RunSettings(out=path))
    return read_records(path)


def _start(out: Path, *extra: str) -> subprocess.Popen:
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "mcts_envs.agents.frontends.cli",
            "tournament",
            *ARGS,
            "--out",
            str(out),
            *extra,
        ],
        cwd=ROOT,
        env=environment,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def _wait_for_lines(process: subprocess.Popen, path: Path, lines: int, limit: float = 120) -> None:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if path.exists() and path.read_bytes().count(b"\n") >= lines:
            return
        if process.poll() is not None:
            pytest.fail(f"the tournament ended early: {process.stdout.read()}")
        time.sleep(0.02)
    process.kill()
    pytest.fail("no games were written in time")


def _children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        text = (task / "children").read_text().split()
        found += [int(child) for child in text]
    return found


def _alive(pid: int) -> bool:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except FileNotFoundError:
        return False
    return fields[0] not in ("Z", "X")  # a zombie has exited


def test_sigint_finishes_games_in_flight_exits_130_and_resumes(reference, tmp_path):
    path = tmp_path / "sigint.jsonl"
    process = _start(path)
    _wait_for_lines(process, path, 3)
    process.send_signal(signal.SIGINT)
    output, _ = process.communicate(timeout=120)
    assert process.returncode == 130, output
    assert "interrupted" in output
    written = read_records(path)  # every line whole: the game in flight was finished
    assert 3 <= len(written) < GAMES
    assert path.read_bytes().endswith(b"\n")
    assert main(["tournament", *ARGS, "--out", str(path), "--resume"], out=io.StringIO()) == 0
    resumed = read_records(path)
    assert list(map(game_identity, resumed)) == list(map(game_identity, reference))


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux /proc")
def test_sigkill_loses_only_games_in_flight_leaves_no_orphans_and_resumes(reference, tmp_path):
    path = tmp_path / "sigkill.jsonl"
    process = _start(path, "--backend", "process", "--workers", "2")
    _wait_for_lines(process, path, 3)
    workers = [pid for pid in _children(process.pid) if _alive(pid)]
    assert workers, "the process backend should have worker processes"
    process.kill()
    process.wait(timeout=30)
    deadline = time.monotonic() + 10
    while any(map(_alive, workers)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(map(_alive, workers)), "worker processes outlived their parent"
    # A crash while writing leaves the last line cut: simulate one, resume must replay that game.
    data = path.read_bytes()
    path.write_bytes(data[:-15])
    kept = len(read_records_prefix(path))
    resumed_run = subprocess.run(
        [sys.executable, "-m", "mcts_envs.agents", "tournament", *ARGS, "--out", str(path), "--resume"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert resumed_run.returncode == 0, resumed_run.stderr
    assert "cut by a crash" in resumed_run.stderr
    resumed = read_records(path)
    assert len(resumed) == GAMES and kept < GAMES
    assert _identities(resumed) == _identities(reference)


def read_records_prefix(path: Path) -> list[dict]:
    """The whole lines of ``path`` (the cut last line left out)."""
    data = path.read_bytes()
    whole = data[: data.rfind(b"\n") + 1]
    cut = path.with_suffix(".prefix")
    cut.write_bytes(whole)
    return read_records(cut)
