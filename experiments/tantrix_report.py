"""The Tantrix report's figures 15 and 16 again: MCTS against an Oliver-style bot, by c and by time.

The report (two-player Tantrix, MCTS against the bots "GoodBot" and "Oliver") states 68.2%
against GoodBot and 71.8% against Oliver over 340 games at up to 6 s per move with c = 0.5, a win
rate rising with the time per move (its figure 16) and the best exploration constant near 0.35
(its figure 15). GoodBot is closed source; Oliver is alpha-beta over a forecast of each line's
final length, which the package rebuilds as the ``oliver`` agent (:mod:`mcts_envs.agents.players.oliver`, over
:mod:`mcts_envs.games.tantrix.forecast`).

Two sweeps, both at *equal time per move* for the two sides (MCTS ``seconds=T, iterations=none``
against ``oliver:depth=8,seconds=T``, iterative deepening inside the budget):

* **by c** (figure 15): ``c`` in 0, 0.35, 0.5, 0.75, 1 at the fixed time ``--fixed-time``;
* **by time** (figure 16): ``c = 0.5`` at each of ``--times``.

MCTS runs with the package defaults (the immediate-win / block check on) except ``c``, plus the
options of ``--mcts-options`` (e.g. ``rollout_cutoff=0``) for every point alike. An earlier run
switched the check off (``win_check=false``): in the engine of that time the check could use up a
small budget before the search began; the engine has been fixed since. Each playing process
prepares its agents untimed first (:func:`mcts_envs.agents.evaluation.games.prepare_agents`), as every tournament
does. Equal time is checked, not assumed: the table shows each side's measured mean think seconds
per decision (from the records' timing, every decision counted). Both sides play a single
legal placement at once; otherwise MCTS searches for its whole budget, while the bot, deepening
iteratively, starts no iteration it does not expect to finish. ``--bot-factor`` gives the bot
that many times the MCTS budget, to make the measured times equal: 1.8 did when MCTS searched
forced moves too (before it returned them at once); with today's MCTS a 4-game pilot at 0.3 s
and factor 1.8 measured 0.157 s per decision for MCTS and 0.271 s for the bot.

Games are played with the tournament tools (:func:`mcts_envs.agents.evaluation.run.run_plan`): one gauntlet per time
(the bot against the MCTS specs of that time), in colour-swapped game pairs that share their
chance seeds (the same draws for every pairing), seeded from ``--seed``. Outputs in
``--out-dir`` (default ``experiments/results/tantrix``): ``games_T<seconds>.jsonl`` (the
tournament records), ``points.jsonl`` (one line per point: W/D/L of MCTS, win rate, score,
Wilson 95% interval of the score), ``table.md`` and the figures ``fig15_by_c.png`` /
``fig16_by_time.png`` (win rate with the Wilson band, games per point).

``--quick`` (the test run): two values of c, two short times (0.03 and 0.05 s; at 0.01 s the
MCTS sometimes stops before expanding the root), 2 games per point, in-process.

Usage: ``python experiments/tantrix_report.py [--quick] [--games 20] [--fixed-time 0.1]
[--times 0.05 0.1 0.2 0.4] [--c-values 0 0.35 0.5] [--time-c 0.5] [--mcts-options OPTS]
[--workers 2] [--seed 14] [--out-dir DIR] [--no-play]``
(rerun with the same arguments to resume; a larger ``--games`` extends every point, since the first
games of a longer plan are the same tasks).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

from experiments.common import parse_arguments
from mcts_envs.agents.evaluation.arena import seat_think
from mcts_envs.agents.evaluation.games import GameRules
from mcts_envs.agents.evaluation.plan import plan_tournament
from mcts_envs.agents.evaluation.ratings import record_between, score_interval, tally
from mcts_envs.agents.evaluation.run import RunHooks, RunSettings, run_plan
from mcts_envs.records import read_records

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = ROOT / "experiments" / "results" / "tantrix"
C_VALUES = (0.0, 0.35, 0.5, 0.75, 1.0)
#: The report's figures, for the table and the charts (340 games, up to 6 s per move).
REPORT_CLAIM = "68.2% vs GoodBot, 71.8% vs Oliver over 340 games at up to 6 s/move, c = 0.5"


class Settings(NamedTuple):
    """One run: c values at ``fixed_time``, times at ``c = time_c``, games per point, seed,
    extra MCTS ``options`` (``"k=v,..."``, the same for every point), the bot's budget as
    ``bot_factor`` times the MCTS budget, etc."""

    c_values: tuple[float, ...]
    fixed_time: float
    times: tuple[float, ...]
    games: int
    seed: int
    workers: int
    depth: int
    out_dir: Path
    play: bool = True
    options: str = ""
    time_c: float = 0.5
    bot_factor: float = 1.0


def mcts_spec(c: float, seconds: float, options: str = "") -> str:
    """The MCTS side of a point: time budget only, ``c``, package defaults plus ``options``."""
    extra = f",{options}" if options else ""
    return f"mcts:iterations=none,seconds={seconds},c={c}{extra}"


def bot_spec(seconds: float, depth: int, factor: float = 1.0) -> str:
    """The Oliver-style bot at ``factor`` times the MCTS budget ``seconds`` (see
    :data:`Settings`: a factor above 1 makes up for the time its iterative deepening leaves
    unused, so that both sides' *measured* time per decision match)."""
    return f"oliver:depth={depth},seconds={round(seconds * factor, 4):g}"


def run_time(settings: Settings, seconds: float, c_values: Sequence[float]) -> list[dict]:
    """Play the gauntlet of the bot at ``seconds`` against MCTS with each of ``c_values``."""
    rules = GameRules("tantrix")
    specs = [mcts_spec(c, seconds, settings.options) for c in c_values]
    gauntlet = bot_spec(seconds, settings.depth, settings.bot_factor)
    plan = plan_tournament(rules, specs, settings.games, settings.seed, gauntlet=gauntlet)
    path = settings.out_dir / f"games_T{seconds}.jsonl"
    done = [0]
    total = len(plan.tasks)

    def progress(record: dict[str, Any]) -> None:
        done[0] += 1
        print(
            f"  T={seconds}s game {done[0]}/{total}: {record['agents'][1]} vs bot -> "
            f"{ {'a': 'bot', 'b': 'mcts', 'draw': 'draw'}[record['result']] }",
            file=sys.stderr,
            flush=True,
        )

    run = RunSettings(out=path, resume=True, workers=settings.workers)
    hooks = RunHooks(
        announce=lambda text: print(text, file=sys.stderr, flush=True), on_record=progress
    )
    return run_plan(plan, run, hooks).records


def point_rows(records: Sequence[dict], settings: Settings) -> list[dict]:
    """One row per (c, seconds) point: MCTS's W/D/L against the bot, win rate, score, interval."""
    rows = []
    think = _think_seconds(records)
    for (a, b), stats in tally(records).items():
        bot, mcts = (a, b) if a.startswith("oliver") else (b, a)
        wins, draws, losses = record_between({(a, b): stats}, mcts, bot)
        options = dict(item.split("=") for item in mcts.split(":", 1)[1].split(","))
        games = wins + draws + losses
        low, high = score_interval(wins, draws, losses)
        win_low, win_high = score_interval(wins, 0, draws + losses)
        rows.append(
            {
                "mcts": mcts,
                "bot": bot,
                "c": float(options["c"]),
                "seconds": float(options["seconds"]),
                "games": games,
                "wins": wins,
                "draws": draws,
                "losses": losses,
                "win_rate": wins / games,
                "score": (wins + 0.5 * draws) / games,
                "wilson_low": low,
                "wilson_high": high,
                "win_low": win_low,
                "win_high": win_high,
                "mcts_seconds_per_decision": round(think[mcts][0] / max(think[mcts][1], 1), 4),
                "bot_seconds_per_decision": round(
                    think[(bot, mcts)][0] / max(think[(bot, mcts)][1], 1), 4
                ),
                "options": settings.options,
                "seed": settings.seed,
            }
        )
    return sorted(rows, key=lambda row: (row["seconds"], row["c"]))


def _think_seconds(records: Sequence[dict]) -> dict[Any, list[float]]:
    """Total think seconds and decisions: per MCTS spec (key ``spec``) and per bot facing it
    (key ``(bot, spec)``), from the records' timing."""
    totals: dict[Any, list[float]] = {}
    for record in records:
        a, b = record["agents"]
        seat_a = record["seat_a"]
        bot_seat = seat_a if a.startswith("oliver") else 1 - seat_a
        bot, mcts = (a, b) if a.startswith("oliver") else (b, a)
        for key, seat in ((mcts, 1 - bot_seat), ((bot, mcts), bot_seat)):
            seconds, moves = seat_think(record, seat)
            entry = totals.setdefault(key, [0.0, 0])
            entry[0] += seconds
            entry[1] += moves
    return totals


def write_table(rows: Sequence[dict], settings: Settings, elapsed: float, path: Path) -> None:
    load = os.getloadavg()
    lines = [
        "# Tantrix: MCTS against the Oliver-style bot (figures 15 and 16 of the report, again)",
        "",
        f"Report: {REPORT_CLAIM}.",
        f"Here: {settings.games} games per point (colour-swapped pairs sharing their draws), "
        f"master seed {settings.seed}, bot `oliver:depth={settings.depth}` at "
        f"{settings.bot_factor:g} x the MCTS budget per move (column s/move), MCTS `iterations=none,seconds=T,c=C"
        f"{',' + settings.options if settings.options else ''}` (defaults otherwise, win check on); "
        f"{settings.workers} worker process(es) on {os.cpu_count()} cores of a shared machine "
        f"(load average {load[0]:.1f} when this table was written), {elapsed / 60:.1f} min of "
        f"play in total over the runs in runs.jsonl "
        f"({platform.python_version()}, {platform.machine()}).",
        "",
        "Measured think time: mean seconds per decision of each side over every decision (a "
        "single legal placement counted too).",
        "",
        "| c | s/move | games | MCTS W/D/L | MCTS win rate [Wilson 95%] | score [Wilson 95%] | "
        "measured s/decision (MCTS / bot) |",
        "|---:|---:|---:|---:|---|---|---|",
    ]
    for row in rows:
        lines.append(
            f"| {row['c']} | {row['seconds']} | {row['games']} | "
            f"{row['wins']}/{row['draws']}/{row['losses']} | {row['win_rate']:.3f} "
            f"[{row['win_low']:.3f}, {row['win_high']:.3f}] | {row['score']:.3f} "
            f"[{row['wilson_low']:.3f}, {row['wilson_high']:.3f}] | "
            f"{row['mcts_seconds_per_decision']:.3f} / {row['bot_seconds_per_decision']:.3f} |"
        )
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def draw_figure(rows: Sequence[dict], x_key: str, path: Path, title: str, log_x: bool) -> None:
    """Win rate (and score) of MCTS against ``x_key`` with the Wilson 95% band, n per point."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as pyplot

    rows = sorted(rows, key=lambda row: row[x_key])
    x = [row[x_key] for row in rows]
    figure, axes = pyplot.subplots(figsize=(7, 4.5))
    axes.fill_between(
        x, [r["wilson_low"] for r in rows], [r["wilson_high"] for r in rows],
        color="tab:blue", alpha=0.18, lw=0, label="Wilson 95% (score)",
    )  # fmt: skip
    axes.plot(x, [r["win_rate"] for r in rows], marker="o", color="tab:blue", label="win rate")
    axes.plot(
        x, [r["score"] for r in rows], marker="s", ls="--", color="tab:blue", alpha=0.7,
        label="score (draw = 1/2)",
    )  # fmt: skip
    for row in rows:
        axes.annotate(
            f"n={row['games']}", (row[x_key], row["win_rate"]), textcoords="offset points",
            xytext=(0, 7), ha="center", fontsize=7,
        )  # fmt: skip
    axes.axhline(0.5, color="grey", lw=0.8, ls=":")
    axes.axhline(0.718, color="tab:red", lw=0.8, ls="--", label="report: 71.8% vs Oliver (6 s)")
    axes.axhline(0.68, color="tab:green", lw=0.8, ls="-.", label="issue 14 target: 68%")
    if log_x:
        axes.set_xscale("log")
        axes.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    axes.set_xticks(x)
    axes.set_xticklabels([f"{value:g}" for value in x])
    axes.set_ylim(-0.02, 1.05)
    axes.set_xlabel("seconds per move (both sides)" if x_key == "seconds" else "UCT constant c")
    axes.set_ylabel("MCTS win rate against the Oliver-style bot")
    axes.set_title(title, fontsize=10)
    axes.grid(True, which="both", alpha=0.3)
    axes.legend(fontsize=7, loc="best")
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    pyplot.close(figure)


def run(settings: Settings) -> list[dict]:
    """Play every point (resuming existing records), write points, table and figures."""
    settings.out_dir.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    records: list[dict] = []
    times = sorted(set(settings.times) | {settings.fixed_time})
    for seconds in times:
        c_values = [settings.time_c] if seconds in settings.times else []
        if seconds == settings.fixed_time:
            c_values = sorted(set(settings.c_values) | set(c_values))
        if settings.play:
            records += run_time(settings, seconds, c_values)
        else:
            records += read_records(settings.out_dir / f"games_T{seconds}.jsonl")
    log_path = settings.out_dir / "runs.jsonl"
    if settings.play:
        with open(log_path, "a", encoding="utf-8") as stream:
            entry = {"seconds": round(time.perf_counter() - start, 1), "games": settings.games}
            entry["load_average"] = round(os.getloadavg()[0], 2)
            stream.write(json.dumps(entry) + "\n")
    runs = (
        [json.loads(line) for line in log_path.read_text().splitlines()]
        if log_path.exists()
        else []
    )
    elapsed = sum(run["seconds"] for run in runs)
    rows = point_rows(records, settings)
    with open(settings.out_dir / "points.jsonl", "w", encoding="utf-8") as stream:
        for row in rows:
            stream.write(json.dumps(row) + "\n")
    write_table(rows, settings, elapsed, settings.out_dir / "table.md")
    by_c = [r for r in rows if r["seconds"] == settings.fixed_time]
    by_time = [r for r in rows if r["c"] == settings.time_c]
    draw_figure(
        by_c, "c", settings.out_dir / "fig15_by_c.png",
        f"Tantrix, figure 15 again: MCTS vs Oliver-style bot by c at {settings.fixed_time} s/move",
        log_x=False,
    )  # fmt: skip
    draw_figure(
        by_time, "seconds", settings.out_dir / "fig16_by_time.png",
        f"Tantrix, figure 16 again: MCTS (c = {settings.time_c:g}) vs Oliver-style bot by time "
        "per move",
        log_x=True,
    )  # fmt: skip
    return rows


def parse_settings(argv: Sequence[str] | None = None) -> Settings:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="tiny run for the tests")
    parser.add_argument("--games", type=int, default=20, help="games per point (even)")
    parser.add_argument("--fixed-time", type=float, default=0.1)
    parser.add_argument("--times", type=float, nargs="+", default=[0.05, 0.1, 0.2, 0.4])
    parser.add_argument("--c-values", type=float, nargs="+", default=list(C_VALUES))
    parser.add_argument("--time-c", type=float, default=0.5, help="c of the by-time sweep")
    parser.add_argument(
        "--bot-factor", type=float, default=1.0,
        help="the bot's budget is this times the MCTS budget (to equalise measured time)",
    )  # fmt: skip
    parser.add_argument(
        "--mcts-options", default="", help='extra MCTS options for every point, "k=v,..."'
    )
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--depth", type=int, default=8, help="deepest iteration of the bot")
    parser.add_argument("--seed", type=int, default=14)
    parser.add_argument("--out-dir", type=Path, default=DEFAULT_OUT)
    parser.add_argument(
        "--no-play", action="store_true", help="only rebuild points, table and figures from the "
        "records already in --out-dir",
    )  # fmt: skip
    args = parse_arguments(parser, argv)
    if args.quick:
        return Settings(
            (0.5, 1.0), 0.03, (0.03, 0.05), 2, args.seed, 1, 2, args.out_dir,
            options=args.mcts_options, time_c=args.time_c, bot_factor=args.bot_factor,
        )  # fmt: skip
    return Settings(
        tuple(args.c_values), args.fixed_time, tuple(args.times), args.games, args.seed,
        args.workers, args.depth, args.out_dir, not args.no_play, args.mcts_options, args.time_c,
        args.bot_factor,
    )  # fmt: skip


def main(argv: Sequence[str] | None = None) -> None:
    settings = parse_settings(argv)
    rows = run(settings)
    print((settings.out_dir / "table.md").read_text(encoding="utf-8"))
    print(f"{len(rows)} points written to {settings.out_dir}")


if __name__ == "__main__":
    main()
