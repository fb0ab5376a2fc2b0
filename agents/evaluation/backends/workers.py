"""Worker processes that never outlive their parent, and the bounds of a batch of games.

A ``ProcessPoolExecutor`` worker whose parent is killed with SIGKILL is re-parented and can live
on for minutes, holding memory and the parent's pipes. :func:`exit_with_parent` (run first in every
worker's initializer) makes the kernel send the worker SIGKILL when its parent dies (Linux
``prctl(PR_SET_PDEATHSIG)``), and elsewhere starts a daemon thread that exits the worker once the
parent's pid changes.

Batches of games (``match``, ``tournament``, ``expert``) share their bounds and their lazy
parts: at most :data:`MAX_GAMES` games (:func:`check_count`), at most :data:`WORKERS_PER_CPU`
worker processes per CPU (:func:`check_workers`), game ``i``'s seeds derived from the master
seed and ``i`` alone (:func:`spawned_words`, O(1) memory), and a pool fed a few jobs at a time
(:func:`ordered_map`), so that a count of a billion games allocates nothing up front.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Executor, Future
from typing import Any

import numpy as np

from mcts_envs.core.errors import InvalidOptionError
from mcts_envs.records import quote

_PR_SET_PDEATHSIG = 1
#: Most games one command plays (``match --games``, ``expert --games``,
#: ``tournament --games-per-pair``).
MAX_GAMES = 10**9
#: Most worker processes per CPU of this machine (``--workers``).
WORKERS_PER_CPU = 4
#: Jobs handed to a pool ahead of the results read, per worker.
_JOBS_AHEAD = 2


def exit_with_parent(parent: int | None = None, poll_seconds: float = 1.0) -> None:
    """Make this process exit when the process that started it dies (call it in the child).

    Args:
        parent: the starting process's pid, passed from it: a spawned child that starts slowly
            may run this after its parent died, which ``os.getppid()`` alone cannot tell.
        poll_seconds: how often the fallback thread (not Linux) looks.
    """
    if parent is not None and os.getppid() != parent:
        os._exit(1)  # the parent died before this child got here
    parent = os.getppid()
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            if libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) == 0:
                if os.getppid() != parent:  # the parent died before prctl took effect
                    os._exit(1)
                return
        except (OSError, AttributeError):
            pass

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(poll_seconds)
        os._exit(1)

    threading.Thread(target=watch, name="exit-with-parent", daemon=True).start()


def check_count(value: object, name: str, minimum: int = 1, maximum: int = MAX_GAMES) -> int:
    """``value`` if it is an int in ``minimum..maximum``.

    Raises:
        InvalidOptionError: naming ``name`` (e.g. ``"--games"``) and the allowed range.
    """
    if isinstance(value, bool) or not isinstance(value, int) or not minimum <= value <= maximum:
        raise InvalidOptionError(
            f"{name} must be an integer from {minimum} to {maximum:_}, got {quote(value)}"
        )
    return value


def max_workers() -> int:
    """The most worker processes allowed: :data:`WORKERS_PER_CPU` times this machine's CPUs."""
    return WORKERS_PER_CPU * (os.cpu_count() or 1)


def check_workers(value: object, name: str = "--workers") -> int:
    """``value`` if it is a worker count from 1 to :func:`max_workers`.

    Raises:
        InvalidOptionError: naming ``name`` and the allowed range (and why it is bounded).
    """
    limit = max_workers()
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= limit:
        raise InvalidOptionError(
            f"{name} must be an integer from 1 to {limit} ({WORKERS_PER_CPU} per CPU of this "
            f"machine, which has {os.cpu_count() or 1}), got {quote(value)}"
        )
    return value


def spawned_words(master: np.random.SeedSequence, index: int, count: int) -> tuple[int, ...]:
    """``count`` uint32 words of ``master.spawn(n)[index]`` (for any ``n > index``), computed
    from ``master`` and ``index`` alone: game ``index``'s seeds without the other games'."""
    child = np.random.SeedSequence(
        master.entropy, spawn_key=(*master.spawn_key, index), pool_size=master.pool_size
    )
    return tuple(int(word) for word in child.generate_state(count, dtype=np.uint32))


def ordered_map(
    pool: Executor, function: Callable[..., Any], jobs: Iterable[Any], workers: int
) -> Iterator[Any]:
    """``function(job)`` for each job, in order, computed in ``pool``; unlike ``pool.map`` only a
    few jobs per worker are submitted ahead, so ``jobs`` may be a lazy, huge iterable."""
    pending: deque[Future] = deque()
    ahead = max(1, workers) * _JOBS_AHEAD
    for job in jobs:
        pending.append(pool.submit(function, job))
        if len(pending) >= ahead:
            yield pending.popleft().result()
    while pending:
        yield pending.popleft().result()
