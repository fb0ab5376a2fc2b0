"""Modules that moved in 0.2 stay importable under their old names for one release, as the very
same module objects, with a DeprecationWarning naming the new place."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

from agents._moved import MOVED


@pytest.mark.parametrize(("old", "new"), sorted(MOVED.items()))
def test_an_old_name_gives_the_new_module_with_a_warning(old, new):
    code = (
        "import importlib, warnings\n"
        "with warnings.catch_warnings(record=True) as seen:\n"
        "    warnings.simplefilter('always')\n"
        f"    old = importlib.import_module({old!r})\n"
        f"new = importlib.import_module({new!r})\n"
        "assert old is new, (old, new)\n"
        f"assert any({new!r} in str(w.message) for w in seen), [str(w.message) for w in seen]\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]


def test_every_new_module_exists():
    for new in MOVED.values():
        importlib.import_module(new)
