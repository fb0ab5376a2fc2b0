"""What every source experiment shares: matches on the tournament tools, tables, figures, machine.

An experiment is a list of :class:`Series`: one agent family (specs that differ only in a budget)
met by one or more opponents. :func:`run_series` plays them with the evaluation layer's one run
function (:func:`mcts_envs.agents.evaluation.run.run_plan`: paired colours, seeds derived from one
master seed, a resumable JSON-lines file), :func:`summarise`
counts wins, draws and losses with Wilson 95% intervals (:func:`mcts_envs.agents.evaluation.ratings.score_interval`),
:func:`write_table` writes the markdown table and :func:`plot_series` the figure (win rate against
budget, Wilson bands, ``n`` per point). :func:`machine` states where and under what load it ran.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import json
import os
import platform
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, NamedTuple

from mcts_envs.agents.evaluation.arena import seat_think
from mcts_envs.agents.evaluation.games import GameRules
from mcts_envs.agents.evaluation.plan import TournamentPlan, plan_tournament
from mcts_envs.agents.evaluation.ratings import (
    rated_names,
    record_between,
    score_interval,
    tally,
)
from mcts_envs.agents.evaluation.results_file import done_keys
from mcts_envs.agents.evaluation.run import RunHooks, RunSettings, run_plan
from mcts_envs.agents.evaluation.stats import WinDrawLoss
from mcts_envs.core.errors import InvalidRecordError
from mcts_envs.records import read_records

RESULTS = Path(__file__).resolve().parent / "results"
#: When this environment variable is set, a script checks its command line and stops: it prints
#: the parsed arguments as JSON and exits with status 0, playing nothing (how the tests run
#: every command of experiments/README.md as written).
PARSE_ONLY = "MCTS_ENVS_EXPERIMENTS_PARSE_ONLY"


def parse_arguments(parser: argparse.ArgumentParser, argv: list[str] | None) -> argparse.Namespace:
    """``parser.parse_args(argv)``; with :data:`PARSE_ONLY` set, print them (JSON) and exit."""
    args = parser.parse_args(argv)
    if os.environ.get(PARSE_ONLY):
        print(json.dumps(vars(args), default=str, sort_keys=True))
        raise SystemExit(0)
    return args


class Series(NamedTuple):
    """One curve family: ``label`` names it; ``specs`` maps budget -> agent spec."""

    label: str
    specs: dict[float, str]
    opponents: tuple[str, ...]


class SeriesSettings(NamedTuple):
    """How the games are played: games per point, master seed, backend and workers, and the
    openings (:class:`~mcts_envs.agents.evaluation.openings.Openings`; ``None``: the initial
    position)."""

    games: int
    seed: int
    backend: str = "local"
    workers: int = 1
    agent_modules: tuple[str, ...] = ()
    openings: str | None = None


class SeriesRun(NamedTuple):
    """What :func:`run_series` returns: every record (resumed and new) and how many it played."""

    records: list[dict[str, Any]]
    played: int


@dataclass(frozen=True)
class Point(WinDrawLoss):
    """Result of one agent (``spec``, budget ``budget`` of ``label``) against ``opponent``: its
    wins, draws and losses (``games``, ``score`` and ``score_interval()`` from
    :class:`~mcts_envs.agents.evaluation.stats.WinDrawLoss`), the Wilson 95% interval of its win rate and
    both sides' mean think seconds per move. Frozen: derive a variant with
    :func:`dataclasses.replace`."""

    label: str
    budget: float
    spec: str
    opponent: str
    wins: int
    draws: int
    losses: int
    win_low: float
    win_high: float
    seconds_per_move: float
    opponent_seconds_per_move: float

    @property
    def win_rate(self) -> float:
        """Wins per game (NaN with no game)."""
        return self.wins / self.games if self.games else float("nan")


def announce(text: str) -> None:
    """Print a preparation notice to stderr."""
    print(text, file=sys.stderr, flush=True)


def machine(start_load: tuple[float, float, float] | None = None) -> dict[str, Any]:
    """Where the run happened: host, cores, load averages (now and at the start), versions."""
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=False,
            cwd=Path(__file__).resolve().parent,
        ).stdout.strip()
    except OSError:
        commit = ""
    info = {
        "date_utc": time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime()),
        "machine": platform.machine(),
        "processor": platform.processor() or platform.machine(),
        "cores": os.cpu_count(),
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "commit": commit,
        "load_average_end": [round(x, 2) for x in os.getloadavg()],
    }
    if start_load is not None:
        info["load_average_start"] = [round(x, 2) for x in start_load]
    return info


class _Progress:
    """A line on stderr per game of a run, resumed ones included: ``name: k/total games (s)``.
    A monitor of :func:`~mcts_envs.agents.evaluation.run.run_plan` that closes no pairing."""

    def __init__(self, total: int, name: str) -> None:
        self.closed: set[int] = set()
        self.total = total
        self.name = name
        self.done = 0
        self.started = time.perf_counter()

    def update(self, record: dict[str, Any]) -> None:
        self.done += 1
        print(
            f"\r{self.name}: {self.done}/{self.total} games "
            f"({time.perf_counter() - self.started:.0f} s)",
            end="\n" if self.done == self.total else "",
            file=sys.stderr,
            flush=True,
        )


def run_series(
    game: str,
    series: Sequence[Series],
    settings: SeriesSettings,
    results_path: Path,
    rules: GameRules | None = None,
) -> SeriesRun:
    """Play every ``(member of a series, opponent)`` pairing, ``settings.games`` games each
    (colours swapped in pairs), appending to ``<results_path stem>_<opponent>.jsonl`` (one file
    per opponent's gauntlet, resumed if it exists).

    Each opponent runs a gauntlet against the members it meets; the gauntlets share the master
    seed, so a record depends only on ``(seed, pairing, game number)``. Returns every record of
    the files and the number of games this call played.
    """
    rules = rules or GameRules(game)
    gauntlets = series_gauntlets(series, settings, results_path, rules)
    results_path.parent.mkdir(parents=True, exist_ok=True)
    progress = _Progress(sum(len(plan.tasks) for plan, _ in gauntlets), results_path.parent.name)
    hooks = RunHooks(announce=announce, monitors=(progress,))
    records: list[dict[str, Any]] = []
    played = 0
    for plan, path in gauntlets:
        run = RunSettings(
            out=path,
            resume=True,
            backend=settings.backend,
            workers=settings.workers,
            agent_modules=settings.agent_modules,
        )
        outcome = run_plan(plan, run, hooks)
        played += outcome.played
        records += read_records(path)
    return SeriesRun(records, played)


def series_gauntlets(
    series: Sequence[Series], settings: SeriesSettings, results_path: Path, rules: GameRules
) -> list[tuple[TournamentPlan, Path]]:
    """The gauntlets :func:`run_series` plays: one plan per opponent, against the members it
    meets, with its results file (one file per gauntlet: a results file holds the games of one
    tournament only)."""
    by_opponent: dict[str, list[str]] = {}
    for entry in series:
        for opponent in entry.opponents:
            members = by_opponent.setdefault(opponent, [])
            members += [s for s in entry.specs.values() if s not in members]
    return [
        (
            plan_tournament(
                rules,
                members,
                settings.games,
                settings.seed,
                gauntlet=opponent,
                openings=settings.openings,
            ),
            results_path.with_name(f"{results_path.stem}_{_slug(opponent)}.jsonl"),
        )
        for opponent, members in by_opponent.items()
    ]


def missing_games(
    game: str,
    series: Sequence[Series],
    settings: SeriesSettings,
    results_path: Path,
    rules: GameRules | None = None,
) -> int:
    """How many games :func:`run_series` with these arguments would play (none when the stored
    files hold the whole run), without playing any.

    Raises:
        InvalidRecordError: if a stored record is not a game of the run (other agents, seeds or
            openings): the command would stop there instead of resuming.
    """
    gauntlets = series_gauntlets(series, settings, results_path, rules or GameRules(game))
    missing = 0
    for plan, path in gauntlets:
        records = read_records(path) if path.exists() else []
        missing += len(plan.tasks) - len(done_keys(plan, records))
    return missing


#: Longest file-name part made of a spec; a longer one is cut and told apart by a hash.
MAX_SLUG = 100


def _slug(spec: str) -> str:
    """A file-name part for ``spec``: its letters and digits, ``_`` for the rest; a spec longer
    than :data:`MAX_SLUG` gives its first 60 characters and a hash of the whole."""
    slug = "".join(ch if ch.isalnum() else "_" for ch in spec).strip("_")
    if len(slug) <= MAX_SLUG:
        return slug
    return f"{slug[:60].rstrip('_')}_{hashlib.sha256(spec.encode()).hexdigest()[:10]}"


def _specs_of(names: tuple[str, str]) -> tuple[str, str]:
    """The specs of two rated names (a name is its spec, or the spec and `` [...]``)."""
    return tuple(name.split(" [", 1)[0] for name in names)  # type: ignore[return-value]


def summarise(records: Sequence[dict[str, Any]], series: Sequence[Series]) -> list[Point]:
    """One :class:`Point` per member and opponent that met, with the Wilson 95% interval of
    the win rate (draws and losses both count as not won) and the mean think time per move.

    Raises:
        InvalidRecordError: if records of one spec were played by agents resolved differently
            (a default changed between them, :func:`~mcts_envs.agents.evaluation.ratings.rated_names`):
            one point never pools two agents' games.
    """
    split = sorted(
        {
            name
            for pair in rated_names(records)
            if pair is not None
            for name, spec in zip(pair, _specs_of(pair), strict=True)
            if name != spec
        }
    )
    if split:
        raise InvalidRecordError(
            "the records hold games of one spec played by differently resolved agents (a "
            f"default changed between them): {', '.join(split)}; keep each in its own folder"
        )
    stats = tally(records)
    think: dict[tuple[str, str], list[float]] = {}
    for record in records:
        a, b = record["agents"]
        seat_a = record["seat_a"]
        t_a, m_a = seat_think(record, seat_a)
        t_b, m_b = seat_think(record, 1 - seat_a)
        for key, values in (((a, b), (t_a, m_a, t_b, m_b)), ((b, a), (t_b, m_b, t_a, m_a))):
            acc = think.setdefault(key, [0.0, 0.0, 0.0, 0.0])
            for i, value in enumerate(values):
                acc[i] += value
    points = []
    for entry in series:
        for budget, spec in sorted(entry.specs.items()):
            for opponent in entry.opponents:
                met = record_between(stats, spec, opponent)
                if met is None:
                    continue
                wins, draws, losses = met
                low, high = score_interval(wins, 0, draws + losses)
                t = think.get((spec, opponent), [0.0, 1.0, 0.0, 1.0])
                points.append(
                    Point(
                        entry.label,
                        budget,
                        spec,
                        opponent,
                        wins,
                        draws,
                        losses,
                        low,
                        high,
                        t[0] / max(t[1], 1),
                        t[2] / max(t[3], 1),
                    )
                )
    return points


def write_table(points: Sequence[Point], path: Path, header: str, budget_name: str) -> str:
    """Write (and return) a markdown table of ``points`` under ``header`` text."""
    lines = [
        header.rstrip(),
        "",
        f"| series | {budget_name} | opponent | W/D/L | games | win rate [Wilson 95%] | score | "
        "s/move (ours / opp.) |",
        "| --- | ---: | --- | --- | ---: | --- | ---: | --- |",
    ]
    for p in points:
        lines.append(
            f"| {p.label} | {p.budget:g} | `{p.opponent}` | {p.wins}/{p.draws}/{p.losses} | "
            f"{p.games} | {p.win_rate:.2f} [{p.win_low:.2f}, {p.win_high:.2f}] | {p.score:.2f} | "
            f"{p.seconds_per_move:.3f} / {p.opponent_seconds_per_move:.3f} |"
        )
    text = "\n".join(lines) + "\n"
    path.write_text(text)
    return text


def plot_series(
    points: Sequence[Point],
    path: Path,
    title: str,
    xlabel: str,
    ylabel: str = "win rate (band: Wilson 95%)",
    value: str = "win_rate",
    target: float | None = None,
) -> Path:
    """Draw ``value`` (``win_rate``, ``loss_rate`` or ``score``: draws count half) of each series
    over the budget (log scale), one panel per opponent, with Wilson 95% bands and ``n`` per
    point, and a dashed line at ``target`` if given; writes PNG (and SVG)."""
    from mcts_envs.agents.evaluation.plots import _pyplot

    pyplot = _pyplot()
    opponents = list(dict.fromkeys(p.opponent for p in points))
    labels = list(dict.fromkeys(p.label for p in points))
    palette = pyplot.rcParams["axes.prop_cycle"].by_key()["color"]
    colours = {label: palette[i % len(palette)] for i, label in enumerate(labels)}
    markers = dict(zip(labels, "osD^v<>pP*Xh" * 3, strict=False))
    # equal curves would hide each other: each series is drawn shifted by a hair (<= 0.02)
    shifts = {
        label: 0.02 * (i - (len(labels) - 1) / 2) / max(len(labels), 1)
        for i, label in enumerate(labels)
    }
    columns = min(len(opponents), 2)
    rows = (len(opponents) + columns - 1) // columns
    figure, grid = pyplot.subplots(
        rows, columns, figsize=(6.5 * columns, 3.6 * rows + 0.9), squeeze=False, sharey=True
    )
    for k, opponent in enumerate(opponents):
        axes = grid[k // columns][k % columns]
        for label in labels:
            members = sorted(
                (p for p in points if p.label == label and p.opponent == opponent),
                key=lambda p: p.budget,
            )
            if not members:
                continue
            xs = [p.budget for p in members]
            if value == "loss_rate":
                ys = [p.losses / p.games for p in members]
                bands = [score_interval(p.losses, 0, p.wins + p.draws) for p in members]
            elif value == "score":
                ys = [p.score for p in members]
                bands = [p.score_interval() for p in members]
            else:
                ys = [p.win_rate for p in members]
                bands = [(p.win_low, p.win_high) for p in members]
            colour = colours[label]
            ys = [y + shifts[label] for y in ys]
            axes.plot(xs, ys, marker=markers[label], color=colour, label=label, ms=5)
            lows = [max(y - b[0] - shifts[label], 0.0) for y, b in zip(ys, bands, strict=True)]
            highs = [max(b[1] + shifts[label] - y, 0.0) for y, b in zip(ys, bands, strict=True)]
            axes.errorbar(
                xs, ys, yerr=[lows, highs], fmt="none", ecolor=colour, capsize=3, alpha=0.5, lw=0.8
            )
            axes.fill_between(
                xs, [b[0] for b in bands], [b[1] for b in bands], color=colour, alpha=0.15, lw=0
            )
            for x, y, p in zip(xs, ys, members, strict=True):
                axes.annotate(
                    f"n={p.games}",
                    (x, y),
                    textcoords="offset points",
                    xytext=(0, 5),
                    ha="center",
                    fontsize=6,
                    color=colour,
                )
        if target is not None:
            axes.axhline(target, color="grey", ls="--", lw=0.8)
        axes.set_xscale("log")
        budgets = sorted({p.budget for p in points if p.opponent == opponent})
        axes.set_xticks(budgets, [f"{b:g}" for b in budgets], fontsize=7)
        axes.minorticks_off()
        axes.set_ylim(-0.05, 1.08)
        axes.set_xlabel(xlabel)
        axes.set_ylabel(ylabel)
        axes.set_title(f"against {opponent}", fontsize=9)
        axes.grid(True, which="both", alpha=0.3)
    for k in range(len(opponents), rows * columns):
        grid[k // columns][k % columns].axis("off")
    handles = [
        pyplot.Line2D([], [], color=colours[label], marker=markers[label], label=label)
        for label in labels
    ]
    figure.legend(handles=handles, loc="lower center", ncol=min(len(labels), 3), fontsize=7)
    figure.suptitle(
        f"{title}\n(curves shifted by up to 0.01 so equal ones stay visible)", fontsize=10
    )
    figure.tight_layout(rect=(0, 0.04 + 0.025 * ((len(labels) + 2) // 3), 1, 0.97))
    figure.savefig(path, dpi=110)
    figure.savefig(path.with_suffix(".svg"))
    pyplot.close(figure)
    return path


def write_summary(
    directory: Path,
    points: Sequence[Point],
    settings: SeriesSettings,
    meta: dict[str, Any],
    played: int,
) -> dict[str, Any]:
    """Write ``summary.json``: the points, the run settings and the machine.

    When the run ``played`` no game (all resumed), the wall time, machine and backend of the
    existing summary are kept: they describe the run that played the games. Returns ``meta``
    as written.
    """
    previous = directory / "summary.json"
    run = {"backend": settings.backend, "workers": settings.workers}
    if played == 0 and previous.exists():
        old = json.loads(previous.read_text())
        meta = {**meta, **{k: old[k] for k in ("wall_seconds", "machine") if k in old}}
        run = {k: old.get(k, v) for k, v in run.items()}
    payload = {
        **meta,
        "games_per_point": settings.games,
        "master_seed": settings.seed,
        **run,
        "points": [
            {**asdict(p), "games": p.games, "win_rate": p.win_rate, "score": p.score}
            for p in points
        ],
    }
    (directory / "summary.json").write_text(json.dumps(payload, indent=1) + "\n")
    return meta


def add_common_arguments(parser: Any, default_out: Path) -> None:
    """``--quick``, ``--out``, ``--games``, ``--seed``, ``--workers`` for every experiment."""
    parser.add_argument("--quick", action="store_true", help="tiny run for the test suite")
    parser.add_argument("--out", type=Path, default=None, help=f"output folder ({default_out})")
    parser.add_argument("--games", type=int, default=None, help="games per point (even)")
    parser.add_argument("--seed", type=int, default=2026, help="master seed")
    parser.add_argument(
        "--workers", type=int, default=None, help="worker processes (default: 1 quick, 2 full)"
    )


def settings_from(
    args: Any, full_games: int, quick_games: int = 2, full_workers: int = 2
) -> tuple[Path, SeriesSettings]:
    """Output folder and run settings from the common arguments (``--workers`` unset: one
    process for a quick run, ``full_workers`` for a full one)."""
    games = args.games or (quick_games if args.quick else full_games)
    workers = args.workers or (1 if args.quick else full_workers)
    backend = "local" if workers == 1 else "process"
    return args.out, SeriesSettings(games, args.seed, backend, workers)


class Experiment(NamedTuple):
    """One run of an experiment script, as :func:`start_experiment` set it up.

    Attributes:
        args: the parsed command line (the common arguments and the script's own).
        out: the output folder (created).
        settings: games per point, master seed, backend, workers and agent modules.
        started: ``time.time()`` at the start (the summary's wall time counts from here).
        start_load: the load averages at the start (stated in the summary).
    """

    args: argparse.Namespace
    out: Path
    settings: SeriesSettings
    started: float
    start_load: tuple[float, float, float]


class ExperimentResults(NamedTuple):
    """What :func:`play_and_summarise` returns."""

    records: list[dict[str, Any]]
    points: list[Point]
    meta: dict[str, Any]


def start_experiment(
    name: str,
    description: str,
    argv: list[str] | None,
    *,
    full_games: int,
    quick_games: int = 2,
    full_workers: int = 2,
    agent_modules: tuple[str, ...] = (),
    add_arguments: Callable[[argparse.ArgumentParser], None] | None = None,
) -> Experiment:
    """Parse the command line (:func:`add_common_arguments` plus ``add_arguments``), create the
    output folder (``--out``, else ``results/<name>`` or ``results/<name>_quick``), import the
    ``agent_modules`` (they register agents; worker processes import them too) and note the start
    time and load. ``full_workers``: the worker processes of a full run without ``--workers``."""
    parser = argparse.ArgumentParser(description=description)
    add_common_arguments(parser, RESULTS / name)
    if add_arguments is not None:
        add_arguments(parser)
    args = parse_arguments(parser, argv)
    out, settings = settings_from(args, full_games, quick_games, full_workers)
    out = out or RESULTS / (name + ("_quick" if args.quick else ""))
    out.mkdir(parents=True, exist_ok=True)
    settings = settings._replace(agent_modules=tuple(agent_modules))
    for module in agent_modules:
        importlib.import_module(module)
    return Experiment(args, out, settings, time.time(), os.getloadavg())


def play_and_summarise(
    experiment: Experiment,
    game: str,
    series: Sequence[Series],
    meta: dict[str, Any],
    rules: GameRules | None = None,
) -> ExperimentResults:
    """Play ``series`` (resuming ``results.jsonl`` in the output folder), count the points and
    write ``summary.json`` with ``meta`` plus the wall time and :func:`machine`."""
    run = run_series(game, series, experiment.settings, experiment.out / "results.jsonl", rules)
    points = summarise(run.records, series)
    meta = {
        **meta,
        "wall_seconds": round(time.time() - experiment.started, 1),
        "machine": machine(experiment.start_load),
    }
    meta = write_summary(experiment.out, points, experiment.settings, meta, run.played)
    return ExperimentResults(run.records, points, meta)
