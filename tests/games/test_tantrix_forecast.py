"""The line-length forecast kernel against a slow pure-Python reference on seeded games.

The reference works on the public view of a position (``game.board``, ``game.hands``,
``game.bag``) in axial coordinates with the tile edge strings of ``tiles.csv``: it walks every
line itself, finds the empty cells its ends point into and counts the available tiles that fit
them by trying every orientation against every placed neighbour.
"""

from __future__ import annotations

import numpy as np
import pytest

import mcts_envs
from mcts_envs import CHANCE, TERMINAL
from mcts_envs.games.tantrix import forecast as fc
from mcts_envs.games.tantrix import kernels as k
from mcts_envs.games.tantrix.tiles import COLOUR_LETTERS, TILE_EDGES_TEXT

GAME = mcts_envs.make_game("tantrix")
#: Axial step across edges 0..5 (NE, E, SE, SW, W, NW), pointy-top hexes.
STEPS = ((1, -1), (1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1))


def edge_colour(tile_number: int, orientation: int, edge: int) -> str:
    """Colour letter at ``edge`` of tile ``tile_number`` turned ``orientation`` steps clockwise."""
    return TILE_EDGES_TEXT[tile_number - 1][(edge - orientation) % 6]


def other_end(tile_number: int, orientation: int, edge: int) -> int:
    colour = edge_colour(tile_number, orientation, edge)
    return next(
        e for e in range(6) if e != edge and edge_colour(tile_number, orientation, e) == colour
    )


def fits(board, cell, tile_number) -> bool:
    for orientation in range(6):
        ok = True
        for d, (dq, dr) in enumerate(STEPS):
            neighbour = board.get((cell[0] + dq, cell[1] + dr))
            if neighbour is not None and edge_colour(*neighbour, (d + 3) % 6) != edge_colour(
                tile_number, orientation, d
            ):
                ok = False
                break
        if ok:
            return True
    return False


def reference_lines(state, player):
    """``[(length, loop, open_ends, live_ends, fits_low, fits_high, shared_end), ...]``."""
    board = GAME.board(state)
    colour = COLOUR_LETTERS[int(state[k.COLOUR_0 + player])]
    available = GAME.bag(state) + GAME.hands(state)[player]
    seen = set()
    lines = []
    for cell, (tile, orientation) in board.items():
        edges = [e for e in range(6) if edge_colour(tile, orientation, e) == colour]
        if cell in seen or not edges:
            continue
        seen.add(cell)
        ends = []
        loop = False
        length = 1
        for out_edge in edges:
            here, edge = cell, out_edge
            while True:
                step = STEPS[edge]
                there = (here[0] + step[0], here[1] + step[1])
                if there == cell:
                    loop = True
                    break
                if there not in board:
                    ends.append(there)
                    break
                seen.add(there)
                length += 1
                entry = (edge + 3) % 6
                edge = other_end(*board[there], entry)
                here = there
            if loop:
                break
        if loop:
            lines.append((length, 1, 0, 0, 0, 0, 0))
            continue
        counts = sorted(sum(fits(board, end, t) for t in available) for end in ends)
        live = sum(count > 0 for count in counts)
        lines.append((length, 0, 2, live, counts[0], counts[1], int(ends[0] == ends[1])))
    return lines


def reference_forecast(state, player) -> float:
    unplaced = 56 - len(GAME.board(state))
    available = len(GAME.bag(state)) + len(GAME.hands(state)[player])
    best = 0.0
    for length, loop, _, _, low, high, shared in reference_lines(state, player):
        if loop:
            value = 2.0 * length
        elif available == 0:
            value = float(length)
        elif shared:
            p = low / available
            value = p * 2 * (length + 1) + (1 - p) * length
        else:
            value = length + 0.125 * unplaced * (low + high) / available
        best = max(best, value)
    return best


def seeded_positions(games=6, every=3):
    """Decision states from seeded random games (every ``every``-th decision, and the last)."""
    positions = []
    for seed in range(games):
        rng = np.random.default_rng(1000 + seed)
        state = GAME.initial_state()
        decisions = 0
        while GAME.current_player(state) != TERMINAL:
            if GAME.current_player(state) == CHANCE:
                outcomes, probabilities = GAME.chance_outcomes(state)
                state = GAME.apply(state, int(rng.choice(outcomes, p=probabilities)))
                continue
            if decisions % every == 0:
                positions.append(state.copy())
            legal = GAME.legal_actions(state)
            state = GAME.apply(state, int(legal[rng.integers(len(legal))]))
            decisions += 1
        positions.append(state.copy())
    return positions


@pytest.fixture(scope="module")
def positions():
    """The seeded positions, played when the first test needs them (not at collection: playing
    compiles Tantrix's kernels)."""
    return seeded_positions()


def test_positions_cover_loops_dead_ends_and_shared_ends(positions):
    rows = [row for s in positions for p in (0, 1) for row in reference_lines(s, p)]
    assert any(row[1] for row in rows), "no loop in the sample"
    assert any(row[2] == 2 and row[3] < 2 for row in rows), "no dead end in the sample"
    assert any(row[0] >= 8 for row in rows)


@pytest.mark.parametrize("player", [0, 1])
def test_line_features_match_the_reference(player, positions):
    rows = np.empty((fc.MAX_LINES, fc.NUM_FEATURES), np.int64)
    for state in positions:
        count = fc.line_features(state, player, rows)
        ours = sorted(tuple(int(v) for v in row) for row in rows[:count])
        assert ours == sorted(reference_lines(state, player)), GAME.to_text(state)


def test_forecast_and_evaluation_match_the_reference(positions):
    for state in positions:
        expected = [reference_forecast(state, p) for p in (0, 1)]
        for player in (0, 1):
            assert fc.forecast(state, player) == pytest.approx(expected[player], abs=1e-9)
            assert fc.forecast_evaluation(state, player) == pytest.approx(
                expected[player] - expected[1 - player], abs=1e-9
            )


def test_a_finished_board_forecasts_its_score(positions):
    """With nothing left to place, the forecast is the best line's score (loops doubled)."""
    finished = [s for s in positions if int(s[k.STATUS]) == k.FINISHED]
    assert finished
    for state in finished:
        scores = GAME.scores(state)
        for player in (0, 1):
            assert fc.forecast(state, player) == scores[player]
