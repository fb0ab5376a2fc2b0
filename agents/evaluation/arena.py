"""A match: two agents, seat-alternated games, statistics. A match is a tournament of one pairing.

A match is planned by :func:`mcts_envs.agents.evaluation.plan.plan_match` and played by
:func:`play_match`, which hands the plan to the one run function
(:func:`mcts_envs.agents.evaluation.run.run_plan`: a backend, the results file, the one game loop
:func:`mcts_envs.agents.evaluation.games.play_game`) and tallies the records. Game ``i`` is game
pair ``i // 2`` with colour ``i % 2`` (agent A plays ``player_0`` in even games), and its seeds come
only from ``(master seed, pair, colour)``, so ``mcts-envs match G A B --games N --seed S`` plays
exactly the games of ``mcts-envs tournament G A B --games-per-pair N --seed S``, whatever the
backend or worker count. Games are driven through the forward model (``act_state``); chance
outcomes are sampled from the game's own seeded generator. Records are read back, with
line-numbered errors, by :func:`mcts_envs.records.read_records`.

Example::

    from mcts_envs.agents.evaluation.arena import play_match
    from mcts_envs.agents.evaluation.plan import plan_match
    from mcts_envs.agents.evaluation.run import RunSettings

    plan = plan_match("tictactoe", "mcts:iterations=200", "random", 20, seed=1)
    print(play_match(plan, RunSettings(out="games.jsonl", overwrite=True)).summary())
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from mcts_envs.agents.evaluation.faults import fault_summary
from mcts_envs.agents.evaluation.plan import TournamentPlan, plan_match
from mcts_envs.agents.evaluation.run import RunHooks, RunSettings, run_plan
from mcts_envs.agents.evaluation.stats import (
    MIN_ELO_GAMES,
    WinDrawLoss,
    format_elo_games,
    wilson_interval,
)
from mcts_envs.core.errors import InvalidOptionError, require_optional

__all__ = [
    "AgentStats",
    "MatchResult",
    "budget_curve",
    "play_match",
    "plot_budget_curve",
    "seat_think",
    "summarize",
]


@dataclass
class AgentStats(WinDrawLoss):
    """Results of one agent over a match (games, score and its interval from
    :class:`~mcts_envs.agents.evaluation.stats.WinDrawLoss`).

    Attributes:
        spec: the agent's spec.
        wins, draws, losses: game counts (unfinished games count as none of them).
        moves: decisions made.
        think_seconds: total time spent deciding.
    """

    spec: str
    wins: int = 0
    draws: int = 0
    losses: int = 0
    moves: int = 0
    think_seconds: float = 0.0

    @property
    def win_rate(self) -> float:
        """Wins / games (0 if no games)."""
        return self.wins / self.games if self.games else 0.0

    def win_interval(self) -> tuple[float, float]:
        """Wilson 95% interval of the win rate."""
        return wilson_interval(self.wins, self.games)

    @property
    def moves_per_second(self) -> float:
        """Decisions per second of thinking time; NaN when no decision was timed (no move made,
        or no time measured): a rate that cannot be measured is not infinite."""
        if self.moves == 0 or self.think_seconds <= 0:
            return math.nan
        return self.moves / self.think_seconds


@dataclass
class MatchResult:
    """The outcome of a match between agents A and B.

    Attributes:
        game: game name.
        a, b: per-agent statistics.
        records: the game records, in game order.
        seconds: wall-clock seconds spent playing (after preparation).
        stopped: why the match stopped before its end (``"interrupted"``: SIGINT), or ``None``.
    """

    game: str
    a: AgentStats
    b: AgentStats
    records: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0
    stopped: str | None = None

    @property
    def interrupted(self) -> bool:
        """Whether SIGINT stopped the match before its end."""
        return self.stopped == "interrupted"

    def elo_interval(self) -> tuple[float, float, float]:
        """Elo of A relative to B: ``(estimate, low, high)`` from the score and its interval."""
        return self.a.elo()

    def summary(self) -> str:
        """A text table: W/D/L, win rate with Wilson 95% interval, score, moves/s, Elo of A - B.

        Rows are labelled ``A`` and ``B`` (so two agents with one spec are told apart); games
        adjudicated (a move cap, material, a forfeit) are counted in the heading, and games lost
        by a fault get a line saying whose and which kind (the agent's own play, or its server
        or engine failing: :mod:`~mcts_envs.agents.evaluation.faults`). When A won or lost every
        game, the Elo is one-sided (``> +166``): the estimate itself is unbounded; it is left out
        before :data:`~mcts_envs.agents.evaluation.stats.MIN_ELO_GAMES` games, and a moves/s that
        was not measured reads ``-``.
        """
        played = len(self.records)
        head = f"{self.game}: {played} games in {self.seconds:.1f} s"
        adjudicated: dict[str, int] = {}
        for record in self.records:
            termination = record.get("termination", "end")
            if termination != "end":
                adjudicated[termination] = adjudicated.get(termination, 0) + 1
        if adjudicated:
            head += (
                " (adjudicated: "
                + ", ".join(f"{count} by {reason}" for reason, count in sorted(adjudicated.items()))
                + ")"
            )
        width = max(len("agent"), len(self.a.spec), len(self.b.spec))
        lines = [
            head,
            f"   {'agent':<{width}} {'W':>4} {'D':>4} {'L':>4}  {'win rate [95% CI]':<22} "
            f"{'score':>6}  {'moves/s':>9}",
        ]
        for label, stats in (("A", self.a), ("B", self.b)):
            low, high = stats.win_interval()
            rate = stats.moves_per_second
            lines.append(
                f"{label}  {stats.spec:<{width}} {stats.wins:>4} {stats.draws:>4} "
                f"{stats.losses:>4}  {stats.win_rate:5.3f} [{low:5.3f}, {high:5.3f}]    "
                f"{stats.score:6.3f}  {'-' if math.isnan(rate) else f'{rate:.1f}':>9}"
            )
        faults = self.fault_line()
        if faults:
            lines.append(faults)
        elo, low, high = self.elo_interval()
        lines.append(f"Elo of A minus B: {format_elo_games(elo, low, high, self.a.games)}")
        if self.a.games >= MIN_ELO_GAMES:
            lines[-1] += " (from the score with draws as half; 95% Wilson interval)"
        return "\n".join(lines)

    def fault_line(self) -> str:
        """``"lost by faults: A 2 (own play), B 10 (server or engine failing)"``, or ``""``."""
        return fault_summary(self.records, {self.b.spec: "B", self.a.spec: "A"})


def seat_think(record: dict[str, Any], seat: int) -> tuple[float, int]:
    """``(think seconds, moves)`` of the agent in ``seat`` of an arena or tournament record
    (0 seconds when the record carries no ``timing``)."""
    think = (record.get("timing") or {}).get("think_seconds") or [0.0, 0.0]
    moves = record.get("moves") or [0, 0]
    return float(think[seat]), int(moves[seat])


def summarize(
    game: str, spec_a: str, spec_b: str, records: Iterable[dict[str, Any]]
) -> MatchResult:
    """Tally records of a match into a :class:`MatchResult`."""
    a, b = AgentStats(spec_a), AgentStats(spec_b)
    kept = []
    for record in records:
        kept.append(record)
        seat_a = record["seat_a"]
        for stats, seat in ((a, seat_a), (b, 1 - seat_a)):
            seconds, moves = seat_think(record, seat)
            stats.think_seconds += seconds
            stats.moves += moves
        a.count(record["result"], "a")
        b.count(record["result"], "b")
    return MatchResult(game, a, b, kept)


def play_match(
    plan: TournamentPlan, settings: RunSettings | None = None, hooks: RunHooks | None = None
) -> MatchResult:
    """Play the games of a match's ``plan`` (:func:`~mcts_envs.agents.evaluation.plan.plan_match`)
    that ``settings.out`` is missing, with :func:`~mcts_envs.agents.evaluation.run.run_plan`, and
    tally them.

    With ``settings.workers > 1`` the calling script needs the ``if __name__ == "__main__":``
    guard (worker processes are started with the spawn method).

    Args:
        plan: the match (one pairing); agent A is ``player_0`` in even-numbered games.
        settings: where and how the games are played (default: in this process, no file).
        hooks: what the caller sees on the way, e.g. ``RunHooks(progress=True)`` for a bar.

    Returns:
        The tally of every record (resumed and new), records sorted by game index.

    Raises:
        InvalidOptionError: for a plan of more than one pairing.
        MctsEnvsError: as :func:`~mcts_envs.agents.evaluation.run.run_plan`, before any game.
    """
    if len(plan.pairings) != 1:
        raise InvalidOptionError(
            f"a match is one pairing; this plan has {len(plan.pairings)} (run it with run_plan)"
        )
    outcome = run_plan(plan, settings, hooks)
    spec_a, spec_b = plan.pairings[0]
    records = sorted(outcome.records, key=lambda record: record["index"])
    result = summarize(plan.rules.game, spec_a, spec_b, records)
    result.seconds = outcome.seconds
    result.stopped = outcome.stopped
    return result


def budget_curve(
    game: str,
    spec_template: str,
    budgets: Sequence[float],
    opponent: str,
    num_games: int,
    seed: int = 0,
    workers: int = 1,
    progress: bool = False,
) -> list[tuple[float, MatchResult]]:
    """Matches of ``spec_template.format(budget)`` against ``opponent`` for each budget.

    Example: ``budget_curve("tictactoe", "mcts:iterations={}", [10, 100, 1000], "random", 50)``.
    """
    if "{}" not in spec_template:
        raise InvalidOptionError(
            f"the spec template needs a '{{}}' where the budget goes, got {spec_template!r}"
        )
    settings = RunSettings(workers=workers)
    hooks = RunHooks(progress=progress)
    return [
        (
            budget,
            play_match(
                plan_match(game, spec_template.format(budget), opponent, num_games, seed),
                settings,
                hooks,
            ),
        )
        for budget in budgets
    ]


def plot_budget_curve(
    curve: Sequence[tuple[float, MatchResult]], path: str | Path, title: str | None = None
) -> None:
    """Plot win rate (with Wilson 95% intervals) and score against budget into an image file.

    Raises:
        OptionalDependencyError: if matplotlib is missing (``pip install 'mcts-envs[plots]'``).
    """
    matplotlib = require_optional("matplotlib", "plots")
    matplotlib.use("Agg")
    pyplot = require_optional("matplotlib.pyplot", "plots")
    budgets = [budget for budget, _ in curve]
    rates = np.array([result.a.win_rate for _, result in curve])
    intervals = np.array([result.a.win_interval() for _, result in curve])
    scores = [result.a.score for _, result in curve]
    figure, axes = pyplot.subplots(figsize=(6, 4))
    axes.errorbar(
        budgets, rates, yerr=[rates - intervals[:, 0], intervals[:, 1] - rates],
        marker="o", capsize=3, label="win rate (95% Wilson)",
    )  # fmt: skip
    axes.plot(budgets, scores, marker="s", linestyle="--", label="score (draw = 1/2)")
    axes.set_xscale("log")
    axes.set_ylim(0, 1)
    axes.set_xlabel("search budget")
    axes.set_ylabel(f"vs {curve[0][1].b.spec}" if curve else "")
    axes.set_title(title or (f"{curve[0][1].game}: {curve[0][1].a.spec} ..." if curve else ""))
    axes.grid(True, alpha=0.3)
    axes.legend()
    figure.tight_layout()
    figure.savefig(path)
    pyplot.close(figure)
