"""Tantrix throughput: compiled random games per second and legal actions per position.

Measures on one core, medians of ``--repeats`` runs of about ``--seconds`` each:

* complete random games (deal, every draw, forced fills, restrictions, endgame, scoring) by the
  compiled playout kernel, with the JIT compile time measured apart in a fresh numba cache;
* the distribution of the number of legal actions per decision over ``--games`` random games,
  overall, by phase and by stage, printed beside the figures of the Tantrix MCTS sources
  (50-75 typical, up to about 200 in the endgame);
* random-play moves/s through ``tantrix_v0.env()`` (AEC loop: ``last``, mask, ``step``).

Target: >= 500 complete random games/s on one core.

Usage: ``python benchmarks/tantrix_throughput.py [--seconds 1.0] [--repeats 5] [--games 2000]
[--warm-cache]`` (from a source checkout, put the repository root on ``PYTHONPATH`` to measure
that copy).
"""

from __future__ import annotations

import argparse
import statistics
import time

import measure  # noqa: F401  (first: points numba at a fresh cache)
import numpy as np
from measure import compile_seconds, env_moves_per_second, playouts_per_second

import mcts_envs
from mcts_envs.core.seeding import make_rng
from mcts_envs.games.tantrix import kernels as k

TARGET_GAMES_PER_SECOND = 500


def legal_action_counts(game, games: int, seed: int):
    """Per decision: (legal-action count, phase, tiles on the board), and the final states."""
    rng = make_rng(seed)
    counts = np.zeros(k.NUM_TILES, np.int64)
    phases = np.zeros(k.NUM_TILES, np.int64)
    rows, finals = [], []
    for _ in range(games):
        state = game.initial_state()
        n = k.playout_statistics(state, rng, counts, phases)
        rows.extend((int(counts[i]), int(phases[i]), i) for i in range(n))
        finals.append(state)
    return np.array(rows), finals


def describe(values: np.ndarray) -> str:
    if len(values) == 0:
        return "-"
    p = np.percentile(values, [10, 25, 50, 75, 90])
    return (
        f"n={len(values):7,}  mean {values.mean():6.1f}  p10 {p[0]:5.0f}  p25 {p[1]:5.0f}  "
        f"median {p[2]:5.0f}  p75 {p[3]:5.0f}  p90 {p[4]:5.0f}  max {values.max():5d}"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="length of one measurement")
    parser.add_argument("--repeats", type=int, default=5, help="measurements per figure (median)")
    parser.add_argument("--games", type=int, default=2000, help="games for the distribution")
    parser.add_argument("--warm-cache", action="store_true", help="reuse the numba cache")
    args = parser.parse_args(argv)
    if args.repeats < 1 or args.seconds <= 0 or args.games < 1:
        parser.error("--repeats and --games must be >= 1 and --seconds > 0")

    game = mcts_envs.make_game("tantrix")
    print(f"mcts-envs {mcts_envs.__version__}; two-player Tantrix; medians of {args.repeats} runs")

    print("\n== JIT compile (first call, fresh numba cache unless --warm-cache) ==")
    print(f"  playout kernels            {compile_seconds(game):8.2f} s")
    tic = time.perf_counter()
    state = game.initial_state()
    k.playout_statistics(state, make_rng(0), np.zeros(56, np.int64), np.zeros(56, np.int64))
    game.legal_actions(state)
    game.observation(state, 0)
    game.score(state)
    print(f"  game API kernels           {time.perf_counter() - tic:8.2f} s")

    print("\n== complete random games, compiled playout kernel (one core) ==")
    rates = [playouts_per_second(game, args.seconds, seed) for seed in range(args.repeats)]
    rate = statistics.median(rates)
    print(
        f"  games/s (median)           {rate:10,.0f}   runs: {', '.join(f'{r:,.0f}' for r in rates)}"
    )
    verdict = "met" if rate >= TARGET_GAMES_PER_SECOND else "NOT met"
    print(f"  target                     {TARGET_GAMES_PER_SECOND:10,}   {verdict}")

    print(f"\n== legal actions per decision over {args.games:,} random games ==")
    tic = time.perf_counter()
    rows, finals = legal_action_counts(game, args.games, 2024)
    counts, phases, placed = rows[:, 0], rows[:, 1], rows[:, 2]
    print(f"  (collected in {time.perf_counter() - tic:.1f} s)")
    print("  sources (Tantrix MCTS report): 50-75 typical, up to ~200 in the endgame")
    print(f"  all decisions      {describe(counts)}")
    print(f"  free moves         {describe(counts[phases == k.PHASE_FREE])}")
    print(f"  forced fills       {describe(counts[phases != k.PHASE_FREE])}")
    print(f"  free, tiles 1-20   {describe(counts[(phases == k.PHASE_FREE) & (placed < 20)])}")
    middle = (phases == k.PHASE_FREE) & (placed >= 20) & (placed < 44)
    print(f"  free, tiles 21-44  {describe(counts[middle])}")
    endgame = (phases == k.PHASE_FREE) & (placed >= 44)
    print(f"  free, endgame      {describe(counts[endgame])}   (bag empty: no restrictions)")
    single = np.mean(counts == 1)
    print(f"  single-action decisions    {single:.3f} of all (RULES 13b: about a third)")
    statuses = np.array([int(s[k.STATUS]) for s in finals])
    holes = np.array([int(s[k.FORCED_COUNT]) for s in finals])
    print(
        f"  deadlocks {np.sum(statuses == k.DEADLOCK)} of {len(finals):,}; "
        f"holes at the end: mean {holes[statuses == k.FINISHED].mean():.1f} (RULES 13a: about nine)"
    )
    scores = np.array([game.scores(s) for s in finals])
    print(f"  best-line scores: mean {scores.mean():.1f}, max {scores.max()}")

    print("\n== env() random play: moves/s (AEC loop: last, mask, step; draws inside) ==")
    env_rates = [
        env_moves_per_second(mcts_envs.tantrix_v0.env, args.seconds, seed)
        for seed in range(args.repeats)
    ]
    print(f"  tantrix_v0 env()           {statistics.median(env_rates):10,.0f}")


if __name__ == "__main__":
    main()
