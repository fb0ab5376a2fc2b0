"""Every public ``Game`` and ``VectorGame`` method on raw state arrays (see
:mod:`tests.games.state_fuzz`).

The arrays never went through ``validate_state`` (random words, reachable states with words
changed, wrong dtypes and shapes); every call must return or raise a package error, never take
the interpreter down. The fuzzer runs in a child process, so a segfault fails the test with the
array that caused it instead of killing pytest.
"""

from __future__ import annotations

import subprocess
import sys

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
    # VectorGame.observe and set_states were called, and returned on accepted arrays
    assert set(summary["vector_methods"]) >= {"observe", "set_states"}, summary
    assert all(count >= 5 for count in summary["vector_methods"].values()), summary


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
def test_public_methods_survive_raw_state_arrays_large_run(game):
    fuzz(game, count=5000, seed=7, timeout=3600)


REPRO = """
import numpy as np
from mcts_envs import make_game
from mcts_envs.core.errors import InvalidStateError
from mcts_envs.vector import VectorGame

for name in {games!r}:
    size = make_game(name).info.state_size
    try:
        VectorGame(name, 1).observe(0, np.full((1, size), 10**6, np.int64))
    except InvalidStateError as error:
        assert str(error).startswith("states[0]: " + name), error
    else:
        raise SystemExit(name + ": observe accepted words of 10**6")
print("refused")
"""


def test_vector_observe_refuses_words_out_of_range_in_every_game():
    """Issue 39's repro: ``observe`` of a state of words 10**6 segfaulted on Tantrix and
    returned garbage elsewhere; now each game names the row (run in a child process)."""
    result = subprocess.run(
        [sys.executable, "-c", REPRO.format(games=GAMES)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0 and result.stdout.strip() == "refused", result.stderr[-2000:]
