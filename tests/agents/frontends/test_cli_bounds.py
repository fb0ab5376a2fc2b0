"""Issue 28, runaway memory and tracebacks: counts are bounded and lazy, every failure is one
line with exit status 2 (usage) or 1 (runtime)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from mcts_envs.agents.evaluation import openings
from mcts_envs.agents.evaluation.backends import make_backend
from mcts_envs.agents.evaluation.backends.workers import MAX_GAMES, max_workers
from mcts_envs.agents.evaluation.games import GameRules, task_seeds
from mcts_envs.agents.evaluation.plan import plan_tournament
from mcts_envs.core.errors import InvalidOptionError
from tests.agents.evaluation.test_arena_and_cli import run_cli

ROOT = Path(__file__).resolve().parents[3]


def one_line_error(capsys, status, expected_status=2):
    err = capsys.readouterr().err
    assert status == expected_status, err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    return err


MATCH = ("match", "tictactoe", "random", "random")
TOURNAMENT = ("tournament", "tictactoe", "random", "minimax2", "--out", "{out}")
EXPERT = ("expert", "tictactoe", "random", "--out", "{npz}")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        ((*MATCH, "--games", str(10**20)), "--games"),
        ((*MATCH, "--workers", "100000"), "--workers"),
        ((*MATCH, "--max-moves", str(10**30)), "--max-moves"),
        ((*TOURNAMENT, "--games-per-pair", str(MAX_GAMES + 2)), "--games-per-pair"),
        ((*TOURNAMENT, "--workers", "100000"), "--workers"),
        ((*EXPERT, "--games", "2", "--workers", "100000"), "--workers"),
        ((*EXPERT, "--games", str(10**12)), "games must be"),
        (("ratings", "{out}", "--bootstrap", str(10**12)), "--bootstrap"),
    ],
)
def test_out_of_range_counts_are_one_line_usage_errors(tmp_path, capsys, argv, message):
    out, npz = tmp_path / "out.jsonl", tmp_path / "out.npz"
    if argv[0] == "ratings":
        run_cli("match", "tictactoe", "random", "random", "--games", "2", "--out", str(out),
                "--no-progress")  # fmt: skip
        capsys.readouterr()
    argv = [arg.format(out=out, npz=npz) for arg in argv]
    status, _ = run_cli(*argv, "--no-progress" if argv[0] != "ratings" else "--seed=0")
    assert message in one_line_error(capsys, status)
    assert not npz.exists()


def test_a_count_that_is_not_an_integer_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as stopped:
        run_cli("match", "tictactoe", "random", "random", "--games", "1e20")
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert "invalid int value: '1e20'" in err and "Traceback" not in err


def test_a_billion_games_allocate_nothing_up_front_and_keep_their_seeds():
    """In a child with 1.5 GB of address space: the old code allocated every seed and task."""
    code = f"""
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (1536 * 2**20, 1536 * 2**20))
        from mcts_envs.agents.evaluation.plan import plan_match, plan_tournament
        from mcts_envs.agents.evaluation.results_file import done_keys
        from mcts_envs.agents.evaluation.run import RunHooks, StopFlag, run_plan
        stop, seen = StopFlag(), []
        def keep(record):  # the first two games, then stop: no list of every game is made
            seen.append(record)
            if len(seen) == 2:
                stop.stop("two games")
        match = plan_match("tictactoe", "random", "random", {MAX_GAMES})
        outcome = run_plan(match, hooks=RunHooks(on_record=keep, stop=stop))
        assert outcome.played == 2 and outcome.stopped == "two games", outcome.played
        print([[r["seed"]["a"], r["seed"]["b"], r["seed"]["chance"]] for r in outcome.records])
        plan = plan_tournament("tictactoe", ["random", "minimax2"], {MAX_GAMES})
        print(len(plan.tasks), plan.tasks[-1].index, len(plan.tasks) - len(done_keys(plan, [])))
    """
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])
    )
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    seeds, sizes = done.stdout.splitlines()
    # a match's games are its tournament's: game i is pair i // 2, colour i % 2
    assert seeds == str([list(task_seeds(0, 0, 0, colour)) for colour in (0, 1)])
    assert sizes == f"{MAX_GAMES} {MAX_GAMES - 1} {MAX_GAMES}"


def test_plan_tasks_are_the_eager_plan(tmp_path):
    specs = ["random", "minimax2", "alphabeta:depth=1"]
    plan = plan_tournament(GameRules("tictactoe"), specs, 4, seed=3, openings="random:1")
    eager = [
        (number, a, b, pair, colour, task_seeds(3, number, pair, colour))
        for pair in range(2)
        for number, (a, b) in enumerate(plan.pairings)
        for colour in (0, 1)
    ]
    assert [(x.pairing, x.spec_a, x.spec_b, x.pair, x.colour, x.seeds) for x in plan.tasks] == eager
    assert plan.tasks[-1] == list(plan.tasks)[-1] and plan.tasks[1:3] == list(plan.tasks)[1:3]


def test_openings_files_are_read_with_line_limits(tmp_path, capsys, monkeypatch):
    out = tmp_path / "out.jsonl"
    if Path("/dev/zero").exists():
        status, _ = run_cli(*TOURNAMENT[:4], "--games-per-pair", "2", "--openings", "/dev/zero",
                            "--out", str(out), "--no-progress")  # fmt: skip
        assert "longer than" in one_line_error(capsys, status)
    blank = tmp_path / "blank.txt"
    blank.write_text("\n" * 30 + "x../.../... o\n")
    monkeypatch.setattr(openings, "MAX_OPENING_LINES", 20)
    status, _ = run_cli("tournament", "tictactoe", "random", "minimax2", "--games-per-pair", "2",
                        "--openings", str(blank), "--out", str(out), "--no-progress")  # fmt: skip
    assert "more than 20 lines" in one_line_error(capsys, status)
    assert not out.exists()


def test_workers_are_bounded_by_the_cpus():
    assert max_workers() == 4 * (os.cpu_count() or 1)
    with pytest.raises(InvalidOptionError, match="per CPU"):
        make_backend("process", max_workers() + 1, ["random"], "")


def test_ray_failing_to_start_is_one_line_runtime_error(tmp_path, capsys):
    pytest.importorskip("ray")
    status, _ = run_cli("tournament", "tictactoe", "random", "minimax2", "--games-per-pair", "2",
                        "--out", str(tmp_path / "r.jsonl"), "--backend", "ray", "--workers", "2",
                        "--address", "nonsense:abc", "--no-progress")  # fmt: skip
    err = one_line_error(capsys, status, expected_status=1)
    assert "could not start the Ray cluster" in err
