"""The search engine's contracts: the fast UCT branch, following the game (inform / restart),
the sparse search result, the root mask, preparation, budgets that always answer, checked entry
points, the disk cache across processes, state hashes and the alpha-beta table's memory."""

from __future__ import annotations

import math
import os
import pickle
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from numba import njit

import mcts_envs
from mcts_envs.agents import make_agent
from mcts_envs.agents.mcts import MCTSAgent
from mcts_envs.agents.mcts.selection import select_uct_checked, select_uct_fast
from mcts_envs.agents.mcts.tree import (
    ACTION,
    FIRST_CHILD,
    NUM_CHILDREN,
    NUM_EXPANDED,
    ROOT,
    VISITS,
    Tree,
)
from mcts_envs.agents.players.alphabeta import BYTES_PER_ENTRY, AlphaBetaAgent
from mcts_envs.agents.result import SearchResult
from mcts_envs.core import numba_compat
from mcts_envs.core.numba_compat import entry_point
from tests.agents.oracles import safe_moves, winning_moves
from tests.fresh_process import second_run_cache_counts

TICTACTOE = mcts_envs.make_game("tictactoe")
ULTIMATE = mcts_envs.make_game("ultimate_tictactoe")
GAMES = mcts_envs.list_games()


# -- the fast UCT branch equals the general one ---------------------------------------------------


@njit
def _fast(tree, node, player, c):
    return select_uct_fast(tree.links, tree.value_sum, node, player, c)


@njit
def _checked(tree, node, player, c, mask):
    return select_uct_checked(tree, node, player, c, False, mask, False, 0.0)


def _random_tree(generator: np.random.Generator) -> Tree:
    tree = Tree(64)
    size = int(generator.integers(1, 40))
    tree.count[0] = 1 + size
    tree.links[ROOT, FIRST_CHILD] = 1
    tree.links[ROOT, NUM_CHILDREN] = size
    tree.links[ROOT, NUM_EXPANDED] = int(generator.integers(1, size + 1))
    # Visits across the table boundary (4096) and zero; means anywhere in [0, 1].
    visits = generator.choice([0, 1, 2, 3, 50, 4095, 4096, 10_000], size, p=[0.02] + [0.14] * 7)
    tree.links[1 : 1 + size, VISITS] = visits
    tree.links[1 : 1 + size, ACTION] = np.arange(size)
    tree.value_sum[1 : 1 + size] = visits * generator.random(size)
    tree.links[ROOT, VISITS] = max(int(visits.sum()), 1) + int(generator.integers(0, 5000))
    return tree


def _reference_uct(tree: Tree, player: int, c: float) -> list[float]:
    """Plain UCT scores of the expanded root children (inf for unvisited), from the formula."""
    scores = []
    log_n = math.log(max(int(tree.links[ROOT, VISITS]), 1))
    for child in range(1, 1 + int(tree.links[ROOT, NUM_EXPANDED])):
        n = int(tree.links[child, VISITS])
        if n == 0:
            scores.append(math.inf)
            continue
        mean = tree.value_sum[child] / n
        q = mean if player == 0 else 1.0 - mean
        scores.append(q + c * math.sqrt(log_n / n))
    return scores


def test_fast_uct_branch_equals_the_general_one_on_random_trees():
    generator = np.random.default_rng(0)
    no_mask = np.zeros(0, np.int8)
    for _ in range(2000):
        tree = _random_tree(generator)
        player = int(generator.integers(2))
        c = float(generator.choice([0.0, 0.5, 1.4, 2.0]))
        fast = _fast(tree.arrays(), ROOT, player, c)
        assert fast == _checked(tree.arrays(), ROOT, player, c, no_mask)
        scores = _reference_uct(tree, player, c)
        first_best = int(np.flatnonzero(np.isclose(scores, max(scores), rtol=0, atol=1e-12))[0])
        if math.isinf(max(scores)):
            assert fast == 1 + first_best  # the first unvisited child
        else:
            assert scores[fast - 1] == pytest.approx(max(scores), abs=1e-12)


# -- following the game -----------------------------------------------------------------------


