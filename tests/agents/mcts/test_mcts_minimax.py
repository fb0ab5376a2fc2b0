"""Implicit minimax backups (``minimax_weight``): the values kept, their use in selection, and
the search at weight 0 being today's search move for move."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import mcts_envs
from mcts_envs.agents.mcts import MCTSAgent
from mcts_envs.agents.mcts.defaults import GENERIC
from mcts_envs.agents.mcts.driver import Engine
from mcts_envs.agents.mcts.search import LEAF_PLAYOUT, SELECT_UCT, LoopSettings
from mcts_envs.agents.mcts.selection import select_child
from mcts_envs.agents.mcts.tree import FIRST_CHILD, NUM_CHILDREN, NUM_EXPANDED, ROOT, VISITS, Tree
from mcts_envs.agents.spec import make_agent
from mcts_envs.core.errors import InvalidOptionError
from tests.agents.mcts.test_mcts_equivalence import EXPECTED, decisions
from tests.agents.toy_games import ALL_TREES, TreeGame, expectimax


@pytest.mark.parametrize("index", range(len(ALL_TREES)))
def test_root_minimax_value_is_the_exact_expectimax_once_the_tree_is_searched(index):
    # Non-terminal toy nodes score 0.5 and every leaf of these small trees is terminal, so
    # once every node is visited the root's implicit minimax value is the game's exact value
    # (player 0's view, in [0, 1]): min and max for each player to move (turns need not
    # alternate), the probability-weighted mean at chance nodes.
    game = TreeGame(index)
    config = dataclasses.replace(
        GENERIC, iterations=3000, minimax_weight=0.5, solver=False, win_check=False
    )
    engine = Engine(game, config)
    tree = Tree(64)
    engine.run(tree, game.initial_state(), seed=1)
    assert tree.tracks_minimax
    expected = (expectimax(game, game.initial_state()) + 1.0) / 2.0
    assert tree.minimax[ROOT] == pytest.approx(expected, abs=1e-6)


def _two_child_tree(player_0_means, minimax_values) -> Tree:
    """A root with two children visited 10 times each (means and minimax values from player
    0's view)."""
    tree = Tree(16)
    tree.track_minimax()
    tree.count[0] = 3
    tree.links[ROOT, [FIRST_CHILD, NUM_CHILDREN, NUM_EXPANDED, VISITS]] = [1, 2, 2, 20]
    for child, (mean, value) in enumerate(zip(player_0_means, minimax_values, strict=True), 1):
        tree.links[child, VISITS] = 10
        tree.value_sum[child] = 10 * mean
        tree.minimax[child] = value
    return tree


@pytest.mark.parametrize(
    ("player", "weight", "chosen"),
    [
        # player 0: Q 0.8 / 0.5, V 0.2 / 0.6; w=0.5: 0.5 / 0.55
        (0, 0.0, 1),
        (0, 0.5, 2),
        # player 1: Q 0.2 / 0.5, V 0.8 / 0.4; w=0.75: 0.65 / 0.425
        (1, 0.0, 2),
        (1, 0.75, 1),
    ],
)
def test_selection_ranks_children_by_the_mixed_value(player, weight, chosen):
    tree = _two_child_tree((0.8, 0.5), (0.2, 0.6))
    cfg = LoopSettings(0.0, SELECT_UCT, False, LEAF_PLAYOUT, False, True, 0, 2, weight)
    no_mask = np.zeros(0, np.int8)
    assert select_child(tree.arrays(), ROOT, player, cfg, no_mask) == chosen


def test_tree_keeps_minimax_values_when_growing_and_rerooting():
    game = TreeGame(3)
    config = dataclasses.replace(
        GENERIC, iterations=200, minimax_weight=0.3, solver=False, win_check=False
    )
    tree = Tree(16)  # grows during the search
    Engine(game, config).run(tree, game.initial_state(), seed=2)
    child = int(tree.children(ROOT)[0])
    grandchildren = tree.children(child)
    values = tree.minimax[[child, *grandchildren]].copy()
    tree.reroot(child)
    assert tree.tracks_minimax and len(tree.minimax) == tree.capacity
    np.testing.assert_array_equal(tree.minimax[[ROOT, *tree.children(ROOT)]], values)


def test_weight_zero_is_todays_search_move_for_move():
    # the digests of test_mcts_equivalence were computed before the option existed
    assert decisions("ataxx", {"minimax_weight": 0.0}) == EXPECTED["ataxx-defaults"]


def test_ataxx_search_with_minimax_backups_is_reproducible_and_different():
    first = decisions("ataxx", {"minimax_weight": 0.3})
    assert first == decisions("ataxx", {"minimax_weight": 0.3})
    assert first != EXPECTED["ataxx-defaults"]


def test_spec_sets_the_weight_and_bad_values_are_refused():
    agent = make_agent("mcts:iterations=50,minimax_weight=0.25")
    agent.prepare(mcts_envs.make_game("tictactoe"))
    assert agent.config.minimax_weight == 0.25
    for bad in (-0.1, 1.5, float("nan")):
        with pytest.raises(
            InvalidOptionError, match=r"minimax_weight must be a finite number in \[0, 1\]"
        ):
            MCTSAgent(minimax_weight=bad)
    with pytest.raises(InvalidOptionError, match="needs compiled leaf evaluations"):
        MCTSAgent(minimax_weight=0.2, evaluator=lambda observations, masks: None)
    with pytest.raises(InvalidOptionError, match="needs compiled leaf evaluations"):
        MCTSAgent(minimax_weight=0.2, rollout=lambda game, state: 0)
