"""The shared bit helpers against Python's own integer arithmetic."""

from __future__ import annotations

import numpy as np

from mcts_envs.core.bits import lowest_bit_index, popcount, set_bit_tables


def test_popcount_and_lowest_bit_index_match_python_integers():
    rng = np.random.default_rng(5)
    words = [0, 1, 1 << 62, (1 << 63) - 1, *rng.integers(0, 1 << 62, size=500).tolist()]
    words += [1 << i for i in range(63)]
    for word in words:
        assert popcount(word) == bin(word).count("1")
        expected = (word & -word).bit_length() - 1 if word else 64
        assert lowest_bit_index(word) == expected


def test_set_bit_tables_list_each_patterns_bits_in_order():
    count, nth = set_bit_tables(6)
    assert count.shape == (64,) and nth.shape == (64, 6)
    for pattern in range(64):
        listed = nth[pattern, : count[pattern]].tolist()
        assert listed == sorted(set(listed))  # increasing, no repeats
        assert sum(1 << i for i in listed) == pattern  # exactly the pattern's bits
        assert not nth[pattern, count[pattern] :].any()
