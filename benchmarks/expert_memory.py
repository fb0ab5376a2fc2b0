"""Memory of ``mcts-envs expert``: does it grow with the games recorded?

Each run is a fresh process recording a Tantrix dataset (the game with the largest observation:
90 KB a decision) with a cheap expert, and reporting its peak resident memory (``ru_maxrss``):

* ``streamed``: :func:`mcts_envs.agents.evaluation.expert.write_expert_data`, what the command
  runs now (each finished game spooled to disk, the file assembled field by field);
* ``in memory``: :func:`~mcts_envs.agents.evaluation.expert.generate_expert_data` then
  :func:`~mcts_envs.agents.evaluation.expert.save_expert_data` (what the command did before).

The growth per game is the slope between the two game counts.

Usage: ``python benchmarks/expert_memory.py [--games 2 8] [--spec mcts:iterations=20]
[--symmetries]``.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = """
import resource, sys, time
from mcts_envs.agents.evaluation import expert
mode, games, spec, symmetries, out = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
config = expert.ExpertConfig("tantrix", spec, games, seed=1, symmetries=symmetries == "1")
start = time.perf_counter()
if mode == "streamed":
    expert.write_expert_data(out, config)
else:
    expert.save_expert_data(out, expert.generate_expert_data(config))
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, time.perf_counter() - start)
"""


def peak_kib(mode: str, games: int, spec: str, symmetries: bool) -> tuple[int, float]:
    with tempfile.TemporaryDirectory() as scratch:
        done = subprocess.run(
            [sys.executable, "-c", CHILD, mode, str(games), spec, str(int(symmetries)),
             os.path.join(scratch, "data.npz")],
            cwd=ROOT,
            env=os.environ | {"PYTHONPATH": str(ROOT)},
            capture_output=True,
            text=True,
            check=True,
        )  # fmt: skip
    peak, seconds = done.stdout.split()
    return int(peak), float(seconds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, nargs=2, default=[2, 8])
    parser.add_argument("--spec", default="mcts:iterations=20")
    parser.add_argument("--symmetries", action="store_true")
    args = parser.parse_args()
    small, large = args.games
    print(f"load average at start {os.getloadavg()}; tantrix, {args.spec}")
    print(f"{'mode':<10} {'games':>6} {'peak MiB':>9} {'seconds':>8}")
    for mode in ("streamed", "in memory"):
        peaks = {}
        for games in (small, large):
            peak, seconds = peak_kib(mode, games, args.spec, args.symmetries)
            peaks[games] = peak
            print(f"{mode:<10} {games:>6} {peak / 1024:>9.1f} {seconds:>8.1f}", flush=True)
        slope = (peaks[large] - peaks[small]) / 1024 / (large - small)
        print(f"{mode:<10} growth: {slope:.1f} MiB per game")
    print(f"load average at end {os.getloadavg()}")


if __name__ == "__main__":
    main()
