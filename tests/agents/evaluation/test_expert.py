"""Expert datasets: contents replayed through the forward model, worker-count independence,
symmetry images, opponent mode, the CLI and the temperature schedule."""

from __future__ import annotations

import io

import numpy as np
import pytest

import mcts_envs
from mcts_envs.agents.evaluation.expert import (
    ExpertConfig,
    generate_expert_data,
    load_expert_data,
    save_expert_data,
)
from mcts_envs.agents.frontends.cli import main
from mcts_envs.agents.temperature import alphazero_temperature, apply_temperature, sample_action
from mcts_envs.core.errors import InvalidOptionError
from mcts_envs.core.symmetry import game_symmetries


def _replay_and_check(data, game):
    """Every game's rows follow from replaying its recorded actions (self-play, no chance)."""
    for index in np.unique(data["game_index"]):
        rows = np.flatnonzero((data["game_index"] == index) & (data["symmetry"] == 0))
        assert data["ply"][rows].tolist() == list(range(len(rows)))
        state = game.initial_state()
        for row in rows:
            player = game.current_player(state)
            assert data["players"][row] == player
            assert np.array_equal(data["observations"][row], game.observation(state, player))
            assert np.array_equal(data["masks"][row], game.action_mask(state))
            assert data["masks"][row][data["actions"][row]] == 1
            assert data["policies"][row].sum() == pytest.approx(1.0, abs=1e-5)
            state = game.apply(state, int(data["actions"][row]))
        assert game.is_terminal(state)
        returns = game.returns(state)
        for row in rows:
            assert data["outcomes"][row] == returns[data["players"][row]]


def test_self_play_rows_replay_and_carry_exact_values():
    game = mcts_envs.make_game("tictactoe")
    data = generate_expert_data(
        ExpertConfig("tictactoe", "perfect", 6, seed=2, temperature_moves=3)
    )
    _replay_and_check(data, game)
    assert str(data["game"]) == "tictactoe" and str(data["opponent"]) == ""
    # perfect self-play draws; its values are the exact values (0 everywhere on the drawn line)
    assert np.all(data["outcomes"] == 0) and np.all(data["values"] == 0)
    assert sorted(set(data["game_index"].tolist())) == list(range(6))


def test_same_seed_same_data_for_any_number_of_workers():
    config = ExpertConfig("tictactoe", "perfect", 5, seed=7, temperature_moves=4)
    one = generate_expert_data(config, workers=1)
    two = generate_expert_data(config, workers=2)
    assert set(one) == set(two)
    for name in one:
        assert np.array_equal(one[name], two[name]), name
    other = generate_expert_data(config._replace(seed=8))
    assert not np.array_equal(one["actions"], other["actions"])


def test_mcts_visit_distributions_are_recorded():
    game = mcts_envs.make_game("tictactoe")
    data = generate_expert_data(ExpertConfig("tictactoe", "mcts:iterations=300", 2, seed=1))
    _replay_and_check(data, game)
    first = data["policies"][0]
    assert (first > 0).sum() > 1  # a visit distribution, not a one-hot
    assert np.all(np.abs(data["values"]) <= 1)


def test_symmetry_images_follow_each_decision():
    data = generate_expert_data(
        ExpertConfig("ultimate_tictactoe", "random", 1, seed=3, symmetries=True, max_moves=12)
    )
    symmetries = game_symmetries("ultimate_tictactoe")
    assert len(data["actions"]) == 12 * 8
    assert data["symmetry"][:8].tolist() == list(range(8))
    assert list(data["symmetry_names"]) == list(symmetries.names)
    for base in range(0, len(data["actions"]), 8):
        for symmetry in range(8):
            row = base + symmetry
            assert data["ply"][row] == data["ply"][base]
            assert np.array_equal(
                data["policies"][row], symmetries.transform_vector(symmetry, data["policies"][base])
            )
            assert np.array_equal(
                data["observations"][row],
                symmetries.transform_observation(symmetry, data["observations"][base]),
            )
            assert data["masks"][row][data["actions"][row]] == 1
            assert data["actions"][row] == symmetries.transform_action(
                symmetry, data["actions"][base]
            )
    assert not np.any(data["finished"])  # cut by max_moves: outcomes are 0
    assert np.all(data["outcomes"] == 0)


def test_opponent_mode_records_only_the_expert_seat():
    data = generate_expert_data(ExpertConfig("tictactoe", "perfect", 4, seed=0, opponent="random"))
    for index in range(4):
        rows = data["game_index"] == index
        assert set(data["players"][rows].tolist()) == {index % 2}
    assert np.all(data["outcomes"] >= 0)  # perfect never loses
    assert str(data["opponent"]) == "random"


def test_chance_game_records_decisions_and_hex_rotations():
    data = generate_expert_data(
        ExpertConfig("tantrix", "random", 1, seed=0, max_moves=5, symmetries=True)
    )
    assert len(data["actions"]) == 5 * 6
    assert np.all(data["masks"][np.arange(30), data["actions"]] == 1)
    assert data["observations"].shape[1:] == mcts_envs.make_game("tantrix").info.observation_shape


