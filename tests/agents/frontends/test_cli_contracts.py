"""The CLI as a user meets it: files are never lost, output is honest, any agent can play."""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from mcts_envs.agents.evaluation.arena import AgentStats, MatchResult, play_match, summarize
from mcts_envs.agents.evaluation.games import Adjudication, GameRules
from mcts_envs.agents.evaluation.plan import plan_match
from mcts_envs.agents.evaluation.stats import (
    format_elo,
    wilson_interval,
)
from mcts_envs.agents.frontends.cli import main
from mcts_envs.records import read_records

ROOT = Path(__file__).resolve().parents[3]


def run_cli(*argv):
    out = io.StringIO()
    status = main(list(argv), out=out)
    return status, out.getvalue()


@pytest.mark.parametrize(
    "argv",
    [
        ("match", "tictactoe", "nosuchagent", "random"),
        ("match", "nosuchgame", "random", "random"),
        ("match", "tictactoe", "mcts:iterations=-3", "random"),
        ("match", "tictactoe", "random", "random", "--max-moves", "0"),
        ("match", "tictactoe", "random", "random", "--games", "0"),
        ("match", "tictactoe", "random", "random"),  # existing file without --overwrite
    ],
)
def test_a_failing_match_never_touches_an_existing_results_file(tmp_path, capsys, argv):
    precious = tmp_path / "precious.jsonl"
    precious.write_text("keep me\n")
    status, _ = run_cli(*argv, "--out", str(precious), "--no-progress")
    assert status == 2
    assert precious.read_text() == "keep me\n"
    assert "error" in capsys.readouterr().err


def test_overwrite_replaces_the_file(tmp_path):
    path = tmp_path / "games.jsonl"
    path.write_text("old\n")
    status, _ = run_cli(
        "match", "tictactoe", "random", "random", "--games", "2", "--out", str(path),
        "--overwrite", "--no-progress",
    )  # fmt: skip
    assert status == 0 and len(read_records(path)) == 2


def test_full_disk_is_a_clear_error_not_a_traceback(capsys):
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full on this system")
    status, _ = run_cli(
        "match", "tictactoe", "random", "random", "--games", "2", "--out", "/dev/full",
        "--overwrite", "--no-progress",
    )  # fmt: skip
    err = capsys.readouterr().err
    assert status == 2 and "No space left" in err and "Traceback" not in err


def test_exact_wilson_ends_and_elo_bounds():
    assert wilson_interval(10, 10)[1] == 1.0
    assert wilson_interval(0, 10)[0] == 0.0
    result = play_match(plan_match("tictactoe", "alphabeta", "random", 10, seed=1))
    assert result.a.wins + result.a.draws == 10
    assert "-0" not in result.summary().replace("-0.", "")
    ten_of_ten = MatchResult(
        "tictactoe", AgentStats("a", wins=10), AgentStats("b", losses=10), records=[{}] * 10
    )
    assert "> +166" in ten_of_ten.summary() and "inf" not in ten_of_ten.summary().split("Elo")[1]
    assert "adjudicated" not in ten_of_ten.summary()
    assert format_elo(-0.4) == "0" and format_elo(float("-inf")) == "-inf"


def test_games_cut_by_the_move_cap_are_adjudicated_draws_and_counted():
    result = play_match(
        plan_match(
            GameRules("tictactoe", adjudication=Adjudication(max_moves=2)),
            "random",
            "random",
            4,
            seed=0,
        )
    )
    assert len(result.records) == 4 and result.a.draws == 4
    assert all(r["result"] == "draw" and r["returns"] is None for r in result.records)
    assert all(r["termination"] == "move cap" for r in result.records)
    assert "4 games" in result.summary() and "4 by move cap" in result.summary()


def test_two_agents_with_one_spec_and_long_specs_line_up():
    long_spec = "mcts:iterations=50,c=0.7,rollout=random,solver=False"
    records = play_match(plan_match("tictactoe", long_spec, long_spec, 2, seed=0)).records
    text = summarize("tictactoe", long_spec, long_spec, records).summary()
    rows = [line for line in text.splitlines() if line.startswith(("A  ", "B  "))]
    assert [row[0] for row in rows] == ["A", "B"]
    header = next(line for line in text.splitlines() if "win rate" in line)
    assert len({row.index("[") for row in rows}) == 1
    assert header.index("win rate") == rows[0].index("[") - 6


