"""Tantrix move generation's shortcuts against the plain computations they replace.

Move generation reads the golden-rule demands from a lookup table (the observation reads placed
tiles' colours from another), restriction (a) from the neighbours' demand words, and restrictions (b)/(c) by continuing the board's closure from the new
tile (``space_after``) instead of rerunning it (``closure``). Each is compared here with a slow,
obviously correct computation (or the from-scratch closure) on every frontier cell of the
decision positions of seeded random games.
"""

from __future__ import annotations

import numpy as np
import pytest

from mcts_envs.core.game import TERMINAL
from mcts_envs.core.seeding import make_rng, rng_below
from mcts_envs.games.tantrix import hexgrid as hx
from mcts_envs.games.tantrix import kernels as k
from mcts_envs.games.tantrix.game import Tantrix
from mcts_envs.games.tantrix.tiles import TILE_EDGE_COLOURS
from tests.games.tantrix_positions import decision_positions

GAME = Tantrix()


@pytest.fixture(scope="module")
def positions():
    """Decision positions of seeded games, played when a test first needs them (not at
    collection: playing compiles Tantrix's kernels)."""
    return decision_positions(GAME, 12, seed=5)


def slow_links(grid: np.ndarray, index: int) -> list[tuple[int, int]]:
    """``(edge d of index, colour)`` of each placed neighbour, read from the colour table."""
    links = []
    for d in range(6):
        code = int(grid[index + hx.NEIGHBOUR_OFFSET[d]]) & hx.CODE_MASK
        if code:
            tile, orientation = divmod(code - 1, 6)
            links.append((d, int(TILE_EDGE_COLOURS[tile, orientation, (d + 3) % 6])))
    return links


def slow_demands(grid: np.ndarray, index: int) -> tuple[int, int]:
    required = mask = 0
    for d, colour in slow_links(grid, index):
        required |= 1 << (4 * d + colour)
        mask |= 15 << (4 * d)
    return required, mask


def slow_forbidden(grid: np.ndarray, index: int) -> int:
    forbidden = 0
    for d in range(6):
        e = index + int(hx.NEIGHBOUR_OFFSET[d])
        if grid[e] & hx.CODE_MASK or grid[e] >> hx.COUNT_SHIFT < 2:
            continue
        colours = [colour for _, colour in slow_links(grid, e)]
        for colour in range(4):
            if colours.count(colour) >= 2:
                forbidden |= 1 << (4 * d + colour)
    return forbidden


def grid_and_frontier(state: np.ndarray) -> tuple[np.ndarray, list[int]]:
    grid = state[k.GRID : k.GRID + hx.GRID_CELLS]
    frontier = [int(i) for i in state[k.FRONTIER : k.FRONTIER + state[k.FRONTIER_COUNT]]]
    return grid, frontier


def test_facing_table_matches_the_tile_colours():
    assert hx.FACING_ONE_HOT.shape == (hx.NUM_CODES, 6)
    assert not hx.FACING_ONE_HOT[0].any()
    for tile in range(56):
        for orientation in range(6):
            for d in range(6):
                colour = TILE_EDGE_COLOURS[tile, orientation, (d + 3) % 6]
                code = hx.tile_code(tile, orientation)
                assert hx.FACING_ONE_HOT[code, d] == 1 << (4 * d + colour)


def test_code_colour_table_matches_the_tile_colours():
    for tile in range(56):
        for orientation in range(6):
            code = hx.tile_code(tile, orientation)
            assert list(k.CODE_EDGE_COLOURS[code]) == list(TILE_EDGE_COLOURS[tile, orientation])


def test_demands_and_restriction_a_match_slow_counts(positions):
    cells = 0
    for state in positions:
        grid, frontier = grid_and_frontier(state)
        demands = np.zeros(hx.GRID_CELLS, np.int64)
        for index in frontier:
            required, mask = hx.cell_demands(grid, index)
            assert (required, mask) == slow_demands(grid, index)
            demands[index] = required
        for index in frontier:
            expected = slow_forbidden(grid, index)
            assert k.forbidden_colours(grid, index) == expected
            assert k.forbidden_from_demands(grid, index, demands) == expected
            cells += 1
    assert cells > 5000


@pytest.mark.parametrize("with_forced", [True, False])
def test_space_after_equals_the_full_closure(with_forced, positions):
    """Every frontier cell (forced spaces included) of every position whose closure is legal."""
    size = hx.GRID_CELLS
    compared = treated_cells = 0
    for state in positions:
        grid, frontier = grid_and_frontier(state)
        forced = state[k.FORCED : k.FORCED + k.FORCED_CAPACITY]
        forced_count = int(state[k.FORCED_COUNT]) if with_forced else 0
        marks, extra = np.zeros(size, np.int8), np.zeros(size, np.int8)
        rank, stack = np.zeros(size, np.int32), np.zeros(size, np.int32)
        base_legal = k.board_closure(grid, forced, forced_count, marks, extra, rank, stack)
        scratch = [np.zeros(size, np.int8), np.zeros(size, np.int8)]
        lists = [np.zeros(size, np.int32), np.zeros(size, np.int32)]
        fresh = [np.zeros(size, np.int8), np.zeros(size, np.int8)]
        reference, _ = k.closure(grid, forced, forced_count, -1, *fresh, *lists)
        assert base_legal == reference
        if not base_legal:
            continue
        for index in frontier:
            expected, _ = k.closure(
                grid, forced, forced_count, index, np.zeros(size, np.int8),
                np.zeros(size, np.int8), *lists,
            )  # fmt: skip
            got = k.space_after(grid, index, marks, extra, rank, *scratch, *lists)
            assert got == expected, (GAME.to_text(state), index)
            assert not scratch[0].any() and not scratch[1].any()  # left clean for the next cell
            compared += 1
            treated_cells += marks[index] == 2
    assert compared > 5000
    if with_forced:
        assert treated_cells > 100  # forced-space fills were compared too


