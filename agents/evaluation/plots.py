"""Charts of a results file: win rate against search budget, and Elo with intervals (``plots`` extra).

* ``winrate_vs_budget``: agents that differ only in their budget (``iterations``, ``seconds`` or
  ``depth`` of one spec, e.g. ``mcts:iterations=100`` ... ``mcts:iterations=3200``) form a family;
  for each family and each opponent it met, the family's win rate (and score, draws counting half)
  against that opponent is drawn over the budget (log scale) with its Wilson 95% band and the
  number of games per point.
* ``elo``: the Bradley-Terry Elo of every agent with its bootstrap 95% interval
  (:func:`mcts_envs.agents.evaluation.ratings.rate`, finite for every agent connected to the anchor through games); an
  agent that never met the anchor's group is listed with that note and no point.

Each chart is written as PNG and SVG.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from mcts_envs.agents.evaluation.ratings import rate, record_between, tally
from mcts_envs.agents.evaluation.stats import format_elo, score_interval
from mcts_envs.agents.spec import parse_spec
from mcts_envs.core.errors import InvalidOptionError, require_optional

__all__ = ["budget_families", "plot_elo", "plot_results", "plot_winrate_vs_budget"]

#: Spec options that set a search budget, in the order they are looked for.
BUDGET_OPTIONS = ("iterations", "seconds", "depth")
#: Image formats written for every chart.
FORMATS = ("png", "svg")


def _pyplot() -> Any:
    matplotlib = require_optional("matplotlib", "plots")
    matplotlib.use("Agg")
    return require_optional("matplotlib.pyplot", "plots")


def _budget(spec: str) -> tuple[str, str, float] | None:
    """``(family, option, budget)`` of a spec with a numeric budget option, else ``None``."""
    try:
        kind, options = parse_spec(spec)
    except InvalidOptionError:
        return None
    for option in BUDGET_OPTIONS:
        value = options.get(option)
        if value is None:
            continue
        try:
            budget = float(value)
        except ValueError:
            continue
        rest = ",".join(f"{k}={v}" for k, v in options.items() if k != option)
        family = f"{kind}:{rest}" if rest else kind
        return family, option, budget
    return None


def budget_families(agents: Iterable[str]) -> dict[tuple[str, str], dict[float, str]]:
    """``(family, budget option) -> {budget: spec}`` for families with two budgets or more."""
    families: dict[tuple[str, str], dict[float, str]] = {}
    for spec in agents:
        parsed = _budget(spec)
        if parsed is not None:
            family, option, budget = parsed
            families.setdefault((family, option), {})[budget] = spec
    return {key: value for key, value in families.items() if len(value) >= 2}


def _save(figure: Any, directory: Path, name: str) -> list[Path]:
    """Lay ``figure`` out, write it in every format as ``directory/name.*``, close it."""
    figure.tight_layout()
    paths = []
    for extension in FORMATS:
        path = directory / f"{name}.{extension}"
        figure.savefig(path, dpi=120)
        paths.append(path)
    _pyplot().close(figure)
    return paths


def _game_of(records: Sequence[dict[str, Any]]) -> str:
    return records[0].get("game", "") if records else ""


def plot_winrate_vs_budget(
    records: Sequence[dict[str, Any]], directory: str | os.PathLike, title: str | None = None
) -> list[Path]:
    """Draw ``winrate_vs_budget.{png,svg}`` into ``directory``; returns the files written.

    Raises:
        InvalidOptionError: if no two agents differ only in their budget.
        OptionalDependencyError: without matplotlib (``pip install 'mcts-envs[plots]'``).
    """
    stats = tally(records)
    agents = list(dict.fromkeys(name for pair in stats for name in pair))
    families = budget_families(agents)
    if not families:
        raise InvalidOptionError(
            "no budget curve: no two agents differ only in iterations=, seconds= or depth= "
            f"(agents: {', '.join(agents)})"
        )
    pyplot = _pyplot()
    figure, axes = pyplot.subplots(figsize=(7, 4.5))
    colours = iter(pyplot.rcParams["axes.prop_cycle"].by_key()["color"] * 4)
    for (family, _option), members in families.items():
        member_specs = set(members.values())
        opponents = [a for a in agents if a not in member_specs]
        for opponent in opponents:
            points = []
            for budget, spec in sorted(members.items()):
                wins, draws, losses = record_between(stats, spec, opponent) or (0, 0, 0)
                games = wins + draws + losses
                if games:
                    points.append((budget, wins, draws, losses, games))
            if len(points) < 2:
                continue
            budgets = np.array([p[0] for p in points])
            win_rate = np.array([p[1] / p[4] for p in points])
            score = np.array([(p[1] + 0.5 * p[2]) / p[4] for p in points])
            band = np.array([score_interval(p[1], 0, p[2] + p[3]) for p in points])
            colour = next(colours)
            label = f"{family} vs {opponent}"
            axes.fill_between(budgets, band[:, 0], band[:, 1], color=colour, alpha=0.18, lw=0)
            axes.plot(budgets, win_rate, marker="o", color=colour, label=f"{label}: win rate")
            axes.plot(
                budgets, score, marker="s", ls="--", color=colour, alpha=0.7,
                label=f"{label}: score (draw = 1/2)",
            )  # fmt: skip
            for budget, rate_value, point in zip(budgets, win_rate, points, strict=True):
                axes.annotate(
                    f"n={point[4]}", (budget, rate_value), textcoords="offset points",
                    xytext=(0, 7), ha="center", fontsize=7, color=colour,
                )  # fmt: skip
    axes.set_xscale("log")
    axes.set_ylim(-0.02, 1.05)
    axes.set_xlabel(f"search budget ({', '.join(sorted({o for _, o in families}))})")
    axes.set_ylabel("win rate (band: Wilson 95%)")
    axes.set_title(title or f"{_game_of(records)}: win rate against search budget")
    axes.grid(True, which="both", alpha=0.3)
    axes.legend(fontsize=7, loc="best")
    return _save(figure, Path(directory), "winrate_vs_budget")


def plot_elo(
    records: Sequence[dict[str, Any]],
    directory: str | os.PathLike,
    anchor: str | None = None,
    bootstrap: int = 500,
) -> list[Path]:
    """Draw ``elo.{png,svg}``: Bradley-Terry Elo with bootstrap 95% intervals, best on top."""
    table = rate(records, anchor, bootstrap)
    order = table.order()[::-1]
    finite = [v for v in (*table.elo, *table.low, *table.high) if np.isfinite(v)]
    span = max(finite, default=0.0) - min(finite, default=0.0)
    margin = max(span * 0.15, 50.0)
    left, right = min(finite, default=-100.0) - margin, max(finite, default=100.0) + margin
    pyplot = _pyplot()
    figure, axes = pyplot.subplots(figsize=(7, 0.5 * len(order) + 1.6))
    for row, k in enumerate(order):
        elo, low, high = table.elo[k], table.low[k], table.high[k]
        shown = min(max(elo, left), right) if not math.isnan(elo) else math.nan
        low_shown = left if low == -math.inf else low
        high_shown = right if high == math.inf else high
        if not (math.isnan(low_shown) or math.isnan(high_shown)):
            axes.plot([low_shown, high_shown], [row, row], color="tab:blue", lw=2)
            for end, value in ((low_shown, low), (high_shown, high)):
                marker = "<" if value == -math.inf else (">" if value == math.inf else "|")
                axes.plot([end], [row], marker=marker, color="tab:blue", ms=8)
        axes.plot([shown], [row], "o", color="tab:red" if np.isinf(elo) else "black")
        axes.annotate(
            f"{format_elo(elo)} [{format_elo(low)}, {format_elo(high)}]",
            (shown, row), textcoords="offset points", xytext=(0, 6), ha="center", fontsize=8,
        )  # fmt: skip
    axes.set_yticks(range(len(order)))
    axes.set_yticklabels(
        [
            f"{table.agents[k]} ({int(table.games[k])} g"
            + (", never met the anchor's group)" if math.isnan(table.elo[k]) else ")")
            for k in order
        ]
    )
    axes.set_xlim(left, right)
    axes.set_ylim(-0.7, len(order) - 0.3)
    axes.axvline(0.0, color="grey", lw=0.8, ls=":")
    axes.set_xlabel(f"Elo ({table.anchor} = 0; bars: bootstrap 95%, {table.bootstrap} samples)")
    axes.set_title(f"{_game_of(records)}: Bradley-Terry Elo")
    axes.grid(True, axis="x", alpha=0.3)
    return _save(figure, Path(directory), "elo")


def plot_results(
    records: Sequence[dict[str, Any]],
    directory: str | os.PathLike,
    anchor: str | None = None,
    bootstrap: int = 500,
) -> list[Path]:
    """Draw every chart that the records support into ``directory`` (created if needed).

    The budget chart is skipped when no agents differ only in budget; the Elo chart needs at
    least one finished game.

    Raises:
        InvalidOptionError: if there is no finished game.
    """
    target = Path(directory)
    target.mkdir(parents=True, exist_ok=True)
    paths = plot_elo(records, target, anchor, bootstrap)
    if budget_families(a for pair in tally(records) for a in pair):
        paths += plot_winrate_vs_budget(records, target)
    return paths
