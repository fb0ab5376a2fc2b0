"""How long a new user waits: each step of a first run in a fresh process, cold, warm and from
a wheel.

Every row runs as a new Python process:

* **cold**: this checkout (``PYTHONPATH``) with a fresh, empty ``MCTS_ENVS_CACHE_DIR`` per run
  (a clone's first run: everything compiles);
* **warm**: the same, with a cache filled by one untimed run of the same row first;
* **wheel** (with ``--wheel PATH``): the wheel with compiled code (``scripts/build_wheel.py``)
  installed into a fresh venv, run from outside the checkout with an empty cache (a user's first
  run after ``pip install``).

Each figure is the median of ``--repeats`` runs (default 3), printed beside the issue's target,
with the load average at the end of the row (the machine may be shared: read figures with it).
The ``notice`` column counts the ``compiling ...`` lines the last run printed (a warm run should
print none).

Then, per row of ``--profile`` (default the compile-heavy ones), one more cold run in-process
under a listener on numba's ``numba:compile`` events (:mod:`numba.core.event`), which prints the
dispatchers that took the most compile seconds: *self* excludes the functions compiled while
compiling it (its callees), *total* includes them.

Usage: ``python benchmarks/cold_start.py [--repeats 3] [--rows match,vector,...]
[--profile match,vector,alphabeta] [--top 15]``. ``--rows suite`` (not in the default) times the
default test run from a cold cache. Rows: ``match``, ``vector``, ``alphabeta``, ``help``,
``list``, ``import_mcts_envs``, ``import_agents``, ``uai``, ``collect``, ``suite``.
"""

from __future__ import annotations

import argparse
import json
import os
import runpy
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

_VECTOR = """
from mcts_envs.vector import VectorGame
vector = VectorGame("tictactoe", 1024, seed=0)
vector.reset(seed=0)
for _ in range(10):
    vector.step(vector.random_actions())
"""

_ALPHABETA = """
from mcts_envs.agents.spec import make_agent
from mcts_envs.core.registry import make_game
game = make_game("ataxx")
make_agent("alphabeta:depth=3", seed=0).act_state(game, game.initial_state())
"""


@dataclass(frozen=True)
class Row:
    """One row of the table.

    Attributes:
        name: the key for ``--rows``.
        what: the label printed.
        argv: the arguments after ``python`` (``-m module ...`` or ``-c code``).
        cold_target, warm_target, wheel_target: targets in seconds (None: none stated).
        until: for an interactive row, the line to wait for after writing ``stdin``.
        stdin: what to write to the process first.
    """

    name: str
    what: str
    argv: tuple[str, ...]
    cold_target: float | None
    warm_target: float | None
    until: str | None = None
    stdin: str = ""
    wheel_target: float | None = None


ROWS = [
    Row(
        "match",
        'match ultimate_tictactoe "mcts:iterations=2000" random --games 20 --seed 1',
        (
            "-m",
            "mcts_envs.agents",
            "match",
            "ultimate_tictactoe",
            "mcts:iterations=2000",
            "random",
            "--games",
            "20",
            "--seed",
            "1",
            "--no-progress",
        ),
        None,
        1.5,
        wheel_target=5.0,
    ),
    Row(
        "vector",
        'VectorGame("tictactoe", 1024): first use + 10 steps',
        ("-c", _VECTOR),
        None,
        None,
        wheel_target=2.0,
    ),
    Row("alphabeta", "alpha-beta: one Ataxx depth-3 decision", ("-c", _ALPHABETA), None, 1.0),
    Row("help", "mcts-envs --help", ("-m", "mcts_envs.agents", "--help"), None, 0.3),
    Row("list", "mcts-envs list", ("-m", "mcts_envs.agents", "list"), None, 0.8),
    Row("import_mcts_envs", "import mcts_envs", ("-c", "import mcts_envs"), None, 0.3),
    Row("import_agents", "import mcts_envs.agents", ("-c", "import mcts_envs.agents"), None, 0.3),
    Row(
        "uai",
        "uai: 'uaiok' after start (alphabeta)",
        ("-m", "mcts_envs.agents", "uai", "--agent", "alphabeta"),
        None,
        1.0,
        until="uaiok",
        stdin="uai\n",
    ),
    Row(
        "collect",
        "pytest --collect-only (no compile at collection)",
        ("-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", "tests"),
        None,
        None,
    ),
    Row(
        "suite",
        "default test run (pytest -q -x)",
        ("-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", "tests"),
        600.0,
        300.0,
    ),
]
DEFAULT_ROWS = [row.name for row in ROWS if row.name != "suite"]
#: Rows that run from a wheel too (the others need the checkout).
WHEEL_ROWS = ("match", "vector", "alphabeta", "help", "list", "import_mcts_envs", "import_agents")
DEFAULT_PROFILE = ["match", "vector", "alphabeta"]


