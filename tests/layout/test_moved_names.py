"""Modules that moved in 0.2 stay importable under their old names for one release, as the very
same module objects, with a DeprecationWarning naming the new place."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys

import pytest

from agents._moved import MOVED

#: In one new process, imports every old name for the first time (sorted: a package's old name
#: comes before its submodules', so no import reaches an old name before its own turn) and prints,
#: per old name, whether it is the new module and the warnings its import gave.
IMPORT_EVERY_OLD_NAME = """
import importlib, json, warnings
from agents._moved import MOVED
results = {}
for old, new in sorted(MOVED.items()):
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        try:
            module = importlib.import_module(old)
        except Exception as error:
            results[old] = {"error": repr(error)}
            continue
    results[old] = {
        "same": module is importlib.import_module(new),
        "warnings": [str(warning.message) for warning in seen],
    }
print(json.dumps(results))
"""


@pytest.fixture(scope="module")
def old_imports() -> dict:
    """What importing each old name in a fresh process gave (one process for all of them)."""
    done = subprocess.run(
        [sys.executable, "-c", IMPORT_EVERY_OLD_NAME], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize(("old", "new"), sorted(MOVED.items()))
def test_an_old_name_gives_the_new_module_with_a_warning(old, new, old_imports):
    result = old_imports[old]
    assert "error" not in result, result
    assert result["same"], (old, new)
    assert any(new in message for message in result["warnings"]), result["warnings"]


def test_every_new_module_exists():
    for new in MOVED.values():
        importlib.import_module(new)
