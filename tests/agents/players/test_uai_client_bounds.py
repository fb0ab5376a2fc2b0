"""The ``uai:cmd=...`` client bounded in memory and time, and never leaving an engine behind.

Issue 39: an engine flooding ``info`` lines drove a tournament to 7.2 GB (every line before
``bestmove`` was kept); an engine taking ten times its move time was not penalised; an engine
that ignores the end of its input survived a SIGTERM of the tournament. The engines are
:mod:`tests.agents.fake_uai_engine`, started as real processes.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("ataxx")  # the fake engine's rules

import mcts_envs
from mcts_envs.agents.players import uai_agent
from mcts_envs.agents.spec import make_agent
from tests.agents.fake_uai_engine import FLOOD_CHARS, FLOOD_LINES
from tests.agents.players.test_uai_client_failures import fake

ROOT = Path(__file__).resolve().parents[3]


def first_move(spec: str) -> tuple[object, object]:
    """``(agent, action or the EngineForfeitError raised)`` for the start position."""
    agent = make_agent(spec)
    game = mcts_envs.make_game("ataxx")
    try:
        return agent, agent.act_state(game, game.initial_state())
    except uai_agent.EngineForfeitError as failure:
        return agent, failure
    finally:
        agent.close()


FLOOD_CHILD = """
import resource, sys
import mcts_envs
from mcts_envs.agents.spec import make_agent
agent = make_agent(sys.argv[1])
game = mcts_envs.make_game("ataxx")
agent.prepare(game)
start = game.initial_state()
game.uai_to_move(start, game.move_to_uai(start, 1))  # load what a move needs first
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
action = agent.act_state(game, game.initial_state())
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(action, len(agent.last_info), agent.last_info_dropped, (after - before) // 1024)
agent.close()
"""


def test_an_info_flood_keeps_a_bounded_window_in_bounded_memory():
    """400,000 ``info`` lines of 250 characters (100 MB) before ``bestmove``: the move is
    played, the last 64 lines are kept, and the client's peak memory grows by under 20 MB (kept
    whole, the lines alone were over 100 MB; run in a child process to read its peak)."""
    completed = subprocess.run(
        [sys.executable, "-c", FLOOD_CHILD, fake("flood", movetime=30000)],
        cwd=ROOT,
        env=os.environ | {"PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert completed.returncode == 0, completed.stderr[-2000:]
    action, kept, skipped, grown_mb = (int(word) for word in completed.stdout.split())
    game = mcts_envs.make_game("ataxx")
    assert action in game.legal_actions(game.initial_state())
    assert kept == uai_agent.INFO_WINDOW and kept + skipped == FLOOD_LINES
    assert grown_mb < 20, f"peak memory grew by {grown_mb} MB over {FLOOD_LINES * FLOOD_CHARS:_} B"


def test_a_million_character_line_is_cut_and_loses_the_game():
    agent, failure = first_move(fake("longline", movetime=200))
    assert isinstance(failure, uai_agent.EngineForfeitError)
    assert failure.reason == "unparseable move"
    assert len(failure.line) == uai_agent.MAX_LINE_CHARS
    assert len(str(failure)) < 1000 and len(failure.forfeit(0)["line"]) < 1000


def test_an_endless_line_without_newline_is_a_timeout_in_bounded_time():
    start = time.monotonic()
    agent, failure = first_move(fake("endless", movetime=100, margin=100))
    assert isinstance(failure, uai_agent.EngineForfeitError) and failure.reason == "timeout"
    assert time.monotonic() - start < 15  # 0.2 s, the read slack, then quit and kill


@pytest.mark.parametrize(("mode", "margin"), [("tenfold", 250), ("slow", 100)])
def test_an_engine_over_its_move_time_and_margin_loses_on_time(mode, margin):
    """Ten times a 100 ms move time, and 300 ms on a 20 ms move time with a 100 ms margin."""
    movetime = 100 if mode == "tenfold" else 20
    agent, failure = first_move(fake(mode, movetime=movetime, margin=margin))
    assert isinstance(failure, uai_agent.EngineForfeitError), failure
    assert failure.reason == "time" and failure.line.startswith("bestmove ")
    assert f"({movetime} + {margin} ms)" in str(failure)
    assert agent.last_think_seconds > (movetime + margin) / 1000


def test_an_engine_within_its_margin_plays():
    agent, action = first_move(fake("timed", movetime=100, margin=250))  # sleeps the 100 ms
    assert isinstance(action, int) and 0.1 <= agent.last_think_seconds < 0.35


HOLDER = """
import sys, time
import mcts_envs
from mcts_envs.agents.spec import make_agent
agent = make_agent(sys.argv[1])
game = mcts_envs.make_game("ataxx")
agent.act_state(game, game.initial_state())
print(agent.engine_pid, flush=True)
time.sleep(600)
"""


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as stat:  # a zombie (waiting for its reaper) is dead
        return stat.read().split(")")[-1].split()[0] != "Z"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="prctl(PR_SET_PDEATHSIG)")
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGKILL])
def test_an_engine_that_ignores_eof_and_sigterm_dies_with_its_program(signum):
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, fake("immortal", movetime=20)],
        cwd=ROOT,
        env=os.environ | {"PYTHONPATH": str(ROOT)},
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        engine = int(holder.stdout.readline())
        assert alive(engine)
        holder.send_signal(signum)
        holder.wait(30)
        deadline = time.monotonic() + 10
        while alive(engine) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not alive(engine), f"the engine {engine} outlived its program ({signum!r})"
    finally:
        holder.kill()
        holder.wait()
