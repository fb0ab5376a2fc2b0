"""Tournaments: paired openings, seeds independent of the backend, resume, time, adjudication."""

from __future__ import annotations

import io
import json

import pytest

from mcts_envs.agents.evaluation.games import (
    Adjudication,
    GameRules,
    TimeControl,
    build_agent,
    parse_clock,
    set_move_seconds,
    task_seeds,
)
from mcts_envs.agents.evaluation.plan import plan_tournament
from mcts_envs.agents.evaluation.results_file import done_keys, open_results, pending_tasks
from mcts_envs.agents.evaluation.run import RunSettings, run_plan
from mcts_envs.agents.frontends.cli import main
from mcts_envs.agents.preparation import untimed_spec
from mcts_envs.core.errors import InvalidOptionError, InvalidRecordError
from mcts_envs.core.registry import make_game
from mcts_envs.records import game_identity, read_records, replay_states

SPECS = ["random", "minimax2", "mcts:iterations=60"]


def _key(record):
    return record["pairing"], record["index"]


def _run(plan, path, workers=1, resume=False):
    run_plan(plan, RunSettings(out=path, resume=resume, overwrite=not resume, workers=workers))
    return read_records(path)


@pytest.fixture(scope="module")
def plan():
    return plan_tournament(GameRules("tictactoe"), SPECS, 4, seed=7, openings="random:2")


@pytest.fixture(scope="module")
def reference(plan, tmp_path_factory):
    return _run(plan, tmp_path_factory.mktemp("ref") / "ref.jsonl")


def test_games_come_in_pairs_from_one_opening_with_colours_swapped(plan, reference):
    assert len(reference) == 3 * 4  # three pairings of four games
    game = make_game("tictactoe")
    by_pair = {}
    for record in reference:
        by_pair.setdefault((record["pairing"], record["pair"]), []).append(record)
        state = game.from_text(record["initial"])
        assert sum(ch in "xo" for ch in record["initial"].split()[0]) == 2  # two random plies
        replay_states(record)  # every move legal from the opening
        assert game.current_player(state) == 0  # x to move after two plies
    for pair in by_pair.values():
        assert len(pair) == 2
        assert pair[0]["initial"] == pair[1]["initial"]
        assert sorted(r["seat_a"] for r in pair) == [0, 1]
        assert pair[0]["players"] == pair[1]["players"][::-1]
    openings = {(r["pairing"], r["pair"]): r["initial"] for r in reference}
    for pair in (0, 1):  # every pairing plays the same opening in pair p
        assert len({openings[(pairing, pair)] for pairing in range(3)}) == 1


def test_seeds_depend_only_on_master_pairing_pair_and_colour():
    first = task_seeds(1, 2, 3, 0)
    assert first == task_seeds(1, 2, 3, 0)
    assert first[:2] != task_seeds(1, 2, 3, 1)[:2]
    assert first[2] == task_seeds(1, 2, 3, 1)[2] == task_seeds(1, 0, 3, 0)[2]  # same draws
    assert first != task_seeds(2, 2, 3, 0)


def test_process_backend_writes_the_same_records_as_local(plan, reference, tmp_path):
    records = _run(plan, tmp_path / "p.jsonl", workers=2)
    assert sorted(map(game_identity, records), key=_key) == sorted(
        map(game_identity, reference), key=_key
    )


