"""Nodes per second of our Ataxx alpha-beta beside AtaxxDotCpp's, on the same positions.

Usage: ``python benchmarks/ataxx_search_speed.py [--engine PATH] [--seconds T] [--positions N]
[--warm-cache]``.

The positions are every tenth position with a player to move of seeded random games from 4
random plies played on by ``alphabeta:depth=2`` (so they look like games, not noise), ``N`` in
all. On each, our default ``alphabeta:seconds=T`` searches with the table of a search of the
position before it (as in a game: the table mapped and in use), and the engine answers
``go nodes`` of a count chosen to take about ``T`` (from a first timed search); each side's
nodes per second is its nodes over its measured time. A node is a position visited: ours counts
every call of the compiled search, the engine every move it makes. Printed: the median nodes per
second of each, their ratio, and the median depth each reached.

Timings on a shared machine are noisy: the load average is printed with them.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import measure  # noqa: E402,F401  (numba's cache: fresh unless --warm-cache)

import mcts_envs  # noqa: E402
from mcts_envs.agents.players.alphabeta import AlphaBetaAgent  # noqa: E402
from mcts_envs.agents.players.uai_agent import UAIAgent  # noqa: E402


def positions(count: int, seed: int = 0) -> list[np.ndarray]:
    """``count`` positions of seeded games (see the module docstring)."""
    game = mcts_envs.make_game("ataxx")
    found: list[np.ndarray] = []
    generator = np.random.default_rng(seed)
    while len(found) < count:
        player = AlphaBetaAgent(seed=int(generator.integers(2**31)), depth=2)
        state = game.initial_state()
        ply = 0
        while game.current_player(state) >= 0 and len(found) < count:
            if ply < 4:
                action = int(generator.choice(game.legal_actions(state)))
            else:
                action = player.act_state(game, state)
            if ply >= 4 and ply % 10 == 0:
                found.append(state)
            state = game.apply(state, action)
            ply += 1
    return found


def ours(states: list[np.ndarray], seconds: float) -> tuple[list[float], list[int]]:
    """Nodes per second and depth of our default alpha-beta on each position."""
    game = mcts_envs.make_game("ataxx")
    rates, depths = [], []
    for index, state in enumerate(states):
        agent = AlphaBetaAgent(seed=index, seconds=seconds)
        agent.search(game, states[index - 1])  # as in a game: the table in use (and mapped)
        result = agent.search(game, state)
        rates.append(result.nodes / result.seconds)
        depths.append(result.depth)
    return rates, depths


def engine(path: str, states: list[np.ndarray], seconds: float) -> tuple[list[float], list[int]]:
    """Nodes per second and depth of the engine at ``go nodes`` of about ``seconds``."""
    game = mcts_envs.make_game("ataxx")
    probe = UAIAgent(cmd=path, nodes=200_000)
    probe.act_state(game, states[0])
    rate = probe.last_info_numbers.get("nodes", 1) / max(probe.last_think_seconds or 1.0, 1e-6)
    probe.close()
    agent = UAIAgent(cmd=path, nodes=max(1000, int(rate * seconds)))
    rates, depths = [], []
    try:
        for state in states:
            agent.reset()
            agent.act_state(game, state)
            info = agent.last_info_numbers
            rates.append(info.get("nodes", 0) / agent.last_think_seconds)
            depths.append(info.get("depth", 0))
    finally:
        agent.close()
    return rates, depths


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--engine", default=None, help="the AtaxxDotCpp executable")
    parser.add_argument("--seconds", type=float, default=0.3)
    parser.add_argument("--positions", type=int, default=20)
    parser.add_argument("--warm-cache", action="store_true", help="reuse numba's cache")
    args = parser.parse_args()
    states = positions(args.positions)
    load = os.getloadavg()[0]
    started = time.time()
    our_rates, our_depths = ours(states, args.seconds)
    print(
        f"ours  alphabeta:seconds={args.seconds:g}: median {statistics.median(our_rates):,.0f} "
        f"nodes/s, median depth {statistics.median(our_depths):g} ({len(states)} positions)"
    )
    if args.engine:
        their_rates, their_depths = engine(args.engine, states, args.seconds)
        print(
            f"AtaxxDotCpp (go nodes, about {args.seconds:g} s): median "
            f"{statistics.median(their_rates):,.0f} nodes/s, median depth "
            f"{statistics.median(their_depths):g}"
        )
        print(
            f"ratio engine / ours: "
            f"{statistics.median(their_rates) / statistics.median(our_rates):.1f}"
        )
    print(
        f"load average {load:.2f} at the start, {os.getloadavg()[0]:.2f} at the end; "
        f"{time.time() - started:.0f} s"
    )


if __name__ == "__main__":
    main()
