"""``mcts-envs tournament``: a resumable round robin or gauntlet with paired openings.

Examples::

    mcts-envs tournament ataxx random minimax2 "mcts:iterations=1000" --games-per-pair 100 \\
        --seed 1 --openings random:4 --out results.jsonl --backend process --workers 2
    mcts-envs tournament ataxx random --gauntlet "mcts:iterations=200" --sprt elo0=0,elo1=50 \\
        --games-per-pair 400 --out sprt.jsonl
"""

from __future__ import annotations

import argparse
from typing import Any

from mcts_envs.agents.frontends import CommandIO
from mcts_envs.agents.frontends.runs import add_run_arguments, exit_status, run_hooks, run_settings


def add_parser(commands: Any) -> None:
    """Add the ``tournament`` subcommand."""
    tournament = commands.add_parser(
        "tournament",
        help="a resumable round robin or gauntlet, paired openings, results as JSON lines",
        description="Play every pairing of AGENTS (or --gauntlet SPEC against each of them) in "
        "game pairs: both games of a pair start from the same opening with colours swapped. "
        "Each game is appended to --out as it ends (fsynced); --resume plays only what is "
        "missing. Ctrl-C finishes the games in flight, then exits with status 130. With two agents "
        "and no openings it plays exactly the games of 'mcts-envs match' with --games equal "
        "to --games-per-pair and the same --seed.",
    )
    tournament.add_argument("game", help="game name (see 'mcts-envs list')")
    tournament.add_argument(
        "agents", nargs="+", help="agent specs, e.g. random 'mcts:iterations=800'"
    )
    tournament.add_argument(
        "--games-per-pair", type=int, default=10, help="games per pairing, even (default 10)"
    )
    tournament.add_argument("--seed", type=int, default=0, help="master seed (default 0)")
    tournament.add_argument(
        "--openings",
        help="random:K (K random plies per game pair) or a file of positions (one game.to_text "
        "per line, or JSON game records: their final position); default: the initial position",
    )
    tournament.add_argument("--gauntlet", metavar="SPEC", help="play only SPEC against each agent")
    tournament.add_argument("--time", type=float, help="seconds per decision")
    tournament.add_argument("--clock", help="a clock per game: BASE+INC seconds, e.g. 60+0.5")
    tournament.add_argument(
        "--loss-on-time", action="store_true", help="with --clock: running out of time loses"
    )
    tournament.add_argument(
        "--max-moves", type=int, help="adjudicate a draw after this many decisions"
    )
    tournament.add_argument(
        "--adjudicate-material",
        type=int,
        metavar="STONES",
        help="Ataxx: the side ahead by STONES stones wins at once",
    )
    tournament.add_argument(
        "--sprt",
        help="stop each pairing once an SPRT decides, e.g. elo0=0,elo1=10,alpha=0.05,beta=0.05",
    )
    tournament.add_argument("--anchor", help="agent rated 0 in the final table (default random)")
    tournament.add_argument(
        "--bootstrap", type=int, default=300, help="bootstrap samples for Elo intervals"
    )

    add_run_arguments(tournament, out_required=True)


def run(args: argparse.Namespace, io: CommandIO) -> int:
    """Plan the tournament, play the missing games, print the ratings (130 after Ctrl-C)."""
    from mcts_envs.agents.evaluation.faults import fault_summary
    from mcts_envs.agents.evaluation.games import Adjudication, GameRules, TimeControl, parse_clock
    from mcts_envs.agents.evaluation.plan import plan_tournament
    from mcts_envs.agents.evaluation.ratings import SprtMonitor, parse_sprt, rate
    from mcts_envs.agents.evaluation.run import run_plan
    from mcts_envs.agents.spec import import_agent_module

    out = io.out
    for module in args.agent_module:
        import_agent_module(module)
    clock = parse_clock(args.clock) if args.clock else (None, 0.0)
    rules = GameRules(
        args.game,
        TimeControl(args.time, clock[0], clock[1], args.loss_on_time),
        Adjudication(args.max_moves, args.adjudicate_material),
    )
    sprt = parse_sprt(args.sprt) if args.sprt else None
    plan = plan_tournament(
        rules, args.agents, args.games_per_pair, args.seed, args.gauntlet, args.openings
    )
    monitors = [SprtMonitor(sprt)] if sprt else []
    outcome = run_plan(plan, run_settings(args), run_hooks(args, monitors))
    for monitor in monitors:
        for pairing, (llr, verdict) in sorted(monitor.decisions.items()):
            a, b = plan.pairings[pairing]
            print(f"SPRT {a} vs {b}: LLR {llr:+.2f} {sprt.bounds_text()}: {verdict}", file=out)
    if outcome.records:
        print(rate(outcome.records, args.anchor, args.bootstrap).text(sprt), file=out)
        faults = fault_summary(outcome.records)
        if faults:
            print(faults, file=out)
    print(f"{len(outcome.records)} game records in {args.out}", file=out)
    return exit_status(outcome.interrupted, io)
