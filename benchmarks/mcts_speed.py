"""MCTS speed: simulations/s of our compiled MCTS against OpenSpiel's C++ ``MCTSBot``.

Both sides run UCT with one uniformly random rollout per simulation from the initial state, no
solver, on one core: ours is ``MCTSAgent(iterations=N, c=2, expand="one", rollout="random",
rollout_cutoff=None, solver=False, win_check=False, reuse_tree=False)``, OpenSpiel's is ``pyspiel.MCTSBot(game,
pyspiel.RandomRolloutEvaluator(1, seed), uct_c=2, max_simulations=N, ...)``. One decision is
timed (a new agent and a fresh tree each time, seeds 0, 1, ...), ours and OpenSpiel's in turn so
that both see the same machine conditions, after one untimed decision each. Reported: the median
of ``--repeats`` decisions as simulations/s, and the median and quartiles of the paired ratios
(ours / OpenSpiel, each pair timed back to back), at N = 1,000 and 10,000. Pairing matters on
shared machines, whose speed can change by half within a second. As in :mod:`timeit`,
Python's garbage collector is paused during each timed decision.

Also printed: the JIT compile time of our search for each game, measured apart from steady
state (in a fresh numba cache directory unless ``--warm-cache``; the game's own kernels are
compiled first, so the figure is the search alone), and the tree memory: bytes per node, nodes
allocated and bytes used for one 10,000-simulation search.

Pairs: tictactoe / tic_tac_toe, ultimate_tictactoe / ultimate_tic_tac_toe, pentago_twist /
pentago (OpenSpiel's classic Pentago, a speed peer: same board, similar branching, rotations
without flips) and connect_four / connect_four, each when registered here.

Usage: ``python benchmarks/mcts_speed.py [--repeats 21] [--warm-cache] [--games tictactoe ...]`` (needs the ``bench``
extra for OpenSpiel; without it only our figures are printed). From a source checkout, put the
repository root on ``PYTHONPATH`` to measure that copy; the script prints which one it uses.
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable

if "--warm-cache" not in sys.argv:
    os.environ["MCTS_ENVS_CACHE_DIR"] = tempfile.mkdtemp(prefix="mcts_envs_bench_")

import mcts_envs
import mcts_envs.agents.mcts
from mcts_envs.agents.mcts import MCTSAgent
from mcts_envs.agents.mcts.tree import BYTES_PER_NODE
from mcts_envs.core.seeding import make_rng

PAIRS = [
    ("tictactoe", "tic_tac_toe"),
    ("ultimate_tictactoe", "ultimate_tic_tac_toe"),
    ("pentago_twist", "pentago"),
    ("connect_four", "connect_four"),
]
SIMULATIONS = (1_000, 10_000)
UCT_C = 2.0


def our_agent(simulations: int, seed: int, solver: bool = False) -> MCTSAgent:
    return MCTSAgent(
        seed=seed,
        iterations=simulations,
        c=UCT_C,
        expand="one",  # one child per simulation on every game (Tic-Tac-Toe's row says "all")
        rollout="random",
        rollout_cutoff=None,  # random playouts to the end on every game (as OpenSpiel's)
        solver=solver,
        win_check=False,
        reuse_tree=False,
    )


def warm_game_kernels(game) -> None:
    """Compile (or load) the game's own kernels, so the next timing is the search alone."""
    state = game.initial_state()
    game.legal_actions(state)
    game.apply(state, int(game.legal_actions(state)[0]))
    game.returns(state)
    game.score(state)
    game.heuristic(state, 0)
    game.chance_outcomes(state)
    game.kernels.random_playout(state.copy(), make_rng(0))


def our_compile_seconds(game) -> float:
    warm_game_kernels(game)
    start = time.perf_counter()
    our_agent(10, 0).act_state(game, game.initial_state())
    return time.perf_counter() - start


def timed(decision: Callable[[], object]) -> float:
    """Seconds of one call, with the garbage collector paused (as :mod:`timeit` does)."""
    gc.disable()
    try:
        start = time.perf_counter()
        decision()
        return time.perf_counter() - start
    finally:
        gc.enable()


def our_decision(game, simulations: int, seed: int, solver: bool = False) -> Callable[[], object]:
    agent = our_agent(simulations, seed, solver)
    state = game.initial_state()
    return lambda: agent.act_state(game, state)


def open_spiel_decision(pyspiel, game, simulations: int, seed: int) -> Callable[[], object]:
    bot = pyspiel.MCTSBot(
        game, pyspiel.RandomRolloutEvaluator(1, seed), UCT_C, simulations, 4096, False, seed, False
    )
    state = game.new_initial_state()
    return lambda: bot.step(state)


