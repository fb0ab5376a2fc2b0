"""``mcts-envs match GAME A B``: a seat-alternated match, W/D/L with Wilson intervals and Elo.

A match is a tournament of one pairing with no openings: ``mcts-envs match G A B --games N
--seed S`` plays exactly the games of ``mcts-envs tournament G A B --games-per-pair N --seed S``
(the same records up to their ``timing``), on any backend, and resumes the same way.
"""

from __future__ import annotations

import argparse
from typing import Any

from mcts_envs.agents.frontends import CommandIO
from mcts_envs.agents.frontends.runs import add_run_arguments, exit_status, run_hooks, run_settings


def add_parser(commands: Any) -> None:
    """Add the ``match`` subcommand."""
    match = commands.add_parser(
        "match",
        help="play a seat-alternated match between two agents",
        description="Play GAMES games between AGENT_A and AGENT_B (seats alternate), then print "
        "W/D/L, win rate with a Wilson 95% interval, moves/s and the Elo difference. The games "
        "are exactly those of 'mcts-envs tournament GAME AGENT_A AGENT_B --games-per-pair GAMES' "
        "with the same --seed (a match is a tournament of one pairing).",
    )
    match.add_argument("game", help="game name (see 'mcts-envs list')")
    match.add_argument("agent_a", help="agent spec, e.g. 'mcts:iterations=800,c=0.5'")
    match.add_argument("agent_b", help="agent spec, e.g. 'random' or 'alphabeta:depth=4'")
    match.add_argument("--games", type=int, default=100, help="number of games (default 100)")
    match.add_argument("--seed", type=int, default=0, help="master seed (default 0)")
    match.add_argument("--max-moves", type=int, help="adjudicate a draw after this many decisions")
    add_run_arguments(match, out_required=False)


def run(args: argparse.Namespace, io: CommandIO) -> int:
    """Play the match (or what a resumed ``--out`` is missing) and print its summary."""
    from mcts_envs.agents.evaluation.arena import play_match
    from mcts_envs.agents.evaluation.games import Adjudication, GameRules
    from mcts_envs.agents.evaluation.plan import plan_match
    from mcts_envs.agents.spec import import_agent_module

    for module in args.agent_module:
        import_agent_module(module)
    rules = GameRules(args.game, adjudication=Adjudication(max_moves=args.max_moves))
    plan = plan_match(rules, args.agent_a, args.agent_b, args.games, args.seed)
    result = play_match(plan, run_settings(args), run_hooks(args))
    print(result.summary(), file=io.out)
    if args.out:
        print(f"{len(result.records)} game records in {args.out}", file=io.out)
    return exit_status(result.interrupted, io)
