"""What produced a game record: the package's version and commit, numba's, NumPy's and Python's.

:func:`provenance` is what match and tournament records keep under ``provenance``
(:mod:`mcts_envs.records`): ``{"package", "commit", "modified", "numba", "numpy", "python"}``.
``commit`` is the git commit of the source tree the package was imported from (``None`` for an
installed wheel or a tree without git) and ``modified`` whether tracked files differed from it
(``None`` when unknown). The facts are read once per process.
"""

from __future__ import annotations

import functools
import platform
import subprocess
from pathlib import Path
from typing import Any

#: Seconds git may take to answer (a slow or missing git leaves the commit unknown).
GIT_TIMEOUT = 10.0


def _git(folder: Path, *arguments: str) -> str | None:
    """The output of ``git -C folder ARGUMENTS`` (stripped), or ``None`` if it fails."""
    try:
        done = subprocess.run(
            ["git", "-C", str(folder), *arguments],
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


@functools.cache
def provenance() -> dict[str, Any]:
    """The package version and source commit, and numba's, NumPy's and Python's versions (read
    once per process; see the module docstring)."""
    import numba
    import numpy

    from mcts_envs import __version__

    folder = Path(__file__).resolve().parent
    commit = _git(folder, "rev-parse", "HEAD")
    modified = None
    if commit is not None:
        status = _git(folder, "status", "--porcelain", "--untracked-files=no")
        modified = None if status is None else bool(status)
    return {
        "package": __version__,
        "commit": commit,
        "modified": modified,
        "numba": numba.__version__,
        "numpy": numpy.__version__,
        "python": platform.python_version(),
    }
