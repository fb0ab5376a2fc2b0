"""Rating ladders: an absolute Elo for any agent, measured against calibrated search bots.

A *ladder* of a game is a set of anchor agents (random, minimax2, MCTS at growing budgets,
alpha-beta at fixed depths, ``perfect`` for Tic-Tac-Toe) whose Elo ratings were fitted from a
round robin (:func:`build_ladder`, Bradley-Terry by :func:`mcts_envs.agents.evaluation.ratings.rate`, ``random`` = 0,
95% bootstrap intervals). Each shipped ladder is two files in ``agents/data/ladders/``:

* ``<game>.json``: the anchors with their Elo, interval, games and score, and how the ladder was
  made (package version, master seed, games per pair, bootstrap, the exact rebuilding command,
  the build time and the machine's load);
* ``<game>.records.jsonl.gz``: every game of the round robin (tournament records), from which
  :func:`fit_ladder` gives back the same table (a test checks it).

:func:`rate_on_ladder` rates a newcomer: it plays game pairs (the same opening, colours swapped)
against the anchor whose Elo is nearest its current estimate (where a game says most), refits
its Elo with the anchors' ratings held fixed (maximum likelihood with a prior of virtual draws,
so the estimate stays finite after all wins or all losses), and reports the estimate with a 95%
interval, the games per anchor, its forfeits (invalid moves, timeouts, crashes) and apart from
them the games lost to its server or engine failing; that failing several games in a row stops
the rating (:mod:`mcts_envs.agents.evaluation.faults`). Its games are tournament records: they resume from the results file as a tournament does, and the choice of each next
anchor depends only on the games before it, so a run is reproducible from its seed.
"""

from __future__ import annotations

import gzip
import json
import math
import os
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from mcts_envs.agents.base import INFRASTRUCTURE_FAULT
from mcts_envs.agents.evaluation.faults import DEFAULT_FAULT_LIMIT, FaultWatch, forfeit_of
from mcts_envs.agents.evaluation.games import GameRules, play_game, prepare_agents
from mcts_envs.agents.evaluation.openings import Openings
from mcts_envs.agents.evaluation.plan import (
    TaskList,
    TournamentPlan,
    plan_tournament,
    resolve_specs,
)
from mcts_envs.agents.evaluation.ratings import ELO_PER_NAT, format_elo, rate, tally
from mcts_envs.agents.evaluation.results_file import done_keys, open_results, record_key
from mcts_envs.agents.evaluation.run import RunHooks, RunSettings, run_plan
from mcts_envs.agents.evaluation.stats import MIN_ELO_GAMES, Z_95, WinDrawLoss
from mcts_envs.agents.players.alphabeta_options import plain_spec
from mcts_envs.agents.resolved import option_differences, resolved_label
from mcts_envs.agents.spec import make_agent
from mcts_envs.core.errors import InvalidOptionError, InvalidRecordError
from mcts_envs.core.registry import get_entry, make_game
from mcts_envs.records import dumps, quote

__all__ = [
    "DEFAULT_ANCHORS",
    "LADDER_DIR",
    "Ladder",
    "LadderResult",
    "build_ladder",
    "fit_ladder",
    "load_ladder",
    "rate_on_ladder",
]

#: Game-pair number of the first virtual draw record (real pairs are numbered below it).
VIRTUAL_PAIR = 10**12

#: Where the shipped ladders live.
LADDER_DIR = Path(__file__).resolve().parents[1] / "data" / "ladders"
#: Version of the ladder file layout.
LADDER_FORMAT = 1
#: The anchor every ladder rates 0.
LADDER_ANCHOR = "random"
#: Virtual draws of a newcomer against each anchor it met (keeps its estimate finite).
PRIOR_DRAWS = 1.0


