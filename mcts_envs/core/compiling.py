"""Telling the user when numba really compiles, and for how long.

numba compiles a function on its first call with new argument types, or loads it from its disk
cache (:mod:`mcts_envs.core.numba_cache`). Only a real compile is slow
(seconds to tens of seconds); a cache load takes milliseconds. :func:`compile_notice` listens to
numba's ``numba:compile`` event (:mod:`numba.core.event`), which numba broadcasts only when it
compiles, not when it loads from the cache or finds the code already compiled in the process, so
a warm run prints nothing::

    with compile_notice("mcts for tictactoe", announce=print):
        agent.prepare(game)

prints, only if something compiled, ``compiling mcts for tictactoe (first use; cached
afterwards)...`` when the first compile starts and ``compiled mcts for tictactoe in 12.3 s``
when the block ends. Given a terminal as ``progress``, a live line (what, elapsed seconds,
functions compiled, the current one) replaces the first line while numba compiles.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TextIO

__all__ = ["compile_notice", "print_to_stderr"]

#: The numba event broadcast around each real compile of a dispatcher.
COMPILE_EVENT = "numba:compile"


class _StderrNotice:
    """Announcements as lines on standard error, flushed (the default notice channel); its
    ``progress`` stream gives :func:`compile_notice` a live line when stderr is a terminal."""

    @property
    def progress(self) -> TextIO:
        return sys.stderr

    def __call__(self, text: str) -> None:
        print(text, file=sys.stderr, flush=True)


#: Print one line to standard error (flushed), with a live compile line on a terminal.
print_to_stderr = _StderrNotice()


class _CompileBar:
    """A live line on a terminal while numba compiles: what, elapsed seconds, functions so far
    and the function being compiled, redrawn twice a second by a thread of its own."""

    def __init__(self, what: str, stream: TextIO) -> None:
        from tqdm import tqdm

        self._bar = tqdm(
            desc=f"compiling {what}",
            total=None,
            unit=" functions",
            bar_format="{desc}: {elapsed} elapsed, {n} functions{postfix}",
            file=stream,
            leave=False,
            mininterval=0.0,
        )
        self._lock = threading.Lock()
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._tick, daemon=True)
        self._thread.start()

    def _tick(self) -> None:
        while not self._done.wait(0.5):
            with self._lock:
                self._bar.refresh()

    def started(self, name: str) -> None:
        with self._lock:
            self._bar.set_postfix_str(f"({name})", refresh=False)
            self._bar.update()

    def close(self) -> None:
        self._done.set()
        self._thread.join()
        with self._lock:
            self._bar.close()


def _is_terminal(stream: TextIO | None) -> bool:
    try:
        return stream is not None and stream.isatty()
    except (AttributeError, ValueError):
        return False


@contextmanager
def compile_notice(
    what: str, announce: Callable[[str], None] | None, progress: TextIO | None = None
) -> Iterator[dict]:
    """Announce a compile of ``what`` if numba compiles anything inside the block.

    Args:
        what: what is being compiled, e.g. ``"mcts for tictactoe"``.
        announce: called with ``compiling <what> (first use; cached afterwards)...`` when the
            first compile in the block starts, and with ``compiled <what> in <s> s`` (seconds
            since the block started) when the block ends; never called if nothing compiled
            (everything was loaded from numba's cache or already compiled in this process).
            ``None``: announce nothing.
        progress: a terminal stream (``sys.stderr``) for a live progress line while numba
            compiles (what, elapsed seconds, functions compiled, the current one) in place of
            the first announcement; a stream that is not a terminal gets nothing (the two
            announcements say it all in logs). Default: ``announce.progress`` if it has one
            (:data:`print_to_stderr` does).

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
    progress = progress if progress is not None else getattr(announce, "progress", None)
    live = progress if _is_terminal(progress) else None
    bars: list[_CompileBar] = []

    class _Listener(event.Listener):
        def on_start(self, ev: event.Event) -> None:
            with lock:
                status["compiled"] += 1
                first = status["compiled"] == 1
                if first and live is not None:
                    bars.append(_CompileBar(what, live))
                bar = bars[0] if bars else None
            if bar is not None:
                bar.started(_function_name(ev))
            elif first:
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
        for bar in bars:
            bar.close()
    if status["compiled"]:
        announce(f"compiled {what} in {status['seconds']:.1f} s")


def _function_name(ev: Any) -> str:
    """The name of the function a ``numba:compile`` event is about."""
    dispatcher = (getattr(ev, "data", None) or {}).get("dispatcher")
    function = getattr(dispatcher, "py_func", None)
    return getattr(function, "__name__", None) or "..."
