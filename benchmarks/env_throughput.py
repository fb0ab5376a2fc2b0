"""Env and playout throughput: mcts-envs against PettingZoo, in one run on this machine.

Measures (medians of ``--repeats`` runs, one core):

* random-play moves/s through ``env()`` for our ``tictactoe_v0`` and PettingZoo's ``tictactoe_v3``
  (both with their standard safety wrappers, same loop, same mask sampling);
* compiled random playouts/s for every registered game (or ``--games``), with the JIT compile time
  measured apart (a fresh numba cache directory, so the compile is real).

Usage: ``python benchmarks/env_throughput.py [--seconds 1.0] [--repeats 5] [--games a,b]``
"""

from __future__ import annotations

import argparse

import measure  # noqa: F401  (first: points numba at a fresh cache)
from measure import compile_seconds, env_moves_per_second, median_of, playouts_per_second

import mcts_envs


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="length of one measurement")
    parser.add_argument("--repeats", type=int, default=5, help="measurements per figure (median)")
    parser.add_argument("--games", default=",".join(mcts_envs.list_games()))
    parser.add_argument("--warm-cache", action="store_true", help="reuse the numba cache")
    args = parser.parse_args(argv)

    print(f"mcts-envs {mcts_envs.__version__}; medians of {args.repeats} x {args.seconds:.1f} s")
    print("\n== env() random play, tictactoe: moves/s (AEC loop: last, mask sample, step) ==")
    ours = median_of(
        lambda seed: env_moves_per_second(mcts_envs.tictactoe_v0.env, args.seconds, seed),
        args.repeats,
    )
    print(f"  mcts_envs tictactoe_v0 env()  {ours:12,.0f}")
    try:
        from pettingzoo.classic import tictactoe_v3
    except ImportError as error:  # pygame missing: PettingZoo classic needs it
        print(f"  PettingZoo tictactoe_v3: not available ({error}); pip install 'mcts-envs[bench]'")
    else:
        theirs = median_of(
            lambda seed: env_moves_per_second(tictactoe_v3.env, args.seconds, seed), args.repeats
        )
        print(f"  PettingZoo tictactoe_v3 env() {theirs:12,.0f}")
        print(f"  ratio ours / PettingZoo       {ours / theirs:12.2f}x   (target >= 3x)")

    print("\n== compiled random playouts from the initial state (one core) ==")
    print(f"  {'game':<20} {'compile s':>10} {'playouts/s':>14}")
    for name in args.games.split(","):
        game = mcts_envs.make_game(name)
        compiled = compile_seconds(game)
        rate = median_of(
            lambda seed, game=game: playouts_per_second(game, args.seconds, seed), args.repeats
        )
        print(f"  {name:<20} {compiled:10.2f} {rate:14,.0f}")
    print("  targets: tictactoe >= 1,000,000/s; ultimate_tictactoe >= 100,000/s")


if __name__ == "__main__":
    main()
