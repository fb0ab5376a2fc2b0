"""Every public ``Game`` method on raw state arrays (see :mod:`tests.games.state_fuzz`).

The arrays never went through ``validate_state`` (random words, reachable states with words
changed, wrong dtypes and shapes); every call must return or raise a package error, never take
the interpreter down. The fuzzer runs in a child process, so a segfault fails the test with the
array that caused it instead of killing pytest.
"""

from __future__ import annotations

import pytest

import mcts_envs
from tests.games.fuzz_child import run_fuzzer

GAMES = mcts_envs.list_games()


def fuzz(game: str, count: int, seed: int, timeout: float) -> dict:
    """Run the fuzzer in a child process (:func:`tests.games.fuzz_child.run_fuzzer`)."""
    return run_fuzzer("tests.games.state_fuzz", game, [str(count), str(seed)], "array", timeout)


@pytest.mark.parametrize("game", GAMES)
def test_public_methods_survive_raw_state_arrays(game):
    summary = fuzz(game, count=300, seed=20261123, timeout=600)
    # accepted arrays exercise the kernels, refused ones the checks: both must occur
    assert 0.05 * 300 < summary["accepted"] < 0.95 * 300, summary
    assert summary["methods"] >= 15, summary


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
def test_public_methods_survive_raw_state_arrays_large_run(game):
    fuzz(game, count=5000, seed=7, timeout=3600)
