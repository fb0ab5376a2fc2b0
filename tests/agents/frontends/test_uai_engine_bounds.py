"""``mcts-envs uai`` answers every ``go`` and every ``stop``, whatever the agent and its budget.

Issue 39: ``setoption name Agent value mcts:iterations=1000000000000``, ``go``, ``stop`` gave
``bestmove`` 45 s later at 2 GB; ``go movetime nan`` got only an ``info string error`` (a manager
waits forever). The engine runs as a real process on pipes; moves are checked with the ``ataxx``
PyPI package, an independent implementation of the rules. The bounds asserted here are loose (a
shared machine); ``benchmarks/uai_stop_latency.py`` measures the answer times.
"""

from __future__ import annotations

import io
import queue
import subprocess
import threading
import time

import pytest

ataxx = pytest.importorskip("ataxx")

from mcts_envs.agents import spec as spec_module  # noqa: E402
from mcts_envs.agents.frontends.uai import SEARCH_MEMORY_MB, GoLimits, UAIEngine  # noqa: E402
from tests.agents.frontends.test_uai import ENV, ROOT, engine_argv  # noqa: E402

START = "x5o/7/7/7/7/7/o5x x 0 1"


class StampedPipe:
    """The engine process; each reply line is stamped with the time it was read."""

    def __init__(self, agent: str) -> None:
        self.process = subprocess.Popen(
            engine_argv(agent),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
            cwd=ROOT,
            env=ENV,
        )
        self.lines: queue.Queue[tuple[float, str]] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.process.stdout:
            self.lines.put((time.monotonic(), line.strip()))

    def send(self, line: str) -> float:
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()
        return time.monotonic()

    def until(self, word: str, timeout: float = 120) -> tuple[float, list[str]]:
        """The time the line starting with ``word`` arrived, and every line up to it."""
        seen = []
        deadline = time.monotonic() + timeout
        while True:
            stamp, line = self.lines.get(timeout=max(0.01, deadline - time.monotonic()))
            seen.append(line)
            if line.split()[:1] == [word]:
                return stamp, seen

    def close(self) -> None:
        self.send("quit")
        self.process.wait(30)


def legal(fen: str, move: str) -> bool:
    return ataxx.Board(fen).is_legal(ataxx.Move.from_san(move))


@pytest.mark.parametrize(
    "go", ["go movetime nan", "go depth", "go wtime 10 btime x", "go nodes 1e9", "go movetime -"]
)
def test_a_malformed_go_gets_an_error_and_a_legal_bestmove(go):
    out = io.StringIO()
    engine = UAIEngine("mcts", out)
    engine.handle(f"position fen {START}")
    engine.handle(go)
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("info string error: go ") and "one-ply search" in lines[0], lines
    assert lines[-1].startswith("bestmove ") and legal(START, lines[-1].split()[1]), lines
    assert not engine.searching()


@pytest.mark.parametrize(
    ("agent", "go"),
    [
        ("mcts:iterations=1000000000000", "go"),  # the repro: the spec's own budget
        ("mcts", "go infinite"),
        ("mcts", "go movetime 600000"),
        ("alphabeta", "go infinite"),
        ("minimax2", "go depth 30"),
    ],
)
def test_stop_ends_any_search_at_once(agent, go):
    pipe = StampedPipe(agent)
    try:
        pipe.send("uai")
        pipe.until("uaiok")
        pipe.send("isready")
        pipe.until("readyok", timeout=600)  # the warm-up compiles the search
        fen = "x5o/7/2ooo2/2o1o2/7/7/o5x x 0 1"
        pipe.send(f"position fen {fen}")
        pipe.send(go)
        time.sleep(1.0)
        sent = pipe.send("stop")
        stamp, lines = pipe.until("bestmove", timeout=60)
        assert legal(fen, lines[-1].split()[1]), lines
        assert stamp - sent < 2.0, f"{agent} {go}: bestmove {stamp - sent:.3f} s after stop"
        # still an engine: the next go answers
        pipe.send("go nodes 100")
        assert legal(fen, pipe.until("bestmove")[1][-1].split()[1])
    finally:
        pipe.close()


class SleepyAgent:
    """An agent that cannot be stopped: each decision takes 1.5 s, then fails (a search that
    fails answers the one-ply move: an answer the engine would send, were it not dropped)."""

    name = "sleepy"

    def __init__(self, seed=None) -> None:
        self.seed = seed

    def prepare(self, game) -> None:
        pass

    def policy(self, game, state):
        time.sleep(1.5)
        raise RuntimeError("slept")

    def act_state(self, game, state) -> int:
        return int(self.policy(game, state))


@pytest.fixture
def sleepy_kind():
    spec_module.register_agent("sleepy", SleepyAgent)
    yield "sleepy"
    spec_module.AGENT_KINDS.pop("sleepy", None)
    spec_module._REGISTERED_CLASSES.pop("sleepy", None)


def test_stop_answers_for_an_agent_that_cannot_be_stopped(sleepy_kind):
    out = io.StringIO()
    engine = UAIEngine(sleepy_kind, out)
    engine.ready = True  # (its warm-up would sleep too)
    engine.handle(f"position fen {START}")
    engine.handle("go infinite")
    time.sleep(0.2)
    start = time.monotonic()
    engine.handle("stop")
    assert time.monotonic() - start < 1.0
    lines = out.getvalue().splitlines()
    assert lines[-2] == "info string the search did not stop in time: answering a one-ply search"
    assert lines[-1].startswith("bestmove ") and legal(START, lines[-1].split()[1])
    engine.handle("go infinite")  # a new search, while the abandoned one still sleeps
    engine.handle("stop")
    time.sleep(3.0)  # both sleeps are over: their own answers were dropped
    lines = out.getvalue().splitlines()
    assert sum(line.startswith("bestmove") for line in lines) == 2, lines
    assert not any("slept" in line for line in lines), lines


def test_each_mcts_search_tree_is_bounded_unless_the_spec_says():
    engine = UAIEngine("mcts:iterations=1000000000000", io.StringIO())
    assert engine._agent_for(GoLimits(), None, 0).config.max_memory_mb == SEARCH_MEMORY_MB
    engine = UAIEngine("mcts:iterations=1000000000000,max_memory_mb=8", io.StringIO())
    assert engine._agent_for(GoLimits(), None, 0).config.max_memory_mb == 8
    # a full 8 MB tree ends a bare go's search of the spec's trillion iterations by itself
    engine.handle(f"position fen {START}")
    engine.handle("go")
    engine._thread.join(120)
    lines = engine.out.getvalue().splitlines()
    assert lines[-1].startswith("bestmove ") and legal(START, lines[-1].split()[1])
