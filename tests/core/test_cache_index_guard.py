"""numba's cache index survives an entry whose dispatcher has vanished from the process.

Generic compiled code (searches, batched steps) takes kernels as arguments, so its cache index
keys hold dispatcher types; an entry of a dispatcher that no longer exists used to make numba's
save of the index raise ``ReferenceError`` from the compile of an unrelated function.
"""

from __future__ import annotations

import gc

import numba
import pytest
from numba.core import caching, serialize

from mcts_envs.core import numba_compat


def _vanished_dispatcher_type():
    dispatcher = numba.njit(lambda x: x)
    kind = numba.typeof(dispatcher)
    del dispatcher
    gc.collect()
    with pytest.raises(ReferenceError):  # what numba's own save ran into
        serialize.dumps(kind)
    return kind


@pytest.mark.skipif(not numba_compat.CAN_GUARD_INDEX, reason="numba lacks the index internals")
def test_saving_an_index_drops_entries_of_vanished_dispatchers_and_keeps_the_rest(tmp_path):
    index = caching.IndexDataCacheFile(str(tmp_path), "kernel-1.py311", ("stamp", 1))
    live_key = ((numba.int64,), "cpu", ("live",))
    dead_key = ((_vanished_dispatcher_type(),), "cpu", ("dead",))
    index._save_index({live_key: "kernel-1.py311.1.nbc", dead_key: "kernel-1.py311.2.nbc"})
    assert index._load_index() == {live_key: "kernel-1.py311.1.nbc"}


@pytest.mark.skipif(not numba_compat.CAN_GUARD_INDEX, reason="numba lacks the index internals")
def test_a_compile_after_a_vanished_entry_saves_its_own_entry(tmp_path):
    index = caching.IndexDataCacheFile(str(tmp_path), "kernel-1.py311", ("stamp", 1))
    dead_key = ((_vanished_dispatcher_type(),), "cpu", ("dead",))
    index._save_index({dead_key: "kernel-1.py311.1.nbc"})  # an index written by an older process
    new_key = ((numba.float64,), "cpu", ("new",))
    index.save(new_key, b"compiled code")
    assert index.load(new_key) == b"compiled code"
