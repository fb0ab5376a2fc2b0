"""Running a snippet in fresh Python processes, for tests of numba's disk cache."""

from __future__ import annotations

import subprocess
import sys


def second_run_cache_counts(code: str, timeout: float = 900, cwd=None) -> tuple[int, int]:
    """Runs ``code`` (which must print two integers last: cache hits and misses) in a new process
    (in ``cwd`` if given) and returns its two integers once the cache was filled: those of the
    first process if it missed nothing (an earlier test or process filled the cache), else those
    of a second process started after the first filled it."""
    for _ in range(2):
        done = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout, cwd=cwd
        )
        assert done.returncode == 0, done.stderr[-3000:]
        hits, misses = (int(x) for x in done.stdout.split()[-2:])
        if misses == 0:
            break
    return hits, misses
