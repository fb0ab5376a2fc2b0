"""Loud infrastructure failures: an agent whose server or engine cannot be reached, or keeps
failing, stops the command after a few games in a row with one line naming the cause and exit
status 1 (``--keep-going`` plays on); records and summaries count those games apart from the
agent's own invalid moves, timeouts and crashes; no rate reads ``inf``.

Real parts: the installed ``mcts-envs`` command in a child process, a real HTTP server on
127.0.0.1 (``tests/agents/chat_endpoint.py``), and port 9 of 127.0.0.1, where nothing listens.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from mcts_envs.agents.evaluation.arena import play_match
from mcts_envs.agents.evaluation.faults import (
    DEFAULT_FAULT_LIMIT,
    FaultWatch,
    InfrastructureError,
    fault_summary,
)
from mcts_envs.agents.evaluation.games import GameRules
from mcts_envs.agents.evaluation.ladder import rate_on_ladder
from mcts_envs.agents.evaluation.plan import plan_match
from mcts_envs.agents.evaluation.run import RunSettings
from mcts_envs.agents.frontends.cli import build_parser
from tests.agents.chat_endpoint import chat_server

CLI = str(Path(sys.executable).with_name("mcts-envs"))
UNREACHABLE = "llm:model=m,base_url=http://127.0.0.1:9/v1"


def mcts_envs_command(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [CLI, *args], cwd=cwd, capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL
    )


def lost(seat: int, fault: str | None, spec: str = "x", other: str = "random") -> dict:
    """A record of ``spec`` (at ``seat``) against ``other``; lost by a fault of kind ``fault``
    (``None``: a game without a forfeit)."""
    players = [spec, other] if seat == 0 else [other, spec]
    record = {"players": players, "result": "b"}
    if fault is not None:
        forfeit = {"seat": seat, "reason": "connection", "message": f"{spec}: cannot reach it"}
        record["forfeit"] = forfeit | ({} if fault == "old" else {"fault": fault})
    return record


def test_the_issue_command_ends_with_one_line_and_exit_1(tmp_path):
    finished = mcts_envs_command("ladder", "tictactoe", UNREACHABLE, cwd=tmp_path)
    assert finished.returncode == 1
    last = finished.stderr.strip().splitlines()[-1]
    assert last.startswith("mcts-envs ladder: error: " + UNREACHABLE)
    assert f"lost {DEFAULT_FAULT_LIMIT} games in a row" in last and "Connection refused" in last
    assert "--keep-going" in last
    assert "Traceback" not in finished.stderr and finished.stdout == ""


def test_a_match_stops_after_the_games_in_flight_and_keeps_them(tmp_path):
    out = tmp_path / "llm.jsonl"
    finished = mcts_envs_command(
        "match", "tictactoe", UNREACHABLE, "random", "--games", "20", "--workers", "2",
        "--out", str(out), "--no-progress", cwd=tmp_path,
    )  # fmt: skip
    assert finished.returncode == 1
    assert finished.stderr.strip().splitlines()[-1].startswith("mcts-envs match: error: ")
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert DEFAULT_FAULT_LIMIT <= len(records) < 20  # stopped; what was played is kept
    assert all(r["forfeit"]["fault"] == "infrastructure" for r in records)


def test_keep_going_plays_on_and_the_summary_counts_the_faults_apart(tmp_path):
    finished = mcts_envs_command(
        "match", "tictactoe", UNREACHABLE, "random", "--games", "6", "--keep-going",
        "--no-progress", cwd=tmp_path,
    )  # fmt: skip
    assert finished.returncode == 0, finished.stderr
    summary = finished.stdout
    assert "lost by faults: A 6 (server or engine failing)" in summary
    assert "inf" not in summary.replace("infra", "")  # moves/s of an agent that never moved: '-'
    row = next(line for line in summary.splitlines() if line.startswith("A  "))
    assert row.split()[-1] == "-"
    assert "Elo of A minus B: after 10 games (6 so far)" in summary


def test_a_model_that_answers_badly_is_rated_a_server_that_fails_is_not():
    """Invalid answers are the model's own play: the run goes on and counts them as such. HTTP
    500 on every request is its server failing: the run stops after the limit."""
    with chat_server() as server:
        garbage = f"llm:model=garbage,base_url={server.base_url},retries=0"
        plan = plan_match(GameRules("tictactoe"), garbage, "random", 6, seed=0)
        result = play_match(plan, RunSettings(fault_limit=2))
        assert len(result.records) == 6
        assert result.fault_line() == "lost by faults: A 6 (own play)"
        failing = f"llm:model=error500,base_url={server.base_url},retries=0"
        plan = plan_match(GameRules("tictactoe"), failing, "random", 6, seed=0)
        with pytest.raises(InfrastructureError, match=r"lost 2 games in a row .*HTTP 500"):
            play_match(plan, RunSettings(fault_limit=2))


def test_the_ladder_counts_its_faults_apart_and_stops(tmp_path):
    with chat_server() as server:
        failing = f"llm:model=error500,base_url={server.base_url},retries=0"
        out = tmp_path / "ladder.jsonl"
        with pytest.raises(InfrastructureError, match="lost 3 games in a row"):
            rate_on_ladder("tictactoe", failing, games=10, out=out)
        assert len(out.read_text().splitlines()) == 3
        result = rate_on_ladder("tictactoe", failing, games=4, fault_limit=None)
    assert result.infrastructure_faults == 4 and result.forfeits == 0
    assert "0 forfeits: invalid moves, timeouts or crashes; 4 lost to its server or engine" in (
        result.summary()
    )
    assert "Elo not estimated from fewer than 10 games" in result.summary()


def test_the_watch_counts_games_in_a_row_per_agent():
    watch = FaultWatch(3)
    for record in (lost(0, "infrastructure"), lost(1, "infrastructure"), lost(0, None)):
        watch.update(record)  # a game without a fault starts the count again
    watch.update(lost(0, "infrastructure", other="y"))
    watch.update(lost(1, "infrastructure"))
    with pytest.raises(InfrastructureError, match=r"^x lost 3 games in a row .*cannot reach it"):
        watch.update(lost(0, "infrastructure"))


def test_the_agents_own_faults_and_old_records_never_stop_a_run():
    watch = FaultWatch(2)
    for _ in range(10):
        watch.update(lost(0, "agent"))
        watch.update(lost(1, "old"))  # written before the field: the agent's own
    unlimited = FaultWatch(None)
    for _ in range(10):
        unlimited.update(lost(0, "infrastructure"))
    records = [lost(0, "agent"), lost(1, "old"), lost(0, "infrastructure"), lost(0, None)]
    assert fault_summary(records) == "lost by faults: x 2 (own play) + 1 (server or engine failing)"
    assert fault_summary([lost(0, None)]) == ""


@pytest.mark.parametrize("limit", [0, -1, 1.5, True, "3"])
def test_a_bad_fault_limit_is_refused(limit):
    with pytest.raises(ValueError, match="fault limit must be an int >= 1 or None"):
        RunSettings(fault_limit=limit)


def test_the_keep_going_help_states_the_limit():
    help_text = build_parser()._subparsers._group_actions[0].choices["match"].format_help()
    assert f"after {DEFAULT_FAULT_LIMIT} in a row" in " ".join(help_text.split())
