"""``mcts-envs plot FILE``: win rate against budget and an Elo chart (``plots`` extra)."""

from __future__ import annotations

import argparse
from typing import Any

from mcts_envs.agents.frontends import CommandIO


def add_parser(commands: Any) -> None:
    """Add the ``plot`` subcommand."""
    plot = commands.add_parser(
        "plot",
        help="win rate against search budget, and an Elo chart (PNG and SVG; 'plots' extra)",
        description="Draw winrate_vs_budget and elo charts of a results file into --out-dir.",
    )
    plot.add_argument("file", help="JSON-lines file of game records")
    plot.add_argument("--out-dir", default=".", help="directory for the images (default .)")
    plot.add_argument("--anchor", help="agent rated 0 (default: random if it played)")
    plot.add_argument("--bootstrap", type=int, default=500, help="bootstrap samples")


def run(args: argparse.Namespace, io: CommandIO) -> int:
    """Draw every chart the records support into ``--out-dir``."""
    from mcts_envs.agents.evaluation.plots import plot_results
    from mcts_envs.agents.frontends.records import read_checked_records

    records = read_checked_records(args.file, "plot")
    for path in plot_results(records, args.out_dir, args.anchor, args.bootstrap):
        print(f"wrote {path}", file=io.out)
    return 0
