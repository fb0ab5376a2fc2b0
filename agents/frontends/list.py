"""``mcts-envs list``: the games and the agents with their options."""

from __future__ import annotations

import argparse
from typing import Any

from mcts_envs.agents.frontends import CommandIO


def add_parser(commands: Any) -> None:
    """Add the ``list`` subcommand."""
    listing = commands.add_parser("list", help="list the games and the agents with their options")
    listing.add_argument("what", nargs="?", choices=("games", "agents"), help="only one of them")
    listing.add_argument(
        "--agent-module",
        action="append",
        default=[],
        metavar="MODULE",
        help="import MODULE first (it calls mcts_envs.agents.spec.register_agent), so its agents "
        "are listed; repeatable",
    )


def run(args: argparse.Namespace, io: CommandIO) -> int:
    """Print the games and the agents with their options."""
    out = io.out
    import mcts_envs
    from mcts_envs.agents.spec import describe_agent, import_agent_module, list_agents

    for module in args.agent_module:
        import_agent_module(module)
    if args.what in (None, "games"):
        print("games:", file=out)
        for name in mcts_envs.list_games():
            info = mcts_envs.make_game(name).info
            chance = ", chance" if info.has_chance else ""
            print(f"  {name} ({info.num_actions} actions{chance})", file=out)
    if args.what in (None, "agents"):
        print("agents (spec: name or name:key=value,...):", file=out)
        for name in list_agents():
            try:
                text = describe_agent(name)
            except ImportError as error:
                text = f"{name}: unavailable ({error})"
            print("  " + text.replace("\n", "\n  "), file=out)
    return 0
