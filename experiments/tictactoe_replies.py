"""Tic-Tac-Toe: how often MCTS answers X's first move with a losing reply, by iterations.

Against perfect play, MCTS loses Tic-Tac-Toe almost only as O, by its first reply (a corner must be
met in the centre, the centre in a corner). This script searches the three first moves up to
symmetry (corner, edge, centre) with ``mcts:iterations=N,<options>`` from many seeds and counts the
replies the exact solver (``perfect``) says lose. It explains the loss curve of
``experiments/tictactoe_article.py`` without playing games (README, "Per-game MCTS defaults").

Run: ``python -m experiments.tictactoe_replies --budgets 400 800 1600 --seeds 500`` for the
defaults, and with ``--options expand=one`` for the row before ``expand="all"`` (which chose a
losing reply to a corner in 8 and 38 of 500 searches at 400 and 800 iterations; the defaults in
none); prints one line per first move and budget (``--quick`` for a few seconds).
"""

from __future__ import annotations

import argparse
from collections import Counter

from experiments.common import parse_arguments
from mcts_envs.agents.players.perfect import PerfectAgent
from mcts_envs.agents.spec import make_agent
from mcts_envs.core.registry import make_game

#: X's first moves up to symmetry: a corner, an edge, the centre.
FIRST_MOVES = {"corner": 0, "edge": 1, "centre": 4}


def losing_replies(options: str, iterations: int, seeds: int) -> dict[str, tuple[int, Counter]]:
    """``first move -> (searches that chose a losing reply, replies chosen)`` over ``seeds``
    seeded searches of ``mcts:iterations=<iterations>,<options>``."""
    game = make_game("tictactoe")
    perfect = PerfectAgent(seed=0)
    spec = f"mcts:iterations={iterations}" + (f",{options}" if options else "")
    out = {}
    for name, first in FIRST_MOVES.items():
        state = game.apply(game.initial_state(), first)
        good = {int(a) for a in perfect.best_actions(game, state)}
        chosen = Counter(make_agent(spec, seed=s).act_state(game, state) for s in range(seeds))
        out[name] = (sum(n for a, n in chosen.items() if a not in good), chosen)
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--options", default="", help="mcts options ('' for the defaults)")
    parser.add_argument("--budgets", type=int, nargs="+", default=[100, 200, 400, 800, 1600, 3200])
    parser.add_argument("--seeds", type=int, default=200)
    parser.add_argument("--quick", action="store_true")
    args = parse_arguments(parser, argv)
    budgets, seeds = ([50, 100], 5) if args.quick else (args.budgets, args.seeds)
    print(f"mcts:iterations=N,{args.options or '(defaults)'}: losing replies of {seeds} searches")
    for iterations in budgets:
        for name, (bad, chosen) in losing_replies(args.options, iterations, seeds).items():
            print(
                f"  N={iterations:5d} after X's {name:6s}: {bad:4d} losing  {dict(sorted(chosen.items()))}"
            )


if __name__ == "__main__":
    main()
