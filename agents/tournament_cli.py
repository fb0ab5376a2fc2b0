"""The evaluation subcommands of ``mcts-envs``: ``tournament``, ``ratings`` and ``plot``.

:func:`add_commands` adds their parsers to the ``mcts-envs`` parser and :func:`run_command` runs
one; ``agents.cli`` only calls these two.

Examples::

    mcts-envs tournament ataxx random minimax2 "mcts:iterations=1000" --games-per-pair 100 \\
        --seed 1 --openings random:4 --out results.jsonl --backend process --workers 2
    mcts-envs tournament ataxx random --gauntlet "mcts:iterations=200" --sprt elo0=0,elo1=50 \\
        --games-per-pair 400 --out sprt.jsonl
    mcts-envs ratings results.jsonl --anchor random
    mcts-envs plot results.jsonl --out-dir plots
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, TextIO

#: The subcommands this module adds.
COMMANDS = ("tournament", "ratings", "plot")
#: Exit status after SIGINT (128 + 2), as shells report it.
EXIT_INTERRUPTED = 130


def add_commands(commands: Any) -> None:
    """Add the ``tournament``, ``ratings`` and ``plot`` parsers to ``commands`` (subparsers)."""
    tournament = commands.add_parser(
        "tournament",
        help="a resumable round robin or gauntlet, paired openings, results as JSON lines",
        description="Play every pairing of AGENTS (or --gauntlet SPEC against each of them) in "
        "game pairs: both games of a pair start from the same opening with colours swapped. "
        "Each game is appended to --out as it ends (fsynced); --resume plays only what is "
        "missing. Ctrl-C finishes the games in flight, then exits with status 130.",
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
    tournament.add_argument("--out", required=True, help="JSON-lines results file")
    tournament.add_argument(
        "--resume", action="store_true", help="continue --out: play only the missing games"
    )
    tournament.add_argument(
        "--overwrite", action="store_true", help="start --out afresh if it exists"
    )
    tournament.add_argument("--gauntlet", metavar="SPEC", help="play only SPEC against each agent")
    tournament.add_argument(
        "--backend",
        choices=("local", "process", "ray"),
        help="where games are played (default: local with --workers 1, else process)",
    )
    tournament.add_argument("--workers", type=int, default=1, help="parallel games (default 1)")
    tournament.add_argument(
        "--address", help="Ray cluster address for --backend ray (e.g. auto); default: start one"
    )
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
    tournament.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    tournament.add_argument(
        "--agent-module",
        action="append",
        default=[],
        metavar="MODULE",
        help="import MODULE first, here and in every worker (it calls "
        "agents.spec.register_agent); repeatable",
    )

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

    plot = commands.add_parser(
        "plot",
        help="win rate against search budget, and an Elo chart (PNG and SVG; 'plots' extra)",
        description="Draw winrate_vs_budget and elo charts of a results file into --out-dir.",
    )
    plot.add_argument("file", help="JSON-lines file of game records")
    plot.add_argument("--out-dir", default=".", help="directory for the images (default .)")
    plot.add_argument("--anchor", help="agent rated 0 (default: random if it played)")
    plot.add_argument("--bootstrap", type=int, default=500, help="bootstrap samples")


def run_command(args: argparse.Namespace, out: TextIO) -> int:
    """Run ``args.command`` (one of :data:`COMMANDS`); returns the exit status."""
    if args.command == "tournament":
        return _tournament(args, out)
    if args.command == "ratings":
        return _ratings(args, out)
    return _plot(args, out)


class _Progress:
    """A tqdm bar: games done, and W/D/L and Elo of the focus agent (the gauntlet or first one)."""

    def __init__(self, total: int, done: int, focus: str, enabled: bool) -> None:
        from tqdm import tqdm

        from agents.ratings import PairingStats

        self.focus = focus
        self.stats = PairingStats(focus, "others")
        self.bar = tqdm(total=total, initial=done, unit="game", disable=not enabled)

    def count(self, record: dict[str, Any]) -> None:
        result, agents = record.get("result"), record.get("agents", [])
        if self.focus not in agents or result not in ("a", "b", "draw"):
            return
        points = 0.5 if result == "draw" else float((result == "a") == (agents[0] == self.focus))
        self.stats.add(points, (record.get("pairing"), record.get("index")), 0)

    def __call__(self, record: dict[str, Any]) -> None:
        from agents.ratings import format_elo

        self.count(record)
        self.bar.update(1)
        elo, low, high = self.stats.elo()
        self.bar.set_postfix_str(
            f"{self.focus[:24]} W/D/L {self.stats.wins}/{self.stats.draws}/{self.stats.losses} "
            f"Elo {format_elo(elo)} [{format_elo(low)}, {format_elo(high)}]"
        )

    def close(self) -> None:
        self.bar.close()


def _tournament(args: argparse.Namespace, out: TextIO) -> int:
    from agents import tournament as t
    from agents.ratings import SprtMonitor, parse_sprt, rate
    from agents.spec import import_agent_module

    for module in args.agent_module:
        import_agent_module(module)
    clock = t.parse_clock(args.clock) if args.clock else (None, 0.0)
    rules = t.GameRules(
        args.game,
        t.TimeControl(args.time, clock[0], clock[1], args.loss_on_time),
        t.Adjudication(args.max_moves, args.adjudicate_material),
    )
    sprt = parse_sprt(args.sprt) if args.sprt else None
    plan = t.plan_tournament(
        rules, args.agents, args.games_per_pair, args.seed, args.gauntlet, args.openings
    )
    backend_name = args.backend or ("local" if args.workers == 1 else "process")
    opening = plan.tasks[0].opening
    backend = t.make_backend(
        backend_name, args.workers, plan.specs, opening, args.address, args.agent_module
    )
    with t.open_results(args.out, args.resume, args.overwrite) as results:
        if results.dropped_line is not None:
            print(
                f"{args.out}: line {results.dropped_line} was cut by a crash (no newline at its "
                "end); dropped it, its game is played again",
                file=out,
            )
        todo = t.pending_tasks(plan, results.records, results.lines)
        print(
            f"{plan.rules.game}: {len(plan.pairings)} pairing(s), {len(plan.tasks)} games; "
            f"{len(plan.tasks) - len(todo)} already in {args.out}, {len(todo)} to play on "
            f"{backend_name} ({args.workers} worker(s))",
            file=out,
            flush=True,
        )
        if todo:
            t.prepare_agents(rules._replace(game=plan.rules.game), plan.specs, opening, out)
        monitors = [SprtMonitor(sprt)] if sprt else []
        focus = args.gauntlet or plan.specs[0]
        progress = _Progress(len(plan.tasks), 0, focus, enabled=not args.no_progress)
        for record in results.records:
            progress(record)
        stop = t.StopFlag()
        try:
            with stop.catching_sigint(out):
                t.run_tournament(plan, results, backend, monitors, stop, progress)
        finally:
            progress.close()
        records = list(results.records)
    for monitor in monitors:
        for pairing, (llr, verdict) in sorted(monitor.decisions.items()):
            a, b = plan.pairings[pairing]
            print(f"SPRT {a} vs {b}: LLR {llr:+.2f} {sprt.bounds_text()}: {verdict}", file=out)
    if records:
        print(rate(records, args.anchor, args.bootstrap).text(sprt), file=out)
    print(f"{len(records)} game records in {args.out}", file=out)
    if stop.interrupted:
        print("interrupted: run the same command with --resume to play the rest", file=out)
        return EXIT_INTERRUPTED
    return 0


def read_checked_records(path: str, command: str) -> list[dict[str, Any]]:
    """The records of ``path``, each checked as ``mcts-envs replay`` checks one
    (:func:`mcts_envs.records.validate_record`); a last line cut by a crash is skipped with a
    warning on stderr naming it.

    Raises:
        InvalidRecordError: naming the first line that is not a valid record.
    """
    from mcts_envs.records import scan_records, validate_record

    scan = scan_records(path)
    for record, number in zip(scan.records, scan.lines, strict=True):
        validate_record(record, f"{path}, line {number}")
    if scan.cut_line is not None:
        print(
            f"mcts-envs {command}: warning: {path}, line {scan.cut_line} is cut (no newline at "
            f"its end, as a crash leaves it) and is skipped; {len(scan.records)} intact record(s)",
            file=sys.stderr,
        )
    return scan.records


def _ratings(args: argparse.Namespace, out: TextIO) -> int:
    from agents.ratings import parse_sprt, rate

    sprt = parse_sprt(args.sprt) if args.sprt else None
    records = read_checked_records(args.file, "ratings")
    table = rate(records, args.anchor, args.bootstrap, args.seed)
    print(f"{args.file}: {len(records)} game records", file=out)
    print(table.text(sprt), file=out)
    return 0


def _plot(args: argparse.Namespace, out: TextIO) -> int:
    from agents.plots import plot_results

    records = read_checked_records(args.file, "plot")
    for path in plot_results(records, args.out_dir, args.anchor, args.bootstrap):
        print(f"wrote {path}", file=out)
    return 0
