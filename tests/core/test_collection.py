"""Collecting the test suite runs no compiled code (issue 23: it compiled Tantrix for 80 s)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.collection_check import RECORD

ROOT = Path(__file__).resolve().parents[2]

#: After collecting the suite in this process, prints the numba dispatchers that hold compiled
#: code (compiled, or loaded from numba's disk cache: either means a kernel ran at collection).
COLLECT = f"""
import pytest
code = pytest.main(["--collect-only", "-q", "-p", "no:cacheprovider", {str(ROOT / "tests")!r}])
assert code == 0, code
from tests.collection_check import compiled_dispatchers
print(compiled_dispatchers())
"""


def _collected_in_a_child_process() -> str:
    """The last line the child prints: the list of dispatchers holding code."""
    done = subprocess.run(
        [sys.executable, "-c", COLLECT], capture_output=True, text=True, cwd=ROOT, timeout=600
    )
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
    return done.stdout.strip().splitlines()[-1]


def test_collecting_the_suite_runs_no_compiled_code(request):
    # This session's own collection (recorded by tests/conftest.py) answers when it collected
    # every test module, as the default run does; otherwise collect the suite in a child process.
    record = request.config.stash.get(RECORD, None)
    every_module = {path.resolve() for path in (ROOT / "tests").rglob("test_*.py")}
    if record is not None and every_module <= record.modules:
        assert record.compiled == []
    else:
        assert _collected_in_a_child_process() == "[]"
