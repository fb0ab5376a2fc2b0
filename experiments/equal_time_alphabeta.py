"""The default MCTS against alpha-beta at equal time per move, on every game: score against budget.

For each game and each time budget ``T`` (seconds per move), ``mcts:iterations=none,seconds=T``
(the package's per-game defaults, no iteration bound) plays ``alphabeta:seconds=T`` (iterative
deepening on the game's heuristic, the same wall-clock budget, each side measured by its own
search), colours swapped in pairs. Each ``(game, T)`` figure has a master seed of its own
(:func:`figure_seed`) and its own folder ``<out>/<game>/<T>s/`` (``results_*.jsonl``, resumed by a
rerun; ``summary.json`` with the load averages at its start and end); the records keep both sides'
measured think time per move. After the games, ``table.md``, ``summary.json`` and ``score.png``
(score over ``T`` per game, Wilson 95% bands, the target 0.55 dashed) in ``<out>`` are rebuilt from
every figure found there, so figures played by separate runs (other games, other budgets, more
games) join one table and one curve.

The issue's target is a score of at least :data:`TARGET` on every game at 0.1 s and 1 s a move;
the summary marks each figure that meets it (``target_met``: the score, draws counting half, is at
least the target) and each where alpha-beta is the better player (``alphabeta_better``: the whole
Wilson interval lies below 0.5).

Time budgets on a shared, loaded machine are distorted (both sides lose CPU to other work; they
move in turn in one process, so a change of load hits both over a game): the load averages and the
measured think times are stated with every figure.

Run: ``python -m experiments.equal_time_alphabeta --seconds 0.1 --games 100`` (``--game`` to pick
games, default all five; ``--quick`` for the test run; one worker process unless ``--workers``).
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections.abc import Sequence
from dataclasses import fields, replace
from pathlib import Path
from typing import Any

from experiments.common import (
    Experiment,
    Point,
    Series,
    play_and_summarise,
    plot_series,
    start_experiment,
)

#: The games, in the order of the table (a game's index enters its figures' seeds).
GAMES = ("tictactoe", "ultimate_tictactoe", "pentago_twist", "ataxx", "tantrix")
SECONDS = (0.1,)
QUICK = {"games": ("tictactoe",), "seconds": (0.01, 0.02)}
#: Score the issue asks of the default MCTS at equal time (seat-alternated, >= 100 games).
TARGET = 0.55
DEFAULT_SEED = 2929


def mcts_spec(seconds: float) -> str:
    """The default MCTS at ``seconds`` per move, no iteration bound."""
    return f"mcts:iterations=none,seconds={seconds:g}"


def alphabeta_spec(seconds: float) -> str:
    """Alpha-beta (iterative deepening) at ``seconds`` per move."""
    return f"alphabeta:seconds={seconds:g}"


def figure_seed(base: int, game: str, seconds: float) -> int:
    """Master seed of the ``(game, seconds)`` figure: ``base + 100000 * (index of game + 1) +
    round(1000 * seconds)``, distinct for every game and every budget under 100 s."""
    return base + 100_000 * (GAMES.index(game) + 1) + round(1000 * seconds)


def figure_folder(out: Path, game: str, seconds: float) -> Path:
    """Where the ``(game, seconds)`` figure's records and summary are kept."""
    return out / game / f"{seconds:g}s"


def play_figure(experiment: Experiment, game: str, seconds: float) -> dict[str, Any]:
    """Play (or resume) one figure and return its summary (:func:`figure_summary`)."""
    folder = figure_folder(experiment.out, game, seconds)
    folder.mkdir(parents=True, exist_ok=True)
    seed = figure_seed(experiment.args.seed, game, seconds)
    run = experiment._replace(
        out=folder,
        settings=experiment.settings._replace(seed=seed),
        started=time.time(),
        start_load=os.getloadavg(),
    )
    series = [Series(game, {seconds: mcts_spec(seconds)}, (alphabeta_spec(seconds),))]
    source = {
        "source": "issue 29: the default MCTS against alpha-beta at equal time per move",
        "game": game,
        "seconds": seconds,
        "budget": "seconds per move, each side's own clock",
    }
    _, points, meta = play_and_summarise(run, game, series, source)
    return figure_summary(points[0], meta, seed)


def figure_summary(point: Point, meta: dict[str, Any], seed: int) -> dict[str, Any]:
    """One figure as the summary states it: result, interval of the score, seed, load and
    measured think times."""
    low, high = point.score_interval()
    return {
        "game": point.label,
        "seconds": point.budget,
        "mcts": point.spec,
        "alphabeta": point.opponent,
        "wins": point.wins,
        "draws": point.draws,
        "losses": point.losses,
        "games": point.games,
        "score": point.score,
        "score_low": low,
        "score_high": high,
        "target_met": point.score >= TARGET,
        "alphabeta_better": high < 0.5,
        "seed": seed,
        "mcts_seconds_per_move": point.seconds_per_move,
        "alphabeta_seconds_per_move": point.opponent_seconds_per_move,
        "load_average_start": meta["machine"].get("load_average_start"),
        "load_average_end": meta["machine"]["load_average_end"],
        "date_utc": meta["machine"]["date_utc"],
        "wall_seconds": meta["wall_seconds"],
    }


