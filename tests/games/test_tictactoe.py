"""Tic-Tac-Toe against the known facts of docs/RULES.md 1.4, all computed through the forward model."""

from __future__ import annotations

from fractions import Fraction
from functools import cache

import numpy as np
import pytest

from mcts_envs import TERMINAL, InvalidRecordError, make_game

GAME = make_game("tictactoe")


def children(state):
    return [GAME.apply(state, int(a)) for a in GAME.legal_actions(state)]


def test_5478_distinct_legal_positions():
    seen = {GAME.key(GAME.initial_state())}
    frontier = [GAME.initial_state()]
    while frontier:
        state = frontier.pop()
        for child in children(state):
            key = GAME.key(child)
            if key not in seen:
                seen.add(key)
                frontier.append(child)
    assert len(seen) == 5478


def test_255168_games_with_the_known_split():
    memo: dict[bytes, tuple[int, int, int]] = {}

    def count(state):  # (X wins, O wins, draws) over all move sequences from state
        key = GAME.key(state)
        if key not in memo:
            if GAME.current_player(state) == TERMINAL:
                x, o = GAME.returns(state)
                memo[key] = (int(x > 0), int(o > 0), int(x == 0))
            else:
                parts = [count(child) for child in children(state)]
                memo[key] = tuple(sum(p[i] for p in parts) for i in range(3))
        return memo[key]

    x_wins, o_wins, draws = count(GAME.initial_state())
    assert (x_wins, o_wins, draws) == (131184, 77904, 46080)
    assert x_wins + o_wins + draws == 255168


def test_uniform_random_play_probabilities():
    @cache
    def outcome(key):  # exact (P[X wins], P[O wins], P[draw]) under uniform random play
        state = np.frombuffer(key, dtype=np.int64).copy()
        if GAME.current_player(state) == TERMINAL:
            x, o = GAME.returns(state)
            return (Fraction(int(x > 0)), Fraction(int(o > 0)), Fraction(int(x == 0)))
        kids = children(state)
        parts = [outcome(GAME.key(child)) for child in kids]
        return tuple(sum(p[i] for p in parts) / len(kids) for i in range(3))

    x_wins, o_wins, draw = outcome(GAME.key(GAME.initial_state()))
    assert x_wins + o_wins + draw == 1
    assert round(float(x_wins), 4) == 0.5849
    assert round(float(o_wins), 4) == 0.2881
    assert round(float(draw), 4) == 0.1270


def test_compiled_playouts_match_the_exact_probabilities():
    # 20,000 playouts: standard error of P[X wins] is about 0.0035; allow 5 sigma.
    finals = [GAME.random_playout(GAME.initial_state(), seed) for seed in range(20000)]
    x_share = np.mean([GAME.returns(f)[0] > 0 for f in finals])
    assert abs(x_share - 0.5849) < 0.018


def test_perfect_play_is_a_draw():
    @cache
    def value(key):  # plain minimax value for the player to move
        state = np.frombuffer(key, dtype=np.int64).copy()
        player = GAME.current_player(state)
        if player == TERMINAL:
            return None
        best = -2.0
        for child in children(state):
            if GAME.current_player(child) == TERMINAL:
                child_value = GAME.returns(child)[player]
            else:
                child_value = -value(GAME.key(child))
            best = max(best, child_value)
        return best

    assert value(GAME.key(GAME.initial_state())) == 0.0


def test_wins_on_rows_columns_and_diagonals_end_the_game():
    for text, winner in [
        ("xxx/oo./... o", 0),
        ("x.o/xo./o.x x", 1),
        ("xo./xo./x.. o", 0),
        ("x.o/.xo/..x o", 0),
    ]:
        state = GAME.from_text(text)
        assert GAME.current_player(state) == TERMINAL
        assert GAME.returns(state)[winner] == 1.0


@pytest.mark.parametrize(
    "text, problem",
    [
        ("xxx/ooo/... x", "both"),
        ("xx./.../... x", "cannot happen"),
        ("x../.../... x", "side"),
        ("xq./.../... o", "bad character"),
        ("xx/.../... o", "3 rows"),
    ],
)
def test_impossible_positions_are_rejected(text, problem):
    with pytest.raises(InvalidRecordError, match=problem):
        GAME.from_text(text)


