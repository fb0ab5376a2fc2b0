"""Bit tricks shared by the bitboard kernels: one-instruction bit counts and set-bit tables."""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic


@intrinsic
def _count_ones(typingctx, bits):
    """LLVM's ``ctpop`` (one ``popcnt`` instruction where the CPU has it)."""
    if not isinstance(bits, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return bits(bits), codegen


@intrinsic
def _count_trailing_zeros(typingctx, bits):
    """LLVM's ``cttz`` (one ``tzcnt``/``bsf`` instruction): the width for 0."""
    if not isinstance(bits, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 0))

    return bits(bits), codegen


@njit(cache=True, inline="always")
def popcount(bits):
    """The number of set bits of an int64 bitboard."""
    return _count_ones(np.int64(bits))


@njit(cache=True, inline="always")
def lowest_bit_index(bits):
    """The index of the lowest set bit of an int64 bitboard (64 for an empty one)."""
    return _count_trailing_zeros(np.int64(bits))


def set_bit_tables(width: int) -> tuple[np.ndarray, np.ndarray]:
    """``(count, nth)`` for every ``width``-bit pattern: ``count[p]`` its set bits and ``nth[p,
    k]`` the index of its k-th lowest set bit (0 past ``count[p]``); int64, built at import."""
    count = np.zeros(1 << width, np.int64)
    nth = np.zeros((1 << width, width), np.int64)
    for pattern in range(1 << width):
        indices = [i for i in range(width) if (pattern >> i) & 1]
        count[pattern] = len(indices)
        nth[pattern, : len(indices)] = indices
    return count, nth