def test_inform_follows_the_game_and_restart_drops_the_tree():
    agent = MCTSAgent(seed=0, iterations=1500)
    state = ULTIMATE.initial_state()
    first = agent.search(ULTIMATE, state)
    assert not first.reused
    reply = int(ULTIMATE.legal_actions(ULTIMATE.apply(state, first.action))[0])
    agent.inform(first.action)
    agent.inform(reply)
    state = ULTIMATE.apply(ULTIMATE.apply(state, first.action), reply)
    assert agent.search(ULTIMATE, state).reused
    # Moves the agent was not told about: a new tree, never a wrong one.
    other = ULTIMATE.apply(state, int(ULTIMATE.legal_actions(state)[0]))
    other = ULTIMATE.apply(other, int(ULTIMATE.legal_actions(other)[0]))
    assert not agent.search(ULTIMATE, other).reused
    agent.restart(ULTIMATE.initial_state())
    assert not agent.search(ULTIMATE, ULTIMATE.initial_state()).reused


def test_informed_moves_that_do_not_reach_the_state_give_a_new_tree():
    agent = MCTSAgent(seed=1, iterations=500)
    state = ULTIMATE.initial_state()
    action = agent.act_state(ULTIMATE, state)
    agent.inform(action)
    wrong = ULTIMATE.apply(
        state, int(next(a for a in ULTIMATE.legal_actions(state) if a != action))
    )
    agent.act_state(ULTIMATE, wrong)
    assert not agent.last_search["reused"]


def test_the_block_check_restricts_a_reused_tree_without_discarding_it():
    generator = np.random.default_rng(3)
    found = 0
    while found < 3:
        agent = MCTSAgent(seed=found, iterations=300)
        state = ULTIMATE.initial_state()
        while not ULTIMATE.is_terminal(state):
            result = agent.search(ULTIMATE, state)
            legal = ULTIMATE.legal_actions(state)
            safe = safe_moves(ULTIMATE, state)
            if result.reused and not winning_moves(ULTIMATE, state) and 0 < len(safe) < len(legal):
                assert set(result.actions.tolist()) <= safe
                assert result.action in safe
                found += 1
                break
            action = result.action if generator.random() < 0.5 else int(generator.choice(legal))
            agent.inform(action)
            state = ULTIMATE.apply(state, action)
            if ULTIMATE.is_terminal(state):
                break
            reply = int(generator.choice(ULTIMATE.legal_actions(state)))
            agent.inform(reply)
            state = ULTIMATE.apply(state, reply)


# -- the search result ------------------------------------------------------------------------


def test_search_result_is_sparse_and_matches_the_dense_policy():
    state = ULTIMATE.apply(ULTIMATE.initial_state(), 40)
    result = MCTSAgent(seed=4, iterations=700).search(ULTIMATE, state)
    assert isinstance(result, SearchResult)
    assert result.simulations == 700
    assert set(result.actions.tolist()) <= set(ULTIMATE.legal_actions(state).tolist())
    assert result.visits.sum() <= 700 and result.visits.sum() >= 690
    assert result.probabilities.sum() == pytest.approx(1.0)
    assert result.action == int(result.actions[np.argmax(result.visits)])
    assert -1.0 <= result.value <= 1.0
    probs, value = MCTSAgent(seed=4, iterations=700).policy(ULTIMATE, state)
    np.testing.assert_array_equal(probs, result.policy(ULTIMATE.info.num_actions))
    assert value == result.value
    visited = result.visits > 0
    assert np.all(np.abs(result.action_values[visited]) <= 1.0)


def test_search_accepts_an_env():
    env = mcts_envs.make("tictactoe")
    env.reset(seed=0)
    result = MCTSAgent(seed=0, iterations=200).search(env)
    assert result.action in TICTACTOE.legal_actions(env.unwrapped.game_state)


# -- preparing, and budgets that always answer -------------------------------------------------


@pytest.mark.parametrize("spec", ["mcts:iterations=50", "alphabeta:depth=2", "minimax2"])
def test_prepare_prints_nothing_and_leaves_decisions_unchanged(spec, capsys):
    game = ULTIMATE
    prepared, fresh = make_agent(spec, seed=5), make_agent(spec, seed=5)
    prepared.prepare(game)
    assert capsys.readouterr() == ("", "")
    state = game.initial_state()
    for _ in range(3):
        action = prepared.act_state(game, state)
        assert action == fresh.act_state(game, state)
        state = game.apply(state, action)


