"""Worker processes that never outlive their parent.

A ``ProcessPoolExecutor`` worker whose parent is killed with SIGKILL is re-parented and can live
on for minutes, holding memory and the parent's pipes. :func:`exit_with_parent` (run first in every
worker's initializer) makes the kernel send the worker SIGKILL when its parent dies (Linux
``prctl(PR_SET_PDEATHSIG)``), and elsewhere starts a daemon thread that exits the worker once the
parent's pid changes.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
import time

_PR_SET_PDEATHSIG = 1


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
