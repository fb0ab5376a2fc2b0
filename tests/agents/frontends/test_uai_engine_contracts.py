"""``mcts-envs uai`` facing a hostile or careless peer: the ``Agent`` option runs no program,
option values and ``go`` limits out of range are refused or clamped, and a failed search answers
the move of a one-ply search with an ``info string error`` (never a silent garbage move).

The engine runs as a real process on pipes (:class:`tests.agents.frontends.test_uai.Pipe`); moves are
checked with the ``ataxx`` PyPI package, an independent implementation of the rules.
"""

from __future__ import annotations

import io
import shlex
import subprocess

import pytest

ataxx = pytest.importorskip("ataxx")

import mcts_envs  # noqa: E402
from mcts_envs.agents import spec as spec_module  # noqa: E402
from mcts_envs.agents.frontends import uai  # noqa: E402
from mcts_envs.agents.frontends.cli import main  # noqa: E402
from mcts_envs.agents.frontends.uai import GoLimits, UAIEngine, parse_go  # noqa: E402
from tests.agents.frontends.test_uai import ENV, ROOT, Pipe, engine_argv  # noqa: E402


def _session(pipe: Pipe, *lines: str) -> list[str]:
    """Send ``lines`` then ``isready``; the engine's replies up to ``readyok``."""
    for line in lines:
        pipe.send(line)
    pipe.send("isready")
    return pipe.until("readyok", timeout=120)


def _errors(lines: list[str]) -> list[str]:
    return [line for line in lines if line.startswith("info string")]


def test_the_agent_option_refuses_programs_files_and_unknown_kinds(tmp_path):
    pwned = tmp_path / "pwned"
    pipe = Pipe("random")
    try:
        pipe.send("uai")
        pipe.until("uaiok")
        refused = {
            f"uai:cmd=touch {pwned}": "'uai' is not offered over UAI",
            f"ppo:path={tmp_path / 'model.pkl'}": "'ppo' is not offered over UAI",
            "mymodule_kind:x=1": "'mymodule_kind' is not offered over UAI",  # --agent-module
            "mcts:workers=4": "option 'workers' of 'mcts' cannot be set over UAI",
            "mcts:" + "c=1," * 100: "longer than 200 characters",
        }
        for spec, message in refused.items():
            errors = _errors(_session(pipe, f"setoption name Agent value {spec}"))
            assert len(errors) == 1 and message in errors[0], (spec, errors)
            assert any(word in errors[0] for word in ("choose one of", "allowed:", "longer"))
            assert "--allow-unsafe-agents" in errors[0]
        # still the engine it was: a search answers a legal move with the agent it had
        pipe.send("position startpos")
        pipe.send("go movetime 50")
        lines = pipe.until("bestmove")
        assert not _errors(lines)
        assert ataxx.Board().is_legal(ataxx.Move.from_san(lines[-1].split()[1]))
        # a safe agent with plain options is accepted
        assert not _errors(_session(pipe, "setoption name Agent value minimax2:depth=1"))
        assert pipe.close() == 0
    finally:
        if pipe.process.poll() is None:
            pipe.process.kill()
    assert not pwned.exists()


def test_allow_unsafe_agents_is_explicit_and_documented(tmp_path, capsys):
    with pytest.raises(SystemExit) as done:
        main(["uai", "--help"])
    assert done.value.code == 0
    assert "--allow-unsafe-agents" in capsys.readouterr().out
    # with the flag, the Agent option may name a program (here: one that is not an engine)
    pwned = tmp_path / "pwned"
    process = subprocess.run(
        [*engine_argv("random"), "--allow-unsafe-agents"],
        input=f"setoption name Agent value uai:cmd=touch {shlex.quote(str(pwned))}\n"
        "isready\nquit\n",
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=ENV,
        timeout=120,
    )
    assert "not offered" not in process.stdout
    assert "readyok" in process.stdout
    assert pwned.exists()


