"""The ``uai:`` client's ``clock_factor`` (an engine that ignores ``go movetime`` gets each
move's budget as a clock, ``go wtime X btime X`` with ``X`` the factor times the budget) and its
reading of the engine's ``info`` numbers."""

from __future__ import annotations

import shlex
import shutil
import sys
from pathlib import Path

import pytest

pytest.importorskip("ataxx")  # the fake engine's rules

import mcts_envs
from mcts_envs.agents.players.uai_agent import EngineForfeitError
from mcts_envs.agents.spec import make_agent
from mcts_envs.core.errors import InvalidOptionError

FAKE = Path(__file__).parents[1] / "fake_uai_engine.py"
#: The fake engine answers only ``go wtime 500 btime 500``: 25 times 20 ms.
CLOCK_ENGINE = shlex.join([sys.executable, str(FAKE), "clock", "0", "500"])


def test_the_budget_goes_out_as_a_clock_of_the_factor_times_it():
    game = mcts_envs.make_game("ataxx")
    state = game.initial_state()
    agent = make_agent(f"uai:cmd={CLOCK_ENGINE},seconds=0.02,clock_factor=25")
    try:
        assert agent.act_state(game, state) in game.legal_actions(state)
    finally:
        agent.close()
    for other in ("seconds=0.02", "seconds=0.02,clock_factor=20"):  # go movetime 20, wtime 400
        refused = make_agent(f"uai:cmd={CLOCK_ENGINE},{other}")
        try:
            with pytest.raises(EngineForfeitError, match="zz99"):
                refused.act_state(game, state)
        finally:
            refused.close()


@pytest.mark.parametrize("factor", ["0", "-1", "1001"])
def test_a_clock_factor_out_of_range_is_refused(factor):
    with pytest.raises(InvalidOptionError, match="clock_factor must be > 0 and <= 1000"):
        make_agent(f"uai:cmd={CLOCK_ENGINE},clock_factor={factor}")


def test_info_lines_give_their_numbers():
    from mcts_envs.agents.players.uai_agent import info_numbers

    line = "info depth 15 time 377 score 50 nodes 1054269 nps 2796469 pv g2 b1 f1"
    assert info_numbers(line.split()) == {
        "depth": 15,
        "time": 377,
        "score": 50,
        "nodes": 1054269,
        "nps": 2796469,
    }
    for line, numbers in (
        ("info depth 9 score cp -30 nodes x", {"depth": 9, "score": -30}),
        ("info score mate 4", {"mate": 4}),
        ("info string depth", {}),
    ):
        assert info_numbers(line.split()) == numbers


def test_the_last_info_line_before_bestmove_gives_the_agents_numbers():
    program = shutil.which("mcts-envs")
    if program is None:
        pytest.skip("mcts-envs is not on PATH (not installed)")
    engine = shlex.join([program, "uai", "--agent", "alphabeta:depth=2"])
    game = mcts_envs.make_game("ataxx")
    state = game.initial_state()
    agent = make_agent(f"uai:cmd={engine},depth=2")
    try:
        agent.act_state(game, state)
        numbers = agent.last_info_numbers
        assert numbers["depth"] == 2 and numbers["nodes"] > 0 and "score" in numbers
        assert any(line.startswith("info depth 2") for line in agent.last_info)
    finally:
        agent.close()
