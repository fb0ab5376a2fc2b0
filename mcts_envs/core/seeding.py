"""Seed validation and the compiled random-number generator used inside kernels.

Kernels never touch NumPy's or numba's global random state: they take an explicit generator
state, a ``uint64[1]`` array advanced by SplitMix64, so a playout reproduces from its seed.
"""

from __future__ import annotations

import numbers

import numpy as np
from numba import njit

from mcts_envs.core.errors import InvalidSeedError

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_TO_UNIT = 1.0 / 9007199254740992.0  # 2**-53


def check_seed(seed: object, *, allow_none: bool = True) -> int | None:
    """Return ``seed`` as a Python int, or raise :class:`InvalidSeedError`.

    Allowed: ``None`` (when ``allow_none``) or a non-negative integer (``int`` or NumPy integer,
    not ``bool``).
    """
    if seed is None and allow_none:
        return None
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        allowed = "None or a non-negative int" if allow_none else "a non-negative int"
        raise InvalidSeedError(
            f"seed must be {allowed}, got {seed!r} of type {type(seed).__name__}"
        )
    if seed < 0:
        raise InvalidSeedError(f"seed must be non-negative, got {seed}")
    return int(seed)


def make_rng(seed: int) -> np.ndarray:
    """Return a kernel generator state (``uint64[1]``) derived from a non-negative int ``seed``.

    Raises:
        InvalidSeedError: if ``seed`` is not a non-negative integer.
    """
    seed = check_seed(seed, allow_none=False)
    word = np.random.SeedSequence(seed).generate_state(1, dtype=np.uint64)
    return np.asarray(word, dtype=np.uint64)


def rng_from_generator(generator: np.random.Generator) -> np.ndarray:
    """Return a kernel generator state drawn from a NumPy ``Generator`` (advances it)."""
    return generator.integers(0, 2**63, size=1, dtype=np.int64).astype(np.uint64)


@njit(cache=True, inline="always")
def rng_next(rng: np.ndarray) -> np.uint64:
    """Advance ``rng`` (uint64[1]) and return 64 random bits (SplitMix64)."""
    rng[0] += _GOLDEN
    z = rng[0]
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    return z ^ (z >> np.uint64(31))


@njit(cache=True, inline="always")
def rng_uniform(rng: np.ndarray) -> float:
    """Return a float uniform in [0, 1) and advance ``rng``."""
    return np.float64(rng_next(rng) >> np.uint64(11)) * _TO_UNIT


@njit(cache=True, inline="always")
def rng_below(rng: np.ndarray, n: int) -> int:
    """Return an int uniform in ``[0, n)`` (``n >= 1``) and advance ``rng``."""
    return np.int64(rng_uniform(rng) * n)


@njit(cache=True)
def rng_choice_weighted(rng: np.ndarray, probabilities: np.ndarray, count: int) -> int:
    """Return an index in ``[0, count)`` drawn with the given probabilities (summing to 1)."""
    u = rng_uniform(rng)
    acc = 0.0
    for i in range(count - 1):
        acc += probabilities[i]
        if u < acc:
            return i
    return count - 1
