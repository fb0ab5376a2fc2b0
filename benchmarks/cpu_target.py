"""What compiling for the portable CPU costs: the same work compiled for ``PORTABLE_CPU`` (what
wheels ship, the default) and for this machine's CPU (``MCTS_ENVS_HOST_CPU=1``).

Each side runs in processes of its own, alternating, ``--rounds`` times (each with a cache folder
of its own, filled by an untimed first round); each figure is the median of five timings of one
process, in **CPU seconds of the process** (``time.process_time``), which other work on a shared
machine disturbs far less than wall time. Rows: one MCTS decision per game at a fixed number of
iterations from the initial position (no tree reuse, no solver: every iteration runs), and 20
``VectorGame`` steps of 4,096 games.

Usage: ``python benchmarks/cpu_target.py [--rounds 3]``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: (game, MCTS iterations per decision).
MCTS_ROWS = (("tictactoe", 20_000), ("ultimate_tictactoe", 10_000), ("pentago_twist", 10_000),
             ("ataxx", 5_000))  # fmt: skip
VECTOR_ROWS = ("tictactoe", "ataxx")

_CHILD = """
import json, statistics, time
import numba
from mcts_envs.agents.spec import make_agent
from mcts_envs.core.registry import make_game
from mcts_envs.vector import VectorGame

def median_of_five(run):
    run()
    times = []
    for _ in range(5):
        start = time.process_time()
        run()
        times.append(time.process_time() - start)
    return statistics.median(times)

figures = {}
for name, iterations in MCTS_ROWS:
    game = make_game(name)
    state = game.initial_state()
    agent = make_agent(f"mcts:iterations={iterations},reuse_tree=false,solver=false", seed=0)
    figures[f"mcts {name} ({iterations} iterations)"] = median_of_five(
        lambda: agent.act_state(game, state))
for name in VECTOR_ROWS:
    vector = VectorGame(name, 4096, seed=0)
    vector.reset(seed=0)
    def steps():
        for _ in range(20):
            vector.step(vector.random_actions())
    figures[f"VectorGame {name}: 20 steps of 4,096"] = median_of_five(steps)
print(json.dumps({"cpu": numba.config.CPU_NAME or "host", "figures": figures}))
"""


def run_side(host: bool, cache: str) -> dict:
    """One process of one side; its figures (CPU seconds) and CPU name."""
    env = dict(os.environ, MCTS_ENVS_CACHE_DIR=cache)
    env.pop("NUMBA_CPU_NAME", None)
    env.pop("NUMBA_CPU_FEATURES", None)
    if host:
        env["MCTS_ENVS_HOST_CPU"] = "1"
    else:
        env.pop("MCTS_ENVS_HOST_CPU", None)
    code = f"MCTS_ROWS = {MCTS_ROWS!r}\nVECTOR_ROWS = {VECTOR_ROWS!r}\n{_CHILD}"
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout.splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3, help="timed rounds per side (default 3)")
    args = parser.parse_args(argv)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    with tempfile.TemporaryDirectory() as portable, tempfile.TemporaryDirectory() as host:
        run_side(False, portable), run_side(True, host)  # untimed: fills both caches
        rounds = [(run_side(False, portable), run_side(True, host)) for _ in range(args.rounds)]
    names = (rounds[0][0]["cpu"], rounds[0][1]["cpu"])
    print(f"CPU seconds per task, median over {args.rounds} rounds (load at start {load:.1f})\n")
    print(f"| task | {names[0]} (portable) | {names[1]} (host) | portable / host |")
    print("| --- | --- | --- | --- |")
    for task in rounds[0][0]["figures"]:
        portable_s = statistics.median(r[0]["figures"][task] for r in rounds)
        host_s = statistics.median(r[1]["figures"][task] for r in rounds)
        print(f"| {task} | {portable_s * 1e3:.1f} ms | {host_s * 1e3:.1f} ms | "
              f"{portable_s / host_s:.2f} |")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
