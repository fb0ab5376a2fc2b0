"""Issue 39: a command checks every argument before it plays a game, bounds the agents of a
tournament, and names the file it cannot write."""

from __future__ import annotations

import os
import time

import pytest

from tests.agents.evaluation.test_arena_and_cli import run_cli

TOURNAMENT = ("tournament", "tictactoe", "random", "minimax2", "--games-per-pair", "2")


@pytest.mark.parametrize(
    ("option", "message"),
    [
        (("--bootstrap", str(10**9)), "--bootstrap must be an int from 0 to 100,000"),
        (("--anchor", "nobody"), "--anchor 'nobody' is not an agent of this run"),
    ],
)
def test_rating_options_are_refused_before_any_game(tmp_path, capsys, option, message):
    out = tmp_path / "results.jsonl"
    start = time.monotonic()
    status, text = run_cli(*TOURNAMENT, "--out", str(out), "--no-progress", *option)
    err = capsys.readouterr().err
    assert status == 2 and message in err and len(err.strip().splitlines()) == 1, err
    assert not out.exists() and "game records" not in text  # no game was played
    assert time.monotonic() - start < 30


def test_a_tournament_of_more_than_100_agents_is_refused(tmp_path, capsys):
    agents = [f"mcts:iterations={n}" for n in range(1, 102)]
    out = tmp_path / "results.jsonl"
    status, _ = run_cli("tournament", "tictactoe", *agents, "--out", str(out), "--no-progress")
    err = capsys.readouterr().err
    assert status == 2 and "101 agents; a tournament takes at most 100" in err, err
    assert not out.exists()


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_a_full_disk_names_the_file_and_is_a_runtime_error(capsys):
    status, _ = run_cli(*TOURNAMENT, "--out", "/dev/full", "--overwrite", "--no-progress")
    err = capsys.readouterr().err
    assert status == 1, err
    assert "cannot write a record to /dev/full: No space left on device" in err
    assert "--resume" in err
