"""The self-play PPO example on ``VectorGame``: its reward and turn bookkeeping, and tiny real runs."""

from __future__ import annotations

import json

import numpy as np
import pytest

from mcts_envs.agents import spec as spec_module
from tests.examples.loading import load_example

pytest.importorskip("torch")


@pytest.fixture(scope="module")
def example():
    module = load_example("selfplay_ppo_vector")
    yield module
    spec_module.AGENT_KINDS.pop(module.AGENT_KIND, None)  # leave the registry as found
    spec_module._REGISTERED_CLASSES.pop(module.AGENT_KIND, None)


def test_each_player_gets_its_reward_on_its_own_last_move_when_turns_repeat(example):
    """A Tantrix-like game in env 0: players 0, 0, 1, 1, 0 move, then player 0's move ends it
    (+1 / -1); a new game starts at step 5. Env 1: alternating moves, no end. Each decision
    links to the same player's next one; the loser's -1 lands on the loser's own last move (step
    3, two steps before the end), not on the winner's final step."""
    chains = example.SeatChains(6, 2)
    players = np.array([[0, 0], [0, 1], [1, 0], [1, 1], [0, 0], [0, 1]])
    for t in range(6):
        chains.decide(t, players[t])
        ended = np.array([t == 4, False])
        chains.finish(ended, np.array([[1.0, -1.0], [0.0, 0.0]], np.float32))
    over, open_ = example.GAME_OVER, example.OPEN
    np.testing.assert_array_equal(chains.successor[:, 0], [1, 4, 3, over, over, open_])
    np.testing.assert_array_equal(chains.rewards[:, 0], [0, 0, 0, -1, 1, 0])
    np.testing.assert_array_equal(chains.successor[:, 1], [2, 3, 4, 5, open_, open_])
    assert not chains.rewards[:, 1].any()
    # Monte Carlo returns (gamma = lambda = 1, zero values) follow each player's chain; open
    # decisions take the bootstrap value of their player.
    bootstrap = np.array([[0.5, -0.5], [0.25, -0.25]], np.float32)
    values = np.zeros((6, 2), np.float32)
    returns = example.advantages(chains, values, players, bootstrap, 1.0, 1.0)
    np.testing.assert_allclose(returns[:, 0], [1, 1, -1, -1, 1, 0.5])
    np.testing.assert_allclose(returns[:, 1], [0.25, -0.25, 0.25, -0.25, 0.25, -0.25])


def test_tiny_tictactoe_run_checks_exactly_and_plays_the_arena(example, tmp_path):
    figures = example.main(
        ["--updates", "2", "--envs", "8", "--n-steps", "8", "--hidden", "16", "--eval-every",
         "1", "--eval-games", "2", "--out", str(tmp_path), "--quiet"]
    )  # fmt: skip
    assert figures["updates"] == 2 and figures["steps"] == 2 * 8 * 8
    assert [check["update"] for check in figures["checks"]] == [1, 2]
    for outcome in figures["exact"]:
        assert outcome["win"] + outcome["draw"] + outcome["loss"] == pytest.approx(1.0)
    match = figures["match"]
    assert match.a.games == 2 and {r["seat_a"] for r in match.records} == {0, 1}
    low, high = match.a.score_interval()
    assert figures["score"] == {"score": match.a.score, "low": low, "high": high}
    saved = json.loads((tmp_path / "results.json").read_text())
    assert saved["match"]["wins"] + saved["match"]["draws"] + saved["match"]["losses"] == 2
    assert saved["load_average"] and (tmp_path / "model.pt").exists()


def test_tiny_tantrix_run_where_players_move_several_times_in_a_row(example, tmp_path):
    figures = example.main(
        ["--game", "tantrix", "--updates", "1", "--envs", "2", "--n-steps", "6", "--hidden", "4",
         "--eval-games", "0", "--random-share", "0.5", "--out", str(tmp_path), "--quiet"]
    )  # fmt: skip
    assert figures["updates"] == 1 and figures["steps"] == 12


def test_portable_math_applies_in_a_fresh_process_and_is_recorded(example, tmp_path):
    """``--portable-math`` sets torch's kernel level and MKL's reproducibility mode before torch
    loads; in a process where torch is already loaded it refuses rather than run unpinned."""
    import os
    import subprocess
    import sys

    if example.math_settings()["cpu_capability"] != "DEFAULT":
        with pytest.raises(SystemExit, match="before the settings could apply"):
            example.main(["--portable-math", "--updates", "1", "--out", str(tmp_path)])
    script = example.__file__
    done = subprocess.run(
        [sys.executable, script, "--portable-math", "--updates", "1", "--envs", "4",
         "--n-steps", "4", "--hidden", "8", "--eval-every", "5", "--eval-games", "0",
         "--out", str(tmp_path / "run"), "--quiet"],
        capture_output=True, text=True, timeout=900,
        env={k: v for k, v in os.environ.items() if k not in example.PORTABLE_MATH},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    saved = json.loads((tmp_path / "run" / "results.json").read_text())
    assert saved["math"] == {"cpu_capability": "DEFAULT", "MKL_CBWR": "COMPATIBLE"}
