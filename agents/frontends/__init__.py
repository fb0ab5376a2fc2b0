"""Front ends: the ``mcts-envs`` command line and what it starts (terminal play, the web app, the
UAI engine server).

:mod:`.cli` holds the one table of subcommands; each subcommand is a module here with
``add_parser(commands)`` (adds its argparse parser) and ``run(args, io) -> int`` (runs it and
returns the exit status). Modules import what they need inside ``run``, so ``mcts-envs --help``
stays fast.
"""

from __future__ import annotations

from typing import NamedTuple, TextIO

__all__ = ["CommandIO"]


class CommandIO(NamedTuple):
    """Where a command prints and reads.

    Attributes:
        out: results (stdout by default).
        keys: key presses and typed moves (stdin by default).
    """

    out: TextIO
    keys: TextIO
