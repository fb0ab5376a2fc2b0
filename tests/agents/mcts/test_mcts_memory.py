"""MCTS memory bound (``max_memory_mb``): a huge iteration budget stops at a full tree, answers
with a legal move, says so, and the node arrays never outgrow the bound."""

from __future__ import annotations

import os

import numpy as np
import pytest

import mcts_envs
from mcts_envs.agents.mcts import MCTSAgent
from mcts_envs.agents.mcts.driver import TIME_BUDGET_CAPACITY, default_max_memory_mb, loop_plan
from mcts_envs.agents.mcts.tree import BYTES_PER_NODE, MEMORY_PER_NODE, Tree
from mcts_envs.agents.spec import make_agent
from mcts_envs.core.errors import InvalidOptionError, MctsEnvsError

ULTIMATE = mcts_envs.make_game("ultimate_tictactoe")
MEGABYTE = 2**20


def uniform_evaluator(observations, masks):
    return np.ones(masks.shape), np.zeros(len(masks))


def test_a_tiny_memory_bound_stops_a_huge_search_with_a_legal_move():
    agent = make_agent("mcts:iterations=1000000000000,max_memory_mb=1", seed=0)
    state = ULTIMATE.initial_state()
    result = agent.search(ULTIMATE, state)
    assert result.tree_full and agent.last_search["tree_full"]
    assert "tree_full=True" in repr(result)
    assert result.action in ULTIMATE.legal_actions(state)
    assert 0 < result.simulations < 100_000
    assert agent._tree.nbytes() <= 1 * MEGABYTE
    # Follow two moves: re-rooting keeps a second set of arrays, still within the bound.
    reply = int(ULTIMATE.legal_actions(ULTIMATE.apply(state, result.action))[0])
    agent.inform(result.action)
    agent.inform(reply)
    state = ULTIMATE.apply(ULTIMATE.apply(state, result.action), reply)
    again = agent.search(ULTIMATE, state)
    assert again.reused and again.tree_full
    assert again.action in ULTIMATE.legal_actions(state)
    assert agent._tree._spare is not None
    assert agent._tree.nbytes() <= 1 * MEGABYTE


def test_an_evaluator_search_stops_at_the_bound_without_writing_past_the_arrays():
    agent = MCTSAgent(
        seed=0,
        iterations=10**12,
        evaluator=uniform_evaluator,
        dirichlet_fraction=0.0,
        max_memory_mb=1,
        batch_size=16,
    )
    state = ULTIMATE.initial_state()
    result = agent.search(ULTIMATE, state)
    assert result.tree_full
    assert result.action in ULTIMATE.legal_actions(state)
    tree = agent._tree
    assert tree.num_nodes <= tree.capacity
    assert tree.nbytes() <= 1 * MEGABYTE


def test_a_search_within_the_bound_is_not_reported_full():
    agent = MCTSAgent(seed=0, iterations=500)
    result = agent.search(ULTIMATE, ULTIMATE.initial_state())
    assert not result.tree_full and not agent.last_search["tree_full"]


def test_the_default_bound_is_a_share_of_memory_with_a_cap():
    assert 1 <= default_max_memory_mb() <= 4096
    agent = MCTSAgent(seed=0, iterations=10)
    expected = int(default_max_memory_mb() * MEGABYTE) // MEMORY_PER_NODE
    assert loop_plan(ULTIMATE, agent.config).max_nodes == expected


def test_workers_share_the_bound():
    agent = MCTSAgent(seed=0, iterations=10, workers=4, max_memory_mb=100)
    assert agent.config.max_memory_mb == 100  # the user's value; each tree gets a quarter
    expected = int(25 * MEGABYTE) // MEMORY_PER_NODE
    assert loop_plan(ULTIMATE, agent.config).max_nodes == expected


def test_ensure_grows_up_to_the_limit_and_no_further():
    tree = Tree(16)
    assert tree.ensure(100, limit=200)
    assert tree.capacity == 128
    tree.count[0] = 120
    assert tree.ensure(70, limit=200)
    assert tree.capacity == 200  # doubling stopped at the limit
    assert not tree.ensure(90, limit=200)
    assert tree.capacity == 200  # untouched when the limit cannot give the room


@pytest.mark.parametrize("value", [0, 0.5, -3, float("nan"), float("inf"), "lots", True])
def test_bad_memory_bounds_are_refused_with_the_allowed_range(value):
    with pytest.raises(
        InvalidOptionError, match=r"max_memory_mb must be a finite number in \[1,"
    ) as caught:
        MCTSAgent(max_memory_mb=value)
    assert isinstance(caught.value, MctsEnvsError)


def test_a_bad_memory_bound_in_a_spec_is_refused():
    with pytest.raises(InvalidOptionError, match=r"max_memory_mb must be a finite number in \[1,"):
        make_agent("mcts:max_memory_mb=0.5")


def _resident_bytes() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


@pytest.mark.skipif(not os.path.exists("/proc/self/statm"), reason="needs Linux's /proc")
def test_a_timed_search_tree_costs_the_memory_of_its_nodes_not_of_its_slots():
    # A timed search starts with TIME_BUDGET_CAPACITY slots so that it never stops to copy a
    # full tree; that is only affordable because untouched slots are never mapped.
    agent = make_agent("mcts:iterations=none,seconds=0.05", seed=0)
    plan = loop_plan(ULTIMATE, agent.config)
    assert plan.capacity == min(TIME_BUDGET_CAPACITY, plan.max_nodes)
    before = _resident_bytes()
    agent.search(ULTIMATE, ULTIMATE.initial_state())
    tree = agent._tree
    assert tree.capacity == plan.capacity
    held = tree.num_nodes * BYTES_PER_NODE
    assert _resident_bytes() - before < held + 64 * MEGABYTE < tree.nbytes()
