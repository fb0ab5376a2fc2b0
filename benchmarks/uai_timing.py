"""How closely ``mcts-envs uai`` keeps ``go movetime``: bestmove latency seen through the pipe.

Usage: ``python benchmarks/uai_timing.py [--agent SPEC] [--movetime MS ...] [--moves N]``.
Prints, per move time, the latency from writing ``go`` to reading ``bestmove`` minus the move
time (overshoot; negative is early) as mean / 95th percentile / max, and the engine's own
``time`` of its last ``info`` line. Timings on a shared machine are noisy: quote the load.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agent", default="mcts")
    parser.add_argument("--movetime", type=int, nargs="+", default=[30, 100, 500])
    parser.add_argument("--moves", type=int, default=20)
    args = parser.parse_args()
    engine = subprocess.Popen(
        [sys.executable, "-m", "agents.cli", "uai", "--agent", args.agent],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        bufsize=1,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )

    def send(line: str) -> None:
        engine.stdin.write(line + "\n")
        engine.stdin.flush()

    def until(word: str) -> list[str]:
        lines = []
        while True:
            line = engine.stdout.readline()
            if not line:
                raise RuntimeError("engine exited")
            lines.append(line.strip())
            if line.startswith(word):
                return lines

    send("uai")
    until("uaiok")
    send("isready")
    until("readyok")
    print(f"agent {args.agent}, {args.moves} moves per setting, load average {os.getloadavg()}")
    print(f"{'movetime':>8} {'mean':>7} {'p95':>7} {'max':>7} {'engine ms (mean)':>17}")
    for movetime in args.movetime:
        overshoot, engine_ms = [], []
        moves: list[str] = []
        for _ in range(args.moves):
            send("position startpos" + (" moves " + " ".join(moves) if moves else ""))
            start = time.perf_counter()
            send(f"go movetime {movetime}")
            lines = until("bestmove")
            overshoot.append((time.perf_counter() - start) * 1000 - movetime)
            info = [line.split() for line in lines if line.startswith("info depth")]
            if info:
                engine_ms.append(int(info[-1][info[-1].index("time") + 1]))
            move = lines[-1].split()[1]
            moves.append(move)
            send("isready")
            until("readyok")
            if move == "0000" or len(moves) > 40:
                moves = []
        values = np.array(overshoot)
        print(
            f"{movetime:>8} {values.mean():>+7.1f} {np.percentile(values, 95):>+7.1f} "
            f"{values.max():>+7.1f} {np.mean(engine_ms):>17.1f}"
        )
    send("quit")
    engine.wait(10)


if __name__ == "__main__":
    main()
