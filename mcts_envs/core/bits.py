"""Bit tricks shared by the bitboard kernels."""

from __future__ import annotations

from numba import njit


@njit(cache=True, inline="always")
def popcount(bits):
    """The number of set bits of a non-negative int64 (a bitboard of at most 63 cells)."""
    bits = bits - ((bits >> 1) & 0x5555555555555555)
    bits = (bits & 0x3333333333333333) + ((bits >> 2) & 0x3333333333333333)
    bits = (bits + (bits >> 4)) & 0x0F0F0F0F0F0F0F0F
    bits = bits + (bits >> 8)
    bits = bits + (bits >> 16)
    bits = bits + (bits >> 32)
    return bits & 0x7F
