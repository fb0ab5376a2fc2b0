"""The ``mcts-envs`` command line: ``match``, ``replay``, ``list``, ``play``, ``uai``,
``expert`` (also ``python -m agents``).

Examples::

    mcts-envs match ultimate_tictactoe "mcts:iterations=2000" random --games 100 --seed 1
    mcts-envs match tictactoe alphabeta random --games 20 --out games.jsonl --workers 2
    mcts-envs replay games.jsonl --game 3 --delay 0.5
    mcts-envs expert tictactoe "mcts:iterations=400" --games 50 --out data.npz --symmetries
    mcts-envs list
    mcts-envs play tictactoe --opponent "mcts:iterations=2000" --seat 1 --out mine.jsonl
    mcts-envs uai --agent "mcts:iterations=100000"
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from typing import TextIO

from agents.expert_cli import add_parser as add_expert_parser
from agents.expert_cli import run as run_expert
from agents.frontends.ladder import add_parser as add_ladder_parser
from agents.frontends.ladder import run as run_ladder
from agents.play import add_play_command, run_play_command
from agents.spec import describe_agent, list_agents
from agents.tournament_cli import COMMANDS as EVALUATION_COMMANDS
from agents.tournament_cli import add_commands as add_evaluation_commands
from agents.tournament_cli import run_command as run_evaluation_command
from agents.uai import add_uai_command, run_uai_command
from agents.web import command as serve_command
from mcts_envs.core.errors import MctsEnvsError

EXIT_ERROR = 2


def _build_parser() -> argparse.ArgumentParser:
    from mcts_envs import __version__

    parser = argparse.ArgumentParser(
        prog="mcts-envs",
        description="Play, record and replay games between search agents on mcts-envs games.",
    )
    parser.add_argument("--version", action="version", version=f"mcts-envs {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    match = commands.add_parser(
        "match",
        help="play a seat-alternated match between two agents",
        description="Play GAMES games between AGENT_A and AGENT_B (seats alternate), then print "
        "W/D/L, win rate with a Wilson 95% interval, and moves/s for each agent.",
    )
    match.add_argument("game", help="game name (see 'mcts-envs list')")
    match.add_argument("agent_a", help="agent spec, e.g. 'mcts:iterations=800,c=0.5'")
    match.add_argument("agent_b", help="agent spec, e.g. 'random' or 'alphabeta:depth=4'")
    match.add_argument("--games", type=int, default=100, help="number of games (default 100)")
    match.add_argument("--seed", type=int, default=0, help="master seed (default 0)")
    match.add_argument(
        "--out", help="write every game as one JSON line to this new file (see --overwrite)"
    )
    match.add_argument(
        "--overwrite", action="store_true", help="replace --out if it exists (default: refuse)"
    )
    match.add_argument(
        "--workers", type=int, default=1, help="processes to play in (same results; default 1)"
    )
    match.add_argument("--max-moves", type=int, help="stop a game after this many decisions")
    match.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    match.add_argument(
        "--agent-module",
        action="append",
        default=[],
        metavar="MODULE",
        help="import MODULE first (it calls agents.spec.register_agent); repeatable",
    )

    replay = commands.add_parser(
        "replay",
        help="step through a recorded game in the terminal",
        description="Show a game of a JSON-lines file written by 'match --out', move by move. "
        "Press Enter to step (q + Enter quits), or pass --delay to play it back.",
    )
    replay.add_argument("file", help="JSON-lines file of game records")
    replay.add_argument("--game", type=int, default=0, help="which game (0-based; default 0)")
    replay.add_argument("--delay", type=float, help="seconds between moves (no key presses)")

    add_play_command(commands)
    add_uai_command(commands)
    serve_command.add_serve_parser(commands)
    add_expert_parser(commands)
    add_evaluation_commands(commands)  # tournament, ratings, plot (agents.tournament_cli)
    add_ladder_parser(commands)

    listing = commands.add_parser("list", help="list the games and the agents with their options")
    listing.add_argument("what", nargs="?", choices=("games", "agents"), help="only one of them")
    return parser


def _check_match_arguments(args: argparse.Namespace) -> None:
    """Check everything a match needs before any file is opened (a bad spec loses nothing).

    Raises:
        MctsEnvsError: for an unknown game or agent spec, a bad count, or an existing ``--out``
            without ``--overwrite``.
    """
    from pathlib import Path

    from agents.spec import import_agent_module, make_agent
    from mcts_envs.core.errors import InvalidOptionError
    from mcts_envs.core.registry import make_game

    make_game(args.game)
    for module in args.agent_module:
        import_agent_module(module)
    for spec in (args.agent_a, args.agent_b):
        make_agent(spec, seed=0)
    if args.games < 1:
        raise InvalidOptionError(f"--games must be at least 1, got {args.games}")
    if args.workers < 1:
        raise InvalidOptionError(f"--workers must be at least 1, got {args.workers}")
    if args.max_moves is not None and args.max_moves < 1:
        raise InvalidOptionError(f"--max-moves must be at least 1, got {args.max_moves}")
    if args.out and Path(args.out).exists() and not args.overwrite:
        raise InvalidOptionError(
            f"--out {args.out} exists; pass --overwrite to replace it, or choose another file"
        )


def _command_match(args: argparse.Namespace, out: TextIO) -> int:
    from agents.arena import play_match
    from mcts_envs.records import dumps

    _check_match_arguments(args)
    stream = open(args.out, "w", encoding="utf-8") if args.out else None  # noqa: SIM115
    try:

        def write(record: dict) -> None:
            if stream is not None:
                stream.write(dumps(record) + "\n")
                stream.flush()

        result = play_match(
            args.game,
            args.agent_a,
            args.agent_b,
            args.games,
            seed=args.seed,
            workers=args.workers,
            progress=not args.no_progress,
            max_moves=args.max_moves,
            on_record=write,
            agent_modules=args.agent_module,
            announce=lambda text: print(text, file=sys.stderr, flush=True),
        )
    finally:
        if stream is not None:
            stream.close()
    print(result.summary(), file=out)
    if args.out:
        print(f"wrote {len(result.records)} game records to {args.out}", file=out)
    return 0


def _render_text(game_name: str):
    """A function ``state -> str`` using the env's ansi renderer (or ``to_text`` as a fallback)."""
    import mcts_envs

    try:
        env = mcts_envs.make(game_name, raw=True, render_mode="ansi")
        env.reset(seed=0)
        unwrapped = env.unwrapped

        def render(state):
            unwrapped.set_game_state(state)
            return str(env.render())

        return render
    except Exception:  # a renderer problem must not stop a replay
        game = mcts_envs.make_game(game_name)
        return game.to_text