def stored_figures(out: Path) -> list[tuple[Point, dict[str, Any]]]:
    """Every figure stored under ``out`` (its ``<game>/<T>s/summary.json``) in table order, as
    its point and its summary (:func:`figure_summary`)."""
    figures = []
    for game in GAMES:
        for path in (out / game).glob("*s/summary.json"):
            meta = json.loads(path.read_text())
            for stored in meta["points"]:
                point = Point(**{f.name: stored[f.name] for f in fields(Point)})
                figures.append((point, figure_summary(point, meta, meta["master_seed"])))
    return sorted(figures, key=lambda f: (GAMES.index(f[0].label), f[0].budget))


def table(figures: Sequence[dict[str, Any]], cores: int | None) -> str:
    """The markdown table of ``figures``: one row per game and budget."""
    lines = [
        "# The default MCTS against alpha-beta at equal time per move",
        "",
        "`mcts:iterations=none,seconds=T` (package defaults) against `alphabeta:seconds=T`, "
        "colours swapped in pairs, one master seed per figure; score = (wins + draws / 2) / games "
        f"for MCTS, Wilson 95% interval; target {TARGET} (issue 29). Machine: {cores} cores "
        "shared with other jobs; load average (1 min) at the start and end of each figure; "
        "think time = measured mean seconds per move.",
        "",
        "| game | s/move | W/D/L (MCTS) | games | score [Wilson 95%] | target | seed | load | "
        "think s/move (MCTS / alpha-beta) |",
        "| --- | ---: | --- | ---: | --- | --- | ---: | --- | --- |",
    ]
    for f in figures:
        verdict = "met" if f["target_met"] else "**not met**"
        if f["alphabeta_better"]:
            verdict += ", alpha-beta better"
        load = f"{(f['load_average_start'] or ['?'])[0]}-{f['load_average_end'][0]}"
        lines.append(
            f"| {f['game']} | {f['seconds']:g} | {f['wins']}/{f['draws']}/{f['losses']} | "
            f"{f['games']} | {f['score']:.2f} [{f['score_low']:.2f}, {f['score_high']:.2f}] | "
            f"{verdict} | {f['seed']} | {load} | {f['mcts_seconds_per_move']:.3f} / "
            f"{f['alphabeta_seconds_per_move']:.3f} |"
        )
    return "\n".join(lines) + "\n"


def write_outputs(out: Path, settings_seed: int) -> list[dict[str, Any]]:
    """Rebuild ``table.md``, ``summary.json`` and ``score.png`` in ``out`` from every stored
    figure; returns the figures."""
    stored = stored_figures(out)
    figures = [figure for _, figure in stored]
    cores = os.cpu_count()
    (out / "table.md").write_text(table(figures, cores))
    payload = {
        "source": "issue 29: the default MCTS against alpha-beta at equal time per move",
        "target": TARGET,
        "seed_base": settings_seed,
        "cores": cores,
        "figures": figures,
    }
    (out / "summary.json").write_text(json.dumps(payload, indent=1) + "\n")
    # one panel: every game's opponent is alpha-beta at the same budget as MCTS
    points = [replace(point, opponent="alphabeta:seconds=T (same T)") for point, _ in stored]
    if points:
        plot_series(
            points,
            out / "score.png",
            "Default MCTS vs alpha-beta at equal time per move",
            "seconds per move (both sides)",
            ylabel="MCTS score (band: Wilson 95%)",
            value="score",
            target=TARGET,
        )
    return figures


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--game", nargs="+", choices=GAMES, default=None, help="games (default: all five)"
    )
    parser.add_argument("--seconds", type=float, nargs="+", default=None, help="time per move")
    parser.set_defaults(seed=DEFAULT_SEED)


def main(argv: list[str] | None = None) -> list[dict[str, Any]]:
    """Play the figures asked for, then rebuild the outputs; returns every stored figure."""
    experiment = start_experiment(
        "equal_time_alphabeta",
        __doc__.split("\n")[0],
        argv,
        full_games=100,
        quick_games=2,
        full_workers=1,  # time budgets: one process unless asked (the machine is shared)
        add_arguments=_add_arguments,
    )
    args = experiment.args
    games = args.game or (QUICK["games"] if args.quick else GAMES)
    seconds = args.seconds or (QUICK["seconds"] if args.quick else SECONDS)
    for game in games:
        for t in seconds:
            f = play_figure(experiment, game, t)
            print(
                f"{game} at {t:g} s: {f['wins']}/{f['draws']}/{f['losses']} over {f['games']} "
                f"games, score {f['score']:.2f} [{f['score_low']:.2f}, {f['score_high']:.2f}], "
                f"seed {f['seed']}, load {f['load_average_start'][0]}-{f['load_average_end'][0]},"
                f" think s/move MCTS {f['mcts_seconds_per_move']:.3f} / alpha-beta "
                f"{f['alphabeta_seconds_per_move']:.3f}",
                flush=True,
            )
    figures = write_outputs(experiment.out, args.seed)
    print((experiment.out / "table.md").read_text())
    return figures


if __name__ == "__main__":
    main()
