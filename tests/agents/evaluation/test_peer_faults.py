"""Issue 39: an engine fault on its first moves (the warm-up included) loses games, never the
tournament; the record says what ended each game (``forfeit.reason``, and ``forfeit.fault``:
an engine's fault is its own play, :data:`mcts_envs.agents.base.AGENT_FAULT`).

Engines are :mod:`tests.agents.fake_uai_engine` processes, misbehaving from their first move; the
tournaments run through the command line in this process.
"""

from __future__ import annotations

import pytest

pytest.importorskip("ataxx")  # the fake engine's rules

from mcts_envs.agents.base import AGENT_FAULT, INFRASTRUCTURE_FAULT, ForfeitError
from mcts_envs.records import read_records
from tests.agents.evaluation.test_arena_and_cli import run_cli
from tests.agents.players.test_uai_client_failures import fake


@pytest.mark.parametrize(
    ("mode", "reason", "fault"),
    [
        ("illegal", "illegal move", AGENT_FAULT),
        ("garbage", "unparseable move", AGENT_FAULT),
        ("longline", "unparseable move", AGENT_FAULT),  # a bestmove line of a million characters
        ("crash", "crash", AGENT_FAULT),
        ("hang", "timeout", AGENT_FAULT),
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


def test_a_forfeit_keeps_its_kind_and_a_bounded_line_with_its_length():
    entry = ForfeitError("x" * 1000, "connection", "y" * 500, INFRASTRUCTURE_FAULT).forfeit(1)
    assert entry["fault"] == INFRASTRUCTURE_FAULT and entry["seat"] == 1
    assert len(entry["line"]) == 200 and entry["truncated"] == {"line": 500}
    assert len(entry["message"]) < 500
    cut = ForfeitError("m", "unparseable move", "z" * 4096, line_length=10**6).forfeit(0)
    assert cut["fault"] == AGENT_FAULT and cut["truncated"] == {"line": 10**6}
