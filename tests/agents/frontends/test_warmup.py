"""``mcts-envs warmup``: compiles every path of a game once; later processes load them."""

from __future__ import annotations

import io
import re
import subprocess
import sys
from pathlib import Path

from mcts_envs.agents.frontends.cli import main

ROOT = Path(__file__).resolve().parents[3]
SUMMARY = re.compile(r"^warmup: (\d+) paths of (\d+) games in \d+\.\d s \((\d+) functions compiled")


#: A new process that puts positions into a vector (set_states) and observes them.
SET_STATES = """
from mcts_envs.vector import VectorGame
vector = VectorGame("tictactoe", 4, seed=1)
vector.reset()
vector.set_states([0, 3], *vector.get_states([2, 1]))
vector.observe(1)
"""


def _cli(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "mcts_envs.agents", *argv],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=900,
    )


def test_warmup_covers_every_path_then_a_new_process_compiles_nothing():
    specs = ["random", "minimax2", "mcts:iterations=20"]
    first = _cli("warmup", "tictactoe", "--agents", *specs, "--no-progress")
    assert first.returncode == 0, first.stderr[-2000:]
    summary = SUMMARY.match(first.stdout.splitlines()[-1])
    assert summary and summary.group(1, 2) == ("6", "1")  # env, forward model, vector, 3 agents
    # Everything is in numba's disk cache now: a match and a vector compile nothing.
    match = _cli("match", "tictactoe", "mcts:iterations=20", "random", "--games", "2")
    assert match.returncode == 0 and "compiling" not in match.stderr, match.stderr[-2000:]
    positions = subprocess.run(  # positions put in and any seat observed: loaded too
        [sys.executable, "-c", SET_STATES], capture_output=True, text=True, cwd=ROOT, timeout=900
    )
    assert positions.returncode == 0, positions.stderr[-2000:]
    assert "compiling" not in positions.stderr, positions.stderr[-2000:]
    again = _cli("warmup", "tictactoe", "--agents", *specs, "--no-progress")
    compiled = [line.split(":")[1].strip() for line in again.stdout.splitlines()[:-1]]
    assert compiled == [], again.stdout  # every path, the batched API too, loads from the cache
    assert SUMMARY.match(again.stdout.splitlines()[-1]).group(3) == "0", again.stdout


def test_warmup_in_process_reports_nothing_compiled_the_second_time():
    argv = ["warmup", "tictactoe", "--agents", "random", "--no-progress"]
    assert main(argv, out=io.StringIO()) == 0
    out = io.StringIO()
    assert main(argv, out=out) == 0
    assert out.getvalue().startswith("warmup: 4 paths of 1 games in ")
    assert "(0 functions compiled" in out.getvalue()


def test_warmup_rejects_bad_games_and_specs_before_compiling(capsys):
    assert main(["warmup", "nosuchgame"], out=io.StringIO()) == 2
    assert "unknown game 'nosuchgame'" in capsys.readouterr().err
    out = io.StringIO()
    assert main(["warmup", "tictactoe", "--agents", "mcts:bogus=1"], out=out) == 2
    assert "bogus" in capsys.readouterr().err and out.getvalue() == ""
