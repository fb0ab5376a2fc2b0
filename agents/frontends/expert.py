"""The ``mcts-envs expert`` subcommand: record an expert dataset (see :mod:`mcts_envs.agents.evaluation.expert`).

Example::

    mcts-envs expert ultimate_tictactoe "mcts:iterations=800" --games 100 --out data.npz \\
        --workers 2 --seed 1 --symmetries --temperature-moves 10
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from mcts_envs.agents.evaluation.backends.workers import check_workers
from mcts_envs.agents.frontends import CommandIO
from mcts_envs.agents.temperature import DEFAULT_TEMPERATURE_MOVES
from mcts_envs.core.errors import InvalidOptionError


def add_parser(commands: Any) -> None:
    """Add the ``expert`` subcommand to the CLI's subparsers."""
    expert = commands.add_parser(
        "expert",
        help="record an expert dataset (observations, masks, visit distributions, values)",
        description="Play GAMES games of GAME with the expert SPEC (self-play, or against "
        "--opponent with seats alternating) and save, per expert decision, the observation, "
        "action mask, visit distribution, root value, final outcome for the mover, game index "
        "and ply as a .npz file that loads with numpy.load (format: agents/evaluation/expert.py).",
    )
    expert.add_argument("game", help="game name (see 'mcts-envs list')")
    expert.add_argument("spec", help="expert agent spec, e.g. 'mcts:iterations=800'")
    expert.add_argument("--games", type=int, required=True, help="number of games")
    expert.add_argument("--out", required=True, help="the .npz file to write")
    expert.add_argument("--seed", type=int, default=0, help="master seed (default 0)")
    expert.add_argument(
        "--workers", type=int, default=1, help="processes to play in (same output; default 1)"
    )
    expert.add_argument(
        "--symmetries", action="store_true", help="add the symmetry images of every decision"
    )
    expert.add_argument("--opponent", help="a second agent spec (default: self-play)")
    expert.add_argument(
        "--temperature-moves",
        type=int,
        default=DEFAULT_TEMPERATURE_MOVES,
        help="decisions per game drawn in proportion to the visits before greedy play (default "
        f"{DEFAULT_TEMPERATURE_MOVES}; 0 makes every self-play game of a deterministic expert the "
        "same game)",
    )
    expert.add_argument("--max-moves", type=int, help="stop a game after this many decisions")
    expert.add_argument(
        "--overwrite", action="store_true", help="replace --out if it exists (default: refuse)"
    )
    expert.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    expert.add_argument(
        "--format",
        choices=("npz", "chat"),
        default="npz",
        help="npz: arrays (default); chat: JSON lines of chat messages (the text env's prompt, "
        "the search's move) with the visits over move names and the root value "
        "(agents/evaluation/chat_data.py)",
    )


def run(args: argparse.Namespace, io: CommandIO) -> int:
    """Run ``mcts-envs expert`` (arguments checked before any game; an existing file is kept)."""
    from mcts_envs.agents.evaluation.expert import ExpertConfig, check_config, write_expert_data
    from mcts_envs.agents.frontends.cli import EXIT_INTERRUPTED
    from mcts_envs.core.symmetry import game_symmetries

    config = check_config(
        ExpertConfig(
            game=args.game,
            spec=args.spec,
            games=args.games,
            seed=args.seed,
            opponent=args.opponent,
            symmetries=args.symmetries,
            temperature_moves=args.temperature_moves,
            max_moves=args.max_moves,
        )
    )
    check_workers(args.workers)
    if args.format == "chat":
        from mcts_envs.agents.evaluation.chat_data import write_chat_data

        rows = write_chat_data(args.out, config, workers=args.workers, overwrite=args.overwrite)
        print(f"wrote {rows} chat rows ({config.games} games) to {args.out}", file=io.out)
        return 0
    path = Path(args.out)
    if path.exists() and not args.overwrite:
        raise InvalidOptionError(
            f"--out {args.out} exists; pass --overwrite to replace it, or choose another file"
        )
    if path.suffix != ".npz":
        raise InvalidOptionError(f"--out must name a .npz file, got {args.out}")
    rows, summary, interrupted = write_expert_data(
        path, config, workers=args.workers, progress=not args.no_progress
    )
    names = game_symmetries(config.game).names if config.symmetries else ("identity",)
    print(
        f"wrote {rows} rows ({summary.games} games, symmetries: {', '.join(names)}) to {args.out}",
        file=io.out,
    )
    print(summary.text(), file=io.out)
    if interrupted:
        print(
            f"interrupted: {summary.games} of {config.games} games finished and written",
            file=io.out,
        )
        return EXIT_INTERRUPTED
    return 0
