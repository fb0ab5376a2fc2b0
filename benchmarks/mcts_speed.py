"""MCTS speed: simulations/s of our compiled MCTS against OpenSpiel's C++ ``MCTSBot``.

Both sides run UCT with one uniformly random rollout per simulation from the initial state, no
solver, on one core: ours is ``MCTSAgent(iterations=N, c=2, rollout="random", solver=False,
win_check=False, reuse_tree=False)``, OpenSpiel's is ``pyspiel.MCTSBot(game,
pyspiel.RandomRolloutEvaluator(1, seed), uct_c=2, max_simulations=N, ...)``. One decision is
timed (a fresh tree each time) and the median of ``--repeats`` decisions is reported as
simulations/s, with the ratio ours / OpenSpiel, at N = 1,000 and 10,000.

Also printed: the JIT compile time of our search for each game, measured apart from steady
state (in a fresh numba cache directory unless ``--warm-cache``; the game's own kernels are
compiled first, so the figure is the search alone), and the tree memory: bytes per node, nodes
allocated and bytes used for one 10,000-simulation search.

Pairs: tictactoe / tic_tac_toe, ultimate_tictactoe / ultimate_tic_tac_toe and pentago_twist /
pentago (OpenSpiel's classic Pentago, a speed peer: same board, similar branching, rotations
without flips), each when registered here.

Usage: ``python benchmarks/mcts_speed.py [--repeats 5] [--warm-cache]`` (needs the ``bench``
extra for OpenSpiel; without it only our figures are printed). From a source checkout, put the
repository root on ``PYTHONPATH`` to measure that copy; the script prints which one it uses.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time

if "--warm-cache" not in sys.argv:
    os.environ["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(prefix="mcts_envs_bench_")

import agents.mcts
import mcts_envs
from agents.mcts import MCTSAgent
from agents.mcts.tree import BYTES_PER_NODE
from mcts_envs.core.seeding import make_rng

PAIRS = [
    ("tictactoe", "tic_tac_toe"),
    ("ultimate_tictactoe", "ultimate_tic_tac_toe"),
    ("pentago_twist", "pentago"),
]
SIMULATIONS = (1_000, 10_000)
UCT_C = 2.0


def our_agent(simulations: int, seed: int) -> MCTSAgent:
    return MCTSAgent(
        seed=seed,
        iterations=simulations,
        c=UCT_C,
        rollout="random",
        solver=False,
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


def our_rate(game, simulations: int, repeats: int) -> tuple[float, int]:
    rates = []
    nodes = 0
    for repeat in range(repeats):
        agent = our_agent(simulations, repeat)
        start = time.perf_counter()
        agent.act_state(game, game.initial_state())
        elapsed = time.perf_counter() - start
        rates.append(agent.last_search["simulations"] / elapsed)
        nodes = agent.last_search["nodes"]
    return statistics.median(rates), nodes


def open_spiel_rate(pyspiel, name: str, simulations: int, repeats: int) -> float:
    game = pyspiel.load_game(name)
    rates = []
    for repeat in range(repeats):
        bot = pyspiel.MCTSBot(
            game,
            pyspiel.RandomRolloutEvaluator(1, repeat),
            UCT_C,
            simulations,
            4096,
            False,
            repeat,
            False,
        )
        state = game.new_initial_state()
        start = time.perf_counter()
        bot.step(state)
        rates.append(simulations / (time.perf_counter() - start))
    return statistics.median(rates)


def import_pyspiel():
    try:
        import pyspiel
    except ImportError:
        return None
    return pyspiel


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=5, help="decisions timed per figure")
    parser.add_argument("--warm-cache", action="store_true", help="reuse the numba disk cache")
    args = parser.parse_args(argv)
    registered = mcts_envs.list_games()
    pairs = [(ours, theirs) for ours, theirs in PAIRS if ours in registered]
    for ours, _ in PAIRS:
        if ours not in registered:
            print(f"({ours} is not registered: skipped)")
    # All of ours first, then OpenSpiel's (pyspiel is imported only if installed).
    compile_times, our_figures = {}, {}
    for ours, _ in pairs:
        game = mcts_envs.make_game(ours)
        compile_times[ours] = our_compile_seconds(game)
        for simulations in SIMULATIONS:
            our_figures[ours, simulations] = our_rate(game, simulations, args.repeats)
    pyspiel = import_pyspiel()
    if pyspiel is None:
        print("pyspiel not installed (pip install 'mcts-envs[bench]'): our figures only")
    cache = "disk cache" if args.warm_cache else "empty cache"
    print(f"agents.mcts from {os.path.dirname(agents.mcts.__file__)}")
    print(f"bytes per tree node: {BYTES_PER_NODE} (states are replayed, not stored)")
    print(f"UCT c={UCT_C}, one random rollout per simulation, median of {args.repeats} decisions")
    print()
    print(
        f"{'game':<20} {'sims':>6} {'ours sims/s':>12} {'OpenSpiel sims/s':>17} {'ratio':>7}"
        f" {'nodes':>8} {'tree MB':>8}"
    )
    for ours, theirs in pairs:
        for simulations in SIMULATIONS:
            rate, nodes = our_figures[ours, simulations]
            peer = (
                open_spiel_rate(pyspiel, theirs, simulations, args.repeats)
                if pyspiel is not None
                else float("nan")
            )
            print(
                f"{ours:<20} {simulations:>6} {rate:>12,.0f} {peer:>17,.0f} {rate / peer:>6.1f}x"
                f" {nodes:>8,} {nodes * BYTES_PER_NODE / 2**20:>8.2f}"
            )
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
