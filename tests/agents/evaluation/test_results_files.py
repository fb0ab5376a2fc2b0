"""Issue 28, data loss: no command deletes a line it did not write or glues a record onto a cut.

Only a last line without its newline is a write cut by a crash; every other unusable line is
refused with its line number and the file is left byte for byte as it was.
"""

from __future__ import annotations

import json

import pytest

from mcts_envs.core.errors import InvalidRecordError
from mcts_envs.records import dumps, open_for_append, read_records
from tests.agents.evaluation.test_arena_and_cli import run_cli

TOURNAMENT = ("tournament", "tictactoe", "random", "minimax2", "--games-per-pair", "2")


@pytest.fixture(scope="module")
def lines(tmp_path_factory):
    """The two record lines (without newlines) of the tiny tournament the tests resume."""
    path = tmp_path_factory.mktemp("ref") / "ref.jsonl"
    status, _ = run_cli(*TOURNAMENT, "--out", str(path), "--no-progress")
    assert status == 0
    return path.read_text().splitlines()


def resume(path):
    return run_cli(*TOURNAMENT, "--out", str(path), "--resume", "--no-progress")


def newer_version(line):
    return dumps({**json.loads(line), "version": 3})


@pytest.mark.parametrize(
    "last",
    [
        b"important",
        b'{"keep":"me"}',
        b"[1,2,3]",
        b"\xff\xfe not UTF-8",
        "newer",
        b"[" * 100_000,  # RecursionError in json: a record error, not a traceback
    ],
    ids=["text", "object", "list", "bad-utf8", "newer-version", "nested"],
)
@pytest.mark.parametrize("before", [0, 1])
def test_resume_refuses_any_unusable_complete_line_and_leaves_the_file(
    lines, tmp_path, capsys, last, before
):
    if last == "newer":
        last = newer_version(lines[1]).encode()
    path = tmp_path / "results.jsonl"
    content = b"".join(line.encode() + b"\n" for line in lines[:before]) + last + b"\n"
    path.write_bytes(content)
    status, _ = resume(path)
    err = capsys.readouterr().err
    assert status == 2
    assert f"line {before + 1}" in err and "not a tournament record" in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert path.read_bytes() == content


def test_resume_truncates_only_a_cut_last_line_and_continues_on_a_new_line(lines, tmp_path, capsys):
    path = tmp_path / "results.jsonl"
    path.write_text(lines[0] + "\n" + lines[1][: len(lines[1]) // 2])
    status, _ = resume(path)
    assert status == 0 and "line 2 was cut by a crash" in capsys.readouterr().err
    assert path.read_text().splitlines()[0] == lines[0]
    assert [r["index"] for r in read_records(path)] == [0, 1]


def test_resume_completes_a_last_record_written_without_its_newline(lines, tmp_path, capsys):
    path = tmp_path / "results.jsonl"
    path.write_text(lines[0] + "\n" + lines[1])
    status, _ = resume(path)
    assert status == 0 and "2 already in" in capsys.readouterr().err
    assert path.read_text() == lines[0] + "\n" + lines[1] + "\n"


def _edited(line, **changes):
    record = json.loads(line)
    record.update(changes)
    return json.dumps(record)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda r: {"actions": [99, *r["actions"][1:]]}, "outside the action space"),
        (lambda r: {"actions": r["actions"] + [0] * 180_000}, "actions; a tictactoe record"),
        (lambda r: {"returns": [float("nan"), 0.0]}, "finite numbers"),
        (lambda r: {"returns": [float("inf"), 0.0]}, "finite numbers"),
        (lambda r: {"result": {"a": "b", "b": "a", "draw": "a"}[r["result"]]}, "'result'"),
        (lambda r: {"players": r["players"][::-1]}, "'players'"),
        (lambda r: {"final": ".../.../... x"}, "'final'"),
    ],
)
def test_resume_and_ratings_validate_records_as_replay_does(
    lines, tmp_path, capsys, change, message
):
    bad = _edited(lines[1], **change(json.loads(lines[1])))
    path = tmp_path / "results.jsonl"
    content = lines[0] + "\n" + bad + "\n"
    path.write_text(content)
    status, _ = resume(path)
    err = capsys.readouterr().err
    assert status == 2 and "line 2" in err and message in err, err
    assert path.read_text() == content
    if message in ("'result'", "'players'"):
        return  # plan checks: a match-style file of such records is still rated
    status, _ = run_cli("ratings", str(path))
    err = capsys.readouterr().err
    assert status == 2 and "line 2" in err and message in err, err


def test_ratings_and_replay_skip_a_cut_last_line_with_a_warning(lines, tmp_path, capsys):
    path = tmp_path / "results.jsonl"
    path.write_text(lines[0] + "\n" + lines[1] + "\n" + lines[1][:40])
    status, text = run_cli("ratings", str(path), "--bootstrap", "0")
    err = capsys.readouterr().err
    assert status == 0 and "2 game records" in text
    assert "line 3 is cut" in err
    status, text = run_cli("replay", str(path), "--game", "1", "--delay", "0")
    err = capsys.readouterr().err
    assert status == 0 and "result:" in text
    assert "line 3 is cut" in err and "2 intact record(s)" in err


def test_play_out_refuses_a_cut_last_line_before_the_game(lines, tmp_path, capsys):
    path = tmp_path / "mine.jsonl"
    content = lines[0] + "\n" + lines[1][:50]
    path.write_text(content)
    status, _ = run_cli("play", "tictactoe", "--opponent", "random", "--out", str(path), keys="")
    err = capsys.readouterr().err
    assert status == 2 and "line 2" in err and "cut" in err
    assert path.read_text() == content


def test_play_out_starts_a_new_line_after_a_record_without_newline(lines, tmp_path):
    path = tmp_path / "mine.jsonl"
    path.write_text(lines[0])
    status, text = run_cli(
        "play",
        "tictactoe",
        "--opponent",
        "random",
        "--seat",
        "1",
        "--out",
        str(path),
        keys="quit\n",
    )
    assert status == 0 and "game appended" in text
    records = read_records(path)
    assert len(records) == 2 and records[0] == json.loads(lines[0])


def test_open_for_append_refuses_or_drops_only_the_cut(lines, tmp_path):
    path = tmp_path / "a.jsonl"
    content = (lines[0] + "\n" + lines[1][:30]).encode()
    path.write_bytes(content)
    with pytest.raises(InvalidRecordError, match="line 2"):
        open_for_append(path)
    assert path.read_bytes() == content
    stream, dropped = open_for_append(path, drop_cut=True)
    stream.close()
    assert dropped == 2 and path.read_text() == lines[0] + "\n"
