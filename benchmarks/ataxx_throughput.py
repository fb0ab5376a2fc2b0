"""Ataxx throughput: compiled random playouts per second and env() random-play moves per second.

Measures on one core, medians of ``--repeats`` runs of about ``--seconds`` each:

* compiled random playouts from the start position (full games to the end, the 100-ply rule
  included), with the JIT compile time measured apart in a fresh numba cache directory;
  also the mean game length in plies and the outcome split of the measured games;
* random-play moves/s through ``ataxx_v0.env()`` (AEC loop: ``last``, mask sampling, ``step``).

Target: >= 20,000 full random games/s on one core.

Usage: ``python benchmarks/ataxx_throughput.py [--seconds 1.0] [--repeats 5] [--warm-cache]``
"""

from __future__ import annotations

import argparse
import statistics
import time

import measure  # noqa: F401  (first: points numba at a fresh cache)
import numpy as np
from measure import env_moves_per_second, playouts_per_second
from numba import njit

import mcts_envs
from mcts_envs.core.playouts import run_random_playouts
from mcts_envs.core.seeding import make_rng
from mcts_envs.games.ataxx import kernels as k

TARGET_PLAYOUTS_PER_SECOND = 20_000


@njit(cache=True)
def playout_lengths(start, count, rng):
    """Total plies of ``count`` random games from ``start`` and their outcome counts."""
    plies = 0
    outcomes = np.zeros(4, np.int64)
    work = start.copy()
    for _ in range(count):
        work[:] = start
        k.random_playout(work, rng)
        plies += 2 * (work[k.FULLMOVE] - start[k.FULLMOVE]) + work[k.SIDE] - start[k.SIDE]
        outcomes[work[k.STATUS]] += 1
    return plies, outcomes


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="length of one measurement")
    parser.add_argument("--repeats", type=int, default=5, help="measurements per figure (median)")
    parser.add_argument("--warm-cache", action="store_true", help="reuse the numba cache")
    args = parser.parse_args(argv)
    if args.repeats < 1 or args.seconds <= 0:
        parser.error("--repeats must be >= 1 and --seconds > 0")

    game = mcts_envs.make_game("ataxx")
    start = game.initial_state()
    print(f"mcts-envs {mcts_envs.__version__}; Ataxx 7x7; medians of {args.repeats} runs")

    print("\n== JIT compile (first call, fresh numba cache unless --warm-cache) ==")
    tic = time.perf_counter()
    kernels = game.kernels
    run_random_playouts(kernels.random_playout, kernels.returns, start, 1, make_rng(0))
    print(f"  playout batch kernels      {time.perf_counter() - tic:8.2f} s")
    tic = time.perf_counter()
    playout_lengths(start, 1, make_rng(0))
    game.legal_actions(start)
    game.apply(start, 8)
    game.observation(start, 0)
    print(f"  game API kernels           {time.perf_counter() - tic:8.2f} s")

    print("\n== compiled random playouts from the start position (one core) ==")
    rates = [playouts_per_second(game, args.seconds, seed) for seed in range(args.repeats)]
    rate = statistics.median(rates)
    sample = 20_000
    plies, outcomes = playout_lengths(start, sample, make_rng(12345))
    mean_plies = plies / sample
    print(
        f"  playouts/s (median)        {rate:12,.0f}   runs: {', '.join(f'{r:,.0f}' for r in rates)}"
    )
    print(
        f"  target                     {TARGET_PLAYOUTS_PER_SECOND:12,}   "
        f"{'met' if rate >= TARGET_PLAYOUTS_PER_SECOND else 'NOT met'}"
    )
    print(f"  mean game length           {mean_plies:12.1f} plies ({sample:,} games)")
    print(f"  plies/s                    {rate * mean_plies:12,.0f}")
    names = ("unfinished", "x wins", "o wins", "draws")
    split = ", ".join(f"{names[i]} {outcomes[i] / sample:.3f}" for i in (1, 2, 3))
    print(f"  outcomes                   {split}")

    print("\n== env() random play: moves/s (AEC loop: last, mask sample, step) ==")
    env_rates = [
        env_moves_per_second(mcts_envs.ataxx_v0.env, args.seconds, seed)
        for seed in range(args.repeats)
    ]
    print(f"  ataxx_v0 env()             {statistics.median(env_rates):12,.0f}")
    raw_rates = [
        env_moves_per_second(mcts_envs.ataxx_v0.raw_env, args.seconds, seed)
        for seed in range(args.repeats)
    ]
    print(f"  ataxx_v0 raw_env()         {statistics.median(raw_rates):12,.0f}")


if __name__ == "__main__":
    main()
