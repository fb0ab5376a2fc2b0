"""Stopping searches from another thread (UAI ``stop`` / ``isready`` while searching), MCTS
principal variations, and engine processes kept across the games of a ``uai:cmd=...`` agent.

The engine runs as a real process on pipes; moves are checked with the ``ataxx`` PyPI package.
No wall-clock assertions: a search that could not be stopped would not end before the tests'
generous timeouts (a depth-30 alpha-beta search of Ataxx runs for ages).
"""

from __future__ import annotations

import gc
import shlex
import signal
import subprocess
import textwrap
import threading

import pytest

ataxx = pytest.importorskip("ataxx")

import mcts_envs  # noqa: E402
from mcts_envs.agents.evaluation.arena import play_match  # noqa: E402
from mcts_envs.agents.evaluation.plan import plan_match  # noqa: E402
from mcts_envs.agents.mcts import MCTSAgent  # noqa: E402
from mcts_envs.agents.mcts.tree import ACTION, VISITS  # noqa: E402
from mcts_envs.agents.mcts.tree import ROOT as ROOT_NODE  # noqa: E402
from mcts_envs.agents.players.alphabeta import AlphaBetaAgent, new_stop_flag  # noqa: E402
from mcts_envs.agents.players.minimax import Minimax2Agent  # noqa: E402
from mcts_envs.agents.players.uai_agent import ENGINES, EngineRestartWarning  # noqa: E402
from mcts_envs.agents.spec import make_agent  # noqa: E402
from tests.agents.frontends.test_uai import ROOT, Pipe, engine_argv  # noqa: E402
from tests.fresh_process import second_run_cache_counts  # noqa: E402


def _board(moves: list[str], fen: str | None = None):
    board = ataxx.Board(fen) if fen else ataxx.Board()
    for move in moves:
        board.makemove(ataxx.Move.from_san(move))
    return board


def _info(lines: list[str]) -> list[list[str]]:
    return [line.split() for line in lines if line.startswith("info depth")]


def _field(info: list[str], key: str) -> str:
    return info[info.index(key) + 1]


def _pv(info: list[str]) -> list[str]:
    return info[info.index("pv") + 1 :]


def _legal_line(board, moves: list[str]) -> bool:
    for move in moves:
        parsed = ataxx.Move.from_san(move)
        if not board.is_legal(parsed):
            return False
        board.makemove(parsed)
    return True


def _interrupted_searches(pipe: Pipe, agent: str) -> None:
    """``isready`` and ``stop`` during searches that cannot end on their own."""
    pipe.send(f"setoption name Agent value {agent}")
    pipe.send("isready")
    pipe.until("readyok", timeout=600)  # compiles the search (alpha-beta: not cached on disk)
    long = "go depth 30" if agent in ("alphabeta", "minimax2") else "go movetime 600000"
    for go in ("go infinite", long):
        pipe.send("position startpos moves g2")
        pipe.send(go)
        # isready is answered while the search runs (no bestmove before readyok: a search of
        # depth 30, 10 minutes or without limit cannot have ended on its own)
        pipe.send("isready")
        before = pipe.until("readyok", timeout=60)
        assert not any(line.startswith("bestmove") for line in before), (agent, go)
        pipe.send("stop")
        lines = before + pipe.until("bestmove", timeout=60)
        best = lines[-1].split()[1]
        assert _board(["g2"]).is_legal(ataxx.Move.from_san(best)), (agent, go, lines)
        info = _info(lines)
        assert info, (agent, go, lines)
        assert _pv(info[-1])[0] == best
        assert _legal_line(_board(["g2"]), _pv(info[-1])), info[-1]


def test_stop_and_isready_answer_during_minimax2_and_mcts_searches():
    pipe = Pipe("minimax2")
    try:
        pipe.send("uai")
        pipe.until("uaiok")
        for agent in ("minimax2", "mcts"):
            _interrupted_searches(pipe, agent)
        # MCTS reports its most visited line: depth is its length, several moves deep
        pipe.send("position startpos")
        pipe.send("go nodes 3000")
        info = _info(pipe.until("bestmove", 120))[-1]
        line = _pv(info)
        assert int(_field(info, "depth")) == len(line) >= 3
        assert _legal_line(_board([]), line)
        assert pipe.close() == 0
    finally:
        if pipe.process.poll() is None:
            pipe.process.kill()


@pytest.mark.slow  # compiles alpha-beta in the engine process (20-40 s)
def test_stop_and_isready_answer_during_alphabeta_searches():
    pipe = Pipe("alphabeta")
    try:
        pipe.send("uai")
        pipe.until("uaiok")
        _interrupted_searches(pipe, "alphabeta")
        # its info lines follow its completed iterations: depth 1, 2, 3, ...
        pipe.send("position startpos")
        pipe.send("go depth 4")
        depths = [int(_field(info, "depth")) for info in _info(pipe.until("bestmove", 120))]
        assert depths[:4] == [1, 2, 3, 4]
        assert pipe.close() == 0
    finally:
        if pipe.process.poll() is None:
            pipe.process.kill()


def _stopped_in_thread(search, flag, started: threading.Event):
    """Run ``search()`` in a thread, set ``flag`` once ``started`` is set, return the result."""
    results = []
    thread = threading.Thread(target=lambda: results.append(search()))
    thread.start()
    assert started.wait(300)
    flag[0] = 1
    thread.join(120)
    assert not thread.is_alive(), "the search did not stop"
    return results[0]


