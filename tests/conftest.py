"""Shared test settings: headless pygame, SB3 logs in pytest's folder; the record of what
collection compiled."""

from __future__ import annotations

import os

import pytest

from tests.collection_check import RECORD, CollectionRecord, compiled_dispatchers

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")


@pytest.fixture(autouse=True, scope="session")
def _sb3_logs_in_pytests_folder(tmp_path_factory):
    """Stable-Baselines3 makes a log folder at every ``learn()`` (unless ``SB3_LOGDIR`` names one,
    a new ``SB3-<time>`` folder in the system's temp dir); the tests keep theirs in pytest's."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SB3_LOGDIR", str(tmp_path_factory.mktemp("sb3_logs")))
        yield


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
