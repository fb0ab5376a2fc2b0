"""What ``match`` and ``tournament`` share: options of where and how games are played, the
results file, preparation with its times, a progress bar, and the run itself.

A match is a tournament of one pairing: both commands make a plan
(:func:`mcts_envs.agents.evaluation.tournament.plan_match` / :func:`mcts_envs.agents.evaluation.tournament.plan_tournament`) and hand it to
:func:`run_plan`, which plays the missing games on a backend with the one game loop.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from mcts_envs.agents.frontends import CommandIO
from mcts_envs.agents.frontends.cli import EXIT_INTERRUPTED

if TYPE_CHECKING:  # annotations only: 'mcts-envs --help' imports no game code
    from mcts_envs.agents.evaluation.tournament import Monitor, TournamentPlan

__all__ = ["RunOutcome", "add_run_arguments", "exit_status", "run_plan"]


def add_run_arguments(parser: argparse.ArgumentParser, out_required: bool) -> None:
    """Add the options of playing a plan: results file, resume, backend, workers, agent modules."""
    parser.add_argument(
        "--out",
        required=out_required,
        help="JSON-lines results file: one record per game, appended (fsynced) as each ends",
    )
    parser.add_argument(
        "--resume", action="store_true", help="continue --out: play only the missing games"
    )
    parser.add_argument("--overwrite", action="store_true", help="start --out afresh if it exists")
    parser.add_argument(
        "--backend",
        choices=("local", "process", "ray"),
        help="where games are played (default: local with --workers 1, else process)",
    )
    parser.add_argument(
        "--workers", type=int, default=1, help="games in flight (same records; default 1)"
    )
    parser.add_argument(
        "--address", help="Ray cluster address for --backend ray (e.g. auto); default: start one"
    )
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    parser.add_argument(
        "--agent-module",
        action="append",
        default=[],
        metavar="MODULE",
        help="import MODULE first, here and in every worker (it calls "
        "mcts_envs.agents.spec.register_agent); repeatable",
    )


class RunOutcome(NamedTuple):
    """What a run left: the records (resumed and new, in file order), the seconds spent playing,
    and whether Ctrl-C stopped it."""

    records: list[dict[str, Any]]
    seconds: float
    interrupted: bool


class _Progress:
    """A tqdm bar: games done, rate and time left, and the focus agent's W/D/L and Elo."""

    def __init__(self, total: int, done: int, focus: str, enabled: bool) -> None:
        from tqdm import tqdm

        from mcts_envs.agents.evaluation.ratings import PairingStats

        self.focus = focus
        self.stats = PairingStats(focus, "others")
        self.bar = tqdm(
            total=total, initial=done, unit="game", disable=not enabled, file=sys.stderr
        )

    def count(self, record: dict[str, Any]) -> None:
        """Count a record in the focus agent's statistics (resumed records: no bar step)."""
        result, agents = record.get("result"), record.get("agents", [])
        if self.focus not in agents or result not in ("a", "b", "draw"):
            return
        points = 0.5 if result == "draw" else float((result == "a") == (agents[0] == self.focus))
        self.stats.add(points, (record.get("pairing"), record.get("index")), 0)

    def __call__(self, record: dict[str, Any]) -> None:
        from mcts_envs.agents.evaluation.stats import format_elo_interval

        self.count(record)
        self.bar.update(1)
        elo, low, high = self.stats.elo()
        self.bar.set_postfix_str(
            f"{self.focus[:24]} W/D/L {self.stats.wins}/{self.stats.draws}/{self.stats.losses} "
            f"Elo {format_elo_interval(elo, low, high)}"
        )

    def close(self) -> None:
        self.bar.close()


def run_plan(
    plan: TournamentPlan, args: argparse.Namespace, monitors: Sequence[Monitor], focus: str
) -> RunOutcome:
    """Open the results file, prepare the agents (printing each one's time), play what is missing.

    Everything it prints (the plan, preparation times, the progress bar, a cut line removed)
    goes to stderr; the caller prints the results.

    Args:
        plan: the tournament (or the match, a tournament of one pairing).
        args: ``out``, ``resume``, ``overwrite``, ``backend``, ``workers``, ``address``,
            ``agent_module`` and ``no_progress`` (see :func:`add_run_arguments`).
        monitors: told of every record (e.g. an SPRT that closes pairings).
        focus: the agent whose W/D/L and Elo the progress bar shows.

    Raises:
        MctsEnvsError: for a bad file, backend or worker count, before any game.
    """
    from mcts_envs.agents.evaluation import tournament as t
    from mcts_envs.agents.evaluation.backends import make_backend
    from mcts_envs.agents.evaluation.games import prepare_agents
    from mcts_envs.core.compiling import print_to_stderr

    opening = plan.tasks[0].opening
    backend = make_backend(
        args.backend, args.workers, plan.specs, opening, args.address, args.agent_module
    )
    backend.start()  # a backend that cannot start fails before any file is opened
    if args.out:
        results = t.open_results(args.out, args.resume, args.overwrite)
    else:
        results = t.ResultsFile(None)
    with results:
        if results.dropped_line is not None:
            print_to_stderr(
                f"{args.out}: line {results.dropped_line} was cut by a crash (no newline at its "
                "end); removed that cut part, its game is played again"
            )
        done = len(t.done_keys(plan, results.records, results.lines))
        todo = len(plan.tasks) - done
        where = f" {done} already in {args.out}," if args.out else ""
        print_to_stderr(
            f"{plan.rules.game}: {len(plan.pairings)} pairing(s), {len(plan.tasks)} games;"
            f"{where} {todo} to play on {backend.name} ({args.workers} worker(s))"
        )
        if todo:
            start = time.perf_counter()
            seconds = prepare_agents(plan.rules.game, plan.specs, opening, print_to_stderr)
            print_to_stderr(
                "prepared: "
                + ", ".join(f"{spec} {took:.1f} s" for spec, took in seconds.items())
                + f" (in all {time.perf_counter() - start:.1f} s)"
            )
        progress = _Progress(len(plan.tasks), done, focus, enabled=not args.no_progress)
        for record in results.records:
            progress.count(record)
        stop = t.StopFlag()
        start = time.perf_counter()
        try:
            with stop.catching_sigint(sys.stderr):
                t.run_tournament(plan, results, backend, monitors, stop, progress)
        finally:
            progress.close()
        return RunOutcome(list(results.records), time.perf_counter() - start, stop.interrupted)


def exit_status(outcome: RunOutcome, io: CommandIO) -> int:
    """The exit status of a run: after Ctrl-C, print how to play the rest to ``io.out`` and
    return :data:`~mcts_envs.agents.frontends.cli.EXIT_INTERRUPTED`; else 0."""
    if outcome.interrupted:
        print("interrupted: run the same command with --resume to play the rest", file=io.out)
        return EXIT_INTERRUPTED
    return 0
