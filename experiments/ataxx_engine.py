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

Each time budget ``T`` (``--seconds``) is one run under ``<out>/<T>s/``: ``alphabeta`` and the
default ``mcts`` (no iteration bound) each play a gauntlet against the engine (``uai:cmd=...``),
colours swapped in pairs, every side given ``T`` seconds per decision by the tournament's time
control (``--time``; the engine gets ``go movetime``). The records keep every side's measured think
time per move (the UAI client measures from ``go`` to ``bestmove``): the table shows both, since
an engine may overrun its ``movetime``. ``--clock BASE+INC`` plays on clocks instead (each side
charged its measured time; ``T`` is then only the label).
"""

from __future__ import annotations

import argparse
import os
import shutil

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
OURS = {"alphabeta": "alphabeta", "mcts (defaults)": "mcts:iterations=None"}


def engine_path(text: str | None) -> str | None:
    """The engine's executable from ``--engine`` (a path, or a name on ``PATH``), or None if it
    is not there or not executable."""
    if not text:
        return None
    found = shutil.which(text)
    if found is None and os.path.isfile(text) and os.access(text, os.X_OK):
        found = text
    return os.path.abspath(found) if found else None


def build_series(seconds: float, engine: str, engine_seconds: float | None) -> list[Series]:
    """One series per agent of :data:`OURS` at ``seconds`` per move, against the engine (asked
    for ``engine_seconds`` per move if given, else given the time control's budget)."""
    opponent = f"uai:cmd={engine}"
    if engine_seconds is not None:
        opponent += f",seconds={engine_seconds:g}"
    return [
        Series(
            label, {seconds: f"{spec}{',' if ':' in spec else ':'}seconds={seconds:g}"}, (opponent,)
        )
        for label, spec in OURS.items()
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
        "--adjudicate-material",
        type=int,
        default=None,
        help="the side ahead by this many stones wins at once (default: play to the end)",
    )


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
    settings = experiment.settings._replace(backend="local", workers=1)  # engines: one process
    adjudication = GameRules(GAME).adjudication._replace(material_margin=args.adjudicate_material)
    curve: list[Point] = []
    for seconds in args.seconds:
        if args.clock:
            base, increment = parse_clock(args.clock)
            control = TimeControl(base_seconds=base, increment=increment)
        else:
            control = TimeControl(move_seconds=seconds)
        name = f"{seconds:g}s" + (f"_engine{args.engine_seconds:g}s" if args.engine_seconds else "")
        out = experiment.out / name
        out.mkdir(parents=True, exist_ok=True)
        run = experiment._replace(out=out, settings=settings)
        rules = GameRules(GAME, control, adjudication)
        source = {
            "source": "AtaxxDotCpp (hand-crafted evaluation, NNUE 0), built locally",
            "engine": engine,
            "game": GAME,
            "time_control": control._asdict(),
            "engine_seconds": args.engine_seconds,
            "adjudication": adjudication._asdict(),
        }
        _, points, meta = play_and_summarise(
            run, GAME, build_series(seconds, engine, args.engine_seconds), source, rules
        )
        header = (
            f"# Our Ataxx agents against AtaxxDotCpp at {seconds:g} s per move\n\n"
            f"{settings.games} games per agent (colours swapped in pairs, master seed "
            f"{settings.seed}); time control {control}. Machine: {meta['machine']['cores']} cores, "
            f"load average {meta['machine']['load_average_start'][0]} at the start; "
            f"{meta['wall_seconds']} s wall."
        )
        write_table(points, out / "table.md", header, "seconds/move")
        curve += points
        for point in points:
            print(score_line(point), flush=True)
    if len(args.seconds) > 1:
        title = f"Ataxx: our agents vs AtaxxDotCpp ({settings.games} games/point)"
        plot_series(curve, experiment.out / "winrate.png", title, "seconds per move")


if __name__ == "__main__":
    main()
