"""The Oliver-style Tantrix bot: its spec, the winning last placement, and strength against random."""

from __future__ import annotations

import pytest

import mcts_envs
from agents import make_agent
from agents.arena import play_game, wilson_interval
from mcts_envs.core.errors import InvalidOptionError
from tests.agents.test_tantrix_search import last_placement_with_a_single_win

GAME = mcts_envs.make_game("tantrix")


def test_spec_options_and_errors():
    agent = make_agent("oliver:depth=4,seconds=0.25", seed=3)
    assert (agent.depth, agent.seconds) == (4, 0.25)
    assert agent.name == "oliver:depth=4,seconds=0.25"
    with pytest.raises(InvalidOptionError, match="depth"):
        make_agent("oliver:depth=0")
    with pytest.raises(InvalidOptionError, match="seconds"):
        make_agent("oliver:seconds=-1")
    with pytest.raises(InvalidOptionError, match="Tantrix only"):
        make_agent("oliver").prepare(mcts_envs.make_game("tictactoe"))


@pytest.mark.parametrize("spec", ["oliver:depth=1", "oliver:depth=3", "oliver:depth=6,seconds=0.2"])
def test_the_winning_last_tile_is_played(spec):
    state, winning = last_placement_with_a_single_win()
    agent = make_agent(spec, seed=0)
    agent.prepare(GAME)
    assert agent.act_state(GAME, state) == winning


def test_same_seed_same_decisions():
    state, _ = last_placement_with_a_single_win()
    choices = [make_agent("oliver:depth=2", seed=5).act_state(GAME, state) for _ in range(2)]
    assert choices[0] == choices[1]


@pytest.mark.slow
def test_beats_random_clearly():
    """30 seeded games of ``oliver:depth=2`` against random, seats alternating: the lower end of
    the Wilson 95% interval of the bot's score is above 0.6 (measured: 26.5 points of 30)."""
    games = 30
    points = 0.0
    for index in range(games):
        seeds = (index, 100 + index, 500 + index // 2)
        record = play_game("tantrix", "oliver:depth=2", "random", index, seeds)
        points += {"a": 1.0, "draw": 0.5, "b": 0.0}[record["result"]]
    low, _ = wilson_interval(points, games)
    assert low > 0.6, (points, games)
