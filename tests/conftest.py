"""Shared test settings: headless pygame; the record of what collection compiled."""

from __future__ import annotations

import os

from tests.collection_check import RECORD, CollectionRecord, compiled_dispatchers

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")


#: Node ids of the modules collected (relative to the root directory).
_collected_modules: set[str] = set()


def pytest_collectreport(report) -> None:
    if report.nodeid.endswith(".py"):
        _collected_modules.add(report.nodeid)


def pytest_collection_finish(session) -> None:
    # Checked by tests/core/test_collection.py: collecting compiled nothing.
    root = session.config.rootpath
    modules = frozenset((root / node).resolve() for node in _collected_modules)
    session.config.stash[RECORD] = CollectionRecord(modules, compiled_dispatchers())
