"""``mcts-envs ratings FILE``: W/D/L, Wilson intervals, Bradley-Terry Elo, SPRT of a results file."""

from __future__ import annotations

import argparse
from typing import Any

from mcts_envs.agents.frontends import CommandIO


def add_parser(commands: Any) -> None:
    """Add the ``ratings`` subcommand."""
    ratings = commands.add_parser(
        "ratings",
        help="W/D/L, Wilson intervals, Bradley-Terry Elo with bootstrap intervals, SPRT",
        description="Recompute every statistic from a results file (tournament or match).",
    )
    ratings.add_argument("file", help="JSON-lines file of game records")
    ratings.add_argument("--anchor", help="agent rated 0 (default: random if it played)")
    ratings.add_argument(
        "--bootstrap", type=int, default=500, help="bootstrap samples (default 500)"
    )
    ratings.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    ratings.add_argument("--sprt", help="show the SPRT of each pairing, e.g. elo0=0,elo1=10")


def run(args: argparse.Namespace, io: CommandIO) -> int:
    """Recompute every statistic of the records file and print it."""
    from mcts_envs.agents.evaluation.faults import fault_summary
    from mcts_envs.agents.evaluation.ratings import parse_sprt, rate
    from mcts_envs.agents.frontends.records import read_checked_records

    sprt = parse_sprt(args.sprt) if args.sprt else None
    records = read_checked_records(args.file, "ratings")
    table = rate(records, args.anchor, args.bootstrap, args.seed)
    print(f"{args.file}: {len(records)} game records", file=io.out)
    print(table.text(sprt), file=io.out)
    faults = fault_summary(records)
    if faults:
        print(faults, file=io.out)
    return 0
