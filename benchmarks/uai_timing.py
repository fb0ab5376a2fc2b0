"""How quickly ``mcts-envs uai`` answers through the pipe: ``go movetime`` overshoot, and the
latency of ``isready`` and ``stop`` during long searches of alpha-beta, minimax2 and MCTS.

Usage: ``python benchmarks/uai_timing.py [--agent SPEC] [--movetime MS ...] [--moves N]
[--stop-agents SPEC ...] [--bare-go-agents SPEC ...] [--stops N]``.

* movetime: per move time, the latency from writing ``go`` to reading ``bestmove`` minus the
  move time (overshoot; negative is early) as mean / 95th percentile / max, and the engine's own
  ``time`` of its last ``info`` line (agent ``--agent``, ``--moves`` moves from the start);
* stop: per agent of ``--stop-agents``, ``--stops`` searches (``go infinite`` and, alternately,
  ``go depth 30`` for alpha-beta and minimax2 or ``go movetime 600000`` for others, from
  positions of a game the engine plays against itself), each interrupted after 50-300 ms: the
  time from writing ``isready`` to reading ``readyok`` while it searches, and from writing
  ``stop`` to reading ``bestmove``, as mean / 95th percentile / max; first through the pipe
  to the engine process (what a tournament manager sees, including both processes' wake-ups),
  then in this process (a :class:`mcts_envs.agents.frontends.uai.UAIEngine` fed lines directly, ``isready`` timed
  from the planned end of a sleep, so waking up and taking the GIL from the search count: the
  engine's own share without the pipe). Agents of ``--bare-go-agents`` are measured the same
  way with a bare ``go`` (the spec's own budget, e.g. ``mcts:iterations=1000000000000``, which
  issue 39 found answered ``stop`` after 45 s).

Timings on a shared machine are noisy: the load average is printed with them.
"""

from __future__ import annotations

import argparse
import os
import queue
import random
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from mcts_envs.agents.frontends.uai import SWITCH_INTERVAL, UAIEngine  # noqa: E402


class StampedLines:
    """The output of an in-process engine: the arrival time of each reply's first word."""

    def __init__(self) -> None:
        self.arrived: dict[str, float] = {}

    def write(self, text: str) -> int:
        for line in text.splitlines():
            self.arrived[line.split()[0] if line.split() else ""] = time.perf_counter()
        return len(text)

    def flush(self) -> None:
        return None


class Engine:
    """``mcts-envs uai --agent SPEC`` on pipes; lines read by a thread, stamped on arrival."""

    def __init__(self, agent: str) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "mcts_envs.agents.frontends.cli", "uai", "--agent", agent],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
        self.lines: queue.Queue[tuple[float, str]] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.send("uai")
        self.until("uaiok")
        self.send("isready")
        self.until("readyok", timeout=900)  # compiles the agent's search

    def _read(self) -> None:
        for line in self.process.stdout:
            self.lines.put((time.perf_counter(), line.strip()))

    def send(self, line: str) -> float:
        """Write a line; the time it was written."""
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()
        return time.perf_counter()

    def until(self, word: str, timeout: float = 120) -> tuple[float, list[str]]:
        """Lines up to the first starting with ``word``; the time that one arrived."""
        lines = []
        while True:
            arrived, line = self.lines.get(timeout=timeout)
            lines.append(line)
            if line.split()[:1] == [word]:
                return arrived, lines

    def close(self) -> None:
        self.send("quit")
        self.process.wait(30)


def summary(values: list[float]) -> str:
    data = np.array(values)
    return f"{data.mean():>7.1f} {np.percentile(data, 95):>7.1f} {data.max():>7.1f}"


def measure_movetime(agent: str, movetimes: list[int], moves_per_setting: int) -> None:
    engine = Engine(agent)
    print(f"\nmovetime overshoot: agent {agent}, {moves_per_setting} moves per setting")
    print(f"{'movetime':>8} {'mean':>7} {'p95':>7} {'max':>7} {'engine ms (mean)':>17}  (ms)")
    for movetime in movetimes:
        overshoot, engine_ms = [], []
        moves: list[str] = []
        for _ in range(moves_per_setting):
            engine.send("position startpos" + (" moves " + " ".join(moves) if moves else ""))
            start = engine.send(f"go movetime {movetime}")
            arrived, lines = engine.until("bestmove")
            overshoot.append((arrived - start) * 1000 - movetime)
            info = [line.split() for line in lines if line.startswith("info depth")]
            if info:
                engine_ms.append(int(info[-1][info[-1].index("time") + 1]))
            move = lines[-1].split()[1]
            moves.append(move)
            engine.send("isready")
            engine.until("readyok")
            if move == "0000" or len(moves) > 40:
                moves = []
        values = np.array(overshoot)
        print(
            f"{movetime:>8} {values.mean():>+7.1f} {np.percentile(values, 95):>+7.1f} "
            f"{values.max():>+7.1f} {np.mean(engine_ms):>17.1f}"
        )
    engine.close()


