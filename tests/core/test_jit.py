"""Numba helpers: stable dispatcher identities and direct entry points."""

from __future__ import annotations

import numpy as np
from numba import njit

from mcts_envs.core.jit import entry_point, pin_identity


@njit
def _double(x):
    return 2 * x


@njit
def _apply_into(function, values, out):
    for i in range(values.shape[0]):
        out[i] = function(values[i])
    return values.shape[0]


def test_entry_point_computes_what_the_dispatcher_computes():
    values = np.arange(5, dtype=np.int64)
    expected = np.empty(5, np.int64)
    assert _apply_into(_double, values, expected) == 5
    run = entry_point(_apply_into, (_double, values, np.empty(5, np.int64)))
    out = np.zeros(5, np.int64)
    assert run(_double, values, out) == 5
    np.testing.assert_array_equal(out, expected)
    np.testing.assert_array_equal(out, 2 * values)


def test_entry_point_leaves_plain_callables_alone():
    def plain(x):
        return x

    assert entry_point(plain, (1,)) is plain


def test_pin_identity_is_derived_from_the_function_and_skips_closures():
    @njit
    def nested(x):
        return x

    pinned = pin_identity(_double)
    uuid = pinned._MemoMixin__uuid
    assert uuid.startswith(f"{__name__}._double:")
    assert pin_identity(_double)._MemoMixin__uuid == uuid
    assert pin_identity(nested)._MemoMixin__uuid is None
