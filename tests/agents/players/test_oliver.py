"""The Oliver-style Tantrix bot: its spec, the winning last placement, and strength against random."""

from __future__ import annotations

import numpy as np
import pytest

import mcts_envs
from mcts_envs import CHANCE, TERMINAL
from mcts_envs.agents import make_agent
from mcts_envs.agents.evaluation.games import GameRules, GameTask, play_game
from mcts_envs.agents.evaluation.stats import wilson_interval
from mcts_envs.agents.players.oliver import WIN_VALUE, search_root, withhold_draw
from mcts_envs.core.errors import InvalidOptionError
from mcts_envs.games.tantrix import kernels as k
from mcts_envs.games.tantrix.forecast import forecast_evaluation
from tests.agents.players.test_tantrix_search import last_placement_with_a_single_win

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


@pytest.fixture(scope="module")
def last_placement():
    return last_placement_with_a_single_win()


@pytest.mark.parametrize("spec", ["oliver:depth=1", "oliver:depth=3", "oliver:depth=6,seconds=0.2"])
def test_the_winning_last_tile_is_played(spec, last_placement):
    state, winning = last_placement
    agent = make_agent(spec, seed=0)
    agent.prepare(GAME)
    assert agent.act_state(GAME, state) == winning


def test_same_seed_same_decisions():
    state = decisions_of_a_seeded_game()[1]
    choices = [make_agent("oliver:depth=2", seed=5).act_state(GAME, state) for _ in range(2)]
    assert choices[0] == choices[1]


def test_beats_random_clearly():
    """30 seeded games of ``oliver:depth=2`` against random, seats alternating: the lower end of
    the Wilson 95% interval of the bot's score is above 0.6 (measured: 26.5 points of 30)."""
    games = 30
    points = 0.0
    for index in range(games):
        seeds = (index, 100 + index, 500 + index // 2)
        opening = GAME.to_text(GAME.initial_state())
        task = GameTask(0, "oliver:depth=2", "random", index // 2, index % 2, opening, seeds)
        record = play_game(task, GameRules("tantrix"))
        points += {"a": 1.0, "draw": 0.5, "b": 0.0}[record["result"]]
    low, _ = wilson_interval(points, games)
    assert low > 0.6, (points, games)


def minimax(state, root, depth, withheld=False):
    """Plain minimax by the mover over the Game API, draws withheld (the reference search)."""
    if state[k.STATUS] == k.DRAW:
        state = state.copy()
        withhold_draw(state)
        withheld = True
    status = state[k.STATUS]
    if status == k.FINISHED:
        return WIN_VALUE * GAME.returns(state)[root]
    if status == k.DEADLOCK and not withheld:
        return 0.0
    legal = GAME.legal_actions(state) if status == k.DECIDE else []
    if depth == 0 or len(legal) == 0:
        return forecast_evaluation(state, root)
    values = [minimax(GAME.apply(state, int(a)), root, depth - 1, withheld) for a in legal]
    return max(values) if state[k.MOVER] == root else min(values)


def decisions_of_a_seeded_game(seed=7, every=9, largest=40):
    """Decision states of a seeded random game with 2..``largest`` legal placements."""
    rng = np.random.default_rng(seed)
    state = GAME.initial_state()
    found = []
    decisions = 0
    while GAME.current_player(state) != TERMINAL:
        if GAME.current_player(state) == CHANCE:
            outcomes, probabilities = GAME.chance_outcomes(state)
            state = GAME.apply(state, int(rng.choice(outcomes, p=probabilities)))
            continue
        legal = GAME.legal_actions(state)
        if decisions % every == 0 and 1 < len(legal) <= largest:
            found.append(state.copy())
        state = GAME.apply(state, int(legal[rng.integers(len(legal))]))
        decisions += 1
    return found


def test_alpha_beta_values_match_plain_minimax():
    """The compiled alpha-beta (explicit stack, cut-offs) finds the minimax value at depth 2."""
    positions = decisions_of_a_seeded_game()
    assert len(positions) >= 3
    for state in positions[:4]:
        root = int(state[k.MOVER])
        actions = GAME.legal_actions(state).astype(np.int64)
        stats = np.array([0, 1 << 62, 0], np.int64)
        values = np.empty(len(actions), np.float64)
        best = search_root(state, actions, 2, stats, values)
        expected = [minimax(GAME.apply(state, int(a)), root, 1) for a in actions]
        assert values[best] == pytest.approx(max(expected), abs=1e-9)
        assert expected[best] == pytest.approx(max(expected), abs=1e-9)
        # the first root move is searched with a full window: its value is exact
        assert values[0] == pytest.approx(expected[0], abs=1e-9)
