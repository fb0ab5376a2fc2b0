"""numba's cache index survives an entry whose dispatcher has vanished from the process, and
concurrent writers.

Generic compiled code (searches, batched steps) takes kernels as arguments, so its cache index
keys hold dispatcher types; an entry of a dispatcher that no longer exists used to make numba's
save of the index raise ``ReferenceError`` from the compile of an unrelated function. Two
processes saving entries of one index at once used to lose entries and share data files.
"""

from __future__ import annotations

import gc
import subprocess
import sys
import time

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


_WRITER = """
import sys, time
import numba
from numba.core import caching
from mcts_envs.core import numba_compat  # noqa: F401  (installs the package's index lock)

path, who, count, start_at = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
read_index = caching.IndexDataCacheFile._load_index


def slow_read(cache_file):  # a slow disk: widens numba's read-modify-write of the index
    overloads = read_index(cache_file)
    time.sleep(0.02)
    return overloads


caching.IndexDataCacheFile._load_index = slow_read
index = caching.IndexDataCacheFile(path, "kernel-1.py311", ("stamp", 1))
time.sleep(max(0.0, start_at - time.time()))
for i in range(count):
    index.save(((numba.int64,), "cpu", (who, i)), f"{who} {i}".encode())
"""


@pytest.mark.skipif(not numba_compat.CAN_LOCK_INDEX, reason="no file locks or index internals")
def test_two_processes_saving_entries_of_one_index_at_once_keep_every_entry_and_its_data(
    tmp_path,
):
    count = 8
    start_at = time.time() + 2.0  # both writers loop at the same moment, after their imports
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", _WRITER, str(tmp_path), who, str(count), str(start_at)],
            stderr=subprocess.PIPE,
            text=True,
        )
        for who in ("a", "b")
    ]
    for writer in writers:
        assert writer.wait(timeout=120) == 0, writer.stderr.read()[-2000:]
    index = caching.IndexDataCacheFile(str(tmp_path), "kernel-1.py311", ("stamp", 1))
    keys = {((numba.int64,), "cpu", (who, i)): f"{who} {i}" for who in "ab" for i in range(count)}
    assert set(index._load_index()) == set(keys)  # no entry lost to the other writer
    for key, data in keys.items():
        assert index.load(key) == data.encode()  # and none names the other writer's data file
