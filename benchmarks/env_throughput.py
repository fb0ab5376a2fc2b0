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
import os
import statistics
import sys
import tempfile
import time

# A fresh cache makes the first call a real compile (reported apart from steady-state speed).
if "--warm-cache" not in sys.argv:
    os.environ["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(prefix="mcts_envs_bench_")
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")

import numpy as np

import mcts_envs
from mcts_envs.core.playouts import run_random_playouts
from mcts_envs.core.seeding import make_rng


def env_moves_per_second(make_env, seconds: float) -> float:
    """Random-play moves per second through the AEC loop for ``seconds``."""
    env = make_env()
    rng = np.random.default_rng(0)
    moves, games, start = 0, 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        env.reset(seed=games)
        for _agent in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.integers(len(legal))]))
            moves += 1
        games += 1
    return moves / (time.perf_counter() - start)


def playouts_per_second(game, seconds: float) -> float:
    """Compiled random playouts per second from the initial state, batches of growing size."""
    kernels, start = game.kernels, game.initial_state()
    rng = make_rng(0)
    count, elapsed = 1000, 0.0
    while True:
        tic = time.perf_counter()
        run_random_playouts(kernels.random_playout, kernels.returns, start, count, rng)
        elapsed = time.perf_counter() - tic
        if elapsed >= seconds / 4 or count > 10**8:
            return count / elapsed
        count *= 4


def compile_seconds(game) -> float:
    """Time of the first batch call (compiles the game's kernels and the batch loop)."""
    kernels = game.kernels
    tic = time.perf_counter()
    run_random_playouts(
        kernels.random_playout, kernels.returns, game.initial_state(), 1, make_rng(0)
    )
    return time.perf_counter() - tic


def median_of(fn, repeats: int) -> float:
    return statistics.median(fn() for _ in range(repeats))


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
        lambda: env_moves_per_second(mcts_envs.tictactoe_v0.env, args.seconds), args.repeats
    )
    print(f"  mcts_envs tictactoe_v0 env()  {ours:12,.0f}")
    try:
        from pettingzoo.classic import tictactoe_v3
    except ImportError as error:  # pygame missing: PettingZoo classic needs it
        print(f"  PettingZoo tictactoe_v3: not available ({error}); pip install 'mcts-envs[bench]'")
    else:
        theirs = median_of(
            lambda: env_moves_per_second(tictactoe_v3.env, args.seconds), args.repeats
        )
        print(f"  PettingZoo tictactoe_v3 env() {theirs:12,.0f}")
        print(f"  ratio ours / PettingZoo       {ours / theirs:12.2f}x   (target >= 3x)")

    print("\n== compiled random playouts from the initial state (one core) ==")
    print(f"  {'game':<20} {'compile s':>10} {'playouts/s':>14}")
    for name in args.games.split(","):
        game = mcts_envs.make_game(name)
        compiled = compile_seconds(game)
        rate = median_of(lambda game=game: playouts_per_second(game, args.seconds), args.repeats)
        print(f"  {name:<20} {compiled:10.2f} {rate:14,.0f}")
    print("  targets: tictactoe >= 1,000,000/s; ultimate_tictactoe >= 100,000/s")


if __name__ == "__main__":
    main()
