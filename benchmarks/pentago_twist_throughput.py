"""Pentago Twist throughput: compiled random playouts, env() random play, and OpenSpiel's pentago.

Measures on one core (medians of ``--repeats`` runs of ``--seconds`` each):

* compiled random playouts/s from the empty board (``run_random_playouts`` over the game's
  kernels), with the JIT compile time measured apart in a fresh numba cache directory;
* random-play moves/s through ``pentago_twist_v0.env()`` (AEC loop: last, mask sample, step);
* when ``pyspiel`` imports (extra ``bench``): OpenSpiel's ``pentago`` random games/s played in
  C++ (``pyspiel.evaluate_bots`` with two uniform random bots) and moves/s of a Python loop over
  ``pyspiel`` states (the nearest equivalent of our env loop), with the ratios.

OpenSpiel's ``pentago`` is classic Pentago, not Pentago Twist: rotations clockwise or
anticlockwise, no flips. Games therefore differ in length; the mean length of random games is
printed for both, so games/s can be read as moves/s too.

Usage: ``python benchmarks/pentago_twist_throughput.py [--seconds 1.0] [--repeats 5]``
(from a source checkout, put the repository root on ``PYTHONPATH`` to measure that copy).
"""

from __future__ import annotations

import argparse
import statistics
import time

import measure  # noqa: F401  (first: points numba at a fresh cache)
import numpy as np
from measure import compile_seconds, env_moves_per_second, median_of, playouts_per_second

import mcts_envs
from mcts_envs import pentago_twist_v0

OPEN_SPIEL_NOTE = (
    "OpenSpiel 'pentago' is classic Pentago (rotations clockwise or anticlockwise, no flip): "
    "a peer for speed, not for rules"
)


def mean_game_length(game, games: int) -> float:
    """Mean number of moves of compiled random games (every move adds one stone)."""
    total = 0
    for seed in range(games):
        final = game.random_playout(game.initial_state(), seed)
        total += bin(int(final[0]) | int(final[1])).count("1")
    return total / games


def open_spiel_cpp_games_per_second(pyspiel, seconds: float, seed: int) -> float:
    """OpenSpiel pentago random games/s, the whole game played in C++ by two random bots."""
    game = pyspiel.load_game("pentago")
    bots = [pyspiel.make_uniform_random_bot(0, seed), pyspiel.make_uniform_random_bot(1, seed + 1)]
    games, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        pyspiel.evaluate_bots(game.new_initial_state(), bots, seed + games)
        games += 1
    return games / (time.perf_counter() - start)


def open_spiel_python_loop(pyspiel, seconds: float, seed: int) -> tuple[float, float]:
    """``(moves/s, mean game length)`` of random play in a Python loop over pyspiel states."""
    game = pyspiel.load_game("pentago")
    rng = np.random.default_rng(seed)
    moves, games, start = 0, 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            legal = state.legal_actions()
            state.apply_action(legal[rng.integers(len(legal))])
            moves += 1
        games += 1
    return moves / (time.perf_counter() - start), moves / games


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="length of one measurement")
    parser.add_argument("--repeats", type=int, default=5, help="measurements per figure (median)")
    parser.add_argument("--warm-cache", action="store_true", help="reuse the numba cache")
    args = parser.parse_args(argv)
    repeats, seconds = max(args.repeats, 1), args.seconds
    game = mcts_envs.make_game("pentago_twist")

    print(f"mcts-envs {mcts_envs.__version__}; medians of {repeats} x {seconds:.1f} s, one core")
    print("\n== Pentago Twist, compiled random playouts from the empty board ==")
    compiled = compile_seconds(game)
    rate = median_of(lambda seed: playouts_per_second(game, seconds, seed), repeats)
    length = mean_game_length(game, 2000)
    print(f"  JIT compile (first call, apart)   {compiled:12.2f} s")
    print(f"  playouts/s                        {rate:12,.0f}   (target >= 200,000)")
    print(f"  mean random game length           {length:12.1f} moves")
    print(f"  moves/s inside playouts           {rate * length:12,.0f}")

    print("\n== Pentago Twist, env() random play (AEC loop: last, mask sample, step) ==")
    env_rate = median_of(
        lambda seed: env_moves_per_second(pentago_twist_v0.env, seconds, seed), repeats
    )
    print(f"  moves/s                           {env_rate:12,.0f}")
    print(f"  games/s                           {env_rate / length:12,.0f}")

    print("\n== OpenSpiel 'pentago' (nearest peer; rules differ) ==")
    try:
        import pyspiel
    except ImportError as error:
        print(f"  not available ({error}); pip install 'mcts-envs[bench]'")
        return
    print(f"  note: {OPEN_SPIEL_NOTE}")
    cpp_rate = median_of(
        lambda seed: open_spiel_cpp_games_per_second(pyspiel, seconds, seed), repeats
    )
    loops = [open_spiel_python_loop(pyspiel, seconds, 4) for _ in range(repeats)]
    loop_rate = statistics.median(moves for moves, _ in loops)
    spiel_length = statistics.mean(mean for _, mean in loops)
    print(f"  C++ random games/s (evaluate_bots)  {cpp_rate:12,.0f}")
    print(f"  Python-loop moves/s (pyspiel)       {loop_rate:12,.0f}")
    print(f"  mean random game length             {spiel_length:12.1f} moves")

    print("\n== ratios (ours / OpenSpiel) ==")
    print(f"  compiled playouts/s vs C++ random games/s   {rate / cpp_rate:8.2f}x")
    cpp_moves = cpp_rate * spiel_length
    print(f"  same, counted in moves/s                    {rate * length / cpp_moves:8.2f}x")
    print(f"  env() moves/s vs pyspiel Python-loop moves/s {env_rate / loop_rate:7.2f}x")


if __name__ == "__main__":
    main()
