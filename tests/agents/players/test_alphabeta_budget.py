"""Alpha-beta keeps a time budget in its expensive paths: move ordering looks at the clock, and a
large transposition table is neither written up front nor rewritten between moves.

Deterministic mechanism tests (a deadline already passed, array identities), not timings: the
overshoot itself is measured by ``benchmarks/budget_overshoot.py``.
"""

from __future__ import annotations

import time

import numpy as np
import pytest

import mcts_envs
from mcts_envs.agents.base import search_buffer_size
from mcts_envs.agents.players.alphabeta import (
    ABORTED,
    CLOCK_EVERY,
    HAS_CLOCK,
    AlphaBetaAgent,
    clock_seconds,
    order_keys,
)
from mcts_envs.agents.players.alphabeta_search import HEURISTIC_STEP, new_workspace

ATAXX = mcts_envs.make_game("ataxx")
#: Move ordering scores children by the heuristic in games without captures.
PENTAGO = mcts_envs.make_game("pentago_twist")
UNSCORED = -7.0  # a key move ordering never gives: marks children it did not score


def middle_game(plies: int = 30) -> np.ndarray:
    """An Ataxx position after ``plies`` seeded random moves (34 legal moves)."""
    generator = np.random.default_rng(0)
    state = ATAXX.initial_state()
    for _ in range(plies):
        state = ATAXX.apply(state, int(generator.choice(ATAXX.legal_actions(state))))
    return state


def pentago_middle_game(plies: int = 8) -> np.ndarray:
    """A Pentago Twist position after ``plies`` seeded random moves (224 legal moves)."""
    generator = np.random.default_rng(0)
    state = PENTAGO.initial_state()
    for _ in range(plies):
        state = PENTAGO.apply(state, int(generator.choice(PENTAGO.legal_actions(state))))
    return state


def order(state: np.ndarray, deadline: float, stop: int = 0) -> tuple[np.ndarray, int, np.ndarray]:
    """Run Pentago Twist's move ordering at depth 3 (the heuristic of each child; no table
    move, killers or history yet); ``(stats, legal count, keys)``."""
    size = search_buffer_size(PENTAGO)
    work = new_workspace(size, PENTAGO.info.state_size, PENTAGO.info.num_actions)
    work.deadline[0] = deadline
    work.stop[0] = stop
    actions = np.empty(size, np.int64)
    count = PENTAGO.kernels.legal_actions(state, actions)
    keys = np.full(size, UNSCORED)
    player = PENTAGO.current_player(state)
    kernels, search_kernels = PENTAGO.kernels, PENTAGO.search_kernels
    order_keys(state, player, 3, 0, -1, actions, keys, count, kernels, search_kernels, work)
    return work.stats, count, keys


@pytest.mark.skipif(not HAS_CLOCK, reason="no clock inside compiled code on this platform")
def test_move_ordering_stops_once_the_deadline_has_passed():
    state = pentago_middle_game()
    stats, count, keys = order(state, deadline=1e-9)  # long passed
    assert count > 2 * CLOCK_EVERY
    assert stats[ABORTED] == 1
    assert np.all(keys[CLOCK_EVERY:count] == UNSCORED)  # the rest was never scored
    stats, count, keys = order(state, deadline=0.0)  # no deadline: every child scored
    assert stats[ABORTED] == 0
    assert not np.any(keys[:count] == UNSCORED)
    # each child's key is the mover's heuristic of the position it leads to
    player = PENTAGO.current_player(state)
    actions = PENTAGO.legal_actions(state)
    expected = [
        HEURISTIC_STEP * PENTAGO.heuristic(PENTAGO.apply(state, a), player) for a in actions
    ]
    assert keys[:count] == pytest.approx(expected, rel=1e-12)


@pytest.mark.skipif(not HAS_CLOCK, reason="no clock inside compiled code on this platform")
def test_the_compiled_clock_is_perf_counter():
    before = time.perf_counter()
    inside = clock_seconds(np.zeros(2, np.int64))
    assert before <= inside <= time.perf_counter()


def test_move_ordering_stops_when_told_to():
    stats, count, keys = order(pentago_middle_game(), deadline=0.0, stop=1)
    assert stats[ABORTED] == 1
    assert np.all(keys[CLOCK_EVERY:count] == UNSCORED)


def test_a_fresh_table_per_move_reuses_the_arrays_and_searches_as_a_new_table():
    state = middle_game()
    agent = AlphaBetaAgent(seed=0, depth=3, keep_table=False, table_size=1 << 20)
    first = agent.search(ATAXX, state)
    arrays = agent._table
    second = agent.search(ATAXX, state)
    assert all(new is old for new, old in zip(agent._table, arrays, strict=True))
    # The same search as with a newly allocated table (reset() drops the table, the seed
    # sequence goes on) ...
    fresh = AlphaBetaAgent(seed=0, depth=3, table_size=1 << 20)
    fresh.search(ATAXX, state)
    fresh.reset()
    expected = fresh.search(ATAXX, state)
    assert (second.action, second.value, second.nodes) == (
        expected.action,
        expected.value,
        expected.nodes,
    )
    # ... where a kept table answers from its entries in fewer nodes.
    assert fresh.search(ATAXX, state).nodes < first.nodes


def test_the_largest_table_is_not_written_up_front():
    from mcts_envs.agents.players.alphabeta import MAX_TABLE_SIZE, new_table

    table = new_table(MAX_TABLE_SIZE)
    for array in table:
        assert not array.flags.owndata  # mapped memory, not a NumPy buffer filled at creation
        assert array[0] == 0 and array[-1] == 0


def test_a_single_legal_move_is_answered_at_once_on_the_clock():
    """Issue 39: alpha-beta deepened on a forced move until its time was up."""
    game = mcts_envs.make_game("ataxx")
    state = game.from_text("xoooooo/ooooooo/ooooooo/ooo4/7/7/7 x 0 1")  # x must pass
    (only,) = game.legal_actions(state)
    agent = AlphaBetaAgent(seed=0, seconds=5.0)
    agent.prepare(game)
    start = time.perf_counter()
    result = agent.search(game, state)
    assert time.perf_counter() - start < 1.0  # (5 s before)
    assert result.action == only and result.depth == 1
