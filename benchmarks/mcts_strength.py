"""MCTS strength: seat-alternated matches against random and minimax2 at the README budgets.

Plays, for Ultimate Tic-Tac-Toe and Ataxx, ``--games`` games (default 100) of MCTS at the budget
in ``tests/agents/mcts/test_mcts_play.py::STRENGTH_SPECS`` against ``random`` and ``minimax2``, and
prints W/D/L with Wilson 95% intervals. The expectation (checked by the slow tests) is a win
rate of at least 95% against random and 80% against minimax2.

Usage: ``python benchmarks/mcts_strength.py [--games 100] [--seed 2024] [--workers 1]`` (from a
source checkout, put the repository root on ``PYTHONPATH`` to measure that copy).
"""

from __future__ import annotations

import argparse

import mcts_envs
from mcts_envs.agents.evaluation.arena import play_match
from mcts_envs.agents.evaluation.plan import plan_match
from mcts_envs.agents.evaluation.run import RunHooks, RunSettings

STRENGTH_SPECS = {
    "ultimate_tictactoe": "mcts:iterations=5000",
    "ataxx": "mcts:iterations=20000,rollout_cutoff=0,c=0.15",
}
THRESHOLDS = {"random": 0.95, "minimax2": 0.80}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args(argv)
    for name, spec in STRENGTH_SPECS.items():
        if name not in mcts_envs.list_games():
            print(f"({name} is not registered: skipped)")
            continue
        for opponent, threshold in THRESHOLDS.items():
            result = play_match(
                plan_match(name, spec, opponent, args.games, seed=args.seed),
                RunSettings(workers=args.workers),
                RunHooks(progress=True),
            )
            print(result.summary())
            rate = result.a.wins / max(result.a.games, 1)
            verdict = "ok" if rate >= threshold else "BELOW"
            print(f"win rate {rate:.2f} (expected >= {threshold:.2f}): {verdict}\n")


if __name__ == "__main__":
    main()
