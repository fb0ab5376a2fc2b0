"""Mistake rates of the package's agents against exact and deep alpha-beta labels.

Tic-Tac-Toe: every one of the 4,520 positions with a player to move, against the exact solution
(a mistake loses value: a win let slip or a draw turned into a loss). Ultimate Tic-Tac-Toe, Ataxx
and Pentago Twist: the shipped sets of 100 positions labelled by deep alpha-beta
(``agents/data/<game>_labels.npz``, made by ``scripts/make_label_sets.py``; tolerance 0.05).
Prints the rate with a Wilson 95% interval per agent. Each agent is built once per game with
seed ``--seed`` and decides every position of the set in order.

Usage: ``python benchmarks/mistake_rates.py [--seed 0] [--games tictactoe ...]`` (from a source
checkout, put the repository root on ``PYTHONPATH``).
"""

from __future__ import annotations

import argparse
import time

import mcts_envs
from mcts_envs.agents.evaluation.mistakes import exact_labels, load_shipped_labels, mistake_rate
from mcts_envs.agents.players.alphabeta_options import plain_spec
from mcts_envs.agents.players.solver import shipped_solution, solve_game
from mcts_envs.agents.spec import make_agent

#: Tic-Tac-Toe MCTS with the generic values (random playouts, c = 1.4), as the README's rates were
#: measured before per-game defaults (mcts_envs.agents.mcts.defaults) existed; alpha-beta as the
#: plain search they were measured with (plain_spec).
AGENTS = {
    "tictactoe": ["random", "minimax2", plain_spec(2),
                  "mcts:iterations=100,c=1.4,expand=one,rollout_cutoff=none",
                  "mcts:iterations=800,c=1.4,expand=one,rollout_cutoff=none", "perfect"],
    "ultimate_tictactoe": ["random", "minimax2", "mcts:iterations=800", "mcts:iterations=5000"],
    "ataxx": ["random", "minimax2", "mcts:iterations=800,rollout_cutoff=0,c=0.15"],
    "pentago_twist": ["random", "minimax2", "mcts:iterations=800"],
}  # fmt: skip


def labels_for(name: str):
    """The exact set for Tic-Tac-Toe, else the shipped alpha-beta set."""
    if name == "tictactoe":
        game = mcts_envs.make_game(name)
        return exact_labels(shipped_solution(game) or solve_game(game))
    return load_shipped_labels(name)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--games", nargs="*", default=list(AGENTS))
    args = parser.parse_args(argv)
    for name in args.games:
        labels = labels_for(name)
        print(
            f"{name}: {len(labels)} positions, labels: {labels.source}, tolerance {labels.tolerance}"
        )
        game = mcts_envs.make_game(name)
        for spec in AGENTS[name]:
            agent = make_agent(spec, seed=args.seed)
            agent.prepare(game)
            start = time.perf_counter()
            report = mistake_rate(labels, agent.act_state)
            low, high = report.interval
            print(
                f"  {spec:45s} {report.rate:7.2%}  [{low:.2%}, {high:.2%}]  "
                f"({report.mistakes}/{report.positions}; {time.perf_counter() - start:.0f} s)",
                flush=True,
            )


if __name__ == "__main__":
    main()
