"""Each part of alpha-beta measured against the version without it: a ladder of equal-time matches.

The ladder starts from :data:`BASE`, the search as it was before these parts (plain alpha-beta
with iterative deepening, a transposition table kept between moves that answers only at the depth
it searched, the table move then the heuristic of the child first, the game's heuristic at the
leaves, an iteration cut off by the deadline). Each step of :data:`STEPS` adds one part to the
current version and plays the two, ``alphabeta:seconds=T,<every option>`` against the same
without the step, in one ``mcts-envs tournament`` (game pairs from the same random opening,
:data:`OPENING_PLIES` random plies, colours swapped; both sides ``T`` seconds a move on their own
clock, in one process). The step is kept, and the next step builds on it, when the new version
scores more than half of the points; otherwise the next step builds on the version before.
Every spec lists every option, so the records say what played whatever the defaults become.

Writes ``<out>/<game>_<T>s/step_<k>.jsonl`` (one results file per step, resumed by a rerun),
``table.md`` and ``summary.json`` (the steps, what each scored, the load at the start and end of
each step; a rerun that plays nothing keeps the load and wall time of the run that did).

With ``--defaults`` the ladder is one step instead: every part as today's defaults set it
(:func:`default_options`) against :data:`BASE`, which checks the parts together on a game the
ladder was not run on (``<out>/<game>_<T>s_defaults/``).

Run: ``python -m experiments.alphabeta_additions --game ataxx --seconds 0.05 --games 100``
(``--quick``: two games of the first two steps on Tic-Tac-Toe, for the test suite).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from experiments.common import parse_arguments
from mcts_envs.agents.evaluation.stats import WinDrawLoss, format_elo
from mcts_envs.records import read_records

RESULTS = Path(__file__).resolve().parent / "results" / "alphabeta_additions"
#: The search before the parts measured here (every option the agent has, spelled out).
BASE: dict[str, Any] = {
    "evaluation": "heuristic",
    "pvs": False,
    "aspiration": 0,
    "killers": False,
    "history": False,
    "lmr": False,
    "late_move_pruning": False,
    "internal_reduction": False,
    "futility": 0,
    "null_move": False,
    "quiescence": 0,
    "deeper_table": False,
    "iteration_stop": False,
    "keep_table": True,
    "table_size": 1 << 16,
}
#: The parts, in the order they are added: (label, the options that add it).
STEPS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("table entries searched deeper answer", {"deeper_table": True}),
    ("principal variation search", {"pvs": True}),
    ("aspiration windows", {"aspiration": 0.02}),
    ("killer moves", {"killers": True}),
    ("history scores", {"history": True}),
    ("late-move reductions", {"lmr": True}),
    ("late-move pruning", {"late_move_pruning": True}),
    ("internal iterative reduction", {"internal_reduction": True}),
    ("the game's evaluation", {"evaluation": "game"}),
    ("reverse futility pruning", {"futility": 2}),
    ("null-move pruning", {"null_move": True}),
    ("quiescence (4 plies of captures)", {"quiescence": 4}),
    ("stop at iteration boundaries", {"iteration_stop": True}),
    ("a larger table (2^20 entries)", {"table_size": 1 << 20}),
)
OPENING_PLIES = 4


def default_options() -> dict[str, Any]:
    """Every option of :data:`BASE` at the value today's ``AlphaBetaAgent`` defaults give it."""
    from mcts_envs.agents.spec import agent_parameters

    defaults = {parameter.name: parameter.default for parameter in agent_parameters("alphabeta")}
    return {name: defaults[name] for name in BASE}


QUICK = {"game": "tictactoe", "seconds": 0.01, "games": 2, "steps": 2}


def spec(options: dict[str, Any], seconds: float) -> str:
    """The alpha-beta spec of ``options`` at ``seconds`` a move (every option written out)."""
    text = ",".join(f"{name}={_word(value)}" for name, value in options.items())
    return f"alphabeta:seconds={seconds:g},{text}"


