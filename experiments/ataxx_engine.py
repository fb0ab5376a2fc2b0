"""A real Ataxx engine as an outside reference: our best Ataxx agents against AtaxxDotCpp over UAI,
at equal time per move.

AtaxxDotCpp (``github.com/GediminasMasaitis/AtaxxDotCpp``, C++, alpha-beta with a hand-crafted
evaluation or a network) is built locally; its code is never committed here. Its network file is
not in the repository, so build its hand-crafted evaluation::

    git clone https://github.com/GediminasMasaitis/AtaxxDotCpp /tmp/ataxxdotcpp
    cd /tmp/ataxxdotcpp/src && sed -i 's/^#define NNUE 1/#define NNUE 0/' types.h
    mkdir -p build/networks && : > build/networks/default.nnue-floats   # the INCBIN's file
    cd build && cmake .. -DCMAKE_BUILD_TYPE=Release && make   # about a minute on one core

Then ``python -m experiments.ataxx_engine --engine /tmp/ataxxdotcpp/src/build/AtaxxDotCpp``.
Without the engine (``--engine`` missing or not executable) the script says so and exits with
status 0, playing nothing.

The engine does not read ``go movetime``: it shares out a clock (it ends its iterations at a
fortieth of ``wtime``, or ``btime``, and stops at a fifth of it; without one it assumes 10 s, so a
``movetime`` of 100 ms gave 0.35 s moves). So each side gets ``T`` seconds a move (``--seconds``)
by the tournament's time control, and the engine gets it as a clock, ``go wtime X btime X`` with
``X`` = ``--clock-factor`` times ``T`` (default :data:`CLOCK_FACTOR`: its moves then took about as
long as ours; the records keep every side's measured think time per move, from ``go`` to
``bestmove`` for the engine, and the table shows both).

Each ``T`` is one run under ``<out>/<T>s_clock<F>/``: each agent of ``--agents`` (default our best
Ataxx agent at equal time, alpha-beta with its defaults) plays a gauntlet against the engine,
game pairs from the same opening (``--openings``, default :data:`OPENINGS`) with colours
swapped. ``--clock BASE+INC`` plays on clocks instead (each side charged its measured time; ``T``
is then only the label) and ``--engine-seconds`` gives the engine a ``movetime`` of its own.
``score.png`` draws our score against the budget from every ``T`` stored with the same engine
setting (``*_clock<F>`` or ``*_engine<S>s``), so separate runs add up to one curve.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
from dataclasses import fields
from pathlib import Path

from experiments.common import (
    Point,
    Series,
    play_and_summarise,
    plot_series,
    start_experiment,
    write_table,
)
from mcts_envs.agents.evaluation.games import GameRules, TimeControl, parse_clock

GAME = "ataxx"
SECONDS = (0.1,)
#: Our agents, by label: the spec without a budget (the time control gives ``seconds``).
OURS = {"alphabeta": "alphabeta", "mcts": "mcts:iterations=None"}
#: The agents played unless ``--agents`` says otherwise (our best Ataxx agent at equal time).
DEFAULT_AGENTS = ("alphabeta",)
#: The engine's clock, ``go wtime``, as a multiple of the move's budget.
CLOCK_FACTOR = 25.0
#: The score our best agent is asked to reach at equal time.
TARGET = 0.35
#: Random plies of the opening each game pair starts from.
OPENINGS = "random:4"


def engine_path(text: str | None) -> str | None:
    """The engine's executable from ``--engine`` (a path, or a name on ``PATH``), or None if it
    is not there or not executable."""
    if not text:
        return None
    found = shutil.which(text)
    if found is None and os.path.isfile(text) and os.access(text, os.X_OK):
        found = text
    return os.path.abspath(found) if found else None


def build_series(
    seconds: float,
    engine: str,
    engine_seconds: float | None,
    clock_factor: float | None,
    agents: tuple[str, ...],
) -> list[Series]:
    """One series per agent of ``agents`` (labels of :data:`OURS`) at ``seconds`` per move,
    against the engine (asked for ``engine_seconds`` per move if given, else given the time
    control's budget, as a clock of ``clock_factor`` times it if given)."""
    opponent = f"uai:cmd={engine}"
    if engine_seconds is not None:
        opponent += f",seconds={engine_seconds:g}"
    elif clock_factor is not None:
        opponent += f",clock_factor={clock_factor:g}"
    return [
        Series(
            label,
            {seconds: f"{OURS[label]}{',' if ':' in OURS[label] else ':'}seconds={seconds:g}"},
            (opponent,),
        )
        for label in agents
    ]


def score_line(point: Point) -> str:
    """``W/D/L, score [Wilson 95%]`` of one point (draws as half a point)."""
    low, high = point.score_interval()
    return (
        f"{point.label} at {point.budget:g} s: {point.wins}/{point.draws}/{point.losses}, score "
        f"{point.score:.2f} [{low:.2f}, {high:.2f}]; think s/move ours {point.seconds_per_move:.3f}"
        f", engine {point.opponent_seconds_per_move:.3f}"
    )


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--engine", default=None, help="the AtaxxDotCpp executable (see above)")
    parser.add_argument(
        "--seconds", type=float, nargs="+", default=list(SECONDS), help="time per move"
    )
    parser.add_argument(
        "--engine-seconds",
        type=float,
        default=None,
        help="ask the engine for this movetime instead (it overruns a short one: equal measured "
        "time needs ours at its measured time)",
    )
    parser.add_argument("--clock", default=None, help="BASE+INC: play on clocks instead")
    parser.add_argument(
        "--clock-factor",
        type=float,
        default=CLOCK_FACTOR,
        help="the engine's clock (go wtime) as a multiple of the move's budget",
    )
    parser.add_argument(
        "--agents", nargs="+", choices=sorted(OURS), default=list(DEFAULT_AGENTS), help="ours"
    )
    parser.add_argument(
        "--openings", default=OPENINGS, help="random:K (K random plies per game pair) or a file"
    )
    parser.add_argument(
        "--adjudicate-material",
        type=int,
        default=None,
        help="the side ahead by this many stones wins at once (default: play to the end)",
    )


def stored_points(out: Path, setting: str) -> list[Point]:
    """Every point stored under ``out`` by runs of one engine setting (the folders
    ``<T>s<setting>``, e.g. ``0.1s_clock25``), by budget."""
    points = []
    for path in out.glob(f"*s{setting}/summary.json"):
        for stored in json.loads(path.read_text())["points"]:
            points.append(Point(**{f.name: stored[f.name] for f in fields(Point)}))
    return sorted(points, key=lambda point: (point.label, point.budget))


def main(argv: list[str] | None = None) -> None:
    experiment = start_experiment(
        "ataxx_engine",
        __doc__.split("\n")[0],
        argv,
        full_games=10,
        quick_games=2,
        add_arguments=add_arguments,
    )
    args = experiment.args
    engine = engine_path(args.engine)
    if engine is None:
        print(
            f"ataxx_engine: no engine at {args.engine!r} (give --engine PATH to the AtaxxDotCpp "
            "executable; how to build it is in this script's docstring): nothing played"
        )
        return
    # engines: one process; game pairs from the same opening
    settings = experiment.settings._replace(backend="local", workers=1, openings=args.openings)
    adjudication = GameRules(GAME).adjudication._replace(material_margin=args.adjudicate_material)
    setting = (
        f"_engine{args.engine_seconds:g}s"
        if args.engine_seconds
        else f"_clock{args.clock_factor:g}"
    )
    for seconds in args.seconds:
        if args.clock:
            base, increment = parse_clock(args.clock)
            control = TimeControl(base_seconds=base, increment=increment)
        else:
            control = TimeControl(move_seconds=seconds)
        out = experiment.out / f"{seconds:g}s{setting}"
        out.mkdir(parents=True, exist_ok=True)
        run = experiment._replace(out=out, settings=settings)
        rules = GameRules(GAME, control, adjudication)
        source = {
            "source": "AtaxxDotCpp (hand-crafted evaluation, NNUE 0), built locally",
            "engine": engine,
            "game": GAME,
            "time_control": control._asdict(),
            "engine_seconds": args.engine_seconds,
            "clock_factor": None if args.engine_seconds else args.clock_factor,
            "openings": args.openings,
            "adjudication": adjudication._asdict(),
        }
        _, points, meta = play_and_summarise(
            run,
            GAME,
            build_series(
                seconds, engine, args.engine_seconds, args.clock_factor, tuple(args.agents)
            ),
            source,
            rules,
        )
        header = (
            f"# Our Ataxx agents against AtaxxDotCpp at {seconds:g} s per move\n\n"
            f"{settings.games} games per agent (game pairs from {args.openings} openings, "
            f"colours swapped; master seed {settings.seed}); time control {control}; the engine "
            f"{'at its own movetime' if args.engine_seconds else 'on a clock of '}"
            f"{'' if args.engine_seconds else f'{args.clock_factor:g} times the budget'}. Machine: {meta['machine']['cores']} cores, "
            f"load average {meta['machine']['load_average_start'][0]} at the start; "
            f"{meta['wall_seconds']} s wall."
        )
        write_table(points, out / "table.md", header, "seconds/move")
        for point in points:
            print(score_line(point), flush=True)
    curve = stored_points(experiment.out, setting)
    if len({point.budget for point in curve}) > 1:
        counts = sorted({point.games for point in curve})
        title = (
            "Ataxx: ours against AtaxxDotCpp at equal time "
            f"({'/'.join(map(str, counts))} games a point)"
        )
        plot_series(
            curve,
            experiment.out / "score.png",
            title,
            "seconds per move",
            ylabel="score (draws half; band: Wilson 95%)",
            value="score",
            target=TARGET,
        )


if __name__ == "__main__":
    main()
