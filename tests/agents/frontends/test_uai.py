"""``mcts-envs uai`` (any agent as an Ataxx engine) and the ``uai:cmd=...`` agent.

The engine runs as a real process on pipes. Legality and results are checked against the
``ataxx`` PyPI package (an independent implementation of the rules), whose UAI client also plays
whole games against the engine.
"""

from __future__ import annotations

import os
import queue
import random
import shlex
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

ataxx = pytest.importorskip("ataxx")
ataxx_uai = pytest.importorskip("ataxx.uai")

import mcts_envs  # noqa: E402
from mcts_envs.agents.evaluation.arena import play_match  # noqa: E402
from mcts_envs.agents.evaluation.plan import plan_match  # noqa: E402
from mcts_envs.agents.frontends.uai import GoLimits, centipawns, parse_go, think_seconds  # noqa: E402
from mcts_envs.agents.players.uai_agent import EngineError  # noqa: E402
from mcts_envs.agents.spec import make_agent  # noqa: E402
from mcts_envs.core.errors import InvalidOptionError  # noqa: E402
from mcts_envs.records import replay_states  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


def engine_argv(agent: str) -> list[str]:
    return [sys.executable, "-m", "mcts_envs.agents.frontends.cli", "uai", "--agent", agent]


class Pipe:
    """A raw UAI session with the engine process: send lines, wait for replies."""

    def __init__(self, agent: str = "mcts") -> None:
        self.process = subprocess.Popen(
            engine_argv(agent),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
            cwd=ROOT,
            env=ENV,
        )
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.process.stdout:
            self.lines.put(line.strip())

    def send(self, line: str) -> None:
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def until(self, word: str, timeout: float = 60) -> list[str]:
        seen = []
        deadline = time.monotonic() + timeout
        while True:
            line = self.lines.get(timeout=max(0.01, deadline - time.monotonic()))
            seen.append(line)
            if line.split()[:1] == [word]:
                return seen

    def close(self) -> int:
        self.send("quit")
        return self.process.wait(30)


def test_go_limits_and_time_allocation():
    limits = parse_go(
        ["wtime", "1000", "btime", "2000", "winc", "10", "binc", "40", "simulations", "300", "foo"]
    )
    assert limits == GoLimits(wtime=1000, btime=2000, winc=10, binc=40, nodes=300)
    assert think_seconds(GoLimits(movetime=200), 0, 10) == pytest.approx(0.19)
    # x (side 0) reads btime/binc: 2000/25 + 0.75*40 = 110 ms; o: 1000/25 + 7.5 = 47.5 ms
    assert think_seconds(limits, 0, 10) == pytest.approx(0.110)
    assert think_seconds(limits, 1, 10) == pytest.approx(0.0475)
    # never more than half the clock minus the overhead
    assert think_seconds(GoLimits(btime=100, binc=1000), 0, 10) == pytest.approx(0.04)
    assert think_seconds(GoLimits(infinite=True, movetime=5), 0, 10) is None
    with pytest.raises(ValueError, match="not an integer"):
        parse_go(["movetime", "soon"])
    assert centipawns(0.0) == 0 and centipawns(1.0) == 3000 and centipawns(-0.5) == -191


def test_raw_scripted_session():
    pipe = Pipe("mcts")
    try:
        pipe.send("uai")
        header = pipe.until("uaiok")
        assert header[0].startswith("id name mcts-envs")
        assert any(line.startswith("option name Seed type spin") for line in header)
        pipe.send("isready")
        pipe.until("readyok")
        pipe.send("uainewgame")
        pipe.send("position startpos moves g2 a1c3")
        pipe.send("go nodes 300")
        lines = pipe.until("bestmove")
        assert not any("error" in line for line in lines)
        info = [line.split() for line in lines if line.startswith("info depth")][-1]
        for key in ("depth", "nodes", "nps", "score", "pv"):
            assert key in info
        assert int(info[info.index("nodes") + 1]) >= 300
        board = ataxx.Board()
        for move in ("g2", "a1c3"):
            board.makemove(ataxx.Move.from_san(move))
        assert board.is_legal(ataxx.Move.from_san(lines[-1].split()[1]))
        # errors keep the position and say what was wrong
        pipe.send("position startpos moves a1a1")
        assert "error" in pipe.until("info")[-1]
        pipe.send("setoption name Colour value red")
        assert "unknown option" in pipe.until("info")[-1]
        pipe.send("frobnicate")
        assert "unknown command" in pipe.until("info")[-1]
        # infinite: readyok while searching, bestmove only after stop
        fen = "x5o/7/7/7/7/7/o5x o 0 1"
        pipe.send(f"position fen {fen}")
        pipe.send("go infinite")
        time.sleep(0.3)
        pipe.send("isready")
        before_ready = pipe.until("readyok", timeout=30)
        assert not any(line.startswith("bestmove") for line in before_ready)
        pipe.send("stop")
        best = pipe.until("bestmove", timeout=30)[-1].split()[1]
        assert ataxx.Board(fen).is_legal(ataxx.Move.from_san(best))
        # a clock: o to move with 1 s left
        pipe.send("go wtime 1000 btime 1000 winc 0 binc 0")
        best = pipe.until("bestmove", timeout=30)[-1].split()[1]
        assert ataxx.Board(fen).is_legal(ataxx.Move.from_san(best))
        # stop ends a long timed search at once (well before its 60 s)
        pipe.send("go movetime 60000")
        time.sleep(0.2)
        pipe.send("stop")
        best = pipe.until("bestmove", timeout=30)[-1].split()[1]
        assert ataxx.Board(fen).is_legal(ataxx.Move.from_san(best))
        # another agent through the Agent option
        pipe.send("setoption name Agent value random")
        pipe.send("go movetime 50")
        best = pipe.until("bestmove", timeout=30)[-1].split()[1]
        assert ataxx.Board(fen).is_legal(ataxx.Move.from_san(best))
        # a finished game: no move, said so
        pipe.send(
            "position fen 7/7/7/7/7/7/7 x 0 1".replace("7/7/7/7/7/7/7", "xxxxxxx/" * 6 + "ooooooo")
        )
        pipe.send("go movetime 50")
        assert pipe.until("bestmove")[-1] == "bestmove 0000"
        assert pipe.close() == 0
    finally:
        if pipe.process.poll() is None:
            pipe.process.kill()


