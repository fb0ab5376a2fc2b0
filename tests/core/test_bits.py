"""The shared bit helpers against Python's own integer arithmetic."""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit
from numba.core.errors import TypingError

from mcts_envs.core.bits import (
    lowest_bit_index,
    popcount,
    set_bit_tables,
    store_word,
    write_bits_as_bytes,
)


@njit
def _store(out, index, word, width):
    if width == 64:
        store_word(out, index, np.uint64(word))
    elif width == 32:
        store_word(out, index, np.uint32(word))
    elif width == 16:
        store_word(out, index, np.uint16(word))
    else:
        store_word(out, index, np.uint8(word))


@njit
def _spread(bits, out, start):
    write_bits_as_bytes(bits, out, start)


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


@pytest.mark.parametrize("dtype", [np.uint8, np.int8, np.bool_])
def test_store_word_writes_exactly_its_bytes_little_endian_at_any_offset(dtype):
    rng = np.random.default_rng(3)
    for width in (8, 16, 32, 64):
        for index in range(0, 13):
            word = int(rng.integers(0, 1 << 62)) & ((1 << width) - 1)
            if dtype is np.bool_:
                word &= int.from_bytes(b"\x01" * (width // 8), "little")  # bytes 0 or 1
            out = np.full(24, 1 if dtype is np.bool_ else 0x5A, np.uint8).view(dtype)
            expected = out.view(np.uint8).copy()
            expected[index : index + width // 8] = list(word.to_bytes(width // 8, "little"))
            _store(out, index, word, width)
            assert out.view(np.uint8).tolist() == expected.tolist(), (width, index)


def test_bits_written_as_bytes_are_the_low_eight_bits_in_order():
    for bits in (0, 1, 0x80, 0xA5, 0xFF, 0x1FF, 0x12345):
        for start in (0, 3, 9):
            out = np.ones(20, np.bool_)
            _spread(bits, out, start)
            expected = np.ones(20, np.bool_)
            expected[start : start + 8] = [(bits >> i) & 1 == 1 for i in range(8)]
            assert out.tolist() == expected.tolist()


def test_store_word_refuses_read_only_and_wider_items():
    read_only = np.zeros(16, np.uint8)
    read_only.flags.writeable = False
    with pytest.raises(TypingError):
        _store(read_only, 0, 1, 64)
    assert not read_only.any()
    with pytest.raises(TypingError):
        _store(np.zeros(4, np.int32), 0, 1, 64)