def compare(game, peer, pyspiel, simulations: int, repeats: int) -> dict[str, float]:
    """Median simulations/s of ours and OpenSpiel's (``nan`` without it), timed in turn."""
    ours, theirs = [], []
    our_decision(game, simulations, repeats)()  # untimed: warms caches and allocators
    if peer is not None:
        open_spiel_decision(pyspiel, peer, simulations, repeats)()
    for seed in range(repeats):
        ours.append(simulations / timed(our_decision(game, simulations, seed)))
        if peer is not None:
            theirs.append(
                simulations / timed(open_spiel_decision(pyspiel, peer, simulations, seed))
            )
    ratios = sorted(a / b for a, b in zip(ours, theirs, strict=True)) or [float("nan")]
    return {
        "ours": statistics.median(ours),
        "theirs": statistics.median(theirs) if theirs else float("nan"),
        "ratio": statistics.median(ratios),
        "low": ratios[len(ratios) // 4],
        "high": ratios[(3 * len(ratios)) // 4],
    }


#: Simulations per decision of the solver-cost figures (Tantrix simulations are ~50x slower).
SOLVER_SIMULATIONS = {"tantrix": 2_000}


def solver_cost(game, simulations: int, repeats: int) -> dict[str, float]:
    """Median simulations/s with the solver off and on (same seeds, timed in turn) and the
    median of the paired costs ``1 - on / off``."""
    off, on = [], []
    our_decision(game, simulations, repeats, True)()  # untimed warm-up of both settings
    our_decision(game, simulations, repeats, False)()
    for seed in range(repeats):
        off.append(simulations / timed(our_decision(game, simulations, seed, False)))
        on.append(simulations / timed(our_decision(game, simulations, seed, True)))
    costs = sorted(1.0 - b / a for a, b in zip(off, on, strict=True))
    return {
        "off": statistics.median(off),
        "on": statistics.median(on),
        "cost": statistics.median(costs),
        "low": costs[len(costs) // 4],
        "high": costs[(3 * len(costs)) // 4],
    }


def print_solver_costs(games: list[str], repeats: int) -> None:
    print()
    print("MCTS-Solver cost (ours, same options otherwise; paired decisions from the start):")
    print(
        f"{'game':<20} {'sims':>6} {'solver off':>11} {'solver on':>10} {'cost':>6} {'quartiles':>14}"
    )
    for name in games:
        game = mcts_envs.make_game(name)
        if game.current_player(game.initial_state()) < 0:
            state = game.initial_state()
            while game.current_player(state) < 0:
                state = game.apply(state, int(game.chance_outcomes(state)[0][0]))
            game = _StartAt(game, state)
        simulations = SOLVER_SIMULATIONS.get(name, 10_000)
        f = solver_cost(game, simulations, repeats)
        print(
            f"{name:<20} {simulations:>6} {f['off']:>11,.0f} {f['on']:>10,.0f}"
            f" {f['cost']:>6.0%} {f['low']:>6.0%}..{f['high']:<6.0%}"
        )


class _StartAt:
    """A game whose initial state is ``state`` (the first decision of a game with a chance
    root), for the solver figures."""

    def __init__(self, game, state) -> None:
        self._game = game
        self._state = state

    def initial_state(self):
        return self._state.copy()

    def __getattr__(self, name):
        return getattr(self._game, name)


def import_pyspiel():
    try:
        import pyspiel
    except ImportError:
        return None
    return pyspiel


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=21, help="decisions timed per figure")
    parser.add_argument("--warm-cache", action="store_true", help="reuse the numba disk cache")
    parser.add_argument(
        "--games",
        nargs="+",
        choices=[ours for ours, _ in PAIRS],
        default=[ours for ours, _ in PAIRS],
        help="measure only these games (default: every pair)",
    )
    parser.add_argument(
        "--no-solver", dest="solver", action="store_false", help="skip the solver-cost table"
    )
    parser.add_argument(
        "--solver-games",
        nargs="+",
        default=mcts_envs.list_games(),
        help="games of the solver-cost table (default: every game)",
    )
    args = parser.parse_args(argv)
    registered = mcts_envs.list_games()
    pairs = [(ours, theirs) for ours, theirs in PAIRS if ours in registered and ours in args.games]
    for ours, _ in PAIRS:
        if ours not in registered:
            print(f"({ours} is not registered: skipped)")
    compile_times = {}
    for ours, _ in pairs:
        compile_times[ours] = our_compile_seconds(mcts_envs.make_game(ours))
    pyspiel = import_pyspiel()
    if pyspiel is None:
        print("pyspiel not installed (pip install 'mcts-envs[bench]'): our figures only")
    cache = "disk cache" if args.warm_cache else "empty cache"
    print(f"mcts_envs.agents.mcts from {os.path.dirname(mcts_envs.agents.mcts.__file__)}")
    print(f"bytes per tree node: {BYTES_PER_NODE} (states are replayed, not stored)")
    print(
        f"UCT c={UCT_C}, one random rollout per simulation, median of {args.repeats} decisions,"
        " ours and OpenSpiel's timed in turn"
    )
    print()
    print(
        f"{'game':<20} {'sims':>6} {'ours sims/s':>12} {'OpenSpiel sims/s':>17} {'ratio':>7}"
        f" {'quartiles':>12} {'nodes':>8} {'tree MB':>8}"
    )
    for ours, theirs in pairs:
        game = mcts_envs.make_game(ours)
        peer = pyspiel.load_game(theirs) if pyspiel is not None else None
        for simulations in SIMULATIONS:
            figures = compare(game, peer, pyspiel, simulations, args.repeats)
            probe = our_agent(simulations, 0)
            probe.act_state(game, game.initial_state())
            nodes = probe.last_search["nodes"]
            ratio = figures["ratio"]
            spread = f"{figures['low']:.1f}-{figures['high']:.1f}x"
            print(
                f"{ours:<20} {simulations:>6} {figures['ours']:>12,.0f}"
                f" {figures['theirs']:>17,.0f} {ratio:>6.1f}x {spread:>12}"
                f" {nodes:>8,} {nodes * BYTES_PER_NODE / 2**20:>8.2f}"
            )
    if args.solver:
        print_solver_costs([g for g in registered if g in args.solver_games], args.repeats)
    print()
    print(f"JIT compile of our search (first decision, game kernels already compiled, {cache}):")
    for name, seconds in compile_times.items():
        print(f"  {name:<20} {seconds:6.2f} s")
    print("nodes: slots allocated (a node's children are allocated together on its second visit)")
    print("OpenSpiel pentago is classic Pentago (no flips): a speed peer for pentago_twist.")
    print(
        "OpenSpiel ultimate_tic_tac_toe splits a move into two actions (board, then cell);"
        " a simulation is still one rollout to the end of the game."
    )


if __name__ == "__main__":
    main()
