"""Issue 39: an engine fault on its first moves (the warm-up included) loses games, never the
tournament; the record says what kind of fault ended each game (``forfeit.fault``).

Engines are :mod:`tests.agents.fake_uai_engine` processes, misbehaving from their first move; the
tournaments run through the command line in this process.
"""

from __future__ import annotations

import pytest

pytest.importorskip("ataxx")  # the fake engine's rules

from mcts_envs.agents.base import FAULTS, ForfeitError, fault_of
from mcts_envs.records import read_records
from tests.agents.evaluation.test_arena_and_cli import run_cli
from tests.agents.players.test_uai_client_failures import fake


@pytest.mark.parametrize(
    ("mode", "reason", "fault"),
    [
        ("illegal", "illegal move", "move"),
        ("garbage", "unparseable move", "move"),
        ("longline", "unparseable move", "move"),  # a bestmove line of a million characters
        ("crash", "crash", "peer"),
        ("hang", "timeout", "peer"),
    ],
)
def test_a_fault_from_the_first_move_loses_each_game_and_the_tournament_ends(
    tmp_path, capsys, mode, reason, fault
):
    path = tmp_path / "results.jsonl"
    engine = fake(mode, movetime=20, margin=50, timeout=2)
    status, text = run_cli(
        "tournament", "ataxx", engine, "random", "--games-per-pair", "2",
        "--out", str(path), "--no-progress",
    )  # fmt: skip
    err = capsys.readouterr().err
    assert status == 0, err
    assert f"warm-up of {engine!r}: {reason}" in err, err
    records = read_records(path)
    assert len(records) == 2 and "2 game records" in text
    for record in records:
        assert record["termination"] == "forfeit" and record["result"] == "b"
        forfeit = record["forfeit"]
        assert (forfeit["reason"], forfeit["fault"]) == (reason, fault)
        assert len(forfeit["line"] or "") <= 200
        if mode == "longline":
            assert forfeit["truncated"] == {"line": len("bestmove ") + 10**6}


def test_bestmove_pass_where_a_move_exists_is_an_illegal_move(tmp_path, capsys):
    path = tmp_path / "results.jsonl"
    status, _ = run_cli(
        "tournament", "ataxx", fake("pass", movetime=20), "random", "--games-per-pair", "2",
        "--out", str(path), "--no-progress",
    )  # fmt: skip
    assert status == 0, capsys.readouterr().err
    assert all(r["forfeit"]["reason"] == "illegal move" for r in read_records(path))


def test_every_reason_the_clients_raise_has_a_fault_kind():
    assert set(FAULTS.values()) == {"move", "peer"}
    assert fault_of("something new") == "move"  # a game-level fault unless known otherwise
    entry = ForfeitError("x" * 1000, "crash", "y" * 500).forfeit(1)
    assert entry["fault"] == "peer" and entry["seat"] == 1
    assert len(entry["line"]) == 200 and entry["truncated"] == {"line": 500}