def long_go(agent: str, index: int, bare: bool = False) -> str:
    """``go infinite``, or a search that cannot end in the benchmark's time (``bare``: ``go``,
    the spec's own budget)."""
    if bare:
        return "go"
    if index % 2 == 0:
        return "go infinite"
    if agent.split(":")[0] in ("alphabeta", "minimax2"):
        return "go depth 30"
    return "go movetime 600000"


def measure_stop(agent: str, stops: int, rng: random.Random, bare: bool = False) -> None:
    engine = Engine(agent)
    ready, stopped, depths = [], [], []
    moves: list[str] = []
    for index in range(stops):
        engine.send("position startpos" + (" moves " + " ".join(moves) if moves else ""))
        engine.send(long_go(agent, index, bare))
        time.sleep(rng.uniform(0.05, 0.3))
        asked = engine.send("isready")
        arrived, before = engine.until("readyok")
        ready.append((arrived - asked) * 1000)
        if any(line.startswith("bestmove") for line in before):
            raise RuntimeError(f"{agent}: the search ended before stop: {before[-3:]}")
        asked = engine.send("stop")
        arrived, lines = engine.until("bestmove")
        stopped.append((arrived - asked) * 1000)
        info = [line.split() for line in before + lines if line.startswith("info depth")]
        if info:
            depths.append(int(info[-1][info[-1].index("depth") + 1]))
        move = lines[-1].split()[1]
        moves.append(move)
        if move == "0000" or len(moves) > 30:
            moves = []
    engine.close()
    label = f"{agent} (go)" if bare else agent
    print(
        f"{label:>10} {'pipe':>8} {stops:>5} {summary(ready)}   {summary(stopped)}   "
        f"{np.mean(depths) if depths else float('nan'):>5.1f}"
    )


def measure_stop_in_process(agent: str, stops: int, rng: random.Random, bare: bool = False) -> None:
    out = StampedLines()
    engine = UAIEngine(agent, out)
    engine.handle("isready")
    ready, stopped = [], []
    sys.setswitchinterval(SWITCH_INTERVAL)  # as mcts_envs.agents.frontends.uai.serve does
    for index in range(stops):
        engine.handle("position startpos")
        engine.handle(long_go(agent, index, bare))
        # from the planned end of the sleep: waking up and taking the GIL count
        asked = time.perf_counter() + rng.uniform(0.05, 0.3)
        time.sleep(asked - time.perf_counter())
        engine.handle("isready")
        ready.append((out.arrived["readyok"] - asked) * 1000)
        asked = time.perf_counter()
        engine.handle("stop")
        stopped.append((out.arrived["bestmove"] - asked) * 1000)
    label = f"{agent} (go)" if bare else agent
    print(f"{label:>10} {'in-proc.':>8} {stops:>5} {summary(ready)}   {summary(stopped)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agent", default="mcts")
    parser.add_argument("--movetime", type=int, nargs="*", default=[30, 100, 500])
    parser.add_argument("--moves", type=int, default=20)
    parser.add_argument("--stop-agents", nargs="*", default=["alphabeta", "minimax2", "mcts"])
    parser.add_argument("--bare-go-agents", nargs="*", default=[])
    parser.add_argument("--stops", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print(f"load average at start {os.getloadavg()}")
    if args.movetime:
        measure_movetime(args.agent, args.movetime, args.moves)
    if args.stop_agents or args.bare_go_agents:
        print("\nlatency while searching (interrupted after 50-300 ms)")
        print(
            f"{'agent':>10} {'via':>8} {'stops':>5} {'isready -> readyok (ms)':>23}   "
            f"{'stop -> bestmove (ms)':>23}   depth"
        )
        print(
            f"{'':>10} {'':>8} {'':>5} {'mean':>7} {'p95':>7} {'max':>7}   "
            f"{'mean':>7} {'p95':>7} {'max':>7}   (mean)"
        )
        rng = random.Random(args.seed)
        for agent in args.stop_agents:
            measure_stop(agent, args.stops, rng)
            measure_stop_in_process(agent, args.stops, rng)
        for agent in args.bare_go_agents:
            measure_stop(agent, args.stops, rng, bare=True)
            measure_stop_in_process(agent, args.stops, rng, bare=True)
    print(f"load average at end {os.getloadavg()}")


if __name__ == "__main__":
    main()
