"""Tantrix observation planes and the vector's in-place rewrite (``observation_update``).

The oracle is a slow observation built in Python from the game's readable views (board, hands,
bag, forced spaces, phase) and the documented layout; ``observation_update`` must turn any
observation of an earlier position of the same game (any player's view, any window placement)
into the full observation of the current one.
"""

from __future__ import annotations

import numpy as np

from mcts_envs.games.tantrix import hexgrid as hx
from mcts_envs.games.tantrix import kernels as k
from mcts_envs.games.tantrix.game import Tantrix
from mcts_envs.games.tantrix.tiles import TILE_EDGE_COLOURS
from mcts_envs.vector import (
    VectorGame,
    apply_and_list_kernel,
    observation_kernel,
    random_outcome_kernel,
)
from tests.games.tantrix_positions import decision_positions

SHAPE = (hx.WINDOW, hx.WINDOW, k.NUM_CHANNELS)


def slow_observation(game: Tantrix, state: np.ndarray, player: int) -> np.ndarray:
    """The observation from the documented layout, one entry at a time."""
    out = np.zeros(SHAPE, np.int8)
    own, opponent = game.colours[player], game.colours[1 - player]
    others = [c for c in range(4) if c not in (own, opponent)]
    rank = {own: 0, opponent: 1, others[0]: 2, others[1]: 3}

    def window(q: int, r: int) -> tuple[int, int]:
        return divmod(game.cell_of_axial(state, q, r), hx.WINDOW)

    for (q, r), (tile, orientation) in game.board(state).items():
        i, j = window(q, r)
        for d in range(6):
            out[i, j, 4 * d + rank[int(TILE_EDGE_COLOURS[tile - 1, orientation, d])]] = 1
        out[i, j, 24] = 1
    for q, r in game.forced_spaces(state):
        i, j = window(q, r)
        out[i, j, 25] = 1
    features = np.zeros(hx.WINDOW * hx.WINDOW, np.int8)
    hands = game.hands(state)
    for h, owner in enumerate((player, 1 - player)):
        for slot, tile in enumerate(hands[owner]):
            base = (h * k.HAND_SIZE + slot) * k.FEATURES_PER_SLOT
            features[base] = 1
            for d in range(6):
                features[base + 1 + 4 * d + rank[int(TILE_EDGE_COLOURS[tile - 1, 0, d])]] = 1
    features[k.FEATURE_COLOURS + own] = 1
    features[k.FEATURE_COLOURS + 4 + opponent] = 1
    for tile in game.bag(state):
        features[k.FEATURE_BAG + tile - 1] = 1
    if int(state[k.STATUS]) == k.DECIDE:
        features[k.FEATURE_PHASE + int(state[k.PHASE])] = 1
        features[k.FEATURE_ON_MOVE] = int(state[k.MOVER]) == player
    out[:, :, k.FEATURE_CHANNEL] = features.reshape(hx.WINDOW, hx.WINDOW)
    return out


def test_observation_matches_the_slow_layout():
    for colours, seed in ((("red", "yellow"), 1), (("green", "blue"), 2)):
        game = Tantrix(colors=colours)
        states = decision_positions(game, 1, seed)
        for state in [*states[::3], states[-1]]:
            for player in (0, 1):
                np.testing.assert_array_equal(
                    game.observation(state, player), slow_observation(game, state, player)
                )


def test_update_rewrites_any_earlier_observation_of_the_game():
    """From zeros and from every earlier position of the game (either player's view, before and
    after the window moved), the result is the full observation."""
    rng = np.random.default_rng(4)
    moved = 0
    for colours, seed in ((("red", "yellow"), 3), (("blue", "red"), 4), (("yellow", "green"), 5)):
        game = Tantrix(colors=colours)
        states = decision_positions(game, 1, seed)
        views = [[game.observation(state, player) for player in (0, 1)] for state in states]
        for t, state in enumerate(states):
            player = int(rng.integers(2))
            for s in range(t + 1):
                out = views[s][int(rng.integers(2))].copy()
                moved += int(states[s][k.BASE_Q] != state[k.BASE_Q])
                k.observation_update(state, player, out)
                np.testing.assert_array_equal(out, views[t][player])
            out = np.zeros(SHAPE, np.int8)
            k.observation_update(state, player, out)
            np.testing.assert_array_equal(out, views[t][player])
    assert moved > 0  # the window did recentre between compared positions


def assert_rows_are_the_positions(vg: VectorGame, batch) -> None:
    """Every env's observation row and mask equal the forward model's for its position."""
    states = vg.states
    for i in range(vg.num_envs):
        expected = vg.game.observation(states[i], int(batch.current_player[i]))
        np.testing.assert_array_equal(batch.observation[i], expected)
        np.testing.assert_array_equal(batch.legal_action_mask[i], vg.game.action_mask(states[i]))


def test_vector_rows_across_games_and_inactive_envs():
    """The vector rewrites observation rows within a game and zeroes them on a new game, and
    takes its legal actions from ``apply_and_list``: every row equals the full observation and
    the mask of its env's position, whether the env was stepped, skipped or reset."""
    num_envs = 4
    vg = VectorGame("tantrix", num_envs, seed=2, copy=False)
    assert observation_kernel(vg.game).update is k.observation_update  # the rows below use it
    assert apply_and_list_kernel(vg.game) is k.apply_and_list  # and the masks this
    assert random_outcome_kernel(vg.game) is k.random_outcome  # and the draws this
    rng = np.random.default_rng(6)
    batch = vg.reset()
    ended = 0
    for step in range(150):
        active = rng.random(num_envs) < 0.8 if step % 2 else None
        batch = vg.step(vg.random_actions(), active)
        ended += int(batch.terminated.sum())
        assert_rows_are_the_positions(vg, batch)
    assert ended > 0


def test_vector_rows_after_truncations_and_penalised_actions():
    """Games cut by ``max_moves`` and ended by an illegal action (``"penalty"``) restart with
    rows and masks of the new game (the listing buffer is not left from the old one)."""
    num_envs = 3
    vg = VectorGame("tantrix", num_envs, seed=4, max_moves=12, illegal_action="penalty")
    batch = vg.reset()
    cut = penalised = 0
    for step in range(60):
        actions = vg.random_actions()
        if step % 7 == 3:
            bad = step % num_envs
            actions[bad] = int(np.flatnonzero(~batch.legal_action_mask[bad])[0])
        batch = vg.step(actions)
        cut += int(batch.truncated.sum())
        penalised += int(batch.illegal.sum())
        assert_rows_are_the_positions(vg, batch)
    assert cut > 0 and penalised > 0
