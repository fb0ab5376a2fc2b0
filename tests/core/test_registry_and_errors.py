"""Registry lookups, error messages for bad names and seeds, and the layering rule."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import mcts_envs
from mcts_envs.core.seeding import check_seed, make_rng, rng_below, rng_uniform


def test_make_accepts_game_and_env_names():
    for name in mcts_envs.list_games():
        env = mcts_envs.make(name)
        assert env.unwrapped.game.info.name == name
        assert mcts_envs.make(f"{name}_v0").unwrapped.game.info.name == name


def test_unknown_game_names_the_known_ones():
    with pytest.raises(mcts_envs.UnknownGameError) as error:
        mcts_envs.make("tictactoo")
    message = str(error.value)
    assert "tictactoo" in message and "tictactoe" in message and "did you mean" in message
    with pytest.raises(KeyError):  # also a KeyError for generic handlers
        mcts_envs.make_game("chess")


def test_pettingzoo_registry_builds_our_envs():
    import pettingzoo

    for name in mcts_envs.list_games():
        env = pettingzoo.make("aec", f"mcts_envs/{name}-v0")
        env.reset(seed=0)
        assert env.unwrapped.game.info.name == name


@pytest.mark.parametrize("seed", [1.5, "7", True, -1, [3]])
def test_bad_seeds_are_rejected(seed):
    with pytest.raises(mcts_envs.InvalidSeedError):
        check_seed(seed)
    env = mcts_envs.make("tictactoe")
    with pytest.raises(mcts_envs.InvalidSeedError):
        env.reset(seed=seed)
    env.reset(seed=0)  # still usable
    assert env.agent_selection == "player_0"


def test_kernel_rng_is_reproducible_and_uniform():
    first, second = make_rng(5), make_rng(5)
    draws = [rng_below(first, 10) for _ in range(20000)]
    assert draws[:50] == [rng_below(second, 10) for _ in range(50)]
    counts = np.bincount(draws, minlength=10)
    # chi-square with 9 degrees of freedom: 27.9 is the 0.999 quantile
    expected = len(draws) / 10
    assert ((counts - expected) ** 2 / expected).sum() < 27.9
    u = np.array([rng_uniform(first) for _ in range(1000)])
    assert u.min() >= 0.0 and u.max() < 1.0


def test_importing_mcts_envs_does_not_import_agents():
    code = "import sys, mcts_envs; print('mcts_envs.agents' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