def test_bad_configs_are_refused_before_playing():
    with pytest.raises(InvalidOptionError, match="games must be"):
        generate_expert_data(ExpertConfig("tictactoe", "random", 0))
    with pytest.raises(InvalidOptionError, match="unknown agent"):
        generate_expert_data(ExpertConfig("tictactoe", "mtcs", 1))


def test_cli_writes_a_numpy_file_and_refuses_to_overwrite(tmp_path, capsys):
    path = tmp_path / "data.npz"
    argv = ["expert", "tictactoe", "perfect", "--games", "3", "--out", str(path), "--symmetries"]
    out = io.StringIO()
    assert main([*argv, "--no-progress"], out=out) == 0
    assert "wrote" in out.getvalue() and path.exists()
    with np.load(path) as raw:  # plain numpy, no pickle
        assert raw["policies"].shape[1] == 9 and len(raw["symmetry_names"]) == 8
    assert load_expert_data(path)["format_version"] == 1
    before = path.read_bytes()
    assert main([*argv, "--no-progress"], out=io.StringIO()) == 2
    assert "exists" in capsys.readouterr().err
    assert path.read_bytes() == before
    bad = tmp_path / "bad.npz"
    assert main(["expert", "tictactoe", "mcts:iters=3", "--games", "1", "--out", str(bad)]) == 2
    assert not bad.exists()


def test_save_and_load_round_trip(tmp_path):
    data = generate_expert_data(ExpertConfig("tictactoe", "perfect", 1, seed=0))
    save_expert_data(tmp_path / "d.npz", data)
    loaded = load_expert_data(tmp_path / "d.npz")
    for name in data:
        assert np.array_equal(loaded[name], data[name])


def test_temperature_schedule_and_sampling():
    assert alphazero_temperature(0, 2) == 1.0 and alphazero_temperature(2, 2) == 0.0
    probs = np.array([0.1, 0.4, 0.4, 0.1, 0.0])
    assert np.allclose(apply_temperature(probs, 0), [0, 0.5, 0.5, 0, 0])
    assert np.allclose(apply_temperature(probs, 1), probs)
    squared = probs**2 / (probs**2).sum()
    assert np.allclose(apply_temperature(probs, 0.5), squared)
    assert np.allclose(apply_temperature(probs, 1e-4), [0, 0.5, 0.5, 0, 0])  # no underflow
    generator = np.random.default_rng(0)
    draws = np.bincount([sample_action(probs, 1.0, generator) for _ in range(4000)], minlength=5)
    assert draws[4] == 0 and abs(draws[1] / 4000 - 0.4) < 0.04
    with pytest.raises(InvalidOptionError):
        apply_temperature(probs, -1)


@pytest.mark.slow
def test_mcts_datasets_match_across_workers_on_ultimate_tictactoe():
    config = ExpertConfig(
        "ultimate_tictactoe", "mcts:iterations=200", 4, seed=5, temperature_moves=6, symmetries=True
    )
    one = generate_expert_data(config, workers=1)
    two = generate_expert_data(config, workers=2)
    for name in one:
        assert np.array_equal(one[name], two[name]), name


def test_the_default_temperature_gives_distinct_games_and_the_command_counts_them(tmp_path):
    """The README's command: with the default temperature, 50 self-play games of a strong expert
    are mostly different games (greedy, only the search's seeds vary them)."""
    path = tmp_path / "data.npz"
    out = io.StringIO()
    argv = ["expert", "tictactoe", "mcts:iterations=400", "--games", "50", "--out", str(path)]
    assert main([*argv, "--no-progress"], out=out) == 0
    games, distinct, decisions, positions = np.load(path)["summary"]
    assert games == 50 and distinct >= 25 and positions > 100
    assert f"{distinct} distinct games of 50" in out.getvalue()
    greedy = generate_expert_data(
        ExpertConfig("tictactoe", "mcts:iterations=400", 50, 0, None, False, 0)
    )
    assert greedy["summary"][1] < distinct / 2


@pytest.mark.parametrize("game", ["tictactoe", "tantrix"])
def test_the_recorder_follows_the_game_once_and_counts_decisions_as_plies(game):
    from mcts_envs.agents.evaluation.expert import ExpertConfig, RecordingExpert, play_recorded_game
    from mcts_envs.agents.evaluation.games import GameRules
    from mcts_envs.agents.evaluation.plan import plan_match

    config = ExpertConfig(game, "mcts:iterations=8", 1, seed=2, opponent="random", max_moves=10)
    rules = GameRules(game)
    task = plan_match(rules, config.spec, config.opponent, 1, config.seed).tasks[0]
    record, recorder = play_recorded_game(config, task, rules, RecordingExpert)
    assert [move.action for move in recorder.history.moves] == record["actions"]
    assert recorder.ply == len(record["actions"]) - len(record["chance"])
    assert recorder.rows["ply"] and recorder.rows["ply"] == sorted(set(recorder.rows["ply"]))
