"""``mcts-envs replay FILE``: step through a recorded game in the terminal."""

from __future__ import annotations

import argparse
import time
from typing import Any

from mcts_envs.agents.frontends import CommandIO


def add_parser(commands: Any) -> None:
    """Add the ``replay`` subcommand."""
    replay = commands.add_parser(
        "replay",
        help="step through a recorded game in the terminal",
        description="Show a game of a JSON-lines file of game records (match, tournament, play), "
        "move by move. Press Enter to step (q + Enter quits), or pass --delay to play it back.",
    )
    replay.add_argument("file", help="JSON-lines file of game records")
    replay.add_argument("--game", type=int, default=0, help="which game (0-based; default 0)")
    replay.add_argument("--delay", type=float, help="seconds between moves (no key presses)")


def _render_text(game_name: str):
    """A function ``state -> str``: the board with the coordinates of the move notation (the
    env's ansi renderer, as ``play`` draws it), or ``to_text`` as a fallback."""
    import mcts_envs
    from mcts_envs.agents.frontends.play import board_printer

    try:
        return board_printer(game_name)
    except Exception:  # a renderer problem must not stop a replay
        return mcts_envs.make_game(game_name).to_text


def run(args: argparse.Namespace, io: CommandIO) -> int:
    """Show one game of a records file move by move (Enter steps, or ``--delay``)."""
    out, keys = io
    from mcts_envs.agents.frontends.records import read_checked_records
    from mcts_envs.core.errors import InvalidRecordError
    from mcts_envs.records import printable, replay_states

    records = read_checked_records(args.file, "replay", validate=False)
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