def test_version_and_help_percent(capsys):
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out.startswith("mcts-envs ")
    with pytest.raises(SystemExit) as done:
        main(["match", "--help"])  # argparse prints the help to stdout, as in a terminal
    assert done.value.code == 0
    help_text = capsys.readouterr().out
    assert "95%" in help_text and "95%%" not in help_text


def test_piping_into_head_ends_quietly():
    command = (
        f"{sys.executable} -m mcts_envs.agents.frontends.cli match tictactoe random random --games 400 "
        "--no-progress | head -1"
    )
    done = subprocess.run(
        ["bash", "-c", command], capture_output=True, text=True, cwd=ROOT, timeout=120
    )
    assert done.stdout.startswith("tictactoe: 400 games")
    assert "Traceback" not in done.stderr and "BrokenPipe" not in done.stderr


def test_user_agents_join_through_agent_module(tmp_path):
    module = tmp_path / "my_agents.py"
    module.write_text(
        textwrap.dedent(
            """
            import numpy as np
            from mcts_envs.agents.base import ForwardModelAgent
            from mcts_envs.agents.spec import register_agent

            class FirstLegal(ForwardModelAgent):
                name = "first"
                def act_state(self, game, state):
                    return int(np.min(game.legal_actions(state)))

            register_agent("first", FirstLegal)
            """
        )
    )
    env = {**os.environ, "PYTHONPATH": f"{tmp_path}{os.pathsep}{ROOT}"}
    done = subprocess.run(
        [sys.executable, "-m", "mcts_envs.agents.frontends.cli", "match", "tictactoe", "first", "random",
         "--games", "4", "--workers", "2", "--agent-module", "my_agents", "--no-progress"],
        capture_output=True, text=True, cwd=tmp_path, env=env, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "A  first" in done.stdout


def test_an_agent_module_that_cannot_be_imported_is_a_usage_error(tmp_path, capsys):
    out = tmp_path / "games.jsonl"
    status, text = run_cli(
        "match", "tictactoe", "first", "random", "--agent-module", "no_such_module_here",
        "--out", str(out),
    )  # fmt: skip
    error = capsys.readouterr().err
    assert status == 2 and text == "" and not out.exists()
    assert "no_such_module_here" in error and "Traceback" not in error


def _children(pid: int) -> list[int]:
    path = Path(f"/proc/{pid}/task/{pid}/children")
    return [int(p) for p in path.read_text().split()] if path.exists() else []


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_workers_die_with_a_killed_parent(tmp_path):
    parent = subprocess.Popen(
        [sys.executable, "-m", "mcts_envs.agents.frontends.cli", "match", "tictactoe", "mcts:iterations=3000",
         "random", "--games", "400", "--workers", "2", "--no-progress"],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        workers: list[int] = []
        while time.monotonic() < deadline and len(workers) < 2:
            time.sleep(0.5)
            workers = [c for c in _children(parent.pid) if "python" in _cmdline(c)]
        assert len(workers) >= 2, "the match did not start its workers"
    finally:
        parent.send_signal(signal.SIGKILL)
        parent.wait()
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and any(_alive(w) for w in workers):
        time.sleep(0.2)
    assert not any(_alive(w) for w in workers), "workers outlived their killed parent"


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
    except OSError:
        return ""


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_saved_ppo_model_plays_through_the_cli_spec(tmp_path):
    """A real (tiny) MaskablePPO model, saved and played as ``ppo:path=...`` in a 2-worker match."""
    sb3_contrib = pytest.importorskip("sb3_contrib", reason="needs the train extra")
    from mcts_envs.envs.single_agent import SingleAgentEnv

    model = sb3_contrib.MaskablePPO(
        "MlpPolicy", SingleAgentEnv("tictactoe"), n_steps=64, batch_size=32, seed=0, device="cpu"
    )
    model.learn(64)
    path = tmp_path / "model.zip"
    model.save(path)
    from mcts_envs.agents.learned.adapters import MaskablePPOAgent, load_maskable_ppo

    assert load_maskable_ppo(path) is load_maskable_ppo(str(path)), "loaded once per process"
    assert MaskablePPOAgent(path).model is load_maskable_ppo(path), "path-like accepted"
    out = tmp_path / "games.jsonl"
    status, text = run_cli(
        "match", "tictactoe", f"ppo:path={path}", "random", "--games", "4", "--workers", "2",
        "--no-progress", "--out", str(out),
    )  # fmt: skip
    assert status == 0, text
    records = read_records(out)
    assert len(records) == 4 and all(r["returns"] is not None for r in records)
