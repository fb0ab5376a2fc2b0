"""Bit tricks shared by the bitboard kernels: one-instruction bit counts, set-bit tables, and
bits written out as bytes (bool rows of action masks)."""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic
from numba.np.arrayobj import make_array

from mcts_envs.core.numba_cache import njit


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


def _byte_spread_table() -> np.ndarray:
    table = np.zeros(256, np.uint64)
    for pattern in range(256):
        table[pattern] = sum(1 << (8 * i) for i in range(8) if (pattern >> i) & 1)
    return table


#: ``BYTE_SPREAD[p]``: a word whose byte ``i`` is bit ``i`` of the 8-bit pattern ``p`` (0 or 1).
BYTE_SPREAD = _byte_spread_table()


@intrinsic
def store_word(typingctx, array, index, word):
    """Stores the bytes of the integer ``word`` (8, 16, 32 or 64 bits, little-endian as on the
    CPUs numba targets) at flat byte ``index`` of a writable C-contiguous array of 1-byte items
    (any shape and alignment; no bounds check: the caller keeps the word inside the array). A
    read-only array does not compile, as numba's own item stores."""
    if not (
        isinstance(array, types.Array)
        and array.mutable
        and array.layout == "C"
        and array.dtype in (types.boolean, types.uint8, types.int8)
        and isinstance(index, types.Integer)
        and isinstance(word, types.Integer)
        and word.bitwidth in (8, 16, 32, 64)
    ):
        return None

    def codegen(context, builder, signature, args):
        view = make_array(array)(context, builder, value=args[0])
        address = builder.gep(view.data, [args[1]])
        pointer = builder.bitcast(address, ir.IntType(word.bitwidth).as_pointer())
        store = builder.store(args[2], pointer)
        store.align = 1
        return context.get_dummy_value()

    return types.none(array, index, word), codegen


@njit(cache=True, inline="always")
def write_bits_as_bytes(bits, out, start):
    """``out[start + i] = bit i of bits`` for ``i < 8`` (bytes 0/1 into a contiguous bool, uint8
    or int8 row: one 8-byte store). The caller keeps ``start + 8 <= len(out)``."""
    store_word(out, start, BYTE_SPREAD[bits & 0xFF])
