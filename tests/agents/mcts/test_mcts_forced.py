"""Forced moves: with one legal action and a time budget, MCTS plays it at once (no search), keeps
its tree for the next decision and reports the value of the reused subtree.

The toy trees of ``toy_games`` offer two or three moves at every decision, so the positions here
come from real games: a Tic-Tac-Toe board with one empty cell, and a Tantrix position with one
legal placement found by a seeded random game (a third of Tantrix decisions are forced).
"""

from __future__ import annotations

import numpy as np
import pytest

import mcts_envs
from mcts_envs import CHANCE, TERMINAL
from mcts_envs.agents import make_agent
from mcts_envs.agents.mcts.tree import ROOT, VISITS

BUDGET = 1.0  # seconds per decision: a forced move must take a small part of it
TANTRIX = mcts_envs.make_game("tantrix")


def one_empty_cell():
    """Tic-Tac-Toe, X to move with only cell 8 empty (not a winning cell: no immediate win)."""
    game = mcts_envs.make_game("tictactoe")
    state = game.initial_state()
    for cell in (0, 1, 2, 4, 3, 5, 7, 6):
        state = game.apply(state, cell)
    assert list(game.legal_actions(state)) == [8]
    return game, state


def forced_after_a_choice(seeds=range(40)):
    """``(parent, action, state)`` from a seeded random Tantrix game: ``state`` has one legal
    action and follows ``parent`` (a decision with at most 8 legal actions) by ``action``."""
    for seed in seeds:
        rng = np.random.default_rng(seed)
        state, parent = TANTRIX.initial_state(), None
        while TANTRIX.current_player(state) != TERMINAL:
            if TANTRIX.current_player(state) == CHANCE:
                outcomes, probabilities = TANTRIX.chance_outcomes(state)
                state = TANTRIX.apply(state, int(rng.choice(outcomes, p=probabilities)))
                parent = None
                continue
            legal = TANTRIX.legal_actions(state)
            if len(legal) == 1 and parent is not None:
                return (*parent, state)
            action = int(legal[rng.integers(len(legal))])
            parent = (state, action) if len(legal) <= 8 else None
            state = TANTRIX.apply(state, action)
    raise AssertionError("no forced position in the scanned games")


def test_one_legal_move_is_played_at_once_under_a_time_budget():
    game, state = one_empty_cell()
    agent = make_agent(f"mcts:seconds={BUDGET},iterations=None", seed=0)
    agent.prepare(game)
    result = agent.search(game, state)
    assert result.action == 8
    assert result.simulations == 0 and not result.immediate
    assert result.seconds < 0.1 * BUDGET
    assert agent.last_search["forced"]
    assert list(result.probabilities) == [1.0]
    assert -1.0 <= result.value <= 1.0


def test_an_iteration_budget_still_searches_a_forced_move():
    game, state = one_empty_cell()
    result = make_agent("mcts:iterations=50", seed=0).search(game, state)
    assert result.action == 8 and result.simulations > 0


def test_a_forced_tantrix_move_keeps_the_tree_and_reports_its_value():
    parent, action, state = forced_after_a_choice()
    (only,) = TANTRIX.legal_actions(state)
    agent = make_agent(f"mcts:seconds={BUDGET},iterations=None", seed=0)
    agent.prepare(TANTRIX)
    agent.search(TANTRIX, parent)
    tree = agent._tree
    node = tree.child(ROOT, action)
    visits = int(tree.links[node, VISITS])
    assert visits > 0  # at most 8 children in a second of search: every one is visited
    mean = float(tree.value_sum[node]) / visits  # player 0's view
    player = TANTRIX.current_player(state)

    agent.inform(action)
    result = agent.search(TANTRIX, state)
    assert result.action == int(only)
    assert result.simulations == 0 and result.reused
    assert result.seconds < 0.1 * BUDGET
    assert not result.solved  # a mid-game Tantrix position: the value is the subtree's mean
    assert result.value == pytest.approx(2.0 * (mean if player == 0 else 1.0 - mean) - 1.0)
    kept = agent._tree  # the subtree is kept, re-rooted at the forced position
    assert int(kept.links[ROOT, VISITS]) == visits

    agent.inform(result.action)
    child = kept.child(ROOT, result.action)
    after = TANTRIX.apply(state, result.action)
    # thousands of visits below the forced move: the next decision is in the kept tree
    assert child >= 0 and TANTRIX.current_player(after) >= 0
    assert agent.search(TANTRIX, after).reused


def test_a_forced_move_in_a_proven_subtree_reports_the_proof_and_compiles_nothing():
    """The forced decision reads the kept proof through the Python functions of the compiled
    helpers: a decision under a time budget never compiles (``prepare`` did that)."""
    from mcts_envs.agents.mcts.final import mover_value
    from mcts_envs.agents.mcts.solver import proven_rank

    game, forced = one_empty_cell()
    parent = game.initial_state()
    for cell in (0, 1, 2, 4, 3, 5, 7):  # O to move, 6 and 8 empty; 6 is then X's forced reply
        parent = game.apply(parent, cell)
    agent = make_agent(f"mcts:seconds={BUDGET},iterations=None,win_check=false", seed=0)
    agent.prepare(game)
    assert agent.search(game, parent).solved  # two plies to the end: every line proven
    agent.inform(6)
    result = agent.search(game, forced)
    assert result.action == 8 and result.simulations == 0 and result.reused
    assert result.solved and result.value == 0.0  # a proven draw
    assert not proven_rank.signatures and not mover_value.signatures