@pytest.mark.parametrize("name", GAMES)
def test_any_positive_time_budget_returns_a_legal_action(name):
    game = mcts_envs.make_game(name)
    state = game.initial_state()
    while game.current_player(state) < 0:
        state = game.apply(state, int(game.chance_outcomes(state)[0][0]))
    for agent in (
        MCTSAgent(seed=0, iterations=None, seconds=1e-6),
        AlphaBetaAgent(seed=0, seconds=1e-6),
    ):
        agent.prepare(game)
        assert agent.act_state(game, state) in game.legal_actions(state)


# -- numba internals behind one module ------------------------------------------------------------


@njit
def _sum(values):
    return values.sum()


def test_entry_points_check_argument_types():
    run = entry_point(_sum, (np.zeros(3, np.int64),))
    assert run(np.arange(4, dtype=np.int64)) == 6
    with pytest.raises(TypeError, match="expected int64"):
        run(np.arange(4, dtype=np.float64))
    with pytest.raises(TypeError, match="contiguous"):
        run(np.arange(8, dtype=np.int64)[::2])


def test_identity_pinning_is_available_on_the_supported_numba():
    assert numba_compat.CAN_PIN


def test_without_pinning_dispatchers_keep_numba_identity(monkeypatch):
    @njit
    def fresh(x):
        return x

    monkeypatch.setattr(numba_compat, "CAN_PIN", False)
    assert numba_compat.pin_identity(fresh)._MemoMixin__uuid is None


def test_a_new_process_loads_the_compiled_search_from_the_disk_cache():
    code = textwrap.dedent(
        """
        import mcts_envs
        from mcts_envs.agents.mcts import MCTSAgent
        from mcts_envs.agents.mcts.search import run_chunk
        game = mcts_envs.make_game("tictactoe")
        MCTSAgent(seed=0, iterations=20).prepare(game)
        print(sum(run_chunk.stats.cache_hits.values()), sum(run_chunk.stats.cache_misses.values()))
        """
    )
    hits, misses = second_run_cache_counts(code)
    assert hits > 0 and misses == 0


# -- hashes and the alpha-beta table ------------------------------------------------------------


@pytest.mark.parametrize("name", GAMES)
def test_state_hashes_are_equal_for_equal_states_and_differ_otherwise(name):
    game = mcts_envs.make_game(name)
    generator = np.random.default_rng(1)
    seen: dict[int, bytes] = {}
    for _ in range(8):
        state = game.initial_state()
        while not game.is_terminal(state) and len(seen) < 3000:
            key = game.hash(state)
            assert key == game.hash(state.copy()) >= 0
            assert seen.setdefault(key, game.key(state)) == game.key(state)  # no collision
            if game.current_player(state) < 0:
                outcomes, probabilities = game.chance_outcomes(state)
                action = int(generator.choice(outcomes, p=probabilities))
            else:
                action = int(generator.choice(game.legal_actions(state)))
            state = game.apply(state, action)


def test_alphabeta_table_stores_bounds_not_states():
    game = mcts_envs.make_game("tantrix")
    agent = AlphaBetaAgent(seed=0, depth=2)
    state = game.initial_state()
    while game.current_player(state) < 0:
        state = game.apply(state, int(game.chance_outcomes(state)[0][0]))
    agent.act_state(game, state)
    table = agent._table
    assert sum(array.nbytes for array in table) == agent.table_bytes == BYTES_PER_ENTRY << 16
    assert len(pickle.dumps(agent)) < 10_000  # the table is a cache, never pickled


@pytest.mark.slow
def test_the_search_runs_without_borrowed_views():
    # MCTS_ENVS_NO_BORROW=1: no numba internals in the loop, its own cache directory; the
    # same seeded search must choose the same action as with borrowed views.
    code = textwrap.dedent(
        """
        import mcts_envs
        from mcts_envs.agents.mcts import MCTSAgent
        from mcts_envs.core.numba_compat import USE_BORROW
        game = mcts_envs.make_game("tictactoe")
        result = MCTSAgent(seed=3, iterations=2000).search(game, game.initial_state())
        print(USE_BORROW, result.action, int(result.visits.sum()))
        """
    )
    outputs = []
    for flag in ("0", "1"):
        env = {**os.environ, "MCTS_ENVS_NO_BORROW": flag}
        done = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=1800, env=env
        )
        assert done.returncode == 0, done.stderr[-3000:]
        outputs.append(done.stdout.split()[-3:])
    assert outputs[0][0] == "True" and outputs[1][0] == "False"
    assert outputs[0][1:] == outputs[1][1:]
