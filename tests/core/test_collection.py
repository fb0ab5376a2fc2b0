"""Collecting the test suite runs no compiled code (issue 23: it compiled Tantrix for 80 s)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: After collecting the suite in this process, prints the numba dispatchers that hold compiled
#: code (compiled, or loaded from numba's disk cache: either means a kernel ran at collection).
COLLECT = f"""
import sys
import pytest
code = pytest.main(["--collect-only", "-q", "-p", "no:cacheprovider", {str(ROOT / "tests")!r}])
assert code == 0, code
from numba.core.dispatcher import Dispatcher
used = set()
for module in list(sys.modules.values()):
    for value in list(getattr(module, "__dict__", {{}}).values()):
        if isinstance(value, Dispatcher) and value.overloads:
            used.add(value.py_func.__module__ + "." + value.py_func.__qualname__)
print(sorted(used))
"""


def test_collecting_the_suite_runs_no_compiled_code():
    done = subprocess.run(
        [sys.executable, "-c", COLLECT], capture_output=True, text=True, cwd=ROOT, timeout=600
    )
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
    assert done.stdout.strip().splitlines()[-1] == "[]"
