"""The ``mcts-envs ladder`` subcommand: rate an agent on a game's ladder, or build a ladder.

Examples::

    mcts-envs ladder tictactoe "mcts:iterations=300" --games 40 --seed 1 --out mine.jsonl
    mcts-envs ladder tictactoe "llm:model=qwen,base_url=http://127.0.0.1:8080/v1" --games 20
    mcts-envs ladder build tictactoe --games-per-pair 20 --seed 0 --out-dir agents/data/ladders
"""

from __future__ import annotations

import argparse
from typing import Any

from mcts_envs.agents.frontends import CommandIO
from mcts_envs.agents.frontends.runs import add_keep_going, fault_limit
from mcts_envs.core.errors import InvalidOptionError


def add_parser(commands: Any) -> None:
    """Add the ``ladder`` subcommand to the CLI's subparsers."""
    ladder = commands.add_parser(
        "ladder",
        help="rate an agent against a game's calibrated ladder of search bots",
        description="Play SPEC against the anchors of GAME's ladder (each game pair against the "
        "anchor nearest its current estimate) and print its Elo on the ladder's scale "
        "(random = 0) with a 95%% interval, the games per anchor and the forfeits. "
        "'mcts-envs ladder build GAME ...' plays the anchors' round robin and writes a ladder.",
    )
    ladder.add_argument("game", help="game name, or 'build' followed by the game to build")
    ladder.add_argument("spec", nargs="?", help="agent spec (any kind), e.g. 'mcts:iterations=300'")
    ladder.add_argument("--games", type=int, default=40, help="games in all, even (default 40)")
    ladder.add_argument("--seed", type=int, default=0, help="master seed (default 0)")
    ladder.add_argument("--out", help="JSON-lines file of the games (tournament records)")
    ladder.add_argument("--resume", action="store_true", help="continue --out (or a build)")
    ladder.add_argument(
        "--overwrite", action="store_true", help="replace --out (or the built files) if they exist"
    )
    ladder.add_argument("--ladder", help="a ladder file instead of the game's shipped one")
    add_keep_going(ladder)
    ladder.add_argument(
        "--agent-module",
        action="append",
        default=[],
        metavar="MODULE",
        help="import MODULE first (it calls mcts_envs.agents.spec.register_agent); repeatable",
    )
    build = ladder.add_argument_group("ladder build")
    build.add_argument("--out-dir", help="build: directory of <game>.json and its records")
    build.add_argument(
        "--anchors",
        help="build: anchor specs separated by ';' (default: mcts_envs.agents.evaluation.ladder.DEFAULT_ANCHORS)",
    )
    build.add_argument(
        "--games-per-pair",
        type=int,
        default=20,
        help="build: round-robin games per pairing (default 20)",
    )
    build.add_argument(
        "--bootstrap", type=int, default=200, help="build: bootstrap samples (default 200)"
    )
    build.add_argument("--workers", type=int, default=1, help="build: processes (default 1)")


def run(args: argparse.Namespace, io: CommandIO) -> int:
    """Run ``mcts-envs ladder``: rate ``args.spec`` on the ladder of ``args.game``, or with
    ``build GAME`` build a ladder; prints the result to ``io.out``, notices to stderr.

    Raises:
        MctsEnvsError: for bad arguments (before any game), or a resumed file of other games.
    """
    from mcts_envs.agents.evaluation.ladder import build_ladder, rate_on_ladder
    from mcts_envs.agents.spec import import_agent_module
    from mcts_envs.core.compiling import print_to_stderr

    out = io.out
    for module in args.agent_module:
        import_agent_module(module)
    if args.game == "build":
        if args.spec is None or args.out_dir is None:
            raise InvalidOptionError("usage: mcts-envs ladder build GAME --out-dir DIR [options]")
        anchors = args.anchors.split(";") if args.anchors else None
        ladder = build_ladder(
            args.spec,
            args.out_dir,
            anchors=anchors,
            games_per_pair=args.games_per_pair,
            seed=args.seed,
            bootstrap=args.bootstrap,
            workers=args.workers,
            resume=args.resume,
            overwrite=args.overwrite,
            announce=print_to_stderr,
            agent_modules=args.agent_module,
        )
        print(f"wrote {ladder.path} ({ladder.info['games']} games):", file=out)
        print(ladder.table(), file=out)
        return 0
    if args.spec is None:
        raise InvalidOptionError("usage: mcts-envs ladder GAME SPEC [--games N] [--seed S]")
    result = rate_on_ladder(
        args.game,
        args.spec,
        games=args.games,
        seed=args.seed,
        out=args.out,
        resume=args.resume,
        overwrite=args.overwrite,
        ladder=args.ladder,
        announce=print_to_stderr,
        fault_limit=fault_limit(args),
    )
    print(result.summary(), file=out)
    if args.out:
        print(f"games in {args.out}", file=out)
    return 0
