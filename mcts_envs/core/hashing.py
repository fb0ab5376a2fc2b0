"""64-bit hashes of game states, compiled: what transposition tables key on.

Every game's kernels module defines ``hash_state(state) -> int64`` (a
:class:`~mcts_envs.core.game.GameKernels` field): equal states always hash equal, and the hash
mixes every word that tells positions apart, so distinct positions collide with probability
about ``2**-64`` per pair. Games with small states hash all words (:func:`hash_words`); a game
with a large state hashes the words that determine the rest (Tantrix: its header, hands,
placement list and the placed cells, not the 4,000-word grid).
"""

from __future__ import annotations

import numpy as np

from mcts_envs.core.numba_cache import njit

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MULTIPLIER = np.uint64(0xBF58476D1CE4E5B9)
_MIX = np.uint64(0x94D049BB133111EB)


@njit(cache=True, inline="always")
def mix_word(h, word):
    """Fold one int64 ``word`` into the running uint64 hash ``h`` (splitmix64 finaliser)."""
    h ^= np.uint64(word) + _GOLDEN + (h << np.uint64(6))
    h = (h ^ (h >> np.uint64(30))) * _MULTIPLIER
    h = (h ^ (h >> np.uint64(27))) * _MIX
    return h ^ (h >> np.uint64(31))


@njit(cache=True, inline="always")
def finish_hash(h):
    """The running hash as a non-negative int64 (it indexes arrays)."""
    return np.int64(h >> np.uint64(1))


@njit(cache=True)
def hash_words(state):
    """A 64-bit hash of every word of ``state`` (as a non-negative int64)."""
    h = _GOLDEN
    for i in range(state.shape[0]):
        h = mix_word(h, state[i])
    return finish_hash(h)


@njit(cache=True)
def hash_range(state, start, stop, h):
    """Fold ``state[start:stop]`` into the running hash ``h`` (uint64); returns it."""
    for i in range(start, stop):
        h = mix_word(h, state[i])
    return h
