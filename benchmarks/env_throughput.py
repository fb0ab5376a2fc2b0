"""Env and playout throughput: mcts-envs against PettingZoo, in one run on this machine.

Measures (medians of ``--repeats`` runs, one core):

* random-play moves/s through ``env()`` for each of our games that PettingZoo also ships
  (``tictactoe_v0`` against ``tictactoe_v3``, ``connect_four_v0`` against ``connect_four_v3``;
  both with their standard safety wrappers, same loop, same mask sampling);
* compiled random playouts/s for every registered game (or ``--games``), with the JIT compile time
  measured apart (a fresh numba cache directory, so the compile is real).

Usage: ``python benchmarks/env_throughput.py [--seconds 1.0] [--repeats 5] [--games a,b]``
"""

from __future__ import annotations

import argparse
import importlib

import measure  # noqa: F401  (first: points numba at a fresh cache)
from measure import compile_seconds, env_moves_per_second, median_of, playouts_per_second

import mcts_envs

#: Our game -> the PettingZoo classic env of the same game.
PETTINGZOO_PEERS = {"tictactoe": "tictactoe_v3", "connect_four": "connect_four_v3"}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="length of one measurement")
    parser.add_argument("--repeats", type=int, default=5, help="measurements per figure (median)")
    parser.add_argument("--games", default=",".join(mcts_envs.list_games()))
    parser.add_argument("--warm-cache", action="store_true", help="reuse the numba cache")
    args = parser.parse_args(argv)

    print(f"mcts-envs {mcts_envs.__version__}; medians of {args.repeats} x {args.seconds:.1f} s")
    for name, peer_name in PETTINGZOO_PEERS.items():
        print(f"\n== env() random play, {name}: moves/s (AEC loop: last, mask sample, step) ==")
        ours_env = mcts_envs.get_entry(name).env_factory
        ours = median_of(
            lambda seed, make=ours_env: env_moves_per_second(make, args.seconds, seed),
            args.repeats,
        )
        label = f"mcts_envs {mcts_envs.get_entry(name).env_name} env()"
        print(f"  {label:<32} {ours:12,.0f}")
        try:
            peer = importlib.import_module(f"pettingzoo.classic.{peer_name}")
        except ImportError as error:  # pygame missing: PettingZoo classic needs it
            print(
                f"  PettingZoo {peer_name}: not available ({error}); pip install 'mcts-envs[bench]'"
            )
            continue
        theirs = median_of(
            lambda seed, make=peer.env: env_moves_per_second(make, args.seconds, seed),
            args.repeats,
        )
        print(f"  {'PettingZoo ' + peer_name + ' env()':<32} {theirs:12,.0f}")
        print(f"  {'ratio ours / PettingZoo':<32} {ours / theirs:12.2f}x   (target >= 3x)")

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
