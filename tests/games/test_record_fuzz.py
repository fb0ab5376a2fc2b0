"""Every game's text records under a structure-aware fuzzer (see :mod:`tests.games.record_fuzz`).

Each record is either rejected with ``InvalidRecordError`` (short message) or accepted and then
survives seeded random playouts and a checked ``apply`` loop with every invariant holding. The
fuzzer runs in a child process, so a kernel that crashes (segfault) fails the test with the record
that crashed it instead of killing pytest.
"""

from __future__ import annotations

import pytest

import mcts_envs
from tests.games.fuzz_child import run_fuzzer

GAMES = mcts_envs.list_games()


def fuzz(game: str, count: int, seed: int, step_checked: int, timeout: float) -> dict:
    """Run the fuzzer in a child process (:func:`tests.games.fuzz_child.run_fuzzer`)."""
    return run_fuzzer(
        "tests.games.record_fuzz",
        game,
        [str(count), str(seed), str(step_checked)],
        "record",
        timeout,
    )


@pytest.mark.parametrize("game", GAMES)
def test_fuzzed_records_are_rejected_cleanly_or_play_safely(game):
    summary = fuzz(game, count=500, seed=20261122, step_checked=15, timeout=300)
    # the mix must exercise both outcomes: a fuzzer that only produced garbage would prove little
    assert 0.1 * 500 < summary["accepted"] < 0.9 * 500, summary


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_fuzzed_records_large_run(game, seed):
    fuzz(game, count=5000, seed=seed, step_checked=200, timeout=3600)
