"""The record schema: hostile files give a line-numbered InvalidRecordError, never a traceback."""

from __future__ import annotations

import io
import json

import pytest

from mcts_envs import InvalidRecordError
from mcts_envs.agents.evaluation.arena import play_match
from mcts_envs.agents.evaluation.plan import plan_match
from mcts_envs.agents.frontends.cli import main
from mcts_envs.records import game_identity, quote, read_records, replay_states, write_records


@pytest.fixture(scope="module")
def good_record():
    return play_match(plan_match("tictactoe", "random", "random", 1, seed=0)).records[0]


def mutated(record, **changes):
    return {**record, **changes}


@pytest.mark.parametrize(
    ("change", "fragment"),
    [
        ({"players": 5}, "'players' must be a list of two strings"),
        ({"chance": 5}, "'chance' must be a list of indices"),
        ({"chance": [99]}, "'chance' must be a list of indices"),
        ({"actions": [0, "1"]}, "'actions' must be a list of integers"),
        ({"actions": [0, True]}, "'actions' must be a list of integers"),
        ({"returns": [1]}, "'returns' must be null or a list of two finite numbers"),
        ({"version": 1}, "version 1 is not supported"),
        ({"initial": None}, "'initial' must be a state's text"),
    ],
)
def test_mistyped_fields_name_the_line(tmp_path, good_record, change, fragment):
    path = tmp_path / "bad.jsonl"
    write_records(path, [good_record, mutated(good_record, **change)])
    with pytest.raises(InvalidRecordError, match="line 2") as caught:
        read_records(path)
    assert fragment in str(caught.value)


def test_deep_nesting_and_bad_bytes_are_record_errors(tmp_path):
    deep = tmp_path / "deep.jsonl"
    deep.write_text("[" * 100_000 + "]" * 100_000 + "\n")
    with pytest.raises(InvalidRecordError, match="line 1"):
        read_records(deep)
    binary = tmp_path / "binary.jsonl"
    binary.write_bytes(b'{"game": "tic\xff\xfe"}\n')
    with pytest.raises(InvalidRecordError, match="line 1: not UTF-8"):
        read_records(binary)


def test_replay_rejects_illegal_moves_and_misplaced_chance(good_record):
    with pytest.raises(InvalidRecordError, match="action 1"):
        replay_states(mutated(good_record, actions=[9, *good_record["actions"][1:]]))
    with pytest.raises(InvalidRecordError, match="'chance'"):
        replay_states(mutated(good_record, chance=[0]))


def test_cli_replay_on_hostile_files_exits_2_without_traceback(tmp_path, good_record, capsys):
    cases = {
        "players.jsonl": json.dumps(mutated(good_record, players=5)),
        "deep.jsonl": "[" * 50_000 + "]" * 50_000,
        "huge.jsonl": json.dumps(mutated(good_record, initial="x" * 10_000_000)),
    }
    for name, text in cases.items():
        path = tmp_path / name
        path.write_text(text + "\n")
        status = main(["replay", str(path), "--delay", "0"], out=io.StringIO())
        err = capsys.readouterr().err
        assert status == 2 and "Traceback" not in err, name
        assert len(err) < 2_000, f"{name}: the message quotes too much input"


def test_control_characters_in_records_are_not_printed(tmp_path, good_record):
    path = tmp_path / "escape.jsonl"
    write_records(path, [mutated(good_record, players=["\x1b[2J\x1b]0;pwned\x07", "random"])])
    out = io.StringIO()
    assert main(["replay", str(path), "--delay", "0"], out=out) == 0
    assert "\x1b" not in out.getvalue() and "\x07" not in out.getvalue()


def test_identical_runs_write_identical_game_records():
    first = play_match(
        plan_match("ultimate_tictactoe", "mcts:iterations=30", "random", 2, seed=4)
    ).records
    again = play_match(
        plan_match("ultimate_tictactoe", "mcts:iterations=30", "random", 2, seed=4)
    ).records
    assert [game_identity(r) for r in first] == [game_identity(r) for r in again]
    assert all("think_seconds" in r["timing"] for r in first)


def test_quote_is_bounded():
    assert len(quote("x" * 10_000_000)) <= 70
