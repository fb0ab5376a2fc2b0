"""A match: two agents, seat-alternated games, statistics. A match is a tournament of one pairing.

:func:`play_match` plans the games with :func:`mcts_envs.agents.evaluation.tournament.plan_match` and plays them on a
backend (:mod:`mcts_envs.agents.evaluation.backends`) with the one game loop
(:func:`mcts_envs.agents.evaluation.games.play_game`). Game ``i`` is game pair ``i // 2`` with colour
``i % 2`` (agent A plays ``player_0`` in even games), and its seeds come only from ``(master seed,
pair, colour)``, so ``mcts-envs match G A B --games N --seed S`` plays exactly the games of
``mcts-envs tournament G A B --games-per-pair N --seed S``, whatever the backend or worker count.
Games are driven through the forward model (``act_state``); chance outcomes are sampled from the
game's own seeded generator. Records are read back, with line-numbered errors, by
:func:`mcts_envs.records.read_records`.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from mcts_envs.agents.evaluation.backends import make_backend
from mcts_envs.agents.evaluation.games import Adjudication, GameRules, play_game, prepare_agents
from mcts_envs.agents.evaluation.stats import (
    WinDrawLoss,
    format_elo,
    format_elo_interval,
    wilson_interval,
)
from mcts_envs.agents.evaluation.tournament import StopFlag, pending_tasks, plan_match
from mcts_envs.agents.spec import import_agent_module
from mcts_envs.core.errors import InvalidOptionError, require_optional
from mcts_envs.core.registry import get_entry
from mcts_envs.records import read_records, replay_states, write_records

__all__ = [
    "MatchOptions",
    "MatchResult",
    "budget_curve",
    "format_elo",
    "iterate_match",
    "play_game",
    "play_match",
    "read_records",
    "replay_states",
    "summarize",
    "wilson_interval",
    "write_records",
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
        """Decisions per second of thinking time."""
        return self.moves / self.think_seconds if self.think_seconds > 0 else math.inf


@dataclass
class MatchResult:
    """The outcome of a match between agents A and B.

    Attributes:
        game: game name.
        a, b: per-agent statistics.
        records: the game records, in game order.
        seconds: wall-clock time of the match.
    """

    game: str
    a: AgentStats
    b: AgentStats
    records: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0

    def elo_interval(self) -> tuple[float, float, float]:
        """Elo of A relative to B: ``(estimate, low, high)`` from the score and its interval."""
        return self.a.elo()

    def summary(self) -> str:
        """A text table: W/D/L, win rate with Wilson 95% interval, score, moves/s, Elo of A - B.

        Rows are labelled ``A`` and ``B`` (so two agents with one spec are told apart); games
        adjudicated (a move cap, material) are counted in the heading. When A won or lost every
        game, the Elo is one-sided (``> +166``): the estimate itself is unbounded.
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
            lines.append(
                f"{label}  {stats.spec:<{width}} {stats.wins:>4} {stats.draws:>4} "
                f"{stats.losses:>4}  {stats.win_rate:5.3f} [{low:5.3f}, {high:5.3f}]    "
                f"{stats.score:6.3f}  {stats.moves_per_second:9.1f}"
            )
        if self.a.games:
            elo, low, high = self.elo_interval()
            lines.append(
                f"Elo of A minus B: {format_elo_interval(elo, low, high)} "
                f"(from the score with draws as half; 95% Wilson interval)"
            )
        else:
            lines.append("Elo of A minus B: no finished game")
        return "\n".join(lines)


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


class MatchOptions(NamedTuple):
    """How a match is played, beyond who plays whom.

    Attributes:
        seed: master seed; the same seed gives the same games (any backend, any worker count).
        workers: games in flight (1: play in this process).
        max_moves: adjudicate a game as a draw after this many decisions.
        agent_modules: modules to import in every process first (they call ``register_agent``).
        announce: told what is being prepared before the first game (e.g. a print to stderr).
        backend: ``local``, ``process`` or ``ray`` (default: local for one worker, else process).
        address: the Ray cluster for the ``ray`` backend (default: start one).
        done: records of games already played (a resumed results file): they are not replayed.
    """

    seed: int | None = 0
    workers: int = 1
    max_moves: int | None = None
    agent_modules: tuple[str, ...] = ()
    announce: Callable[[str], None] | None = None
    backend: str | None = None
    address: str | None = None
    done: tuple[dict[str, Any], ...] = ()


