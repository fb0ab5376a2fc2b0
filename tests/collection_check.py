"""Which numba dispatchers hold compiled code: checked once the suite is collected (issue 23).

``tests/conftest.py`` records, at the end of collection, every test module collected and every
dispatcher that already holds code then; ``tests/core/test_collection.py`` asserts that none does
(collecting must compile nothing), reusing that record when the session collected every test
module rather than collecting the whole suite again in a child process.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

import pytest


@dataclass(frozen=True)
class CollectionRecord:
    """What the collection of this session did: the test modules it collected (absolute
    paths) and the dispatchers holding compiled code when it ended."""

    modules: frozenset[Path]
    compiled: list[str]


#: Where ``tests/conftest.py`` keeps the :class:`CollectionRecord` of the session.
RECORD = pytest.StashKey[CollectionRecord]()


def compiled_dispatchers() -> list[str]:
    """Sorted qualified names of the numba dispatchers of the imported modules that hold code
    (compiled, or loaded from numba's disk cache: either means a kernel ran)."""
    if "numba" not in sys.modules:
        return []
    from numba.core.dispatcher import Dispatcher

    used = set()
    for module in list(sys.modules.values()):
        for value in list(getattr(module, "__dict__", {}).values()):
            if isinstance(value, Dispatcher) and value.overloads:
                used.add(value.py_func.__module__ + "." + value.py_func.__qualname__)
    return sorted(used)
