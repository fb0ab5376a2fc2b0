"""The ``uai:cmd=...`` client facing engines that misbehave: ``bestmove pass``, illegal and
unparseable moves, crashes and hangs lose the engine its game, recorded with the engine's line
and the reason, while the match or tournament goes on; think time is measured and a tournament's
clock reaches the engine.

The engines are :mod:`tests.agents.fake_uai_engine`, started as real processes.
"""

from __future__ import annotations

import re
import shlex
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("ataxx")  # the fake engine's rules

import mcts_envs
from mcts_envs.agents.evaluation.arena import play_match
from mcts_envs.agents.evaluation.games import Adjudication, GameRules, TimeControl, play_game
from mcts_envs.agents.evaluation.plan import plan_match, plan_tournament
from mcts_envs.agents.players import uai_agent
from mcts_envs.agents.spec import make_agent
from mcts_envs.records import check_record, replay_states

FAKE = Path(__file__).parents[1] / "fake_uai_engine.py"


def fake(mode: str, after: int = 0, **options: object) -> str:
    """The spec of a fake engine in ``mode`` (legal moves for its first ``after`` moves)."""
    cmd = shlex.join([sys.executable, str(FAKE), mode, str(after)])
    return ",".join([f"uai:cmd={cmd}", *(f"{key}={value}" for key, value in options.items())])


def test_bestmove_pass_is_the_null_move():
    game = mcts_envs.make_game("ataxx")
    state = game.from_text("xoooooo/ooooooo/ooooooo/ooo4/7/7/7 x 0 1")  # x cannot move
    (only,) = game.legal_actions(state)
    agent = make_agent(fake("pass"))
    try:
        assert agent.act_state(game, state) == only
    finally:
        agent.close()


@pytest.mark.parametrize(
    ("mode", "reason", "line"),
    [
        ("illegal", "illegal move", r"bestmove [a-g][1-7]"),  # onto an occupied square
        ("garbage", "unparseable move", r"bestmove zz99"),
        ("crash", "crash", None),
    ],
)
def test_a_faulty_engine_loses_its_game_and_the_match_goes_on(mode, reason, line):
    spec = fake(mode, after=2, movetime=20)
    result = play_match(plan_match("ataxx", spec, "random", 2, seed=1))
    assert len(result.records) == 2  # the second game was played after the first was lost
    assert result.a.losses == 2 and result.b.wins == 2
    for record in result.records:
        check_record(record)
        assert record["result"] == "b" and record["returns"] is None
        forfeit = record["forfeit"]
        assert forfeit["seat"] == record["seat_a"]
        assert forfeit["reason"] == reason
        assert forfeit["line"] is None if line is None else re.fullmatch(line, forfeit["line"])
        assert mode in forfeit["message"] or reason in forfeit["message"]
        assert record["moves"][record["seat_a"]] == 2  # its two good moves, then the fault
        replay_states(record)  # the moves before the fault are a legal game


def test_a_silent_engine_loses_on_its_timeout_and_is_ended():
    agent = make_agent(fake("hang", movetime=20, timeout=0.5))
    game = mcts_envs.make_game("ataxx")
    agent.prepare(game)
    process = agent._engine.process
    start = time.perf_counter()
    with pytest.raises(uai_agent.EngineForfeitError) as caught:
        agent.act_state(game, game.initial_state())
    assert caught.value.reason == "timeout" and caught.value.line is None
    assert "sent no 'bestmove' in 0.52 s" in str(caught.value)
    assert time.perf_counter() - start < 10  # the timeout, then at most the grace before kill
    assert process.poll() is not None  # a late answer cannot reach the next game


def test_a_forfeit_in_a_tournament_game_is_recorded_with_its_reason():
    rules = GameRules("ataxx")
    plan = plan_tournament(rules, [fake("illegal", after=1, movetime=20), "random"], 2)
    records = [play_game(task, rules) for task in plan.tasks]
    for record in records:
        check_record(record)
        assert record["termination"] == "forfeit" and record["result"] == "b"
        assert record["forfeit"]["reason"] == "illegal move"
        assert record["forfeit"]["seat"] == record["seat_a"]


def test_think_time_is_measured_and_a_tournament_clock_reaches_the_engine():
    agent = make_agent(fake("slow", movetime=100))
    game = mcts_envs.make_game("ataxx")
    try:
        agent.act_state(game, game.initial_state())
        assert agent.last_think_seconds >= 0.3  # asked for 100 ms, took 300 ms: measured
    finally:
        agent.close()
    # on a 1 s clock, an engine that uses every millisecond it is given keeps to its clock
    # (200 ms a move would run out after five moves and lose on time)
    rules = GameRules(
        "ataxx",
        time=TimeControl(base_seconds=1.0, loss_on_time=True),
        adjudication=Adjudication(max_moves=16),
    )
    plan = plan_tournament(rules, [fake("timed", movetime=200), "random"], 2)
    record = play_game(plan.tasks[0], rules)
    seat = record["seat_a"]
    assert record["termination"] == "move cap", record["termination"]
    assert record["moves"][seat] == 8
    think = record["timing"]["think_seconds"][seat]
    assert 0.2 < think < 1.0  # budgets of 1/20 of what is left: about 34% of the clock
    assert record["timing"]["clock_left"][seat] == pytest.approx(1.0 - think, abs=1e-3)