def test_a_stopped_search_answers_with_its_last_completed_iteration():
    # Ultimate Tic-Tac-Toe: its alpha-beta is compiled by other tests of the suite already
    game = mcts_envs.make_game("ultimate_tictactoe")
    state = game.initial_state()
    iterations = []
    flag = new_stop_flag()
    deep = threading.Event()

    def progress(result):
        iterations.append(result)
        if result.depth >= 3:
            deep.set()

    agent = AlphaBetaAgent(seed=4, depth=30)
    result = _stopped_in_thread(
        lambda: agent.search(game, state, stop=flag, on_iteration=progress), flag, deep
    )
    assert 3 <= result.depth < 30
    assert [r.depth for r in iterations] == list(range(1, result.depth + 1))
    # stopped at once: even depth 1 completes
    flag = new_stop_flag()
    flag[0] = 1
    assert AlphaBetaAgent(seed=4, depth=30).search(game, state, stop=flag).depth == 1
    # the same as an unstopped search of that depth with the same seed
    reference = AlphaBetaAgent(seed=4, depth=result.depth).search(game, state)
    assert (result.action, result.value) == (reference.action, pytest.approx(reference.value))
    line = agent.principal_variation(game, state, 8)
    assert line[0] == result.action
    for action in line:  # legal all along
        assert action in game.legal_actions(state)
        state = game.apply(state, action)

    state = game.initial_state()
    flag = new_stop_flag()
    now = threading.Event()
    now.set()
    action, value, depth = _stopped_in_thread(
        lambda: Minimax2Agent(seed=2, depth=30).search(game, state, flag), flag, now
    )
    assert 1 <= depth < 30
    reference = Minimax2Agent(seed=2, depth=depth)
    assert action == reference.act_state(game, state)
    # unstopped, the search is minimax2's own answer
    assert Minimax2Agent(seed=5).search(game, state, new_stop_flag())[:2] == Minimax2Agent(
        seed=5
    )._choose(game, state)


def test_mcts_principal_variation_is_the_most_visited_line():
    game = mcts_envs.make_game("tictactoe")
    agent = MCTSAgent(seed=1, iterations=3000)
    state = game.initial_state()
    result = agent.search(game, state)
    line = agent.principal_variation(9)
    assert line[0] == result.action and len(line) >= 4
    tree = agent._tree
    node = tree.child(ROOT_NODE, line[0])
    for action in line[1:]:  # an independent walk: each move is the most visited child's
        children = tree.children(node)
        visits = tree.links[children, VISITS]
        assert visits.max() > 0
        best = children[visits == visits.max()]
        assert action in tree.links[best, ACTION]
        node = tree.child(node, action)
    assert agent.principal_variation(1) == [result.action]
    assert MCTSAgent(seed=0).principal_variation(5) == []


def test_minimax2_search_is_still_loaded_from_the_disk_cache():
    code = textwrap.dedent(
        """
        import mcts_envs
        from mcts_envs.agents.players.minimax import Minimax2Agent, root_values
        Minimax2Agent(seed=0).prepare(mcts_envs.make_game("ataxx"))
        print(sum(root_values.stats.cache_hits.values()), sum(root_values.stats.cache_misses.values()))
        """
    )
    hits, misses = second_run_cache_counts(code, timeout=600, cwd=ROOT)
    assert hits > 0 and misses == 0


def _kill(process: subprocess.Popen) -> None:
    process.send_signal(signal.SIGKILL)
    process.wait(60)


def test_one_engine_process_serves_many_games_and_a_dead_one_is_restarted():
    argv = engine_argv("random")
    spec = f"uai:cmd={shlex.join(argv)},movetime=20"
    key = tuple(argv)
    game = mcts_envs.make_game("ataxx")
    state = game.initial_state()
    started = ENGINES.starts.get(key, 0)
    result = play_match(plan_match("ataxx", spec, "random", 2, seed=3))
    assert [r["result"] != "unfinished" for r in result.records] == [True, True]
    assert ENGINES.starts[key] - started == 1  # the warm-up and both games: one process

    first = make_agent(spec, seed=1)
    first.act_state(game, state)
    pid = first.engine_pid
    other = make_agent(spec, seed=2)  # a second live agent of the command gets its own engine
    other.act_state(game, state)
    assert other.engine_pid != pid
    other.close()
    del first
    gc.collect()  # the agent is gone: its engine waits in the pool
    again = make_agent(spec, seed=1)
    again.act_state(game, state)
    assert again.engine_pid == pid

    _kill(again._engine.process)  # killed while an agent holds it
    with pytest.warns(EngineRestartWarning, match=rf"pid {pid}\) exited .* starting a new one"):
        action = again.act_state(game, state)
    assert action in game.legal_actions(state) and again.engine_pid != pid

    pid, process = again.engine_pid, again._engine.process
    del again
    gc.collect()
    _kill(process)  # killed while idle in the pool
    with pytest.warns(EngineRestartWarning, match=rf"pid {pid}\)"):
        fresh = make_agent(spec, seed=1)
        fresh.act_state(game, state)
    assert fresh.engine_pid != pid
    process = fresh._engine.process
    fresh.close()  # close ends the engine
    assert process.poll() is not None