def test_out_of_range_options_are_refused_and_searches_still_answer():
    pipe = Pipe("minimax2:depth=1")
    try:
        pipe.send("uai")
        header = pipe.until("uaiok")
        assert "option name Seed type spin default 0 min 0 max 2147483647" in header
        for option, value in (
            ("Seed", "-1"),
            ("Seed", "2147483648"),
            ("Seed", "soon"),
            ("MoveOverhead", "-5"),
            ("MoveOverhead", "5001"),
        ):
            errors = _errors(_session(pipe, f"setoption name {option} value {value}"))
            assert len(errors) == 1, (option, value, errors)
            assert f"{option} must be an integer from 0 to" in errors[0]
            assert "keeps its value" in errors[0]
        for go in ("go depth 3", f"go depth {10**22}", f"go nodes {10**22}", "go depth -4"):
            pipe.send("position startpos moves g2")
            pipe.send(go)
            if "10000" in go:  # read as the deepest search (minimax2: 32 plies): stopped
                pipe.send("stop")
            lines = pipe.until("bestmove", timeout=120)
            assert not _errors(lines), (go, lines)  # the search did not fail
            board = ataxx.Board()
            board.makemove(ataxx.Move.from_san("g2"))
            assert board.is_legal(ataxx.Move.from_san(lines[-1].split()[1])), (go, lines)
        assert pipe.close() == 0
    finally:
        if pipe.process.poll() is None:
            pipe.process.kill()


def test_go_numbers_are_clamped():
    assert parse_go(["depth", str(10**22), "movetime", "-7"]) == GoLimits(
        depth=uai.MAX_GO_NUMBER, movetime=0
    )


def test_the_engine_refuses_a_seed_out_of_range_on_the_command_line(capsys):
    out = io.StringIO()
    status = main(["uai", "--agent", "random", "--seed", "-1"], out=out, keys=io.StringIO("quit\n"))
    error = capsys.readouterr().err
    assert status == 2 and out.getvalue() == ""
    assert "Seed must be an integer from 0 to 2147483647" in error
    assert "Traceback" not in error


class FailingAgent:
    """An agent whose every search fails (as one with impossible options would)."""

    name = "failing"

    def __init__(self, *, seed: int | None = None) -> None:
        self.seed = seed

    def prepare(self, game) -> None:
        pass

    def policy(self, game, state):
        raise RuntimeError("this search always fails")

    def act_state(self, game, state) -> int:
        raise RuntimeError("this search always fails")


@pytest.fixture
def failing_kind():
    spec_module.register_agent("failing", FailingAgent)
    yield "failing"
    spec_module.AGENT_KINDS.pop("failing", None)
    spec_module._REGISTERED_CLASSES.pop("failing", None)


def test_a_failed_search_answers_the_best_one_ply_move_and_says_so(failing_kind):
    fen = "x5o/7/2ooo2/2o1o2/7/7/o5x x 0 1"
    out = io.StringIO()
    engine = UAIEngine(failing_kind, out)
    engine.handle(f"position fen {fen}")
    engine.handle("go movetime 50")
    engine.stop_search()
    lines = out.getvalue().splitlines()
    assert any(line.startswith("info string error: the search failed") for line in lines), lines
    answer = lines[-1].split()[1]
    # the ataxx package's view: the moves that leave x the largest share of the stones
    board = ataxx.Board(fen)
    shares = {}
    for move in board.legal_moves():
        board.makemove(move)
        shares[str(move)] = board.num_black() / (board.num_black() + board.num_white())
        board.undo()
    best = {move for move, share in shares.items() if share == max(shares.values())}
    assert answer in best, (answer, best)
    game = mcts_envs.make_game("ataxx")
    state = game.from_text(fen)
    first = game.move_to_uai(state, int(game.legal_actions(state)[0]))
    assert first not in best  # the old answer (the first legal move) would fail this test


def test_the_command_line_agent_may_be_set_again_but_no_other_unsafe_one():
    out = io.StringIO()
    engine = UAIEngine("uai:cmd=true", out)  # the user's own spec: any kind
    engine.handle("setoption name Agent value uai:cmd=false")
    engine.handle("setoption name Agent value random")
    engine.handle("setoption name Agent value uai:cmd=true")  # a GUI sending the default back
    lines = out.getvalue().splitlines()
    assert len(lines) == 1 and "'uai' is not offered over UAI" in lines[0], lines
    assert engine.spec == "uai:cmd=true"