def test_resume_replays_a_record_cut_by_a_crash(plan, reference, tmp_path):
    path = tmp_path / "cut.jsonl"
    lines = [json.dumps(r, separators=(",", ":")) for r in reference[:5]]
    path.write_text("\n".join(lines[:4]) + "\n" + lines[4][: len(lines[4]) // 2])
    results = open_results(path, resume=True, overwrite=False)
    assert results.dropped_line == 5
    assert len(results.records) == 4
    assert len(list(pending_tasks(plan, results.records))) == len(reference) - 4
    results.close()
    records = _run(plan, path, resume=True)
    assert list(map(game_identity, records)) == list(map(game_identity, reference))


def test_resume_refuses_a_damaged_middle_line_and_another_tournament(plan, reference, tmp_path):
    path = tmp_path / "bad.jsonl"
    lines = [json.dumps(r) for r in reference[:3]]
    damaged = lines[0] + "\n" + "{not json\n" + lines[2] + "\n"
    path.write_text(damaged)
    with pytest.raises(InvalidRecordError, match="line 2"):
        open_results(path, resume=True, overwrite=False)
    assert path.read_text() == damaged  # nothing lost
    path.write_text("\n".join(lines) + "\n")
    other = plan_tournament(GameRules("tictactoe"), SPECS, 4, seed=8, openings="random:2")
    with (
        open_results(path, resume=True, overwrite=False) as results,
        pytest.raises(InvalidRecordError, match="not a game of this tournament"),
    ):
        done_keys(other, results.records)
    with pytest.raises(InvalidOptionError, match="--resume"):
        open_results(path, resume=False, overwrite=False)


def test_resume_reads_each_result_as_the_game_loop_wrote_it(plan, reference):
    from mcts_envs.agents.evaluation.games import TERMINATIONS, result_of, winner_of

    decided = [r for r in reference if r["result"] != "draw"]
    assert {r["seat_a"] for r in decided} == {0, 1}  # A won or lost from both seats
    for record in reference:
        assert record["result"] == result_of(winner_of(record["returns"]), record["seat_a"])
        assert record["termination"] == TERMINATIONS[0]  # "end": the only one with returns
        assert done_keys(plan, [record])
        other = {"a": "draw", "b": "a", "draw": "b"}[record["result"]]
        with pytest.raises(InvalidRecordError, match="does not fit its returns"):
            done_keys(plan, [{**record, "result": other}])


def test_openings_from_a_file_cycle_over_the_pairs(tmp_path):
    path = tmp_path / "openings.txt"
    path.write_text("# two positions\nx../.../... o\n\nx../.o./... x\n")
    plan = plan_tournament(GameRules("tictactoe"), ["random", "minimax2"], 6, openings=str(path))
    assert [task.opening for task in plan.tasks[::2]] == [
        "x../.../... o",
        "x../.o./... x",
        "x../.../... o",
    ]
    path.write_text("x../.../... o\nnonsense\n")
    with pytest.raises(InvalidRecordError, match="line 2"):
        plan_tournament(GameRules("tictactoe"), ["random", "minimax2"], 2, openings=str(path))


def test_adjudication_move_cap_and_ataxx_material(tmp_path):
    capped = plan_tournament(
        GameRules("ataxx", adjudication=Adjudication(max_moves=4)), ["random", "minimax2"], 2
    )
    for record in _run(capped, tmp_path / "cap.jsonl"):
        assert record["termination"] == "move cap" and record["result"] == "draw"
        assert sum(record["moves"]) == 4 and record["returns"] is None
    margin = plan_tournament(
        GameRules("ataxx", adjudication=Adjudication(material_margin=4)),
        ["random", "minimax2"],
        4,
        seed=3,
    )
    game = make_game("ataxx")
    for record in _run(margin, tmp_path / "material.jsonl"):
        _, states = replay_states(record)
        x, o = game.stone_counts(states[-1])
        if record["termination"] == "material":
            assert abs(x - o) >= 4
            leader = 0 if x > o else 1
            assert record["result"] == ("a" if leader == record["seat_a"] else "b")
        else:
            assert record["termination"] == "end"
    with pytest.raises(InvalidOptionError, match="ataxx"):
        plan_tournament(
            GameRules("tictactoe", adjudication=Adjudication(material_margin=2)),
            ["random", "minimax2"],
            2,
        )


def test_loss_on_time_forfeits_the_first_mover(tmp_path):
    rules = GameRules("tictactoe", TimeControl(base_seconds=1e-9, loss_on_time=True))
    plan = plan_tournament(rules, ["random", "minimax2"], 2)
    for record in _run(plan, tmp_path / "time.jsonl"):
        assert record["termination"] == "time"
        assert record["result"] == ("b" if record["seat_a"] == 0 else "a")  # player_0 flagged
        assert record["timing"]["clock_left"][0] < 0


def test_a_clock_gives_time_aware_agents_a_budget_per_move():
    rules = GameRules("tictactoe", TimeControl(base_seconds=2.0, increment=0.1))
    agent = build_agent("mcts:iterations=none", 1, rules.time)
    assert agent.config.seconds == pytest.approx(2.0 / 20 + 0.09)
    assert set_move_seconds(agent, 0.05) and agent.config.seconds == 0.05
    assert not set_move_seconds(build_agent("random", 1, rules.time), 0.05)
    # warming up never runs against a clock (a timed search can end while it compiles)
    assert untimed_spec("mcts:seconds=0.5,c=1") == "mcts:c=1,iterations=32"
    assert untimed_spec("alphabeta") == "alphabeta:depth=1"
    assert untimed_spec("minimax2") == "minimax2"
    assert parse_clock("60+0.5") == (60.0, 0.5)
    for bad in ("0+1", "x", "5+-1"):
        with pytest.raises(InvalidOptionError, match="BASE"):
            parse_clock(bad)


def test_bad_plans_are_refused_before_any_game():
    rules = GameRules("tictactoe")
    with pytest.raises(InvalidOptionError, match="even"):
        plan_tournament(rules, SPECS, 3)
    with pytest.raises(InvalidOptionError, match="twice"):
        plan_tournament(rules, ["random", "random"], 2)
    with pytest.raises(InvalidOptionError, match="random:K"):
        plan_tournament(rules, SPECS, 2, openings="random:x")
    gauntlet = plan_tournament(rules, ["random", "minimax2"], 2, gauntlet="mcts:iterations=10")
    assert gauntlet.pairings == (
        ("mcts:iterations=10", "random"),
        ("mcts:iterations=10", "minimax2"),
    )


def test_cli_tournament_writes_resumes_and_rates(tmp_path, capsys):
    path = tmp_path / "cli.jsonl"
    argv = ["tournament", "tictactoe", "random", "minimax2", "--games-per-pair", "4"]
    argv += ["--out", str(path), "--no-progress", "--bootstrap", "20"]
    out = io.StringIO()
    assert main(argv, out=out) == 0
    text = out.getvalue()
    assert "prepared: random" in capsys.readouterr().err  # each agent's preparation time
    assert "Bradley-Terry" in text and len(read_records(path)) == 4
    assert main(argv, out=io.StringIO()) == 2  # refuses to overwrite
    capsys.readouterr()
    assert main([*argv, "--resume"], out=io.StringIO()) == 0
    assert "4 already in" in capsys.readouterr().err and len(read_records(path)) == 4


def test_sprt_stops_a_gauntlet_pairing_early(tmp_path):
    path = tmp_path / "sprt.jsonl"
    argv = ["tournament", "tictactoe", "random", "--gauntlet", "minimax2", "--games-per-pair"]
    argv += ["200", "--sprt", "elo0=0,elo1=200", "--out", str(path), "--no-progress"]
    out = io.StringIO()
    assert main([*argv, "--bootstrap", "20"], out=out) == 0
    assert "SPRT minimax2 vs random" in out.getvalue() and "H1 accepted" in out.getvalue()
    played = len(read_records(path))
    assert 20 <= played < 200  # at least min_pairs=10 complete pairs
    out = io.StringIO()  # resuming a decided SPRT plays nothing more
    assert main([*argv, "--resume", "--bootstrap", "20"], out=out) == 0
    assert len(read_records(path)) == played