def _client_game(engine: ataxx_uai.Engine, engine_side: int, seed: int, go: dict) -> tuple:
    """A whole game between the engine (side 0 = x) and a random mover, on ataxx's board."""
    board = ataxx.Board()
    game = mcts_envs.make_game("ataxx")
    state = game.initial_state()
    rng = random.Random(seed)
    engine.uainewgame()
    side = 0
    while not board.gameover():
        if side == engine_side:
            engine.position(board.get_fen())
            text, _ = engine.go(maxwait=60, **go)
            assert text is not None, "no bestmove"
            move = ataxx.Move.from_san(text)
            assert board.is_legal(move), (text, board.get_fen())
        else:
            move = rng.choice(board.legal_moves())
            text = str(move)
        board.makemove(move)
        state = game.apply(state, game.uai_to_move(state, text))
        side = 1 - side
    assert game.is_terminal(state)
    return board.result(), [float(r) for r in game.returns(state)]


@pytest.mark.filterwarnings("ignore:line buffering:RuntimeWarning")  # the client's Popen
def test_the_ataxx_package_client_plays_whole_games_against_the_engine(tmp_path):
    engine = ataxx_uai.Engine(engine_argv("mcts"))
    pwned = tmp_path / "pwned"
    try:
        engine.uai()
        engine.isready()
        assert engine.name.startswith("mcts-envs")
        results = [
            _client_game(engine, 0, 1, {"movetime": 20}),
            _client_game(engine, 1, 2, {"times": (2000, 2000, 20, 20)}),
            _client_game(engine, 0, 3, {"nodes": 200}),
        ]
        # options a hostile client may send are refused (info strings); the engine plays on
        engine.setoption("Agent", f"uai:cmd=touch {pwned}")
        engine.setoption("Seed", -1)
        engine.isready()
        results.append(_client_game(engine, 1, 4, {"nodes": 100}))
    finally:
        engine.quit()
    assert not pwned.exists()
    for result, returns in results:
        expected = {"1-0": [1.0, -1.0], "0-1": [-1.0, 1.0], "1/2-1/2": [0.0, 0.0]}[result]
        assert returns == expected  # our rules and the ataxx package agree on every result


def test_uai_spec_lets_an_external_engine_join_a_match(tmp_path):
    cmd = shlex.join(engine_argv("mcts"))
    spec = f"uai:cmd={cmd},nodes=300"
    result = play_match(plan_match("ataxx", spec, "random", 1, seed=5))
    assert len(result.records) == 1
    for record in result.records:
        game, states = replay_states(record)
        assert game.is_terminal(states[-1])
    # reproducible: the engine offers Seed, the agent sets it, nodes budgets are deterministic
    again = play_match(plan_match("ataxx", spec, "random", 1, seed=5))
    assert [r["actions"] for r in again.records] == [r["actions"] for r in result.records]


def test_uai_agent_errors_are_clear():
    with pytest.raises(InvalidOptionError, match="cmd"):
        make_agent("uai")
    with pytest.raises(InvalidOptionError, match="cmd is empty"):
        make_agent("uai:cmd=")
    agent = make_agent(f"uai:cmd={shlex.quote(sys.executable)} -c pass,timeout=20")
    game = mcts_envs.make_game("ataxx")
    with pytest.raises(EngineError, match="exited"):
        agent.act_state(game, game.initial_state())
    with pytest.raises(InvalidOptionError, match="Ataxx only"):
        agent.act_state(
            mcts_envs.make_game("tictactoe"), mcts_envs.make_game("tictactoe").initial_state()
        )
    missing = make_agent("uai:cmd=/nonexistent/engine")
    with pytest.raises(EngineError, match="cannot start"):
        missing.prepare(game)


@pytest.mark.slow
def test_alphabeta_engine_takes_depth_and_movetime():
    pipe = Pipe("alphabeta")
    try:
        pipe.send("uai")
        pipe.until("uaiok")
        pipe.send("isready")
        pipe.until("readyok", timeout=300)
        for go in ("go depth 2", "go movetime 200", "go nodes 100"):
            pipe.send("position startpos moves g2")
            pipe.send(go)
            lines = pipe.until("bestmove", timeout=120)
            board = ataxx.Board()
            board.makemove(ataxx.Move.from_san("g2"))
            assert board.is_legal(ataxx.Move.from_san(lines[-1].split()[1]))
            info = [line.split() for line in lines if line.startswith("info depth")][-1]
            if go == "go depth 2":
                assert info[info.index("depth") + 1] == "2"
        assert pipe.close() == 0
    finally:
        if pipe.process.poll() is None:
            pipe.process.kill()