def test_yes_no_search_agrees_with_the_full_move_list(positions):
    """``generate`` tests the golden rule and restriction (a) two ways: tile by tile for few
    cells (a yes/no search, ``stop_at_first``, used to find the next player with a move, and
    the forced spaces) and by per-edge colour sets for a full list of free moves. Both must
    find the same first move, and a move exactly when the list is not empty, in every phase;
    the forced-space list is the full list's moves on forced spaces."""
    out = np.zeros(k.MAX_LEGAL_ACTIONS, np.int64)
    first = np.zeros(k.MAX_LEGAL_ACTIONS, np.int64)
    found = empty = 0
    for state in positions:
        count = k.generate(state, out, False, False)
        forced = {int(hx.window_cell(state[k.FORCED + i])) for i in range(state[k.FORCED_COUNT])}
        on_forced = [int(a) for a in out[:count] if int(a) // 36 in forced]
        count = k.generate(state, out, True, False)
        assert [int(a) for a in out[:count]] == on_forced, GAME.to_text(state)
        for forced_only in (True, False):
            count = k.generate(state, out, forced_only, False)
            some = k.generate(state, first, forced_only, True)
            assert some == min(count, 1), GAME.to_text(state)
            if count:
                assert first[0] == out[0]
                found += 1
            else:
                empty += 1
    assert found > 500 and empty > 50


def test_apply_and_list_lists_what_legal_actions_lists():
    """``apply_and_list`` (the vector's step and random playouts) leaves the state
    ``apply_action`` leaves and lists exactly ``legal_actions``' list when it reaches a decision,
    -1 otherwise: every move, deal and draw of seeded random games, with one reused scratch."""
    rng = np.random.default_rng(8)
    listed = np.zeros(k.MAX_LEGAL_ACTIONS, np.int64)
    legal = np.zeros(k.MAX_LEGAL_ACTIONS, np.int64)
    scratch = np.full(k.APPLY_AND_LIST_SCRATCH, -7, np.int64)  # any contents, reused
    decisions = others = 0
    for _ in range(8):
        state = GAME.initial_state()
        while k.current_player(state) != TERMINAL:
            count = k.legal_actions(state, legal)  # at a chance node: the tiles in the bag
            action = int(legal[rng.integers(count)])
            plain = state.copy()
            k.apply_action(plain, action)
            got = k.apply_and_list(state, action, listed, scratch)
            np.testing.assert_array_equal(state, plain)
            if k.current_player(plain) in (0, 1):
                count = k.legal_actions(plain, legal)
                assert got == count > 0
                np.testing.assert_array_equal(listed[:count], legal[:count])
                decisions += 1
            else:
                assert got == -1
                others += 1
    assert decisions > 300 and others > 300


def test_random_playout_plays_what_stepping_with_the_same_draws_plays():
    """``random_playout`` reuses the lists ``apply_and_list`` makes; its games must be the games
    a loop of ``legal_actions`` and ``apply_action`` plays with the same generator."""
    buffer = np.zeros(k.MAX_LEGAL_ACTIONS, np.int64)
    for seed in range(6):
        played = GAME.initial_state()
        k.random_playout(played, make_rng(seed))
        state = GAME.initial_state()
        rng = make_rng(seed)
        while k.current_player(state) != TERMINAL:
            if k.is_chance(state[k.STATUS]):
                k.apply_action(state, k.random_tile_from_bag(state, rng))
            else:
                count = k.legal_actions(state, buffer)
                k.apply_action(state, buffer[rng_below(rng, count)])
        np.testing.assert_array_equal(played, state)


def test_random_outcome_picks_the_listed_bag_tile_the_generator_points_at():
    """``random_outcome`` (the vector's chance draws) and ``random_tile_from_bag`` (playouts)
    skip listing the bag: each must return entry ``rng_below(rng, bag size)`` of
    ``chance_outcomes``' increasing list, so draws stay uniform over the bag."""
    rng = np.random.default_rng(4)
    outcomes = np.zeros(k.MAX_CHANCE_OUTCOMES, np.int64)
    probabilities = np.zeros(k.MAX_CHANCE_OUTCOMES, np.float64)
    legal = np.zeros(k.MAX_LEGAL_ACTIONS, np.int64)
    checked = 0
    for _ in range(4):
        state = GAME.initial_state()
        while k.current_player(state) != TERMINAL:
            if k.is_chance(state[k.STATUS]):
                count = k.chance_outcomes(state, outcomes, probabilities)
                for seed in range(20):
                    expected = outcomes[rng_below(make_rng(seed), count)]
                    assert k.random_outcome(state, make_rng(seed)) == expected
                    assert k.random_tile_from_bag(state, make_rng(seed)) == expected
                checked += 1
            count = k.legal_actions(state, legal)  # at a chance node: the tiles in the bag
            k.apply_action(state, int(legal[rng.integers(count)]))
    assert checked > 100


def test_a_short_scratch_is_refused(positions):
    state = positions[len(positions) // 2]
    out = np.zeros(k.MAX_LEGAL_ACTIONS, np.int64)
    with pytest.raises(ValueError, match="GENERATE_SCRATCH"):
        k.generate(state, out, False, False, np.empty(k.GENERATE_SCRATCH - 1, np.int64))
    expected = k.generate(state, out.copy(), False, False)
    assert k.generate(state, out, False, False, np.full(k.GENERATE_SCRATCH, 9)) == expected
