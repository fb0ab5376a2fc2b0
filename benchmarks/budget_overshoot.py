"""Time budgets from the first move: how far each decision of whole games overshoots its budget.

For each game and agent spec, two agents of that spec (seeds 1 and 2) play one whole game after
``agent.prepare(game)`` (compilation is announced and never charged to a decision), each told
every move and chance outcome through ``agent.inform`` as the arena does. Every decision is timed
around ``act_state`` (win check, tree re-rooting, search and final choice all count). Printed per
game and spec: decisions, the median and maximum overshoot (elapsed minus budget) and how many
decisions exceeded the tolerance ``budget + max(10%, 20 ms)``, with the machine's load average
before and after (preemption on a loaded machine alone makes decisions late).

By default numba compiles into a fresh, empty cache directory (as on a new install); pass
``--warm-cache`` to reuse the normal one. The machine is usually shared: figures are noisy.

Usage: ``python benchmarks/budget_overshoot.py [--games ataxx tantrix] [--seconds 0.2]
[--specs mcts alphabeta] [--runs N] [--min-tolerance SECONDS] [--table-size N] [--warm-cache]``;
``--runs`` plays that many games per game and spec (seeds 1, 3, 5, ...; the first decision of
each game is reported apart and not counted), ``--min-tolerance`` replaces the 20 ms floor of the
tolerance (``0``: exactly 10% of the budget), ``--table-size`` gives alpha-beta that many
transposition-table entries (the default table is 1.5 MB; the largest, 2**24, 386 MB).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time

if __name__ == "__main__" and "--warm-cache" not in sys.argv:
    os.environ["MCTS_ENVS_CACHE_DIR"] = tempfile.mkdtemp(prefix="mcts_envs_budget_")

import numpy as np

import mcts_envs
from mcts_envs.agents import make_agent

#: The tolerance of the contract: budget + max(10% of it, 20 ms).
TOLERANCE_FRACTION = 0.10
TOLERANCE_SECONDS = 0.020


def tolerance(seconds: float, floor: float = TOLERANCE_SECONDS) -> float:
    """Allowed overshoot of a decision with a budget of ``seconds``."""
    return max(TOLERANCE_FRACTION * seconds, floor)


def decision_times(
    game_name: str, spec: str, seed: int = 1, max_plies: int = 400, announce: bool = True
) -> list[float]:
    """Wall-clock seconds of every decision of one self-play game of ``spec`` on the game
    (both agents prepared first; chance outcomes drawn with a generator seeded by ``seed``)."""
    game = mcts_envs.make_game(game_name)
    agents = [make_agent(spec, seed=seed), make_agent(spec, seed=seed + 1)]
    if announce:
        print(f"compiling {spec} for {game_name} (first use; cached afterwards)...", flush=True)
    for agent in agents:
        agent.prepare(game)
    generator = np.random.default_rng(seed)
    state = game.initial_state()
    times = []
    for _ in range(max_plies):
        player = game.current_player(state)
        if player == mcts_envs.TERMINAL:
            break
        if player == mcts_envs.CHANCE:
            outcomes, probabilities = game.chance_outcomes(state)
            action = int(generator.choice(outcomes, p=probabilities))
        else:
            start = time.perf_counter()
            action = agents[player].act_state(game, state)
            times.append(time.perf_counter() - start)
        for agent in agents:
            agent.inform(action)
        state = game.apply(state, action)
    return times


def summary(
    times: list[float], seconds: float, floor: float = TOLERANCE_SECONDS
) -> dict[str, float]:
    """Median and maximum overshoot and the decisions beyond the tolerance."""
    overshoot = [t - seconds for t in times]
    return {
        "decisions": len(times),
        "median": statistics.median(overshoot),
        "max": max(overshoot),
        "over": sum(o > tolerance(seconds, floor) for o in overshoot),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", nargs="+", default=["ataxx", "tantrix"])
    parser.add_argument("--specs", nargs="+", default=["mcts", "alphabeta"])
    parser.add_argument("--seconds", type=float, default=0.2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--runs", type=int, default=1, help="games per game and spec")
    parser.add_argument(
        "--min-tolerance", type=float, default=TOLERANCE_SECONDS, help="floor of the tolerance"
    )
    parser.add_argument("--table-size", type=int, help="alpha-beta's table_size option")
    parser.add_argument("--warm-cache", action="store_true", help="reuse the numba disk cache")
    args = parser.parse_args(argv)
    rows = []
    load_before = _load()
    for game_name in args.games:
        for kind in args.specs:
            spec = f"{kind}:seconds={args.seconds}" + (",iterations=None" if kind == "mcts" else "")
            if kind == "alphabeta" and args.table_size is not None:
                spec += f",table_size={args.table_size}"
            times, firsts = [], []
            for run in range(args.runs):
                game_times = decision_times(game_name, spec, args.seed + 2 * run, announce=run == 0)
                firsts.append(game_times[0])
                times += game_times[1:]
            rows.append((game_name, spec, summary(times, args.seconds, args.min_tolerance)))
            shown = ", ".join(f"{first * 1000:.1f}" for first in firsts)
            print(f"  first decisions of {game_name} {spec} (not counted): {shown} ms")
    cache = "warm disk cache" if args.warm_cache else "fresh numba cache"
    print()
    allowed = tolerance(args.seconds, args.min_tolerance) * 1000
    print(
        f"budget {args.seconds} s, tolerance +{allowed:.0f} ms, {args.runs} game(s) each, {cache}"
    )
    print(f"load average (1, 5, 15 min): before {load_before}, after {_load()}")
    print(
        f"{'game':<10} {'spec':<44} {'decisions':>9} {'median over':>12} {'max over':>9} {'beyond':>7}"
    )
    for game_name, spec, s in rows:
        print(
            f"{game_name:<10} {spec:<44} {s['decisions']:>9} {s['median'] * 1000:>10.1f}ms"
            f" {s['max'] * 1000:>7.1f}ms {s['over']:>7}"
        )


def _load() -> str:
    """The 1, 5 and 15 minute load averages, or "unknown" where the platform has none."""
    try:
        return " ".join(f"{load:.2f}" for load in os.getloadavg())
    except (AttributeError, OSError):
        return "unknown"


if __name__ == "__main__":
    main()
