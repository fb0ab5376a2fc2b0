"""Seed validation and the compiled random-number generator used inside kernels.

Kernels never touch NumPy's or numba's global random state: they take an explicit generator
state, a ``uint64[1]`` array advanced by SplitMix64, so a playout reproduces from its seed.
"""

from __future__ import annotations

import numbers

import numpy as np

from mcts_envs.core.errors import InvalidSeedError
from mcts_envs.core.numba_cache import njit

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_TO_UNIT = 1.0 / 9007199254740992.0  # 2**-53


def check_seed(seed: object, *, allow_none: bool = True) -> int | None:
    """Return ``seed`` as a Python int, or raise :class:`InvalidSeedError`.

    Allowed: ``None`` (when ``allow_none``) or a non-negative integer (``int`` or NumPy integer,
    not ``bool``).
    """
    if type(seed) is int and seed >= 0:  # the common case, without the slower ABC check
        return seed
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

    The state is ``np.random.SeedSequence(seed).generate_state(1, np.uint64)``; seeds below
    ``2**64`` take a compiled copy of that algorithm (about 30 times faster, which matters when a
    search runs once per move).

    Raises:
        InvalidSeedError: if ``seed`` is not a non-negative integer.
    """
    seed = check_seed(seed, allow_none=False)
    if seed < 2**64:
        out = np.empty(1, np.uint64)  # filled in place: returning a new array costs more
        _seed_sequence_word(np.uint64(seed), out)
        return out
    word = np.random.SeedSequence(seed).generate_state(1, dtype=np.uint64)
    return np.asarray(word, dtype=np.uint64)


# NumPy's SeedSequence constants (numpy/random/bit_generator.pyx), pool of four 32-bit words.
_MASK32 = np.uint64(0xFFFFFFFF)
_INIT_A = np.uint64(0x43B0D7E5)
_MULT_A = np.uint64(0x931E8875)
_INIT_B = np.uint64(0x8B51F9DD)
_MULT_B = np.uint64(0x58F38DED)
_MIX_MULT_L = np.uint64(0xCA01F9DD)
_MIX_MULT_R = np.uint64(0x4973F715)
_POOL_SIZE = 4


@njit(cache=True, inline="always")
def _hashmix(value, hash_const):
    """SeedSequence's ``hashmix`` on 32-bit words held in uint64; advances ``hash_const[0]``."""
    value = value ^ hash_const[0]
    hash_const[0] = (hash_const[0] * _MULT_A) & _MASK32
    value = (value * hash_const[0]) & _MASK32
    return value ^ (value >> np.uint64(16))


@njit(cache=True, inline="always")
def _mix(x, y):
    result = (_MIX_MULT_L * x - _MIX_MULT_R * y) & _MASK32
    return result ^ (result >> np.uint64(16))


@njit(cache=True)
def _seed_sequence_word(seed, out):
    """``out[0] = SeedSequence(seed).generate_state(1, np.uint64)[0]`` for ``0 <= seed < 2**64``."""
    # The entropy words: the seed's 32-bit words, least significant first ([0] for 0).
    entropy = np.zeros(2, np.uint64)
    words = 0
    rest = seed
    while True:
        entropy[words] = rest & _MASK32
        words += 1
        rest = rest >> np.uint64(32)
        if rest == 0:
            break
    hash_const = np.empty(1, np.uint64)
    hash_const[0] = _INIT_A
    pool = np.empty(_POOL_SIZE, np.uint64)
    for i in range(_POOL_SIZE):
        pool[i] = _hashmix(entropy[i] if i < words else np.uint64(0), hash_const)
    for i_src in range(_POOL_SIZE):
        for i_dst in range(_POOL_SIZE):
            if i_src != i_dst:
                pool[i_dst] = _mix(pool[i_dst], _hashmix(pool[i_src], hash_const))
    # generate_state: two 32-bit words, little-endian halves of the uint64.
    state = _INIT_B
    halves = np.empty(2, np.uint64)
    for i in range(2):
        value = pool[i] ^ state
        state = (state * _MULT_B) & _MASK32
        value = (value * state) & _MASK32
        halves[i] = value ^ (value >> np.uint64(16))
    out[0] = halves[0] | (halves[1] << np.uint64(32))


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
    """Return an int uniform in ``[0, n)`` (``1 <= n < 2**32``) and advance ``rng``.

    Multiplies the top 32 random bits by ``n`` and keeps the high word (no division, no float
    conversion: this sits on the critical path of every playout move); the bias is below
    ``n / 2**32``.
    """
    return np.int64(((rng_next(rng) >> np.uint64(32)) * np.uint64(n)) >> np.uint64(32))


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
