"""First-play urgency (``first_play``): an untried child counts as a fixed UCT score, so a node
tries a new child only while none of its tried children scores as much; and the order in which
a node tries its children (``expand_order``). Off (``None``, ``"random"``) is the plain search
move for move."""

from __future__ import annotations

import math

import numpy as np
import pytest

import mcts_envs
from mcts_envs.agents.mcts import MCTSAgent
from mcts_envs.agents.mcts.search import LEAF_PLAYOUT, SELECT_UCT, LoopSettings
from mcts_envs.agents.mcts.selection import selected_score
from mcts_envs.agents.mcts.tree import (
    FIRST_CHILD,
    NO_NODE,
    NUM_CHILDREN,
    NUM_EXPANDED,
    PROVEN,
    PROVEN_WIN_1,
    ROOT,
    VISITS,
    Tree,
)
from mcts_envs.agents.spec import make_agent
from mcts_envs.core.errors import InvalidOptionError
from tests.agents.mcts.test_mcts_equivalence import EXPECTED, decisions


def tried_root_moves(first_play, iterations: int = 200) -> int:
    """Root moves a search of the Ultimate Tic-Tac-Toe opening (81 moves) has tried."""
    game = mcts_envs.make_game("ultimate_tictactoe")
    agent = MCTSAgent(iterations=iterations, c=0.5, first_play=first_play, win_check=False, seed=3)
    result = agent.search(game, game.initial_state())
    return int((result.visits > 0).sum())


def position_with_one_best_move(game):
    """A seeded Ultimate Tic-Tac-Toe position (player to move) where exactly one legal move
    leads to the best heuristic value for the mover, and that move."""
    generator = np.random.default_rng(0)
    state = game.initial_state()
    while True:
        player = game.current_player(state)
        actions = game.legal_actions(state)
        values = [game.heuristic(game.apply(state, int(a)), player) for a in actions]
        best = max(values)
        if values.count(best) == 1 and len(actions) > 2:
            return state, int(actions[values.index(best)])
        state = game.apply(state, int(generator.choice(actions)))


def test_off_is_todays_search_move_for_move():
    # the digests of test_mcts_equivalence were computed before the option existed
    off = {"first_play": None, "expand_order": "random"}
    assert decisions("ultimate_tictactoe", off) == EXPECTED["ultimate-row-before"]
    assert decisions("ataxx", off) == EXPECTED["ataxx-defaults"]


def test_plain_uct_tries_every_root_move_before_any_twice():
    assert tried_root_moves(None) == 81
    # an urgency no tried child ever reaches is the same search
    assert tried_root_moves(1e6) == 81


def test_an_urgency_below_every_score_never_leaves_the_first_child():
    # every UCT score is >= 0, so with first_play=0 a tried child always wins over a new one
    assert tried_root_moves(0.0) == 1


def test_a_middle_urgency_tries_some_moves_but_not_all():
    assert 1 < tried_root_moves(1.0) < 81


def tried_moves(game, state, expand_order: str, seed: int) -> list[int]:
    """The root moves a 50-simulation search with ``first_play=0`` (one child per node) tries."""
    agent = MCTSAgent(
        iterations=50, c=0.5, first_play=0.0, expand_order=expand_order, win_check=False, seed=seed
    )
    result = agent.search(game, state)
    return result.actions[result.visits > 0].tolist()


@pytest.mark.parametrize("seed", range(3))
def test_heuristic_order_tries_the_best_heuristic_move_first(seed):
    game = mcts_envs.make_game("ultimate_tictactoe")
    state, best = position_with_one_best_move(game)
    assert tried_moves(game, state, "heuristic", seed) == [best]
    # in random order the one child tried differs between seeds (not always the best)
    assert len({tuple(tried_moves(game, state, "random", s)) for s in range(8)}) > 1


def _root_with_children(visits, player_0_means, total_visits) -> Tree:
    tree = Tree(16)
    size = len(visits)
    tree.count[0] = 1 + size
    tree.links[ROOT, [FIRST_CHILD, NUM_CHILDREN, NUM_EXPANDED, VISITS]] = [
        1,
        size,
        size,
        total_visits,
    ]
    for child, (n, mean) in enumerate(zip(visits, player_0_means, strict=True), 1):
        tree.links[child, VISITS] = n
        tree.value_sum[child] = n * mean
    return tree


@pytest.mark.parametrize("player", [0, 1])
def test_the_score_compared_is_the_uct_score_of_the_mover(player):
    tree = _root_with_children((4, 0), (0.75, 0.0), 10)
    cfg = LoopSettings(0.5, SELECT_UCT, False, LEAF_PLAYOUT, False, True, -1, 2, 0.0, 1.0)
    arrays = tree.arrays()
    mean = 0.75 if player == 0 else 0.25
    expected = mean + 0.5 * math.sqrt(math.log(10) / 4)
    assert selected_score(arrays, ROOT, 1, player, cfg) == pytest.approx(expected)
    assert selected_score(arrays, ROOT, 2, player, cfg) == np.inf  # unvisited
    assert selected_score(arrays, ROOT, NO_NODE, player, cfg) == -np.inf
    tree.flags[1, PROVEN] = PROVEN_WIN_1  # a proven loss for player 0 is never followed
    expected_proven = -np.inf if player == 0 else expected
    assert selected_score(tree.arrays(), ROOT, 1, player, cfg) == expected_proven


def test_spec_sets_the_urgency_and_bad_values_are_refused():
    agent = make_agent("mcts:iterations=50,first_play=0.9")
    assert agent.config.first_play == 0.9
    assert make_agent("mcts:iterations=50,first_play=none").config.first_play is None
    for bad in (-0.1, float("nan"), float("inf"), "high"):
        with pytest.raises(
            InvalidOptionError, match=r"first_play must be a finite number in \[0, "
        ):
            MCTSAgent(first_play=bad)
    assert make_agent("mcts:expand_order=heuristic").config.expand_order == "heuristic"
    with pytest.raises(InvalidOptionError, match="expand_order must be one of 'random', "):
        MCTSAgent(expand_order="best")
