"""Ordering moves best first by a key: alpha-beta's move ordering and MCTS's heuristic child
order share this one compiled sort."""

from __future__ import annotations

from mcts_envs.core.numba_cache import njit


@njit(cache=True, inline="always")
def sort_best_first(actions, keys, count):
    """Sort ``actions[:count]`` by ``keys[:count]``, largest key first, moving the keys with
    them; equal keys keep their order (a stable insertion sort: lists here are short)."""
    for i in range(1, count):
        action, key = actions[i], keys[i]
        j = i - 1
        while j >= 0 and keys[j] < key:
            actions[j + 1] = actions[j]
            keys[j + 1] = keys[j]
            j -= 1
        actions[j + 1] = action
        keys[j + 1] = key