def _word(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return f"{value:g}" if isinstance(value, float) else str(value)


@dataclass
class Tally(WinDrawLoss):
    """One agent's wins, draws and losses, counted game by game."""

    wins: int = 0
    draws: int = 0
    losses: int = 0


def tally(path: Path, new: str) -> Tally:
    """Wins, draws and losses of the agent ``new`` in the records of ``path``."""
    count = Tally()
    for record in read_records(path):
        side = "a" if record["agents"][0] == new else "b"
        count.count(record["result"], side)
    return count


def think_seconds(path: Path, agent: str) -> float:
    """Mean measured think seconds per move of ``agent`` in the records of ``path``."""
    seconds = moves = 0.0
    for record in read_records(path):
        for seat, name in enumerate(record["players"]):
            if name == agent:
                seconds += record["timing"]["think_seconds"][seat]
                moves += record["moves"][seat]
    return seconds / moves if moves else float("nan")


def play_step(
    game: str, new: str, old: str, games: int, seed: int, path: Path, workers: int
) -> None:
    """Play (or resume) one step's match with ``mcts-envs tournament``."""
    command = [
        sys.executable,
        "-m",
        "mcts_envs.agents",
        "tournament",
        game,
        new,
        old,
        "--games-per-pair",
        str(games),
        "--openings",
        f"random:{OPENING_PLIES}",
        "--seed",
        str(seed),
        "--out",
        str(path),
        "--workers",
        str(workers),
        "--no-progress",
    ]
    if path.exists():
        command.append("--resume")
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--game", default="ataxx")
    parser.add_argument("--seconds", type=float, default=0.05, help="time per move")
    parser.add_argument("--games", type=int, default=100, help="games per step (even)")
    parser.add_argument("--steps", type=int, default=len(STEPS), help="the first N steps")
    parser.add_argument("--seed", type=int, default=4200, help="master seed of step 1")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--quick", action="store_true", help="tiny run for the test suite")
    parser.add_argument(
        "--defaults", action="store_true", help="one step: today's defaults against the base"
    )
    args = parse_arguments(parser, argv)
    if args.quick:
        for name, value in QUICK.items():
            setattr(args, name, value)
    out = (args.out or RESULTS.with_name(RESULTS.name + ("_quick" if args.quick else ""))) / (
        f"{args.game}_{args.seconds:g}s" + ("_defaults" if args.defaults else "")
    )
    steps = STEPS[: args.steps]
    if args.defaults:
        steps = (("every part as today's defaults set it", default_options()),)
    out.mkdir(parents=True, exist_ok=True)
    current = dict(BASE)
    rows = []
    stored = out / "summary.json"
    earlier = (
        {row["step"]: row for row in json.loads(stored.read_text())["steps"]}
        if stored.exists()
        else {}
    )
    for number, (label, added) in enumerate(steps, start=1):
        candidate = {**current, **added}
        new, old = spec(candidate, args.seconds), spec(current, args.seconds)
        path = out / f"step_{number}.jsonl"
        load_start = os.getloadavg()[0]
        started = time.time()
        before = len(read_records(path)) if path.exists() else 0
        play_step(args.game, new, old, args.games, args.seed + number, path, args.workers)
        measured = earlier.get(number) if len(read_records(path)) == before else None
        count = tally(path, new)
        low, high = count.score_interval()
        kept = count.score > 0.5
        row = {
            "step": number,
            "label": label,
            "added": added,
            "new": new,
            "old": old,
            "wins": count.wins,
            "draws": count.draws,
            "losses": count.losses,
            "score": round(count.score, 4),
            "score_interval": [round(low, 4), round(high, 4)],
            "elo": format_elo(count.elo()[0]),
            "kept": kept,
            "seed": args.seed + number,
            "think_seconds": [
                round(think_seconds(path, new), 4),
                round(think_seconds(path, old), 4),
            ],
            "load": [round(load_start, 2), round(os.getloadavg()[0], 2)],
            "wall_seconds": round(time.time() - started, 1),
        }
        if measured is not None:  # nothing played now: the load and time of the run that did
            row.update({key: measured[key] for key in ("load", "wall_seconds") if key in measured})
        rows.append(row)
        print(
            f"step {number} {label}: {count.wins}/{count.draws}/{count.losses}, score "
            f"{count.score:.3f} [{low:.3f}, {high:.3f}] -> {'kept' if kept else 'dropped'}",
            flush=True,
        )
        if kept:
            current = candidate
    summary = {
        "game": args.game,
        "seconds": args.seconds,
        "games_per_step": args.games,
        "opening_plies": OPENING_PLIES,
        "workers": args.workers,
        "cores": os.cpu_count(),
        "final": spec(current, args.seconds),
        "steps": rows,
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    lines = [
        f"# alpha-beta, part by part: {args.game} at {args.seconds:g} s a move",
        "",
        f"Each step against the version before it, {args.games} games (game pairs from "
        f"{OPENING_PLIES} random plies, colours swapped), one worker, {os.cpu_count()} cores.",
        "",
        "| step | added | W/D/L (new) | score [Wilson 95%] | Elo | kept | think s/move "
        "(new / old) | load (start-end) |",
        "| ---: | --- | --- | --- | ---: | --- | --- | --- |",
    ]
    for row in rows:
        low, high = row["score_interval"]
        lines.append(
            f"| {row['step']} | {row['label']} | {row['wins']}/{row['draws']}/{row['losses']} | "
            f"{row['score']:.3f} [{low:.3f}, {high:.3f}] | {row['elo']} | "
            f"{'yes' if row['kept'] else 'no'} | {row['think_seconds'][0]:.3f} / "
            f"{row['think_seconds'][1]:.3f} | {row['load'][0]}-{row['load'][1]} |"
        )
    lines += ["", f"Final version: `{spec(current, args.seconds)}`"]
    (out / "table.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
