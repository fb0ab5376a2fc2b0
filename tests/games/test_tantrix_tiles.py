"""Tantrix tile set facts and the board window bound (docs/RULES.md 5.1-5.2, 5.16)."""

from __future__ import annotations

import csv
import io
from collections import Counter
from importlib import resources

import numpy as np
import pytest

from mcts_envs.games.tantrix import hexgrid as hx
from mcts_envs.games.tantrix import kernels as k
from mcts_envs.games.tantrix.game import Tantrix
from mcts_envs.games.tantrix.tiles import TILE_EDGE_COLOURS, TILE_ONE_HOT, TILE_PATH_PARTNER

LETTERS = "RYBG"
STEPS = [(1, -1), (1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1)]


def csv_edges() -> list[str]:
    text = resources.files("mcts_envs.games.tantrix").joinpath("tiles.csv").read_text("utf-8")
    return [row["edges"] for row in csv.DictReader(io.StringIO(text))]


def rotations(edges: str) -> list[str]:
    """Orientation k shows ``edges[(i - k) % 6]`` at edge i."""
    return ["".join(edges[(i - turn) % 6] for i in range(6)) for turn in range(6)]


def test_56_tiles_distinct_up_to_rotation():
    edges = csv_edges()
    assert len(edges) == 56
    canonical = [min(rotations(e)) for e in edges]
    assert len(set(canonical)) == 56
    assert canonical == edges  # each written in its alphabetically smallest rotation


def test_three_colours_each_on_exactly_two_edges():
    for edges in csv_edges():
        counts = Counter(edges)
        assert len(counts) == 3 and set(counts.values()) == {2}, edges


def test_fourteen_tiles_per_colour_set():
    sets = Counter(frozenset(edges) for edges in csv_edges())
    assert len(sets) == 4 and set(sets.values()) == {14}


def test_six_distinct_orientations_each():
    for edges in csv_edges():
        assert len(set(rotations(edges))) == 6, edges


def test_tables_match_the_csv():
    for tile, edges in enumerate(csv_edges()):
        for turn, shown in enumerate(rotations(edges)):
            assert "".join(LETTERS[c] for c in TILE_EDGE_COLOURS[tile, turn]) == shown
            word = sum(1 << (4 * i + LETTERS.index(shown[i])) for i in range(6))
            assert TILE_ONE_HOT[tile, turn] == word
            for i in range(6):
                j = TILE_PATH_PARTNER[tile, turn, i]
                assert j != i and shown[j] == shown[i]


def chain_of_all_tiles(direction: int) -> list[tuple[int, int]]:
    """All 56 tiles as ``(tile, orientation)`` so consecutive tiles match across ``direction``."""
    edges = csv_edges()
    back = (direction + 3) % 6
    options = {
        tile: [(turn, rot[back], rot[direction]) for turn, rot in enumerate(rotations(e))]
        for tile, e in enumerate(edges)
    }
    used = [False] * 56
    chain: list[tuple[int, int]] = []

    def extend(colour: str | None) -> bool:
        if len(chain) == 56:
            return True
        for tile in range(56):
            if used[tile]:
                continue
            for turn, entry, exit_colour in options[tile]:
                if colour is None or entry == colour:
                    used[tile] = True
                    chain.append((tile, turn))
                    if extend(exit_colour):
                        return True
                    chain.pop()
                    used[tile] = False
        return False

    assert extend(None)
    return chain


@pytest.mark.parametrize("direction", [0, 1, 2])
def test_straight_line_of_all_56_tiles_never_clips(direction):
    game = Tantrix()
    chain = chain_of_all_tiles(direction)
    dq, dr = STEPS[direction]
    cells = [(dq * i, dr * i) for i in range(56)]
    board = ";".join(f"{q},{r}:{t + 1}@{o}" for (q, r), (t, o) in zip(cells, chain, strict=True))
    # 55 tiles on the board, the last in player_1's hand: the bag is empty (endgame).
    last_tile = chain[-1][0] + 1
    text55 = (
        "colors=RY first=highest status=decide mover=1 phase=free last=- "
        f"hands=-/{last_tile} board={board.rsplit(';', 1)[0]}"
    )
    state = game.from_text(text55)
    assert len(game.board(state)) == 55
    action = game.action_for(state, *cells[-1], last_tile, chain[-1][1])
    assert action in game.legal_actions(state)
    # the far end of the line is in the window too (a window cell on the edge of the window)
    end_cells = {cells[-1], (-dq, -dr)}
    legal_cells = {game.axial_of_cell(state, a // 36) for a in game.legal_actions(state)}
    assert cells[-1] in legal_cells
    for q, r in end_cells:
        game.cell_of_axial(state, q, r)  # raises if outside the window
    final = game.apply(state, action)
    assert int(final[k.STATUS]) == k.FINISHED
    assert game.board(final) == {c: (t + 1, o) for c, (t, o) in zip(cells, chain, strict=True)}
    planes = game.observation(final, 0)
    assert planes[:, :, 24].sum() == 56
    frontier = [int(final[k.FRONTIER + i]) for i in range(int(final[k.FRONTIER_COUNT]))]
    assert len(frontier) == 2 * 56 + 4  # two rows of 56 plus one cell beyond each end
    window = {hx.window_cell(i) for i in frontier}
    assert all(0 <= c < hx.NUM_WINDOW_CELLS for c in window) and len(window) == len(frontier)
    rows = [c // hx.WINDOW for c in window]
    columns = [c % hx.WINDOW for c in window]
    if direction == 0:  # north-east: the bound is tight in both coordinates
        assert (min(rows), max(rows), min(columns), max(columns)) == (0, 57, 0, 57)
    assert np.all(np.asarray(rows) >= 0) and max(rows) <= 57 and max(columns) <= 57
