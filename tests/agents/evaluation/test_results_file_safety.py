"""Issue 39: ``--resume`` accepts only a file whose every line is a record of this tournament,
changes nothing before it has accepted the file, lets one writer at a time hold it, and reports
games recorded twice (``ratings`` too).

Every refusal leaves the file byte for byte as it was. The tournament is tiny (Tic-Tac-Toe,
random against minimax2), played through the command line in this process.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from mcts_envs.agents.evaluation.results_file import ResultsFileBusyError, open_results
from mcts_envs.records import read_records
from tests.agents.evaluation.test_arena_and_cli import run_cli

ROOT = Path(__file__).resolve().parents[3]
TOURNAMENT = ("tournament", "tictactoe", "random", "minimax2", "--games-per-pair", "4")


@pytest.fixture(scope="module")
def lines(tmp_path_factory):
    """The four record lines (without newlines) of the tiny tournament."""
    path = tmp_path_factory.mktemp("ref") / "ref.jsonl"
    status, _ = run_cli(*TOURNAMENT, "--out", str(path), "--no-progress")
    assert status == 0
    return path.read_text().splitlines()


def resume(path, *extra):
    return run_cli(*TOURNAMENT, "--out", str(path), "--resume", "--no-progress", *extra)


@pytest.mark.parametrize(
    "content",
    [
        os.urandom(3 * 2**20).replace(b"\n", b"x"),  # the 3 MB binary file, no newline
        b"my thesis draft, not yet saved elsewhere",  # one line of text without its newline
        b"\x00" * 1000,
        b'{"keep":"me"}',  # JSON, but not a record
    ],
    ids=["binary-3MB", "text", "zeros", "json-object"],
)
def test_a_file_that_is_not_a_results_file_is_refused_and_left_as_it_was(tmp_path, capsys, content):
    path = tmp_path / "f.bin"
    path.write_bytes(content)
    status, _ = resume(path)
    err = capsys.readouterr().err
    assert status == 2 and "line 1" in err and "Traceback" not in err, err
    assert path.read_bytes() == content


def test_records_of_another_tournament_are_refused_before_any_change(lines, tmp_path, capsys):
    """Another tournament's file whose last record has no newline, and one with a cut last
    line: the plan check refuses both, and neither the newline nor the cut is touched."""
    for tail in (lines[1], lines[1][:60]):
        path = tmp_path / "other.jsonl"
        content = (lines[0] + "\n" + tail).encode()
        path.write_bytes(content)
        status, _ = run_cli(
            "tournament", "tictactoe", "random", "alphabeta", "--games-per-pair", "4",
            "--out", str(path), "--resume", "--no-progress",
        )  # fmt: skip
        err = capsys.readouterr().err
        assert status == 2 and "not a game of this tournament" in err, err
        assert path.read_bytes() == content


def test_a_cut_last_line_is_repaired_only_once_the_file_is_accepted(lines, tmp_path, capsys):
    path = tmp_path / "results.jsonl"
    path.write_text(lines[0] + "\n" + lines[1] + "\n" + lines[2][:70])
    status, _ = resume(path)
    assert status == 0 and "line 3 was cut by a crash" in capsys.readouterr().err
    assert [r["index"] for r in read_records(path)] == [0, 1, 2, 3]


def test_a_second_writer_is_refused_while_the_first_holds_the_file(lines, tmp_path, capsys):
    path = tmp_path / "results.jsonl"
    path.write_text(lines[0] + "\n")
    before = path.read_bytes()
    with open_results(path, resume=True, overwrite=False):
        status, _ = resume(path)
        err = capsys.readouterr().err
        assert status == 1 and "is being written by another run" in err, err
        assert len(err.strip().splitlines()) == 1
        with pytest.raises(ResultsFileBusyError):
            open_results(path, resume=False, overwrite=True)  # not emptied under the writer
        assert path.read_bytes() == before
    status, _ = resume(path)  # the lock went with the first writer
    assert status == 0 and len(read_records(path)) == 4


HOLDER = textwrap.dedent(
    """
    import sys, time
    from mcts_envs.agents.evaluation.results_file import open_results
    results = open_results(sys.argv[1], resume=True, overwrite=False)
    print("holding", flush=True)
    time.sleep(600)
    """
)


def test_the_lock_goes_with_a_killed_writer(lines, tmp_path, capsys):
    path = tmp_path / "results.jsonl"
    path.write_text(lines[0] + "\n")
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(path)],
        cwd=ROOT,
        env=os.environ | {"PYTHONPATH": str(ROOT)},
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "holding"
        status, _ = resume(path)
        assert status == 1 and "another run" in capsys.readouterr().err
        holder.kill()
        holder.wait(30)
        status, _ = resume(path)
        assert status == 0 and len(read_records(path)) == 4
    finally:
        holder.kill()
        holder.wait()


def test_resume_and_ratings_report_a_game_recorded_twice(lines, tmp_path, capsys):
    path = tmp_path / "results.jsonl"
    content = "".join(line + "\n" for line in [lines[0], lines[1], lines[0], lines[2]])
    path.write_text(content)
    status, text = run_cli("ratings", str(path), "--bootstrap", "0")
    err = capsys.readouterr().err
    assert status == 0 and "line 3 repeats the game of line 1" in err, err
    assert "3 game records" in text  # counted once
    status, _ = resume(path)
    err = capsys.readouterr().err
    assert status == 0 and "1 line(s) repeat a game of an earlier line" in err, err
    assert "line 3 (as 1)" in err
    indices = sorted({json.loads(line)["index"] for line in path.read_text().splitlines()})
    assert indices == [0, 1, 2, 3]  # game 3 played; the repeat left in place
    assert path.read_text().startswith(content)


def test_ratings_print_no_escape_sequence_from_a_record(lines, tmp_path, capsys):
    """Agent names come from the file: ``ratings`` strips terminal control characters."""
    hostile = "minimax2\x1b[2J\x1b]0;pwned\x07"
    edited = []
    for line in lines:
        record = json.loads(line)
        record["agents"] = [a.replace("minimax2", hostile) for a in record["agents"]]
        record["players"] = [p.replace("minimax2", hostile) for p in record["players"]]
        edited.append(json.dumps(record))
    path = tmp_path / "results.jsonl"
    path.write_text("\n".join(edited) + "\n")
    status, text = run_cli("ratings", str(path), "--bootstrap", "20")
    assert status == 0 and "minimax2[2J]0;pwned" in text
    assert "\x1b" not in text and "\x07" not in text


def test_an_infinite_interval_end_is_named_not_printed():
    from mcts_envs.agents.evaluation.stats import format_elo_interval

    assert format_elo_interval(120.0, 40.0, float("inf")) == "+120 [+40, unbounded]"
    assert format_elo_interval(-80.0, float("-inf"), -5.0) == "-80 [unbounded, -5]"
    assert format_elo_interval(float("inf"), 166.0, float("inf")) == "> +166"
