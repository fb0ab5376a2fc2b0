"""Env and playout throughput: mcts-envs against PettingZoo, in one run on this machine.

Measures:

* random-play moves/s through ``mcts_envs.make("<game>_v0")`` (``env()``) and PettingZoo's
  classic env of the same game (``tictactoe_v3``, ``connect_four_v3``), both with their standard
  safety wrappers, in the same loop (``last``,
  ``np.flatnonzero`` over the mask, a uniform draw, ``step``; ``reset(seed=...)`` before each
  game), measured in **pairs**: ``--games`` games of ours, then as many of PettingZoo's, ``--pairs``
  times; each pair gives a ratio, and the figure is the median ratio (with the lowest and highest)
  so that a change of the machine's speed between the two halves of a pair moves one ratio, not
  the median. Two ways: one env reused for every game, and a new env built for every game
  (``fresh``: what a harness that makes an env per episode pays);
* compiled random playouts/s for every registered game (or ``--playout-games``), with the JIT
  compile time measured apart (a fresh numba cache directory, so the compile is real).

Usage: ``python benchmarks/env_throughput.py [--games 600] [--pairs 5] [--seconds 1.0]
[--repeats 5] [--playout-games a,b] [--warm-cache]``
"""

from __future__ import annotations

import argparse
import importlib
import statistics
import time
from collections.abc import Callable

import measure  # noqa: F401  (first: points numba at a fresh cache)
import numpy as np
from measure import compile_seconds, load_average, median_of, playouts_per_second

import mcts_envs

#: Our game -> the PettingZoo classic env of the same game.
PETTINGZOO_PEERS = {"tictactoe": "tictactoe_v3", "connect_four": "connect_four_v3"}


def moves_per_second(make_env: Callable, games: int, seed: int, fresh: bool) -> float:
    """Random-play moves/s over ``games`` games (``fresh``: a new env for every game)."""
    rng = np.random.default_rng(seed)
    env = make_env()
    moves, start = 0, time.perf_counter()
    for index in range(games):
        if fresh:
            env = make_env()
        env.reset(seed=seed * 100_000 + index)
        for _agent in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            legal = np.flatnonzero(observation["action_mask"])
            env.step(int(legal[rng.integers(len(legal))]))
            moves += 1
    return moves / (time.perf_counter() - start)


def paired_ratios(
    ours: Callable, theirs: Callable, games: int, pairs: int, fresh: bool
) -> tuple[list[float], list[float], list[float]]:
    """``(ours moves/s, theirs moves/s, ratios)`` of ``pairs`` back-to-back pairs."""
    for make in (ours, theirs):  # untimed warm-up: compiles or loads every kernel of the loop
        moves_per_second(make, 20, 0, fresh)
    mine, peer = [], []
    for pair in range(pairs):
        mine.append(moves_per_second(ours, games, pair, fresh))
        peer.append(moves_per_second(theirs, games, pair, fresh))
    return mine, peer, [a / b for a, b in zip(mine, peer, strict=True)]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=600, help="games per half of a pair")
    parser.add_argument("--pairs", type=int, default=5, help="pairs (the figure is their median)")
    parser.add_argument("--seconds", type=float, default=1.0, help="length of a playout timing")
    parser.add_argument("--repeats", type=int, default=5, help="playout timings (median)")
    parser.add_argument("--playout-games", default=",".join(mcts_envs.list_games()))
    parser.add_argument("--warm-cache", action="store_true", help="reuse the numba cache")
    args = parser.parse_args(argv)

    print(f"mcts-envs {mcts_envs.__version__}; load average {load_average()} at the start")
    for name, peer_name in PETTINGZOO_PEERS.items():
        env_name = mcts_envs.get_entry(name).env_name
        print(
            f"\n== random play, {name}: moves/s, {args.pairs} pairs of {args.games} games "
            "(AEC loop: last, mask sample, step) =="
        )
        try:
            peer = importlib.import_module(f"pettingzoo.classic.{peer_name}")
        except ImportError as error:  # pygame missing: PettingZoo classic needs it
            peer = None
            print(
                f"  PettingZoo {peer_name}: not available ({error}); pip install 'mcts-envs[bench]'"
            )
        print(f"  {'envs':<22} {'ours':>10} {'PettingZoo':>11} {'ratio (median, range)':>28}")
        for fresh in (False, True):
            label = "a new env every game" if fresh else "one env, reused"
            ours = lambda env_name=env_name: mcts_envs.make(env_name)  # noqa: E731
            if peer is None:
                rates = (moves_per_second(ours, args.games, p, fresh) for p in range(3))
                print(f"  {label:<22} {statistics.median(rates):10,.0f}")
                continue
            mine, theirs, ratios = paired_ratios(ours, peer.env, args.games, args.pairs, fresh)
            print(
                f"  {label:<22} {statistics.median(mine):10,.0f} "
                f"{statistics.median(theirs):11,.0f} "
                f"{statistics.median(ratios):10.2f}x ({min(ratios):.2f}x-{max(ratios):.2f}x)"
            )
    print("  target: >= 3x (median ratio)")

    print("\n== compiled random playouts from the initial state (one core) ==")
    print(f"  {'game':<20} {'compile s':>10} {'playouts/s':>14}")
    for name in args.playout_games.split(","):
        game = mcts_envs.make_game(name)
        compiled = compile_seconds(game)
        rate = median_of(
            lambda seed, game=game: playouts_per_second(game, args.seconds, seed), args.repeats
        )
        print(f"  {name:<20} {compiled:10.2f} {rate:14,.0f}")
    print("  targets: tictactoe >= 1,000,000/s; ultimate_tictactoe >= 100,000/s")
    print(f"load average {load_average()} at the end")


if __name__ == "__main__":
    main()