#: Anchors per game, weakest first; alpha-beta as the plain search the shipped ladders were built
#: with (:func:`~mcts_envs.agents.players.alphabeta_options.plain_spec`, every option written out,
#: so a changed default cannot change an anchor) (budgets chosen so a build takes minutes on 2 shared cores).
_SEARCH_LADDER = (
    "random",
    "minimax2",
    *(f"mcts:iterations={n}" for n in (10, 100, 1000, 10000)),
)
DEFAULT_ANCHORS: dict[str, tuple[str, ...]] = {
    "tictactoe": (*_SEARCH_LADDER, plain_spec(1), plain_spec(3), "perfect"),
    "ultimate_tictactoe": (*_SEARCH_LADDER, plain_spec(2), plain_spec(4)),
    "pentago_twist": (*_SEARCH_LADDER, plain_spec(1), plain_spec(2)),
    "ataxx": (*_SEARCH_LADDER, plain_spec(1), plain_spec(2)),
    # Tantrix: no minimax2 tier (its expectimax over the draw takes minutes a game); MCTS at
    # 10,000 iterations makes about 1.5 moves/s here; alpha-beta at depth 2 about 20 ms a move
    "tantrix": (
        "random",
        *(f"mcts:iterations={n}" for n in (10, 100, 1000, 10000)),
        plain_spec(1),
        plain_spec(2),
    ),
    # Connect Four: the MCTS anchors state the options of its row of defaults (c=0.2 with
    # heuristic leaves), written when the ladder was built before the row existed
    "connect_four": (
        "random",
        "minimax2",
        *(f"mcts:iterations={n},c=0.2,rollout_cutoff=0" for n in (10, 100, 1000, 10000)),
        plain_spec(2),
        plain_spec(4),
    ),
}
#: Round-robin games per pairing of a default build (even: whole game pairs).
DEFAULT_GAMES_PER_PAIR = 20


# -- ladders ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Anchor:
    """One anchor of a ladder: its spec, Elo with 95% interval, games and score, and the agent
    its spec resolved to when the ladder was built (:func:`~mcts_envs.agents.resolved.
    resolved_agent`; ``None`` in ladder files written before ladders kept it)."""

    spec: str
    elo: float
    low: float
    high: float
    games: int
    score: float
    resolved: dict[str, Any] | None = None


@dataclass(frozen=True)
class Ladder:
    """A game's ladder (the contents of ``<game>.json``).

    Attributes:
        game: the game's registry name.
        anchors: the anchors, weakest first.
        info: everything else the file records (version, seeds, games per pair, command, ...).
        path: the file it was read from (``None`` if built in memory).
    """

    game: str
    anchors: tuple[Anchor, ...]
    info: dict[str, Any] = field(default_factory=dict)
    path: Path | None = None

    def anchor(self, spec: str) -> Anchor:
        """The anchor called ``spec``.

        Raises:
            InvalidOptionError: if no anchor has that spec (the message lists them).
        """
        for anchor in self.anchors:
            if anchor.spec == spec:
                return anchor
        raise InvalidOptionError(
            f"{self.game} ladder: no anchor {quote(spec)}; anchors: "
            f"{', '.join(a.spec for a in self.anchors)}"
        )

    def table(self) -> str:
        """The ladder as a Markdown table (anchor, Elo, 95% interval, games, score)."""
        lines = [
            "| anchor | Elo | 95% interval | games | score |",
            "| --- | ---: | --- | ---: | ---: |",
        ]
        for a in self.anchors:
            lines.append(
                f"| `{a.spec}` | {format_elo(a.elo)} | [{format_elo(a.low)}, "
                f"{format_elo(a.high)}] | {a.games} | {a.score:.3f} |"
            )
        return "\n".join(lines)

    def docs_section(self) -> str:
        """The ladder as the docs show it: a heading, :meth:`table` and how it was built."""
        info = self.info
        return (
            f"### {self.game}\n\n{self.table()}\n\n"
            f"{info['games']} games ({info['games_per_pair']} per pairing, seed {info['seed']}), "
            f"built in {info['build_seconds']:.0f} s on {info['cpus']} CPU cores "
            f"({_load_text(info)}) with mcts-envs {info['package_version']}: "
            f"`{info['command']}`\n"
        )

    def records_path(self) -> Path:
        """The compressed round-robin records beside the ladder file."""
        if self.path is None:
            raise InvalidOptionError(f"{self.game} ladder: built in memory, it has no records file")
        return self.path.parent / self.info["records"]


