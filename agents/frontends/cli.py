"""The ``mcts-envs`` command line (also ``python -m mcts_envs.agents``): one table of subcommands.

Each entry of :data:`COMMANDS` names a module of :mod:`mcts_envs.agents.frontends` with
``add_parser(commands)`` and ``run(args, io)``. Errors of the package (:class:`MctsEnvsError`) and
of the file system print one line to stderr and exit with status 2 (:data:`EXIT_ERROR`), or 1
(:data:`EXIT_RUNTIME`) for a failure while running (a package error that is also a
``RuntimeError``, such as a backend that does not start, or memory exhausted); Ctrl-C exits
with 130 (:data:`EXIT_INTERRUPTED`).

Examples::

    mcts-envs match ultimate_tictactoe "mcts:iterations=2000" random --games 100 --seed 1
    mcts-envs tournament ataxx random minimax2 "mcts:iterations=1000" --games-per-pair 100 \\
        --out results.jsonl
    mcts-envs ratings results.jsonl --anchor random
    mcts-envs replay games.jsonl --game 3 --delay 0.5
    mcts-envs play tictactoe --opponent "mcts:iterations=2000" --seat 1
    mcts-envs list
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from typing import TextIO

from mcts_envs.agents.frontends import CommandIO
from mcts_envs.core.errors import MctsEnvsError

__all__ = ["COMMANDS", "EXIT_ERROR", "EXIT_INTERRUPTED", "EXIT_RUNTIME", "build_parser", "main"]

#: Exit status of a usage error (bad arguments, a file that cannot be used as asked).
EXIT_ERROR = 2
#: Exit status of a failure while running (a backend that does not start, memory exhausted).
EXIT_RUNTIME = 1
#: Exit status after SIGINT (128 + 2), as shells report it.
EXIT_INTERRUPTED = 130

#: Subcommand -> module of :mod:`mcts_envs.agents.frontends` (in the order ``--help`` lists them).
COMMANDS = {
    "match": "match",
    "tournament": "tournament",
    "ratings": "ratings",
    "plot": "plot",
    "replay": "replay",
    "expert": "expert",
    "play": "play",
    "serve": "serve",
    "uai": "uai",
    "ladder": "ladder",
    "warmup": "warmup",
    "list": "list",
}


def _module(command: str):
    return importlib.import_module(f"mcts_envs.agents.frontends.{COMMANDS[command]}")


def build_parser() -> argparse.ArgumentParser:
    """The parser of every subcommand (each module adds its own)."""
    from mcts_envs import __version__

    parser = argparse.ArgumentParser(
        prog="mcts-envs",
        description="Play, record, rate and replay games between agents on mcts-envs games.",
    )
    parser.add_argument("--version", action="version", version=f"mcts-envs {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in COMMANDS:
        _module(command).add_parser(commands)
    return parser


def main(
    argv: Sequence[str] | None = None, out: TextIO | None = None, keys: TextIO | None = None
) -> int:
    """Run the ``mcts-envs`` command line; returns the exit status (0 ok, 2 on a user error, 1 on
    a runtime failure, 130 when interrupted).

    Args:
        argv: arguments (default ``sys.argv[1:]``).
        out: where to print (default stdout); errors go to stderr.
        keys: where ``replay`` and ``play`` read key presses (default stdin).
    """
    io = CommandIO(out or sys.stdout, keys or sys.stdin)
    args = build_parser().parse_args(argv)
    try:
        return _dispatch(args, io)
    except BrokenPipeError:
        # The reader went away (e.g. piped into head): end quietly, as Unix tools do.
        _silence_stdout()
        return 0


def _silence_stdout() -> None:
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # stdout replaced by a non-file object (tests)
        pass


def _dispatch(args: argparse.Namespace, io: CommandIO) -> int:
    try:
        return _module(args.command).run(args, io)
    except BrokenPipeError:
        raise
    except (MctsEnvsError, OSError) as error:
        # OSError: a missing or unreadable file, a full disk (--out /dev/full), ...
        reason = error.strerror if isinstance(error, OSError) and error.strerror else error
        where = f" ({error.filename})" if isinstance(error, OSError) and error.filename else ""
        print(f"mcts-envs {args.command}: error: {reason}{where}", file=sys.stderr)
        runtime = isinstance(error, MctsEnvsError) and isinstance(error, RuntimeError)
        return EXIT_RUNTIME if runtime else EXIT_ERROR
    except MemoryError:
        print(f"mcts-envs {args.command}: error: out of memory", file=sys.stderr)
        return EXIT_RUNTIME
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
