"""Telling the user when numba really compiles, and for how long.

numba compiles a function on its first call with new argument types, or loads it from its disk
cache (``__pycache__`` beside the sources, or ``NUMBA_CACHE_DIR``). Only a real compile is slow
(seconds to tens of seconds); a cache load takes milliseconds. :func:`compile_notice` listens to
numba's ``numba:compile`` event (:mod:`numba.core.event`), which numba broadcasts only when it
compiles, not when it loads from the cache or finds the code already compiled in the process, so
a warm run prints nothing::

    with compile_notice("mcts for tictactoe", announce=print):
        agent.prepare(game)

prints, only if something compiled, ``compiling mcts for tictactoe (first use; cached
afterwards)...`` when the first compile starts and ``compiled mcts for tictactoe in 12.3 s``
when the block ends.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

__all__ = ["compile_notice", "print_to_stderr"]

#: The numba event broadcast around each real compile of a dispatcher.
COMPILE_EVENT = "numba:compile"


def print_to_stderr(text: str) -> None:
    """Print ``text`` as one line to standard error, flushed (the default notice channel)."""
    print(text, file=sys.stderr, flush=True)


@contextmanager
def compile_notice(what: str, announce: Callable[[str], None] | None) -> Iterator[dict]:
    """Announce a compile of ``what`` if numba compiles anything inside the block.

    Args:
        what: what is being compiled, e.g. ``"mcts for tictactoe"``.
        announce: called with ``compiling <what> (first use; cached afterwards)...`` when the
            first compile in the block starts, and with ``compiled <what> in <s> s`` (seconds
            since the block started) when the block ends; never called if nothing compiled
            (everything was loaded from numba's cache or already compiled in this process).
            ``None``: announce nothing.

    Yields:
        A dict whose ``"compiled"`` entry counts the functions compiled so far in the block (on
        any thread: numba compiles under one process-wide lock) and, after the block, whose
        ``"seconds"`` entry holds its duration.
    """
    status: dict = {"compiled": 0, "seconds": 0.0}
    if announce is None:
        yield status
        return
    from numba.core import event  # here: importing this module does not import numba

    lock = threading.Lock()

    class _Listener(event.Listener):
        def on_start(self, ev: event.Event) -> None:
            with lock:
                status["compiled"] += 1
                first = status["compiled"] == 1
            if first:
                announce(f"compiling {what} (first use; cached afterwards)...")

        def on_end(self, ev: event.Event) -> None:
            pass

    listener = _Listener()
    start = time.perf_counter()
    event.register(COMPILE_EVENT, listener)
    try:
        yield status
    finally:
        event.unregister(COMPILE_EVENT, listener)
        status["seconds"] = time.perf_counter() - start
    if status["compiled"]:
        announce(f"compiled {what} in {status['seconds']:.1f} s")