def _command_replay(args: argparse.Namespace, out: TextIO, keys: TextIO) -> int:
    from mcts_envs.core.errors import InvalidRecordError
    from mcts_envs.records import printable, read_records, replay_states

    records = read_records(args.file)
    if not records:
        raise InvalidRecordError(f"{args.file}: no game records in the file")
    if not 0 <= args.game < len(records):
        raise InvalidRecordError(
            f"{args.file}: no game {args.game}; the file holds games 0..{len(records) - 1}"
        )
    record = records[args.game]
    game, states = replay_states(record, where=f"{args.file}, game {args.game}")
    render = _render_text(game.info.name)
    chance = set(record.get("chance", []))
    players = [printable(p) for p in record["players"]]
    print(
        f"{game.info.name}, game {args.game}: player_0 = {players[0]}, player_1 = {players[1]}",
        file=out,
    )
    print(render(states[0]), file=out)
    exchanges = _exchanges(record)
    decisions = 0
    for number, action in enumerate(record["actions"]):
        if args.delay is not None:
            time.sleep(max(0.0, args.delay))
        else:
            print("[Enter: next move, q: quit] ", end="", file=out, flush=True)
            answer = keys.readline()
            if answer == "" or answer.strip().lower() == "q":
                print("", file=out)
                return 0
        before = states[number]
        mover = game.current_player(before)
        who = "chance" if number in chance or mover < 0 else f"player_{mover}"
        if who != "chance":
            decisions += 1
            for line in exchanges.get(decisions, []):
                print(line, file=out)
        print(
            f"move {number + 1}: {who} plays {game.action_to_string(before, action)} ({action})",
            file=out,
        )
        print(render(states[number + 1]), file=out)
    for line in exchanges.get(decisions + 1, []):  # the answers of a forfeited last decision
        print(line, file=out)
    result = record.get("result", "finished" if record["returns"] is not None else "unfinished")
    print(printable(f"result: {result} (returns {record['returns']})"), file=out)
    return 0


def _exchanges(record: dict) -> dict[int, list[str]]:
    """Lines showing the text answers of a record by decision number (1-based): the text env's
    ``answers`` and agents' ``transcripts`` (``{seat: [{"move_number", "answer", "error"}]}``)."""
    from mcts_envs.records import bounded, printable

    entries = [dict(entry) for entry in record.get("answers") or [] if isinstance(entry, dict)]
    transcripts = record.get("transcripts")
    if isinstance(transcripts, dict):
        for seat, items in transcripts.items():
            entries += [dict(item, seat=item.get("seat", seat)) for item in items or []]
    lines: dict[int, list[str]] = {}
    for entry in entries:
        number = entry.get("move_number")
        if not isinstance(number, int):
            continue
        answer = entry.get("answer")
        text = "(no answer)" if answer is None else repr(bounded(str(answer), 300))
        error = entry.get("error")
        note = "" if not error else f"  [invalid: {bounded(str(error), 200)}]"
        lines.setdefault(number, []).append(
            printable(f"  player_{entry.get('seat')} answered {text}{note}")
        )
    return lines


def _command_list(args: argparse.Namespace, out: TextIO) -> int:
    import mcts_envs

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


def main(
    argv: Sequence[str] | None = None, out: TextIO | None = None, keys: TextIO | None = None
) -> int:
    """Run the ``mcts-envs`` command line; returns the exit status (0 ok, 2 on a user error).

    Args:
        argv: arguments (default ``sys.argv[1:]``).
        out: where to print (default stdout); errors go to stderr.
        keys: where replay reads key presses (default stdin).
    """
    out = out or sys.stdout
    keys = keys or sys.stdin
    args = _build_parser().parse_args(argv)
    try:
        return _dispatch(args, out, keys)
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


def _dispatch(args: argparse.Namespace, out: TextIO, keys: TextIO) -> int:
    try:
        if args.command == "match":
            return _command_match(args, out)
        if args.command == "replay":
            return _command_replay(args, out, keys)
        if args.command == "play":
            return run_play_command(args, out, keys)
        if args.command == "uai":
            return run_uai_command(args, out, keys)
        if args.command == "serve":
            return serve_command.run(args, out)
        if args.command == "expert":
            return run_expert(args, out)
        if args.command == "ladder":
            return run_ladder(args, out)
        if args.command in EVALUATION_COMMANDS:
            return run_evaluation_command(args, out)
        return _command_list(args, out)
    except BrokenPipeError:
        raise
    except (MctsEnvsError, OSError) as error:
        # OSError: a missing or unreadable file, a full disk (--out /dev/full), ...
        reason = error.strerror if isinstance(error, OSError) and error.strerror else error
        where = f" ({error.filename})" if isinstance(error, OSError) and error.filename else ""
        print(f"mcts-envs {args.command}: error: {reason}{where}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