def iterate_match(
    game: str, spec_a: str, spec_b: str, num_games: int, options: MatchOptions | None = None
) -> Iterator[dict[str, Any]]:
    """Yield the records of the match's games not in ``options.done``, as they finish.

    Everything is checked before the first game, and the agents are prepared (compiled) in this
    process before any game is timed.

    Raises:
        UnknownGameError / UnknownAgentError / InvalidOptionError / InvalidRecordError: before
            any game (a ``done`` record of another match is an ``InvalidRecordError``).
    """
    options = options or MatchOptions()
    for module in options.agent_modules:
        import_agent_module(module)
    rules = GameRules(get_entry(game).name, adjudication=Adjudication(max_moves=options.max_moves))
    plan = plan_match(rules, spec_a, spec_b, num_games, 0 if options.seed is None else options.seed)
    tasks = pending_tasks(plan, options.done)
    opening = plan.tasks[0].opening
    backend = make_backend(
        options.backend,
        options.workers,
        plan.specs,
        opening,
        address=options.address,
        agent_modules=options.agent_modules,
    )
    # In this process first: compiles to numba's disk cache, which workers then load.
    prepare_agents(plan.rules.game, plan.specs, opening, options.announce)
    return backend.run(tasks, plan.rules, StopFlag())


def play_match(
    game: str,
    spec_a: str,
    spec_b: str,
    num_games: int,
    seed: int | None = 0,
    workers: int = 1,
    progress: bool = False,
    max_moves: int | None = None,
    on_record: Callable[[dict[str, Any]], None] | None = None,
    *,
    agent_modules: Sequence[str] = (),
    announce: Callable[[str], None] | None = None,
    backend: str | None = None,
    done: Sequence[dict[str, Any]] = (),
) -> MatchResult:
    """Play a seat-alternated match of ``num_games`` games and tally it.

    With ``workers > 1`` the calling script needs the ``if __name__ == "__main__":`` guard
    (worker processes are started with the spawn method).

    Args:
        game: game name (see ``mcts_envs.list_games()``).
        spec_a, spec_b: agent specs (see :func:`mcts_envs.agents.spec.make_agent`).
        num_games: games to play; agent A is ``player_0`` in even-numbered games.
        seed, workers, max_moves, agent_modules, announce, backend, done: see
            :class:`MatchOptions`.
        progress: show a tqdm progress bar.
        on_record: called with each new record as its game ends, e.g. to write it.

    Returns:
        The tally of the ``done`` records and the new ones, records sorted by game index.
    """
    options = MatchOptions(
        seed, workers, max_moves, tuple(agent_modules), announce, backend, None, tuple(done)
    )
    records: Iterable[dict[str, Any]] = iterate_match(game, spec_a, spec_b, num_games, options)
    start = time.perf_counter()
    if progress:
        from tqdm import tqdm

        records = tqdm(
            records,
            total=num_games,
            initial=len(done),
            desc=f"{spec_a} vs {spec_b}",
            unit="game",
        )
    kept = list(done)
    for record in records:
        if on_record is not None:
            on_record(record)
        kept.append(record)
    kept.sort(key=lambda record: record["index"])
    result = summarize(get_entry(game).name, spec_a, spec_b, kept)
    result.seconds = time.perf_counter() - start
    return result


def budget_curve(
    game: str,
    spec_template: str,
    budgets: Sequence[float],
    opponent: str,
    num_games: int,
    seed: int | None = 0,
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
    return [
        (
            budget,
            play_match(
                game, spec_template.format(budget), opponent, num_games, seed, workers, progress
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
