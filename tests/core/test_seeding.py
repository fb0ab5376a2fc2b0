"""The kernel generator's seeding: NumPy's SeedSequence, bit for bit, and clear errors."""

from __future__ import annotations

import numpy as np
import pytest

from mcts_envs.core.errors import InvalidSeedError
from mcts_envs.core.seeding import make_rng


def seed_sequence_word(seed: int) -> int:
    return int(np.random.SeedSequence(seed).generate_state(1, dtype=np.uint64)[0])


def test_make_rng_is_numpy_seed_sequence_on_edges_and_random_seeds():
    rng = np.random.default_rng(0)
    seeds = [0, 1, 2**31, 2**32 - 1, 2**32, 2**32 + 1, 2**63 - 1, 2**63, 2**64 - 1]
    seeds += [int(s) for s in rng.integers(0, 2**63, 500)]
    shifts = zip(rng.integers(0, 2**63, 200), rng.integers(0, 63, 200), strict=True)
    seeds += [int(s) >> int(k) for s, k in shifts]
    seeds += [2**64, 2**64 + 12345, 3**90]  # beyond 64 bits: NumPy's own path
    for seed in seeds:
        state = make_rng(seed)
        assert state.dtype == np.uint64 and state.shape == (1,)
        assert int(state[0]) == seed_sequence_word(seed), seed


def test_make_rng_takes_numpy_integers_and_rejects_bad_seeds():
    assert int(make_rng(np.int64(7))[0]) == seed_sequence_word(7)
    assert int(make_rng(np.uint64(2**64 - 1))[0]) == seed_sequence_word(2**64 - 1)
    for bad in (-1, 1.5, "3", True, None):
        with pytest.raises(InvalidSeedError):
            make_rng(bad)
