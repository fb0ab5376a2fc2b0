"""Per-game overhead of each tournament backend against the same games played in-process.

For two workloads (random vs random, and two ``mcts:iterations=200`` agents) the same planned games
are played

* in-process: ``play_game`` in a loop (no results file): the baseline;
* ``local``: :func:`mcts_envs.agents.evaluation.run.run_plan` on the local backend (results file,
  fsync per game; its startup includes preparing the agents, which the compiled-code cache makes
  short);
* ``process`` with 1 and 2 workers (spawned worker processes, agents prepared once per worker);
* ``ray`` with 1 and 2 workers (a local ``ray.init(num_cpus=2)``; skipped without Ray; a short
  untimed run first compiles the agents into each worker's own numba cache).

Printed per backend (medians of ``--repeats`` runs, each paired with an in-process run just
before it, since the shared machine's speed drifts): startup (time to the first record minus one
in-process game), steady-state seconds per game between the first and the last record, games/s
overall (startup and shutdown included), the overhead per game against in-process (steady state,
1 worker; the ``local`` row includes writing and fsyncing the results file, the others write none), and whether every record equals the in-process one
(:func:`mcts_envs.records.game_identity`) - this also runs the Ray-with-MCTS equality check that
the default test suite leaves to ``-m slow``.

Usage::

    python benchmarks/tournament_overhead.py [--game ultimate_tictactoe] [--random-games 400]
        [--mcts-games 40] [--no-ray]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mcts_envs.agents.evaluation.backends.process import ProcessBackend
from mcts_envs.agents.evaluation.games import GameRules, play_game, prepare_agents
from mcts_envs.agents.evaluation.plan import plan_tournament
from mcts_envs.agents.evaluation.run import RunHooks, RunSettings, run_plan
from mcts_envs.records import game_identity


def _key(record):
    return record["pairing"], record["index"]


def _timed(records_iter):
    """``(records, seconds to the first record, to the last record, in total)`` of a record
    iterator (the total includes shutting the backend down)."""
    start = time.perf_counter()
    first = last = None
    records = []
    for record in records_iter:
        last = time.perf_counter() - start
        if first is None:
            first = last
        records.append(record)
    return records, first or 0.0, last or 0.0, time.perf_counter() - start


def _in_process(plan):
    return _timed(play_game(task, plan.rules) for task in plan.tasks)


def _local_with_file(plan):
    path = os.path.join(tempfile.mkdtemp(), "results.jsonl")
    start = time.perf_counter()
    first = []

    def progress(record):
        if not first:
            first.append(time.perf_counter() - start)

    settings = RunSettings(out=path, overwrite=True)
    records = run_plan(plan, settings, RunHooks(on_record=progress)).records
    last = time.perf_counter() - start
    return records, first[0], last, last


def _backend(plan, backend):
    return _timed(backend.run(iter(plan.tasks), plan.rules, lambda: False))


def _measure(name, plan, run, workers, repeats, expected):
    """A table row: medians over ``repeats`` runs, each paired with an in-process run just before
    it (the machine's speed drifts, so each overhead is taken against its own baseline)."""
    startups, steadies, rates, overheads = [], [], [], []
    for _ in range(repeats):
        reference, _, _, base_total = _in_process(plan)
        per_game = base_total / len(reference)
        records, first, last, total = run()
        if sorted(map(game_identity, records), key=_key) != expected:
            raise SystemExit(f"{name}: records differ from the in-process games")
        steady = (last - first) / max(len(records) - 1, 1)
        startups.append(max(first - per_game, 0.0))
        steadies.append(steady)
        rates.append(len(records) / total)
        overheads.append((steady - per_game) * 1e3)
    overhead = f"{statistics.median(overheads):+11.2f} ms" if workers else f"{'-':>14}"
    return (
        f"  {name:<22} {statistics.median(startups):10.2f} {statistics.median(steadies):10.5f} "
        f"{statistics.median(rates):9.1f} {overhead}  yes"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="ultimate_tictactoe")
    parser.add_argument("--random-games", type=int, default=400)
    parser.add_argument("--mcts-games", type=int, default=40)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--no-ray", action="store_true")
    args = parser.parse_args()
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}"
        f", {platform.system()} (shared with other jobs: figures are noisy); medians of "
        f"{args.repeats} runs, each against an in-process run just before it"
    )
    workloads = [
        ("random vs random", ["random", "random:"], args.random_games),
        (
            "mcts:200 vs mcts:200",
            ["mcts:iterations=200", "mcts:iterations=200,c=1.4"],
            args.mcts_games,
        ),
    ]
    rules = GameRules(args.game)
    ray = None
    if not args.no_ray:
        try:
            import ray

            from mcts_envs.agents.evaluation.backends.ray_backend import RayBackend

            ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
        except ImportError:
            print("ray not installed: the ray backend is skipped (pip install 'mcts-envs[ray]')")
    tables = []
    for title, specs, games in workloads:
        plan = plan_tournament(rules, specs, games, seed=11, openings="random:2")
        opening = plan.tasks[0].opening
        prepare_agents(plan.rules.game, plan.specs, opening, print)
        _in_process(plan)  # untimed: the first games may still compile rare paths
        reference, _, _, base_total = _in_process(plan)
        expected = sorted(map(game_identity, reference), key=_key)
        per_game = base_total / len(reference)
        table = [
            f"\n{args.game}, {title}: {games} games, seed 11, openings random:2",
            f"  {'backend':<22} {'startup s':>10} {'s/game':>10} {'games/s':>9} "
            f"{'overhead/game':>14}  same records",
            f"  {'in-process':<22} {'-':>10} {per_game:10.5f} {1 / per_game:9.1f} {'-':>14}  -",
        ]
        runs = [("local (+file, fsync)", lambda p=plan: _local_with_file(p), 1)]
        for workers in (1, 2):
            runs.append(
                (
                    f"process x{workers}",
                    lambda p=plan, w=workers, o=opening: _backend(p, ProcessBackend(w, p.specs, o)),
                    workers,
                )
            )
        if ray is not None:
            for workers in (1, 2):
                warm = plan_tournament(rules, plan.specs, 2 * workers, seed=12)
                # untimed: compile once into each worker's own numba cache
                list(RayBackend(workers, warm.specs, opening).run(iter(warm.tasks), rules, bool))
                runs.append(
                    (
                        f"ray x{workers}",
                        lambda p=plan, w=workers, o=opening: _backend(p, RayBackend(w, p.specs, o)),
                        workers,
                    )
                )
        for name, run, workers in runs:
            table.append(_measure(name, plan, run, workers == 1, args.repeats, expected))
        tables.append("\n".join(table))
    if ray is not None:
        ray.shutdown()
    print("\n".join(tables))


if __name__ == "__main__":
    main()
