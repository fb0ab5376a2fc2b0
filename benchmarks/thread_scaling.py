"""Thread scaling of the compiled rollout, against what the machine gives two independent processes.

For every game and N in ``--sizes`` (default 1024), three ways to run
:meth:`VectorGame.random_rollout` on N envs:

* ``1 thread``: one process, ``threads=False`` (the reference);
* ``2 threads``: one process, ``threads=True`` (the package's threads, one chunk of envs each);
* ``2 processes``: two independent processes of one thread, N/2 envs each, started together
  (nothing shared: the machine's ceiling for any way of splitting the work in two).

The three are measured in turn, ``--seconds`` each, and the round is repeated ``--rounds`` times;
a ratio is taken within a round (2 threads / 1 thread, 2 processes / 1 thread) and the median of
the rounds is printed. Taking ratios within a round cancels most of the drift of a shared or
virtual machine's speed, which moves single figures by up to 2x between runs here. If the two
processes do not reach a ratio, no threading of ours can: ``threads/processes`` says how much of
the machine's parallelism the threads keep.

Usage: ``python benchmarks/thread_scaling.py [--games tictactoe,...] [--sizes 1024,16384]
[--seconds 0.5] [--rounds 11] [--warm-cache]``.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import platform
import statistics

import measure  # first: points numba's cache at a fresh directory unless --warm-cache

import mcts_envs
from mcts_envs.vector import VectorGame

#: Calls of ``random_rollout`` per timed run: each call is long enough (a tenth of the run on one
#: thread) that the cost of starting the threads is a small part of it.
CALLS_PER_RUN = 10


def steps_per_second(vg: VectorGame, steps_per_call: int, seconds: float) -> float:
    """Env steps per second of ``vg.random_rollout(steps_per_call)`` repeated for ``seconds``."""
    return measure.rate(
        lambda: (vg.random_rollout(steps_per_call), steps_per_call * vg.num_envs)[1], seconds
    )


def ready_batch(name: str, num_envs: int, threads: bool) -> VectorGame:
    """A reset batch whose rollout code is compiled or loaded (one untimed call)."""
    vg = VectorGame(name, num_envs, seed=0, threads=threads)
    vg.reset()
    vg.random_rollout(1)
    return vg


def process_worker(name: str, num_envs: int, start: mp.Barrier, commands, results) -> None:
    """One process of the ``2 processes`` column: on each command (steps per call, seconds),
    wait for the other process at ``start``, run, and report steps per second; ``None`` ends it."""
    vg = ready_batch(name, num_envs, threads=False)
    results.put("ready")
    while (command := commands.get()) is not None:
        start.wait()
        results.put(steps_per_second(vg, *command))


class ProcessPair:
    """Two running worker processes of one game and N/2 envs each, measured together."""

    def __init__(self, name: str, num_envs: int) -> None:
        context = mp.get_context("spawn")
        self._start = context.Barrier(2)
        self._results = context.Queue()
        self._commands = [context.Queue() for _ in range(2)]
        self._workers = [
            context.Process(
                target=process_worker,
                args=(name, num_envs // 2, self._start, commands, self._results),
                daemon=True,
            )
            for commands in self._commands
        ]
        for worker in self._workers:
            worker.start()
        for _ in self._workers:
            self._results.get()  # "ready"

    def steps_per_second(self, steps_per_call: int, seconds: float) -> float:
        """The two processes' summed steps per second over a run of about ``seconds``."""
        for commands in self._commands:
            commands.put((steps_per_call, seconds))
        return sum(self._results.get() for _ in self._workers)

    def close(self) -> None:
        for commands in self._commands:
            commands.put(None)
        for worker in self._workers:
            worker.join()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default=",".join(mcts_envs.list_games()))
    parser.add_argument("--sizes", default="1024")
    parser.add_argument("--seconds", type=float, default=0.5)
    parser.add_argument("--rounds", type=int, default=11)
    parser.add_argument("--warm-cache", action="store_true", help="reuse the numba cache")
    args = parser.parse_args(argv)
    games = [mcts_envs.get_entry(g).name for g in args.games.split(",")]
    sizes = [int(s) for s in args.sizes.split(",")]
    print(
        f"mcts-envs {mcts_envs.__version__}; {platform.processor() or platform.machine()}, "
        f"{os.cpu_count()} cores; {args.rounds} rounds of 3 x {args.seconds:g} s, medians of "
        f"the per-round ratios; load average {measure.load_average()} at the start",
        flush=True,
    )
    print(
        "| game | N | 1 thread (steps/s) | 2 threads / 1 | 2 processes / 1 | threads / processes |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for name in games:
        for size in sizes:
            one = ready_batch(name, size, threads=False)
            two = ready_batch(name, size, threads=True)
            pair = ProcessPair(name, size)
            steps = measure.size_lasting(one.random_rollout, args.seconds / CALLS_PER_RUN)
            singles, threads, processes = [], [], []
            for _ in range(args.rounds):
                single = steps_per_second(one, steps, args.seconds)
                singles.append(single)
                threads.append(steps_per_second(two, steps, args.seconds) / single)
                processes.append(pair.steps_per_second(steps, args.seconds) / single)
            pair.close()
            thread_ratio = statistics.median(threads)
            process_ratio = statistics.median(processes)
            print(
                f"| {name} | {size} | {statistics.median(singles):,.0f} | {thread_ratio:.2f}x | "
                f"{process_ratio:.2f}x | {thread_ratio / process_ratio:.2f} |",
                flush=True,
            )
    print(f"load average {measure.load_average()} at the end")


if __name__ == "__main__":
    main()
