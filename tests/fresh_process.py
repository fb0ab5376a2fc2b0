"""Running a snippet in two fresh Python processes, for tests of numba's disk cache."""

from __future__ import annotations

import subprocess
import sys


def second_run_cache_counts(code: str, timeout: float = 900, cwd=None) -> tuple[int, int]:
    """Runs ``code`` (which must print two integers last: cache hits and misses) in two new
    processes one after the other (in ``cwd`` if given), the first filling the cache if it is
    empty, and returns the second process's two integers."""
    counts = []
    for _ in range(2):
        done = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout, cwd=cwd
        )
        assert done.returncode == 0, done.stderr[-3000:]
        counts.append(tuple(int(x) for x in done.stdout.split()[-2:]))
    return counts[1]
