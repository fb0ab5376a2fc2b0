"""The Tantrix env: options, infos, observation layout against the action encoding, rendering."""

from __future__ import annotations

import numpy as np
import pytest

from mcts_envs import tantrix_v0
from mcts_envs.games.tantrix import kernels as k
from mcts_envs.games.tantrix.game import PHASE_NAMES, STATUS_NAMES
from mcts_envs.games.tantrix.hexgrid import WINDOW
from mcts_envs.games.tantrix.tiles import TILE_EDGE_COLOURS


def play(env, steps: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    for _ in zip(range(steps), env.agent_iter(), strict=False):
        observation, _, termination, truncation, _ = env.last()
        if termination or truncation:
            env.step(None)
            continue
        legal = np.flatnonzero(observation["action_mask"])
        env.step(int(legal[rng.integers(len(legal))]))


def test_options_reach_the_game():
    env = tantrix_v0.env(colors=("blue", "green"), first_player="player_0")
    env.reset(seed=1)
    game = env.unwrapped.game
    assert game.colours == (2, 3)
    assert env.agent_selection == "player_0"
    assert env.action_space("player_0").n == WINDOW * WINDOW * 36
    with pytest.raises(ValueError, match="differ"):
        tantrix_v0.env(colors=("red", "red"))


def test_infos_report_phase_scores_and_draws():
    env = tantrix_v0.env()
    env.reset(seed=2)
    info = env.infos[env.agent_selection]
    assert PHASE_NAMES[info["phase"]] in ("forced", "free") and info["bag_count"] == 44
    assert STATUS_NAMES[info["status"]] == "decide"
    assert len(env.unwrapped.chance_outcomes) == 12  # the deal
    keys = set(info)
    play(env, 10)
    info = env.infos[env.agent_selection]
    assert set(info) == keys >= {"phase", "scores", "last_drawn", "drawn_by", "bag_count"}
    assert info["scores"] == list(env.unwrapped.game.scores(env.unwrapped.game_state))
    assert 1 <= info["last_drawn"] <= 56 and info["drawn_by"] in (0, 1)
    # fixed types: every value an int or a pair of ints (what RL libraries batch)
    assert all(type(v) is int or [type(x) for x in v] == [int, int] for v in info.values())


def test_observation_cells_are_action_cells():
    env = tantrix_v0.env()
    env.reset(seed=3)
    play(env, 40, seed=3)
    agent = env.agent_selection
    observation = env.observe(agent)
    planes, mask = observation["observation"], observation["action_mask"]
    game, state = env.unwrapped.game, env.unwrapped.game_state
    occupied = planes[:, :, 24].reshape(-1)
    assert occupied.sum() == len(game.board(state))
    for move in np.flatnonzero(mask):
        cell = move // 36
        assert occupied[cell] == 0
        i, j = divmod(cell, WINDOW)
        around = [
            (i + di, j + dj) for di, dj in [(1, -1), (1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1)]
        ]
        assert any(planes[a, b, 24] for a, b in around if 0 <= a < WINDOW and 0 <= b < WINDOW)
    for q, r in game.forced_spaces(state):
        assert planes.reshape(-1, planes.shape[2])[game.cell_of_axial(state, q, r), 25] == 1
    # own colour first: each placed tile shows its colours on its edges in relative channels
    me = 0 if agent == "player_0" else 1
    (q, r), (tile, orientation) = next(iter(game.board(state).items()))
    cell = game.cell_of_axial(state, q, r)
    edges = planes.reshape(-1, planes.shape[2])[cell, :24].reshape(6, 4)
    assert edges.sum() == 6
    own = [int(state[k.COLOUR_0 + me])]
    shown = TILE_EDGE_COLOURS[tile - 1, orientation]
    for edge in range(6):
        assert (edges[edge, 0] == 1) == (shown[edge] in own)
    # features: bag flags and the on-move flag
    features = planes[:, :, 26].reshape(-1)
    bag = game.bag(state)
    assert features[k.FEATURE_BAG : k.FEATURE_BAG + 56].sum() == len(bag)
    assert features[k.FEATURE_ON_MOVE] == 1
    other = env.observe("player_1" if agent == "player_0" else "player_0")
    assert other["observation"][:, :, 26].reshape(-1)[k.FEATURE_ON_MOVE] == 0
    assert other["action_mask"].sum() == 0


def test_render_modes(tmp_path):
    env = tantrix_v0.env(render_mode="ansi")
    env.reset(seed=4)
    play(env, 20)
    text = env.render()
    assert "score" in text and "hand:" in text and "bag:" in text and "phase:" in text
    pygame = pytest.importorskip("pygame")
    env = tantrix_v0.env(render_mode="rgb_array")
    env.reset(seed=4)
    play(env, 20)
    picture = env.render()
    assert picture.dtype == np.uint8 and picture.shape == (660, 950, 3)  # the SVG board's size
    assert len(np.unique(picture.reshape(-1, 3), axis=0)) > 20
    pygame.image.save(
        pygame.surfarray.make_surface(picture.swapaxes(0, 1)), str(tmp_path / "t.png")
    )
    human = tantrix_v0.env(render_mode="human")
    human.reset(seed=4)
    play(human, 3)
    human.close()


def test_worked_example_of_the_game_card():
    game = tantrix_v0.env().unwrapped.game
    state = game.from_text(
        "colors=RY first=highest status=decide mover=0 phase=free last=- "
        "hands=1.2.3.4.5.6/7.8.9.10.11.12 board=-"
    )
    assert game.cell_of_axial(state, 0, 0) == 28 * 58 + 28 == 1652
    move = (1652 * 6 + 3) * 6 + 2
    assert move == 59492 and move in game.legal_actions(state)
    assert game.action_for(state, 0, 0, 3, 3) == move  # slot 2 holds tile 3
    two = game.from_text(
        "colors=RY first=highest status=draw mover=0 phase=free last=- hands=-/- "
        "board=0,0:1@0;1,0:2@2"
    )
    assert game.cell_of_axial(two, 1, 0) == 29 * 58 + 28 == 1710
    three = game.from_text(
        "colors=RY first=highest status=draw mover=0 phase=free last=- hands=-/- "
        "board=0,0:1@0;1,0:2@2;2,0:3@1"
    )
    assert game.cell_of_axial(three, 2, 0) == 29 * 58 + 28
    assert game.cell_of_axial(three, 0, 0) == 27 * 58 + 28
