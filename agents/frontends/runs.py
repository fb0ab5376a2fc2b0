"""What ``match`` and ``tournament`` share: the options of where and how games are played, read
into the settings and hooks of :func:`mcts_envs.agents.evaluation.run.run_plan`, and the exit status.

A match is a tournament of one pairing: both commands make a plan
(:func:`mcts_envs.agents.evaluation.plan.plan_match` /
:func:`mcts_envs.agents.evaluation.plan.plan_tournament`) and hand it to ``run_plan``, which plays
the missing games on a backend with the one game loop.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import TYPE_CHECKING

from mcts_envs.agents.frontends import CommandIO
from mcts_envs.agents.frontends.cli import EXIT_INTERRUPTED

if TYPE_CHECKING:  # annotations only: 'mcts-envs --help' imports no game code
    from mcts_envs.agents.evaluation.run import Monitor, RunHooks, RunSettings

__all__ = [
    "add_keep_going",
    "add_run_arguments",
    "exit_status",
    "fault_limit",
    "run_hooks",
    "run_settings",
]


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
    add_keep_going(parser)
    parser.add_argument(
        "--agent-module",
        action="append",
        default=[],
        metavar="MODULE",
        help="import MODULE first, here and in every worker (it calls "
        "mcts_envs.agents.spec.register_agent); repeatable",
    )


def add_keep_going(parser: argparse.ArgumentParser) -> None:
    """Add ``--keep-going``: play on when an agent's server or engine keeps failing (the
    default stops after :data:`~mcts_envs.agents.evaluation.faults.DEFAULT_FAULT_LIMIT` games in
    a row)."""
    parser.add_argument(
        "--keep-going",
        action="store_true",
        help="play on when an agent's server or engine fails game after game (default: stop "
        "after 3 in a row with one line naming the cause, exit status 1)",
    )


def fault_limit(args: argparse.Namespace) -> int | None:
    """The run's fault limit: ``None`` with ``--keep-going``, else the default."""
    from mcts_envs.agents.evaluation.faults import DEFAULT_FAULT_LIMIT

    return None if args.keep_going else DEFAULT_FAULT_LIMIT


def run_settings(args: argparse.Namespace) -> RunSettings:
    """The :class:`~mcts_envs.agents.evaluation.run.RunSettings` of the options
    :func:`add_run_arguments` added."""
    from mcts_envs.agents.evaluation.run import RunSettings

    return RunSettings(
        out=args.out,
        resume=args.resume,
        overwrite=args.overwrite,
        backend=args.backend,
        workers=args.workers,
        address=args.address,
        agent_modules=tuple(args.agent_module),
        fault_limit=fault_limit(args),
    )


def run_hooks(args: argparse.Namespace, monitors: Sequence[Monitor] = ()) -> RunHooks:
    """What a command shows while it plays: notices on stderr, the progress bar (unless
    ``--no-progress``), Ctrl-C stopping the run after the games in flight, and ``monitors``."""
    from mcts_envs.agents.evaluation.run import RunHooks
    from mcts_envs.core.compiling import print_to_stderr

    return RunHooks(
        announce=print_to_stderr,
        monitors=tuple(monitors),
        catch_sigint=True,
        progress=not args.no_progress,
    )


def exit_status(interrupted: bool, io: CommandIO) -> int:
    """The exit status of a run: after Ctrl-C (``interrupted``), print how to play the rest to
    ``io.out`` and return :data:`~mcts_envs.agents.frontends.cli.EXIT_INTERRUPTED`; else 0."""
    if interrupted:
        print("interrupted: run the same command with --resume to play the rest", file=io.out)
        return EXIT_INTERRUPTED
    return 0