def _load_average() -> float:
    """The machine's 1-minute load average (NaN where the OS has none)."""
    return os.getloadavg()[0] if hasattr(os, "getloadavg") else math.nan


def _load_text(info: dict[str, Any]) -> str:
    """The build's load as the docs state it: at its start, and at its end where recorded (ladder
    files before the end was recorded hold the start only)."""
    if "load_average_end" in info:
        start, end = info["load_average"], info["load_average_end"]
        return f"load average {start} at the start, {end} at the end"
    return f"load average {info['load_average']} at the start"


def ladder_path(game: str, directory: str | os.PathLike | None = None) -> Path:
    """``<directory>/<game>.json`` (default directory: the shipped ladders)."""
    return Path(directory or LADDER_DIR) / f"{get_entry(game).name}.json"


def load_ladder(game_or_path: str | os.PathLike) -> Ladder:
    """The ladder of a game (its shipped file) or of a ladder file.

    Raises:
        InvalidOptionError: if the game has no shipped ladder (the message lists those that do).
        InvalidRecordError: if the file is not a ladder of this format.
    """
    text = str(game_or_path)
    if text.endswith(".json"):
        path = Path(text)
    else:
        path = ladder_path(text)
        if not path.exists():
            shipped = sorted(p.stem for p in LADDER_DIR.glob("*.json"))
            raise InvalidOptionError(
                f"no ladder for {get_entry(text).name}; ladders: {', '.join(shipped) or 'none'} "
                f"(build one with: mcts-envs ladder build {get_entry(text).name} --out-dir DIR)"
            )
    try:
        obj = json.loads(path.read_text(encoding="utf-8"))
        if obj.get("format") != LADDER_FORMAT:
            raise ValueError(f"format {obj.get('format')!r}, this package reads {LADDER_FORMAT}")
        anchors = tuple(Anchor(**anchor) for anchor in obj.pop("anchors"))
        game = obj.pop("game")
    except (ValueError, KeyError, TypeError, AttributeError) as error:
        raise InvalidRecordError(f"{path}: not a ladder file ({error})") from None
    return Ladder(game, anchors, obj, path)


def read_ladder_records(ladder: Ladder) -> list[dict[str, Any]]:
    """The round-robin records a ladder was fitted from."""
    with gzip.open(ladder.records_path(), "rt", encoding="utf-8") as stream:
        return [json.loads(line) for line in stream if line.strip()]


#: Virtual draws per pairing in the fit of a ladder's round robin (as mcts_envs.agents.evaluation.ratings' prior).
LADDER_PRIOR_DRAWS = 2.0
#: How the prior enters the fit: ``rate``'s own ``prior_draws`` (new builds), or virtual draw
#: records added to each pairing (a game pair of their own, so the bootstrap resamples them with
#: the rest; the shipped ladders were fitted so, and are re-fitted the same way).
FIT_METHODS = ("rate prior_draws", "virtual draw records")


def default_fit_method() -> str:
    """The fit of a new build: ``rate``'s own prior (``"rate prior_draws"``)."""
    return FIT_METHODS[0]


