"""Memory of a long tournament: does it grow with the games played?

Each run is a fresh process playing one Tic-Tac-Toe tournament (``random`` against ``minimax2``,
``--games-per-pair N``, results on a RAM disk so fsync costs nothing) and reporting its peak
resident memory (``ru_maxrss``). Two ways are compared:

* ``command``: ``mcts-envs tournament`` as it runs now: no record is kept in memory while
  playing (``RunSettings(keep_records=False)``), the final table reads the file back.
* ``kept``: :func:`mcts_envs.agents.evaluation.run.run_plan` keeping every record in memory (the
  default of the API; what the command did before), then rating them.

The growth per game is the slope between the smallest and the largest count. Printed with the load
average (a shared machine makes the times noisy, not the memory).

Usage: ``python benchmarks/tournament_memory.py [--games 2000 20000] [--dir /dev/shm]
[--bootstrap 50]`` (the final table's bootstrap samples; its arrays are per game pair).
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
mode, games, out, bootstrap = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
start = time.perf_counter()
if mode == "command":
    from mcts_envs.agents.frontends.cli import main
    import io
    status = main(["tournament", "tictactoe", "random", "minimax2", "--games-per-pair",
                   str(games), "--out", out, "--overwrite", "--no-progress", "--bootstrap", bootstrap],
                  out=io.StringIO())
    assert status == 0, status
else:
    from mcts_envs.agents.evaluation.plan import plan_tournament
    from mcts_envs.agents.evaluation.ratings import rate
    from mcts_envs.agents.evaluation.run import RunSettings, run_plan
    plan = plan_tournament("tictactoe", ["random", "minimax2"], games)
    outcome = run_plan(plan, RunSettings(out=out, overwrite=True))
    rate(outcome.records, None, int(bootstrap))
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
print(peak, time.perf_counter() - start)
"""


def peak_kib(mode: str, games: int, folder: str, bootstrap: int) -> tuple[int, float]:
    """Peak resident memory (KiB) and seconds of one tournament of ``games`` games."""
    with tempfile.TemporaryDirectory(dir=folder) as scratch:
        out = os.path.join(scratch, "results.jsonl")
        done = subprocess.run(
            [sys.executable, "-c", CHILD, mode, str(games), out, str(bootstrap)],
            cwd=ROOT,
            env=os.environ | {"PYTHONPATH": str(ROOT)},
            capture_output=True,
            text=True,
            check=True,
        )
    peak, seconds = done.stdout.split()
    return int(peak), float(seconds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, nargs=2, default=[2000, 20000])
    parser.add_argument("--dir", default="/dev/shm" if os.path.isdir("/dev/shm") else None)
    parser.add_argument("--bootstrap", type=int, default=50, help="the final table's samples")
    args = parser.parse_args()
    small, large = args.games
    print(f"load average at start {os.getloadavg()}")
    print(f"{'mode':<8} {'games':>7} {'peak MiB':>9} {'seconds':>8}")
    for mode in ("command", "kept"):
        peaks = {}
        for games in (small, large):
            peak, seconds = peak_kib(mode, games, args.dir, args.bootstrap)
            peaks[games] = peak
            print(f"{mode:<8} {games:>7} {peak / 1024:>9.1f} {seconds:>8.1f}", flush=True)
        slope = (peaks[large] - peaks[small]) * 1024 / (large - small)
        print(f"{mode:<8} growth: {slope:,.0f} bytes per game")
    print(f"load average at end {os.getloadavg()}")


if __name__ == "__main__":
    main()
