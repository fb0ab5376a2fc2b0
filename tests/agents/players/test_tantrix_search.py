"""Search agents on Tantrix: the winning last placement is taken (a win in one, found by brute force)."""

from __future__ import annotations

import numpy as np
import pytest

import mcts_envs
from mcts_envs import CHANCE, TERMINAL
from mcts_envs.agents import make_agent

GAME = mcts_envs.make_game("tantrix")


def last_placement_with_a_single_win(seeds=range(60)):
    """A state from a seeded random game where every legal action ends the game and exactly one
    of them wins for the mover (checked by applying each one); returns (state, winning action)."""
    for seed in seeds:
        rng = np.random.default_rng(seed)
        state = GAME.initial_state()
        while GAME.current_player(state) != TERMINAL:
            player = GAME.current_player(state)
            if player == CHANCE:
                outcomes, probabilities = GAME.chance_outcomes(state)
                state = GAME.apply(state, int(rng.choice(outcomes, p=probabilities)))
                continue
            legal = GAME.legal_actions(state)
            children = [GAME.apply(state, int(action)) for action in legal]
            if all(GAME.is_terminal(child) for child in children):
                wins = [
                    int(a)
                    for a, c in zip(legal, children, strict=True)
                    if GAME.returns(c)[player] == 1.0
                ]
                if len(wins) == 1 and len(legal) > 1:
                    return state, wins[0]
            state = children[rng.integers(len(legal))]
    raise AssertionError("no such position in the scanned games")


@pytest.fixture(scope="module")
def position():
    return last_placement_with_a_single_win()


@pytest.mark.parametrize(
    "spec",
    [
        "mcts:iterations=300",
        "mcts:iterations=2000,win_check=false,solver=false",
        "alphabeta:depth=1",
        "minimax2",
    ],
)
def test_the_winning_last_tile_is_played(position, spec):
    state, winning = position
    assert make_agent(spec, seed=0).act_state(GAME, state) == winning
