"""Does the Oliver-style Tantrix bot keep to its time budget? Decision times beside MCTS's.

Plays seeded Tantrix games of ``oliver:depth=D,seconds=T`` against ``mcts:seconds=T,c=0.5,win_check=false`` for
each budget ``T`` and times every decision with more than one legal placement (a single legal
placement is played at once by both). Prints, per agent and budget: decisions timed, mean, 95th
percentile and largest decision time, and the share of decisions over ``1.1 * T``; for the bot
also the depths it completed. Both agents are prepared (compiled) before any clock runs.

The machine may be shared: timings are noisy under load (the script prints the load average).

Usage: ``python benchmarks/oliver_timing.py [--budgets 0.05 0.1 0.2 0.5] [--games 2]
[--depth 8] [--seed 0]``
"""

from __future__ import annotations

import argparse
import os
import time
from collections import Counter

import numpy as np

import mcts_envs
from mcts_envs import CHANCE, TERMINAL
from mcts_envs.agents import make_agent


def play_and_time(game, agents, seed):
    """One seeded game; per seat the decision times (multi-move decisions only) and depths."""
    rng = np.random.default_rng(seed)
    state = game.initial_state()
    times = ([], [])
    depths = ([], [])
    for agent in agents:
        agent.reset()
    while game.current_player(state) != TERMINAL:
        player = game.current_player(state)
        if player == CHANCE:
            outcomes, probabilities = game.chance_outcomes(state)
            state = game.apply(state, int(rng.choice(outcomes, p=probabilities)))
            continue
        several = len(game.legal_actions(state)) > 1
        start = time.perf_counter()
        action = agents[player].act_state(game, state)
        spent = time.perf_counter() - start
        if several:
            times[player].append(spent)
            depth = getattr(agents[player], "last_search", {}).get("depth")
            if depth is not None:
                depths[player].append(depth)
        state = game.apply(state, int(action))
    return times, depths


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budgets", type=float, nargs="+", default=[0.05, 0.1, 0.2, 0.5])
    parser.add_argument("--games", type=int, default=2, help="games per budget (seats swap)")
    parser.add_argument("--depth", type=int, default=8)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    game = mcts_envs.make_game("tantrix")
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores", flush=True)
    print("compiling oliver and mcts for tantrix (first use; cached afterwards)...", flush=True)
    make_agent("oliver", seed=0).prepare(game)
    make_agent("mcts:iterations=50", seed=0).prepare(game)
    header = f"{'agent':34} {'budget':>7} {'n':>5} {'mean':>7} {'p95':>7} {'max':>7} {'>1.1T':>6}"
    print(header)
    for budget in args.budgets:
        specs = (
            f"oliver:depth={args.depth},seconds={budget}",
            f"mcts:iterations=none,seconds={budget},c=0.5,win_check=false",
        )
        collected = {spec: [] for spec in specs}
        depth_counts: Counter[int] = Counter()
        for g in range(args.games):
            seats = specs if g % 2 == 0 else specs[::-1]
            agents = [make_agent(spec, seed=args.seed + g) for spec in seats]
            times, depths = play_and_time(game, agents, args.seed + g // 2)
            for seat, spec in enumerate(seats):
                collected[spec] += times[seat]
                if spec.startswith("oliver"):
                    depth_counts.update(depths[seat])
        for spec, values in collected.items():
            a = np.array(values)
            over = float(np.mean(a > 1.1 * budget)) if len(a) else float("nan")
            print(
                f"{spec:34} {budget:7.3f} {len(a):5d} {a.mean():7.3f} "
                f"{np.percentile(a, 95):7.3f} {a.max():7.3f} {over:6.1%}",
                flush=True,
            )
        print(f"  oliver depths completed: {dict(sorted(depth_counts.items()))}", flush=True)


if __name__ == "__main__":
    main()
