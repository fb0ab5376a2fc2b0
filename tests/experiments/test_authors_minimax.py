"""The Ataxx paper's minimax as published, against slow references written from its description."""

from __future__ import annotations

import functools

import numpy as np
import pytest

from experiments.authors_minimax import NAME
from mcts_envs.agents.spec import make_agent
from mcts_envs.core.game import TERMINAL
from mcts_envs.core.registry import make_game


@functools.cache
def positions(count: int, plies: int, seed: int) -> list[np.ndarray]:
    """``count`` positions after ``plies`` seeded random moves (played on first use, not at
    collection: playing compiles Ataxx's kernels)."""
    game = make_game("ataxx")
    rng = np.random.default_rng(seed)
    found = []
    while len(found) < count:
        state = game.initial_state()
        for _ in range(plies):
            if game.current_player(state) == TERMINAL:
                break
            state = game.apply(state, int(rng.choice(game.legal_actions(state))))
        if game.current_player(state) != TERMINAL:
            found.append(state)
    return found


def published_depth2_reference(game, state) -> np.ndarray:
    """Per root move: the minimum over the opponent's replies of the *opponent's* stone share
    (the leaf after the reply is scored for the player who just moved into it)."""
    heuristic = game.kernels.heuristic
    root = game.current_player(state)
    values = []
    for move in game.legal_actions(state):
        child = game.apply(state, int(move))
        if game.current_player(child) == TERMINAL:  # a depth-1 leaf: scored for the root
            values.append(heuristic(child, root))
            continue
        values.append(
            min(
                heuristic(game.apply(child, int(reply)), 1 - root)
                for reply in game.legal_actions(child)
            )
        )
    return np.array(values)


@pytest.mark.parametrize("index", range(3))
def test_depth2_scores_leaves_for_the_opponent(index):
    state = positions(3, 6, seed=1)[index]
    game = make_game("ataxx")
    agent = make_agent(NAME, seed=0)
    actions, values = agent.action_values(game, state)
    assert np.array_equal(actions, game.legal_actions(state))
    assert np.allclose(values, published_depth2_reference(game, state))
    # it plays a move that leaves the opponent the largest guaranteed share of the stones
    chosen = agent.act_state(game, state)
    assert values[list(actions).index(chosen)] == values.max()


@pytest.mark.parametrize("index", range(2))
def test_depth3_is_a_correct_minimax(index):
    """At depth 3 the leaves follow the root player's own move: the package's plain minimax at
    depth 3 (an independent implementation) gives the same value for every move."""
    state = positions(2, 4, seed=2)[index]
    game = make_game("ataxx")
    _, published = make_agent(f"{NAME}:depth=3", seed=0).action_values(game, state)
    _, correct = make_agent("minimax2:depth=3", seed=0).action_values(game, state)
    assert np.allclose(published, correct)


def test_depth2_loses_to_the_correct_minimax2():
    game = make_game("ataxx")
    ours = make_agent("minimax2", seed=1)
    theirs = make_agent(NAME, seed=2)
    for seat in (0, 1):
        state = game.initial_state()
        players = [ours, theirs] if seat == 0 else [theirs, ours]
        for _ in range(200):
            if game.current_player(state) == TERMINAL:
                break
            state = game.apply(state, players[game.current_player(state)].act_state(game, state))
        stones = game.stone_counts(state)
        assert stones[seat] > stones[1 - seat]