# ---- every reachable position against a plain-Python reference (cells: 0 empty, 1 X, 2 O) ----
REFERENCE_LINES = [
    (0, 1, 2),
    (3, 4, 5),
    (6, 7, 8),
    (0, 3, 6),
    (1, 4, 7),
    (2, 5, 8),
    (0, 4, 8),
    (2, 4, 6),
]


def reference_winner(cells):
    for a, b, c in REFERENCE_LINES:
        if cells[a] != 0 and cells[a] == cells[b] == cells[c]:
            return cells[a]
    return 0


def reference_state(cells, mover):
    """The kernels' ``int64[4]`` state of ``cells`` with ``mover`` (1 X, 2 O) to move next."""
    winner = reference_winner(cells)
    status = winner if winner else (3 if all(cells) else 0)
    x_bits = sum(1 << c for c in range(9) if cells[c] == 1)
    o_bits = sum(1 << c for c in range(9) if cells[c] == 2)
    return [x_bits, o_bits, mover - 1, status]


def test_every_reachable_position_agrees_with_the_reference():
    # Kernel outputs (state words, legal actions in order, the whole-row legal mask, both
    # viewers' planes) at all 5478 positions, reached through the forward model; the reference
    # knows only the cells.
    from mcts_envs.games.tictactoe.kernels import legal_mask

    seen = set()
    frontier = [((0,) * 9, 1)]
    while frontier:
        cells, mover = frontier.pop()
        if cells in seen:
            continue
        seen.add(cells)
        state = np.array(reference_state(cells, mover), np.int64)
        over = reference_winner(cells) != 0 or all(cells)
        empty = [] if over else [c for c in range(9) if cells[c] == 0]
        assert GAME.legal_actions(state).tolist() == empty
        mask = np.ones(9, np.bool_)  # stale entries must be overwritten
        legal_mask(state, mask)
        assert np.flatnonzero(mask).tolist() == empty
        for viewer in (0, 1):
            planes = np.zeros((3, 3, 2), np.int8)
            for c in range(9):
                planes[c // 3, c % 3, 0] = cells[c] == viewer + 1
                planes[c // 3, c % 3, 1] = cells[c] == 2 - viewer
            np.testing.assert_array_equal(GAME.observation(state, viewer), planes)
        for move in empty:
            child = tuple(mover if c == move else v for c, v in enumerate(cells))
            assert GAME.apply(state, move).tolist() == reference_state(child, 3 - mover)
            frontier.append((child, 3 - mover))
    assert len(seen) == 5478


def test_observation_kernel_writes_only_its_view_of_a_strided_array():
    from mcts_envs.games.tictactoe.kernels import observation_planes

    state = GAME.from_text("xo./.x./..o x")
    wide = np.full((3, 3, 5), 7, np.int8)
    observation_planes(state, 1, wide[:, :, 1:3])
    np.testing.assert_array_equal(wide[:, :, 1:3], GAME.observation(state, 1))
    assert (wide[:, :, [0, 3, 4]] == 7).all()
    with pytest.raises(ValueError, match=r"int8\[3, 3, 2\]"):
        observation_planes(state, 0, np.zeros((3, 3, 3), np.int8))


def test_random_action_is_the_documented_uniform_choice():
    """``random_action`` (VectorGame's draws) picks what indexing the listed legal actions with
    the same generator picks, in every reachable position and from every generator state tried."""
    from mcts_envs.core.seeding import make_rng, rng_below
    from mcts_envs.games.tictactoe import kernels as k

    keys = {GAME.key(GAME.initial_state())}
    frontier = [GAME.initial_state()]
    seen = set()
    while frontier:
        state = frontier.pop()
        if GAME.current_player(state) == TERMINAL:
            continue
        legal = GAME.legal_actions(state)
        for seed in range(4):
            choice = int(k.random_action(state, make_rng(seed)))
            assert choice == int(legal[rng_below(make_rng(seed), len(legal))])
            seen.add((len(legal), choice))
        for child in children(state):
            if GAME.key(child) not in keys:
                keys.add(GAME.key(child))
                frontier.append(child)
    assert len(keys) == 5478 and len(seen) > 30
