"""Opt-in pytest plugin: where the suite's seconds go, numba compiles included.

``python -m pytest -p tests.compile_report`` prints, after the run, the tests whose numba
compiles took longest (only real compiles count: loads from numba's disk cache do not fire
numba's ``numba:compile`` event), the dispatchers that took longest to compile, and the share of
the run spent compiling in this process (compiles in child processes are not seen). With
``MCTS_ENVS_TIMELOG=path`` it also appends one tab-separated line per test phase as it ends
(seconds since start, phase, duration, compile seconds, test id), to watch a long run live.
"""

from __future__ import annotations

import os
import threading
import time
from collections import Counter

import pytest

#: How many rows each table prints.
ROWS = 25


def _compile_clock():
    """A numba event listener that adds up the seconds of outermost compiles (compiling a
    function compiles its callees inside its own event)."""
    from numba.core.event import Listener

    class CompileClock(Listener):
        def __init__(self) -> None:
            self.depth = threading.local()
            self.started = threading.local()
            self.total = 0.0
            self.by_function: Counter[str] = Counter()

        def on_start(self, event) -> None:
            depth = getattr(self.depth, "value", 0)
            if depth == 0:
                self.started.value = time.perf_counter()
            self.depth.value = depth + 1

        def on_end(self, event) -> None:
            self.depth.value -= 1
            if self.depth.value == 0:
                seconds = time.perf_counter() - self.started.value
                self.total += seconds
                function = event.data["dispatcher"].py_func
                self.by_function[f"{function.__module__}.{function.__qualname__}"] += seconds

    return CompileClock()


class CompileReport:
    """Collects per-test compile seconds and prints the tables at the end of the run."""

    def __init__(self) -> None:
        from numba.core import event

        self.clock = _compile_clock()
        event.register("numba:compile", self.clock)
        self.start = time.perf_counter()
        self.by_test: Counter[str] = Counter()
        self.logged = 0.0  # compile seconds at the last logged test phase
        path = os.environ.get("MCTS_ENVS_TIMELOG")
        self.log = open(path, "a", buffering=1) if path else None  # noqa: SIM115

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item, nextitem):
        before = self.clock.total
        yield
        self.by_test[item.nodeid] += self.clock.total - before

    def pytest_collection_finish(self, session) -> None:
        self._write("collected", time.perf_counter() - self.start, 0.0, str(len(session.items)))

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_logreport(self, report):
        yield
        compiled, self.logged = self.clock.total - self.logged, self.clock.total
        self._write(report.when, report.duration, compiled, report.nodeid)

    def _write(self, what: str, seconds: float, compiled: float, name: str) -> None:
        if self.log is not None:
            elapsed = time.perf_counter() - self.start
            self.log.write(f"{elapsed:.1f}\t{what}\t{seconds:.2f}\t{compiled:.2f}\t{name}\n")

    def pytest_terminal_summary(self, terminalreporter) -> None:
        write = terminalreporter.write_line
        elapsed = time.perf_counter() - self.start
        terminalreporter.section("numba compile report")
        write(
            f"{self.clock.total:.1f} s of {elapsed:.1f} s compiling in this process "
            f"({100 * self.clock.total / max(elapsed, 1e-9):.0f}%); load average "
            f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}"
        )
        write("tests with the longest compiles:")
        for name, seconds in self.by_test.most_common(ROWS):
            if seconds >= 0.05:
                write(f"{seconds:8.1f} s  {name}")
        write("dispatchers with the longest compiles (all their signatures):")
        for name, seconds in self.clock.by_function.most_common(ROWS):
            write(f"{seconds:8.1f} s  {name}")


def pytest_configure(config) -> None:
    config.pluginmanager.register(CompileReport(), "mcts_envs_compile_report")