def virtual_draws(records: Sequence[dict[str, Any]], draws: float) -> list[dict[str, Any]]:
    """``draws`` (an even number) draw records per pairing that played in ``records``, as game
    pairs numbered from :data:`VIRTUAL_PAIR` up (above any real pair number)."""
    pairings = dict.fromkeys(
        tuple(r["agents"]) for r in records if r.get("result") in ("a", "b", "draw")
    )
    virtual = []
    for a, b in pairings:
        for k in range(int(draws)):
            virtual.append(
                {"agents": [a, b], "result": "draw", "pair": VIRTUAL_PAIR + k // 2, "colour": k % 2}
            )
    return virtual


def _rate(records: Sequence[dict[str, Any]], bootstrap: int, seed: int, method: str) -> Any:
    """:func:`mcts_envs.agents.evaluation.ratings.rate` anchored at random with the prior of ``method``."""
    if method == FIT_METHODS[0]:
        return rate(
            records,
            anchor=LADDER_ANCHOR,
            bootstrap=bootstrap,
            seed=seed,
            prior_draws=LADDER_PRIOR_DRAWS,
        )
    if method != FIT_METHODS[1]:
        raise InvalidRecordError(f"unknown ladder fit {method!r}; known: {', '.join(FIT_METHODS)}")
    combined = [*records, *virtual_draws(records, LADDER_PRIOR_DRAWS)]
    return rate(combined, anchor=LADDER_ANCHOR, bootstrap=bootstrap, seed=seed, prior_draws=0.0)


def fit_ladder(
    game: str,
    records: Sequence[dict[str, Any]],
    bootstrap: int,
    seed: int,
    order: Sequence[str],
    method: str | None = None,
) -> Ladder:
    """The anchors' ratings fitted from round-robin ``records`` (``random`` = 0), in ``order``:
    Bradley-Terry with :data:`LADDER_PRIOR_DRAWS` virtual draws per pairing (``method``: one of
    :data:`FIT_METHODS`, default :func:`default_fit_method`), so an anchor that lost every game
    (``random`` in most games) still gets a finite rating.

    Raises:
        InvalidOptionError: if an anchor of ``order`` played no game, or got no finite rating.
    """
    table = _rate(records, bootstrap, seed, method or default_fit_method())
    index = {name: k for k, name in enumerate(table.agents)}
    games = dict.fromkeys(order, 0)
    points = dict.fromkeys(order, 0.0)
    for pairing in tally(records).values():  # the real games only (not the prior's)
        for name, got in ((pairing.a, pairing.points), (pairing.b, pairing.games - pairing.points)):
            if name in games:
                games[name] += pairing.games
                points[name] += got
    anchors = []
    for spec in order:
        if spec not in index:
            raise InvalidOptionError(f"{game} ladder: the anchor {spec} played no game")
        k = index[spec]
        values = [float(table.elo[k]), float(table.low[k]), float(table.high[k])]
        if not all(math.isfinite(v) for v in values):
            raise InvalidOptionError(
                f"{game} ladder: {spec} got no finite rating ({values}); it won or lost every "
                "game: add anchors between it and the rest"
            )
        anchors.append(
            Anchor(
                spec,
                round(values[0], 1),
                round(values[1], 1),
                round(values[2], 1),
                games[spec],
                round(points[spec] / games[spec], 4),
            )
        )
    return Ladder(get_entry(game).name, tuple(sorted(anchors, key=lambda a: a.elo)))


def build_command(
    game: str,
    anchors: Sequence[str],
    games_per_pair: int,
    seed: int,
    bootstrap: int,
    workers: int,
    agent_modules: Sequence[str] = (),
) -> str:
    """The command line that rebuilds a ladder into ``agents/data/ladders``."""
    parts = ["mcts-envs", "ladder", "build", game]
    if tuple(anchors) != DEFAULT_ANCHORS.get(game):
        parts += ["--anchors", "'" + ";".join(anchors) + "'"]
    for module in agent_modules:
        parts += ["--agent-module", module]
    parts += [
        "--games-per-pair",
        str(games_per_pair),
        "--seed",
        str(seed),
        "--bootstrap",
        str(bootstrap),
        "--workers",
        str(workers),
        "--out-dir",
        "agents/data/ladders",
    ]
    return " ".join(parts)


def build_ladder(
    game: str,
    out_dir: str | os.PathLike,
    anchors: Sequence[str] | None = None,
    games_per_pair: int = DEFAULT_GAMES_PER_PAIR,
    seed: int = 0,
    bootstrap: int = 200,
    workers: int = 1,
    resume: bool = False,
    overwrite: bool = False,
    announce: Callable[[str], None] | None = None,
    agent_modules: Sequence[str] = (),
) -> Ladder:
    """Play the anchors' round robin and write ``<game>.json`` and ``<game>.records.jsonl.gz``.

    The games go to ``<game>.records.jsonl`` while they are played (``resume`` continues it
    after an interruption), which is compressed once the ladder is fitted.

    Args:
        game: the game.
        out_dir: the directory of the two files (``agents/data/ladders`` to rebuild a shipped one).
        anchors: anchor specs (default :data:`DEFAULT_ANCHORS`); must include ``random``.
        games_per_pair: round-robin games per pairing (even).
        seed: master seed of the round robin and of the bootstrap.
        bootstrap: bootstrap samples of the intervals.
        workers: processes to play in (the games do not depend on it).
        resume: continue an interrupted build's ``.records.jsonl``.
        overwrite: replace existing ladder files.
        announce: told of the plan, what is being compiled and the preparation times; with it,
            a progress bar shows on stderr.
        agent_modules: modules that register anchor kinds (``--agent-module``), imported in
            every worker process as well.

    Raises:
        InvalidOptionError: for bad arguments or existing files (without ``overwrite``/``resume``).
    """
    name = get_entry(game).name
    anchors = tuple(anchors or DEFAULT_ANCHORS.get(name, ()))
    if LADDER_ANCHOR not in anchors:
        raise InvalidOptionError(f"a ladder's anchors must include {LADDER_ANCHOR}, got {anchors}")
    directory = Path(out_dir)
    if not directory.is_dir():
        raise InvalidOptionError(f"--out-dir {directory} is not a directory")
    target = directory / f"{name}.json"
    packed = directory / f"{name}.records.jsonl.gz"
    playing = directory / f"{name}.records.jsonl"
    for path in (target, packed):
        if path.exists() and not (overwrite or resume):
            raise InvalidOptionError(
                f"{path} exists; pass --overwrite to rebuild it, or choose another --out-dir"
            )
    plan = plan_tournament(GameRules(name), anchors, games_per_pair, seed)
    start = time.perf_counter()
    load = _load_average()
    total = len(plan.tasks)
    settings = RunSettings(
        out=playing,
        resume=resume,
        overwrite=True,
        workers=workers,
        agent_modules=tuple(agent_modules),
    )
    hooks = RunHooks(announce=announce, progress=announce is not None)
    records = run_plan(plan, settings, hooks).records
    if len(records) < total:
        raise InvalidOptionError(
            f"{name} ladder: {len(records)} of {total} games played; run again with --resume"
        )
    method = default_fit_method()
    fitted = fit_ladder(name, records, bootstrap, seed, anchors, method)
    from mcts_envs import __version__

    info = {
        "format": LADDER_FORMAT,
        "game": name,
        "package_version": __version__,
        "anchor": LADDER_ANCHOR,
        "seed": seed,
        "games_per_pair": games_per_pair,
        "bootstrap": bootstrap,
        "bootstrap_seed": seed,
        "prior_draws": LADDER_PRIOR_DRAWS,
        "fit": method,
        "games": len(records),
        "records": packed.name,
        "command": build_command(
            name, anchors, games_per_pair, seed, bootstrap, workers, agent_modules
        ),
        "build_seconds": round(time.perf_counter() - start, 1),
        "load_average": round(load, 1),
        "load_average_end": round(_load_average(), 1),
        "cpus": os.cpu_count(),
    }
    anchors_built = tuple(replace(a, resolved=plan.resolved.get(a.spec)) for a in fitted.anchors)
    fitted = replace(fitted, anchors=anchors_built)
    obj = {**info, "anchors": [vars(a) for a in fitted.anchors]}
    ordered = sorted(records, key=lambda r: (r["pairing"], r["index"]))
    with gzip.GzipFile(packed, "wb", mtime=0) as stream:
        stream.write("".join(dumps(r) + "\n" for r in ordered).encode("utf-8"))
    target.write_text(json.dumps(obj, indent=1) + "\n", encoding="utf-8")
    playing.unlink()
    return Ladder(name, fitted.anchors, info, target)


# -- rating a newcomer --------------------------------------------------------------------------


def estimate_elo(
    results: Iterable[tuple[float, float, int]], prior_draws: float = PRIOR_DRAWS
) -> tuple[float, float, float]:
    """Elo of a player from ``(opponent Elo, points scored, games)`` against fixed opponents.

    Maximum likelihood of the logistic (Bradley-Terry) model, with ``prior_draws`` virtual draws
    against each opponent met, so all wins or all losses still give a finite estimate.

    Returns:
        ``(elo, low, high)``: the estimate and its 95% interval (from the Fisher information;
        the opponents' ratings are taken as exact). ``(nan, nan, nan)`` without games.
    """
    rows = [(e / ELO_PER_NAT, s + prior_draws / 2, n + prior_draws) for e, s, n in results if n]
    if not rows:
        return math.nan, math.nan, math.nan
    games = sum(n for _, _, n in rows)
    r = sum(e * n for e, _, n in rows) / games
    for _ in range(100):
        p = [1.0 / (1.0 + math.exp(e - r)) for e, _, _ in rows]
        gradient = sum(s - n * q for (_, s, n), q in zip(rows, p, strict=True))
        information = sum(n * q * (1.0 - q) for (_, _, n), q in zip(rows, p, strict=True))
        step = max(min(gradient / information, 2.0), -2.0)
        r += step
        if abs(step) < 1e-10:
            break
    p = [1.0 / (1.0 + math.exp(e - r)) for e, _, _ in rows]
    information = sum(n * q * (1.0 - q) for (_, _, n), q in zip(rows, p, strict=True))
    half = Z_95 / math.sqrt(information)
    return r * ELO_PER_NAT, (r - half) * ELO_PER_NAT, (r + half) * ELO_PER_NAT


@dataclass
class AnchorTally(WinDrawLoss):
    """A newcomer's games against one anchor (from its view; games and points from
    :class:`~mcts_envs.agents.evaluation.stats.WinDrawLoss`)."""

    anchor: Anchor
    wins: int = 0
    draws: int = 0
    losses: int = 0
    forfeits: int = 0
    infrastructure: int = 0


@dataclass
class LadderResult:
    """A newcomer's rating on a ladder.

    Attributes:
        spec: the newcomer.
        ladder: the ladder.
        elo, low, high: its Elo on the ladder's scale and 95% interval.
        tallies: per anchor (ladder order), its wins, draws, losses, forfeits (its own faults:
            invalid moves, timeouts, crashes) and games lost to faults of its server or engine.
        records: its games (tournament records, newcomer = agent A).
    """

    spec: str
    ladder: Ladder
    elo: float
    low: float
    high: float
    tallies: list[AnchorTally]
    records: list[dict[str, Any]]

    @property
    def forfeits(self) -> int:
        """Games the newcomer lost by a fault of its own (invalid move, timeout, crash)."""
        return sum(t.forfeits for t in self.tallies)

    @property
    def infrastructure_faults(self) -> int:
        """Games the newcomer lost because its server or engine failed (not its play)."""
        return sum(t.infrastructure for t in self.tallies)

    def summary(self) -> str:
        """The report: rating with interval, then games, W/D/L and faults per anchor.

        With fewer than :data:`~mcts_envs.agents.evaluation.stats.MIN_ELO_GAMES` games the
        rating is left out (what it would print is mostly the prior)."""
        games = sum(t.games for t in self.tallies)
        source = self.ladder.path or "memory"
        faults = (
            f"{self.forfeits} forfeits: invalid moves, timeouts or crashes; "
            f"{self.infrastructure_faults} lost to its server or engine failing"
        )
        if games >= MIN_ELO_GAMES:
            rating = (
                f"Elo {format_elo(self.elo)}  95% interval [{format_elo(self.low)}, "
                f"{format_elo(self.high)}]"
            )
        else:
            rating = f"Elo not estimated from fewer than {MIN_ELO_GAMES} games"
        lines = [
            f"{self.spec} on the {self.ladder.game} ladder ({source}; random = 0):",
            f"  {rating}  ({games} games, {faults})",
            "",
            f"  {'anchor':<24} {'anchor Elo':>10} {'games':>6} {'W':>4} {'D':>4} {'L':>4} "
            f"{'forfeits':>8} {'infra':>5}",
        ]
        for t in self.tallies:
            lines.append(
                f"  {t.anchor.spec:<24} {format_elo(t.anchor.elo):>10} {t.games:>6} {t.wins:>4} "
                f"{t.draws:>4} {t.losses:>4} {t.forfeits:>8} {t.infrastructure:>5}"
            )
        return "\n".join(lines)


def check_anchors(ladder: Ladder, today: dict[str, dict[str, Any]]) -> None:
    """Refuse a ladder whose anchors' specs resolve to other agents today than when it was
    built (``today``: each spec's :func:`~mcts_envs.agents.resolved.resolved_agent` now): their
    ratings belong to the agents that played. Anchors of ladder files written before ladders
    kept them are taken by their specs.

    Raises:
        InvalidOptionError: naming each anchor that changed and what changed, and the command
            that rebuilds the ladder.
    """
    changed = [
        f"{quote(anchor.spec)}: {option_differences(anchor.resolved, today[anchor.spec])}"
        for anchor in ladder.anchors
        if anchor.resolved is not None
        and anchor.spec in today
        and resolved_label(anchor.resolved) != resolved_label(today[anchor.spec])
    ]
    if changed:
        raise InvalidOptionError(
            f"the {ladder.game} ladder's anchors mean other agents today than when it was built "
            f"(a default changed): {'; '.join(changed)}; rebuild it: "
            f"{ladder.info.get('command', 'mcts-envs ladder build ' + ladder.game)}"
        )


def _tallies(ladder: Ladder, records: Iterable[dict[str, Any]]) -> list[AnchorTally]:
    tallies = {a.spec: AnchorTally(a) for a in ladder.anchors}
    for record in records:
        tally = tallies[record["agents"][1]]
        tally.count(record.get("result"))
        found = forfeit_of(record)
        if found is not None and found[0] == record["agents"][0]:
            if found[1] == INFRASTRUCTURE_FAULT:
                tally.infrastructure += 1
            else:
                tally.forfeits += 1
    return list(tallies.values())


def _estimate(tallies: Sequence[AnchorTally]) -> tuple[float, float, float]:
    return estimate_elo((t.anchor.elo, t.points, t.games) for t in tallies)


def next_anchor(ladder: Ladder, tallies: Sequence[AnchorTally]) -> int:
    """Index of the anchor to play next: the one whose Elo is nearest the current estimate
    (before any game: the middle of the ladder); ties go to the one with fewer games."""
    estimate = _estimate(tallies)[0]
    if math.isnan(estimate):
        elos = sorted(a.elo for a in ladder.anchors)
        estimate = elos[len(elos) // 2]
    return min(
        range(len(ladder.anchors)),
        key=lambda k: (abs(ladder.anchors[k].elo - estimate), tallies[k].games, k),
    )


def ladder_plan(
    spec: str, ladder: Ladder, games: int, seed: int, records: Iterable[dict[str, Any]] = ()
) -> TournamentPlan:
    """Every game a rating of ``spec`` on ``ladder`` may play: pairing ``k`` is ``spec`` against
    anchor ``k``, game pairs ``0 .. games / 2 - 1`` (or up to the highest pair of a resumed file's
    ``records``) from the initial position, seeds as in a tournament with the master ``seed``.
    The rating plays one pairing of each game pair, chosen as it goes."""
    pairings = tuple((spec, anchor.spec) for anchor in ladder.anchors)
    pairs = max([games // 2, *(record_key(record)[2] // 2 + 1 for record in records)])
    openings = Openings(make_game(ladder.game), None, seed)
    tasks = TaskList(pairings, openings, seed, 2 * pairs * len(pairings))
    rules = GameRules(ladder.game)
    specs = dict.fromkeys(spec for pairing in pairings for spec in pairing)
    return TournamentPlan(
        rules, pairings, tasks, seed, resolve_specs(rules, make_game(ladder.game), specs)
    )


def rate_on_ladder(
    game: str,
    spec: str,
    games: int = 40,
    seed: int = 0,
    out: str | os.PathLike | None = None,
    resume: bool = False,
    overwrite: bool = False,
    ladder: Ladder | str | os.PathLike | None = None,
    announce: Callable[[str], None] | None = None,
    fault_limit: int | None = DEFAULT_FAULT_LIMIT,
) -> LadderResult:
    """Rate ``spec`` on ``game``'s ladder with ``games`` games (module docstring).

    Game pair ``p`` is played against the anchor nearest the estimate after pairs ``0..p-1``
    (seeds: :func:`mcts_envs.agents.evaluation.games.task_seeds` of ``(seed, anchor number, p, colour)``).

    Args:
        game: the game.
        spec: the agent (any kind; ``--agent-module`` kinds must be registered first).
        games: games to play in all (even; whole game pairs).
        seed: master seed.
        out: a JSON-lines results file (tournament records), or ``None``.
        resume: continue ``out`` (its games are kept, the rest are played).
        overwrite: replace an existing ``out``.
        ladder: a :class:`Ladder` or a ladder file (default: the game's shipped ladder).
        announce: told of each game pair's anchor and of compiling.
        fault_limit: stop once the agent has lost this many games in a row to faults of its
            server or engine (:mod:`~mcts_envs.agents.evaluation.faults`); ``None``: play on.

    Raises:
        InvalidOptionError / UnknownAgentError: for bad arguments (before any game).
        InvalidRecordError: if a resumed file holds other games.
        InfrastructureError: when the agent's server or engine failed ``fault_limit`` games in
            a row (the games played are in ``out``).
    """
    name = get_entry(game).name
    if ladder is None:
        ladder = load_ladder(name)
    elif not isinstance(ladder, Ladder):
        ladder = load_ladder(ladder)
    if ladder.game != name:
        raise InvalidOptionError(f"the ladder is of {ladder.game}, not {name}")
    if isinstance(games, bool) or not isinstance(games, int) or games < 2 or games % 2:
        raise InvalidOptionError(
            f"--games must be even and >= 2 (game pairs with colours swapped), got {games!r}"
        )
    make_agent(spec, seed=0)
    faults = FaultWatch(fault_limit)
    what = f"a ladder game of {quote(spec)} on the {ladder.game} ladder with seed {seed}"

    def plan_of(records: list[dict[str, Any]]) -> TournamentPlan:
        return ladder_plan(spec, ladder, games, seed, records)

    results = None
    if out is not None:  # every record checked against the plan before the file changes
        results = open_results(out, resume, overwrite, plan_of, what)
    records: list[dict[str, Any]] = list(results.records) if results is not None else []
    try:
        plan = plan_of(records)
        check_anchors(ladder, plan.resolved)
        done_keys(plan, records, results.lines if results is not None else (), what=what)
        by_pair: dict[int, list[dict[str, Any]]] = {}
        for record in records:
            by_pair.setdefault(record["pair"], []).append(record)
        prepared: set[str] = set()
        for pair in range(games // 2):
            done = by_pair.get(pair, [])
            tallies = _tallies(ladder, records)
            if done:
                anchor_index = [a.spec for a in ladder.anchors].index(done[0]["agents"][1])
            else:
                anchor_index = next_anchor(ladder, tallies)
            anchor = ladder.anchors[anchor_index].spec
            if announce is not None:
                elo = _estimate(tallies)[0]
                announce(
                    f"pair {pair + 1}/{games // 2}: against {anchor} (estimate "
                    f"{'none yet' if math.isnan(elo) else format_elo(elo)})"
                )
            for agent_spec in (spec, anchor) if len(done) < 2 else ():
                if agent_spec not in prepared:
                    prepare_agents(name, [agent_spec], announce=announce)
                    prepared.add(agent_spec)
            played = {r["colour"] for r in done}
            for colour in (0, 1):
                if colour in played:
                    continue
                record = play_game(plan.tasks.task(anchor_index, pair, colour), plan.rules)
                records.append(record)
                if results is not None:
                    results.append(record)
                faults.update(record)
    finally:
        if results is not None:
            results.close()
    tallies = _tallies(ladder, records)
    elo, low, high = _estimate(tallies)
    return LadderResult(spec, ladder, elo, low, high, tallies, records)