@dataclass(frozen=True)
class Install:
    """Which Python runs a row, from where, and whether the checkout is on ``PYTHONPATH``."""

    python: str = sys.executable
    cwd: Path = ROOT
    checkout: bool = True


def _environment(cache: str, install: Install) -> dict[str, str]:
    env = dict(os.environ)
    env["MCTS_ENVS_CACHE_DIR"] = cache
    if install.checkout:
        paths = [str(ROOT), env.get("PYTHONPATH", "")]
        env["PYTHONPATH"] = os.pathsep.join(paths).rstrip(os.pathsep)
    else:
        env.pop("PYTHONPATH", None)
    env.setdefault("SDL_VIDEODRIVER", "dummy")
    return env


def run_once(
    row: Row, cache: str, timeout: float, install: Install = Install()
) -> tuple[float, int]:
    """Seconds one run of ``row`` took in a new process with cache ``cache``, and the number of
    ``compiling`` notice lines it printed.

    Raises:
        RuntimeError: if the process failed (its last output is in the message).
    """
    command = [install.python, *row.argv]
    start = time.perf_counter()
    if row.until is None:
        done = subprocess.run(
            command,
            env=_environment(cache, install),
            cwd=install.cwd,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        seconds = time.perf_counter() - start
        if done.returncode != 0:
            raise RuntimeError(f"{row.name} failed: {(done.stdout + done.stderr)[-2000:]}")
        return seconds, _notices(done.stdout + done.stderr)
    with subprocess.Popen(
        command,
        env=_environment(cache, install),
        cwd=install.cwd,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as process:
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(row.stdin)
        process.stdin.flush()
        seen = []
        for line in process.stdout:
            seen.append(line)
            if line.strip() == row.until:
                break
        seconds = time.perf_counter() - start
        process.stdin.write("quit\n")
        process.stdin.close()
        rest = process.stdout.read() + (process.stderr.read() if process.stderr else "")
        process.wait(timeout)
    if not seen or seen[-1].strip() != row.until:
        raise RuntimeError(f"{row.name}: no {row.until!r} line: {''.join(seen)[-2000:]}")
    return seconds, _notices("".join(seen) + rest)


def _notices(text: str) -> int:
    return sum(1 for line in text.splitlines() if line.startswith("compiling "))


def _load() -> str:
    return f"{os.getloadavg()[0]:.1f}" if hasattr(os, "getloadavg") else "?"


def _fresh_cache() -> str:
    return tempfile.mkdtemp(prefix="mcts_envs_cold_")


def measure(row: Row, repeats: int, timeout: float) -> dict[str, Any]:
    """Median cold and warm seconds of ``row`` over ``repeats`` runs each, the notices of the
    last run of each, and the load average at the end."""
    cold, warm = [], []
    notices = {"cold": 0, "warm": 0}
    caches = []
    try:
        for _ in range(repeats):
            caches.append(_fresh_cache())
            seconds, notices["cold"] = run_once(row, caches[-1], timeout)
            cold.append(seconds)
        # the last cold run filled caches[-1]: the warm runs load from it
        for _ in range(repeats):
            seconds, notices["warm"] = run_once(row, caches[-1], timeout)
            warm.append(seconds)
    finally:
        for cache in caches:
            shutil.rmtree(cache, ignore_errors=True)
    return {
        "cold": statistics.median(cold),
        "warm": statistics.median(warm),
        "cold_runs": cold,
        "warm_runs": warm,
        "notices": notices,
        "load": _load(),
    }


def wheel_install(wheel: Path, work: Path) -> Install:
    """A fresh venv (seeing this environment's packages, so nothing is downloaded) holding
    ``wheel``, run from ``work`` (outside the checkout)."""
    venv = work / "venv"
    subprocess.run(
        [sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", str(venv)],
        check=True,
    )
    python = venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", "--no-deps", str(wheel)], check=True
    )
    return Install(str(python), work, checkout=False)


def measure_wheel(row: Row, repeats: int, timeout: float, install: Install) -> dict[str, Any]:
    """Median seconds of ``row`` from the wheel, each run with a fresh, empty cache."""
    runs, notices = [], 0
    for _ in range(repeats):
        cache = _fresh_cache()
        try:
            seconds, notices = run_once(row, cache, timeout, install)
        finally:
            shutil.rmtree(cache, ignore_errors=True)
        runs.append(seconds)
    return {"wheel": statistics.median(runs), "wheel_runs": runs, "wheel_notices": notices}


def _seconds(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f} s"


def _target(value: float | None) -> str:
    return "-" if value is None else f"<= {value:g} s"


def _verdict(value: float, target: float | None) -> str:
    if target is None:
        return ""
    return " ok" if value <= target else " over"


def print_table(results: dict[str, dict[str, Any]]) -> None:
    """The markdown table: cold, warm and wheel medians beside their targets, notices, load."""
    print(
        "| what | cold (clone) | target | warm | target | wheel, empty cache | target "
        "| notice lines (cold/warm/wheel) | load |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for row in ROWS:
        if row.name not in results:
            continue
        r = results[row.name]
        cold = _seconds(r["cold"]) + _verdict(r["cold"], row.cold_target)
        warm = _seconds(r["warm"]) + _verdict(r["warm"], row.warm_target)
        wheel = r.get("wheel")
        wheel_text = "-" if wheel is None else _seconds(wheel) + _verdict(wheel, row.wheel_target)
        notices = f"{r['notices']['cold']}/{r['notices']['warm']}/{r.get('wheel_notices', '-')}"
        print(
            f"| {row.what} | {cold} | {_target(row.cold_target)} | {warm} | "
            f"{_target(row.warm_target)} | {wheel_text} | {_target(row.wheel_target)} | "
            f"{notices} | {r['load']} |"
        )


# -- compile profile ---------------------------------------------------------------------------
def _profile_child(name: str, out_path: str) -> None:
    """Run row ``name`` in this process under a ``numba:compile`` listener; write the
    per-dispatcher compile seconds to ``out_path`` as JSON."""
    from numba.core import event

    class CompileTimes(event.Listener):
        def __init__(self) -> None:
            self.stack: list[list[Any]] = []
            self.times: dict[str, list[float]] = {}

        def on_start(self, ev: event.Event) -> None:
            self.stack.append([ev.data["dispatcher"], time.perf_counter(), 0.0])

        def on_end(self, ev: event.Event) -> None:
            dispatcher, start, inner = self.stack.pop()
            total = time.perf_counter() - start
            if self.stack:
                self.stack[-1][2] += total
            function = dispatcher.py_func
            key = f"{function.__module__}.{function.__qualname__}"
            entry = self.times.setdefault(key, [0.0, 0.0, 0])
            entry[0] += total - inner
            entry[1] += total if not self.stack else 0.0  # top-level totals only: no double count
            entry[2] += 1

    listener = CompileTimes()
    event.register("numba:compile", listener)
    row = next(r for r in ROWS if r.name == name)
    start = time.perf_counter()
    try:
        if row.argv[0] == "-m":
            sys.argv = [row.argv[1], *row.argv[2:]]
            runpy.run_module(row.argv[1], run_name="__main__", alter_sys=True)
        else:
            exec(compile(row.argv[1], f"<{name}>", "exec"), {"__name__": "__main__"})
    except SystemExit as end:
        if end.code not in (None, 0):
            raise
    finally:
        event.unregister("numba:compile", listener)
    wall = time.perf_counter() - start
    Path(out_path).write_text(json.dumps({"wall": wall, "times": listener.times}))


def profile(name: str, top: int, timeout: float) -> None:
    """Print the ``top`` dispatchers by compile seconds of one cold run of row ``name``."""
    cache = _fresh_cache()
    handle, out_path = tempfile.mkstemp(suffix=".json")
    os.close(handle)
    try:
        done = subprocess.run(
            [sys.executable, __file__, "--profile-child", name, out_path],
            env=_environment(cache, Install()),
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        if done.returncode != 0:
            print(f"profile of {name} failed: {done.stderr[-2000:]}")
            return
        data = json.loads(Path(out_path).read_text())
    finally:
        shutil.rmtree(cache, ignore_errors=True)
        os.unlink(out_path)
    times = data["times"]
    compiled = sum(entry[0] for entry in times.values())
    print(
        f"\ncompile profile of '{name}' (cold, in-process {data['wall']:.1f} s, of which "
        f"{compiled:.1f} s compiling {len(times)} functions; load {_load()}):"
    )
    print("| function | self | total (outermost) | signatures |")
    print("| --- | --- | --- | --- |")
    ranked = sorted(times.items(), key=lambda item: -item[1][0])
    for key, (own, total, count) in ranked[:top]:
        print(f"| {key} | {own:.2f} s | {_seconds(total) if total else '-'} | {count} |")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the rows and profiles of the command line; returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=3, help="runs per figure (default 3)")
    parser.add_argument("--rows", default=",".join(DEFAULT_ROWS), help="comma-separated rows")
    parser.add_argument(
        "--profile",
        default=",".join(DEFAULT_PROFILE),
        help="rows to profile (comma-separated; empty: none)",
    )
    parser.add_argument("--top", type=int, default=15, help="functions per profile (default 15)")
    parser.add_argument("--timeout", type=float, default=1800.0, help="seconds per run")
    parser.add_argument(
        "--wheel", type=Path, help="also time the rows from this wheel (scripts/build_wheel.py)"
    )
    parser.add_argument("--profile-child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.profile_child:
        _profile_child(*args.profile_child)
        return 0
    known = {row.name for row in ROWS}
    names = [n for n in args.rows.split(",") if n]
    profiled = [n for n in args.profile.split(",") if n]
    unknown = sorted(set(names + profiled) - known)
    if unknown or args.repeats < 1:
        parser.error(
            f"unknown rows {unknown}; choose from {sorted(known)}"
            if unknown
            else "--repeats must be at least 1"
        )
    print(
        f"cold start, medians of {args.repeats} (python {sys.version.split()[0]}, "
        f"{os.cpu_count()} cores, load at start {_load()})\n"
    )
    results = {}
    with tempfile.TemporaryDirectory(prefix="mcts_envs_wheel_") as work:
        install = wheel_install(args.wheel.resolve(), Path(work)) if args.wheel else None
        for row in ROWS:
            if row.name not in names:
                continue
            results[row.name] = r = measure(row, args.repeats, args.timeout)
            if install is not None and row.name in WHEEL_ROWS:
                r.update(measure_wheel(row, args.repeats, args.timeout, install))
            wheel = (
                f", wheel {_seconds(r['wheel'])} {[round(s, 2) for s in r['wheel_runs']]}"
                if "wheel" in r
                else ""
            )
            print(
                f"  {row.name}: cold {_seconds(r['cold'])} {[round(s, 2) for s in r['cold_runs']]}"
                f", warm {_seconds(r['warm'])} {[round(s, 2) for s in r['warm_runs']]}{wheel} "
                f"(load {r['load']})",
                flush=True,
            )
    print()
    print_table(results)
    for name in profiled:
        profile(name, args.top, args.timeout)
    print(f"\nload at the end {_load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
