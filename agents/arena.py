"""Play agents against each other: seeded, seat-alternated matches, statistics and game records.

A match plays ``num_games`` games between two agent specs on one game. Game ``i`` is fully
determined by ``(game, specs, master seed, i)``: its seeds (one per agent and one for chance) come
from ``numpy.random.SeedSequence(master_seed).spawn(...)[i]``, computed from the master seed and
``i`` alone (:func:`game_seed`: a match of a billion games allocates nothing up front). Agent A
sits at ``player_0`` in even games and at ``player_1`` in odd ones, and fresh agents are built for
every game. So a match gives the same games whether it runs in one process or many
(``workers``), in any order.

Games are driven through the forward model (``act_state``), not the env: chance outcomes are
sampled with the game's own seeded generator. Each game becomes a JSON-serialisable record (see
:func:`play_game`), written one per line by :func:`write_records` and read back, with line-numbered
errors, by :func:`read_records`.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from agents.base import ForwardModelAgent
from agents.preparation import first_decision, prepare_spec
from agents.spec import agent_class, import_agent_module, make_agent, parse_spec
from agents.workers import (
    check_count,
    check_workers,
    exit_with_parent,
    ordered_map,
    spawned_words,
)
from mcts_envs.core.errors import InvalidOptionError, require_optional
from mcts_envs.core.game import CHANCE, TERMINAL, sample_chance_outcome
from mcts_envs.core.registry import get_entry, make_game
from mcts_envs.core.seeding import check_seed
from mcts_envs.records import (
    make_record,
    move_cap,
    read_records,
    replay_states,
    write_records,
)

__all__ = [
    "MatchResult",
    "budget_curve",
    "play_game",
    "play_match",
    "read_records",
    "replay_states",
    "round_robin",
    "summarize",
    "wilson_interval",
    "write_records",
]

#: z for a two-sided 95% interval.
Z_95 = 1.959963984540054


def wilson_interval(successes: float, trials: int, z: float = Z_95) -> tuple[float, float]:
    """Wilson score interval ``(low, high)`` for a binomial proportion ``successes / trials``.

    With ``trials == 0`` the interval is ``(0.0, 1.0)``. ``successes`` may be fractional (a score
    with draws counted as half) for an approximate interval.

    Raises:
        InvalidOptionError: if ``trials < 0`` or ``successes`` is outside ``[0, trials]``.
    """
    if trials < 0 or not 0 <= successes <= trials:
        raise InvalidOptionError(
            f"wilson_interval needs 0 <= successes <= trials, got {successes} of {trials}"
        )
    if trials == 0:
        return 0.0, 1.0
    p = successes / trials
    if successes == 0:  # exact ends: floating point would leave 1e-17 and spoil Elo bounds
        return 0.0, _wilson_high(p, trials, z)
    if successes == trials:
        return 1.0 - _wilson_high(0.0, trials, z), 1.0
    return _wilson_low(p, trials, z), _wilson_high(p, trials, z)


def _wilson_bounds(p: float, trials: int, z: float) -> tuple[float, float]:
    z2 = z * z
    denominator = 1.0 + z2 / trials
    center = (p + z2 / (2 * trials)) / denominator
    half = z / denominator * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials))
    return max(0.0, center - half), min(1.0, center + half)


def _wilson_low(p: float, trials: int, z: float) -> float:
    return _wilson_bounds(p, trials, z)[0]


def _wilson_high(p: float, trials: int, z: float) -> float:
    return _wilson_bounds(p, trials, z)[1]


def format_elo(value: float) -> str:
    """An Elo difference as ``+12`` / ``-7`` / ``0`` / ``+inf`` (never ``-0``)."""
    if math.isinf(value):
        return "+inf" if value > 0 else "-inf"
    rounded = round(value)
    return "0" if rounded == 0 else f"{rounded:+d}"


def elo_difference(score: float) -> float:
    """Elo difference implied by an expected score in (0, 1) (``+-inf`` at 1 and 0)."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def game_seed(master: np.random.SeedSequence, index: int) -> tuple[int, int, int]:
    """Game ``index``'s ``(agent A seed, agent B seed, chance seed)``: the words of
    ``master.spawn(n)[index]``, computed without the other games' (O(1) memory)."""
    return spawned_words(master, index, 3)  # type: ignore[return-value]


def game_seeds(master_seed: int | None, num_games: int) -> list[tuple[int, int, int]]:
    """Per-game ``(agent A seed, agent B seed, chance seed)`` derived from one master seed."""
    master = np.random.SeedSequence(master_seed)
    return [game_seed(master, index) for index in range(num_games)]


def play_game(
    game_name: str,
    spec_a: str,
    spec_b: str,
    index: int,
    seeds: tuple[int, int, int],
    max_moves: int | None = None,
) -> dict[str, Any]:
    """Play game ``index`` of a match and return its record.

    Agent A plays ``player_0`` when ``index`` is even and ``player_1`` when it is odd.

    Returns:
        A version-2 record (:mod:`mcts_envs.records`; ``returns`` is ``null`` for a game cut by
        ``max_moves``) plus ``index``, ``agents`` (``[spec_a, spec_b]``), ``seat_a`` (agent A's
        seat), ``seed`` (``{"a", "b", "chance"}``), ``score`` (per seat), ``result`` (``"a"``,
        ``"b"``, ``"draw"`` or ``"unfinished"``), ``moves`` (decisions per seat) and ``timing``
        (``{"think_seconds": per seat}``, left out of :func:`~mcts_envs.records.game_identity`).
    """
    game = make_game(game_name)
    seed_a, seed_b, seed_chance = seeds
    seat_a = index % 2
    agent_a = make_agent(spec_a, seed=seed_a)
    agent_b = make_agent(spec_b, seed=seed_b)
    for agent in (agent_a, agent_b):
        agent.prepare(game)  # compiled already in this process: keeps compilation off the clock
    seated = [agent_a, agent_b] if seat_a == 0 else [agent_b, agent_a]
    chance_generator = np.random.default_rng(seed_chance)
    state = game.initial_state()
    initial_text = game.to_text(state)
    actions: list[int] = []
    chance_indices: list[int] = []
    moves = [0, 0]
    think = [0.0, 0.0]
    limit = max_moves if max_moves is not None else move_cap(game)
    while True:
        player = game.current_player(state)
        if player == TERMINAL or sum(moves) >= limit:
            break
        if player == CHANCE:
            action = sample_chance_outcome(game, state, chance_generator)
            chance_indices.append(len(actions))
        else:
            start = time.perf_counter()
            action = int(seated[player].act_state(game, state))
            think[player] += time.perf_counter() - start
            moves[player] += 1
        state = game.apply(state, action)
        actions.append(action)
        for agent in (agent_a, agent_b):
            agent.inform(action)
    finished = game.current_player(state) == TERMINAL
    returns = [float(r) for r in game.returns(state)]
    if not finished:
        result = "unfinished"
    elif returns[seat_a] > returns[1 - seat_a]:
        result = "a"
    elif returns[seat_a] < returns[1 - seat_a]:
        result = "b"
    else:
        result = "draw"
    players = [spec_a, spec_b] if seat_a == 0 else [spec_b, spec_a]
    return make_record(
        game.info.name,
        initial_text,
        actions,
        chance_indices,
        players,
        returns if finished else None,
        game.to_text(state),
        seed={"a": seed_a, "b": seed_b, "chance": seed_chance},
        index=index,
        agents=[spec_a, spec_b],
        seat_a=seat_a,
        score=[float(s) for s in game.score(state)],
        result=result,
        moves=moves,
        timing={"think_seconds": [round(t, 6) for t in think]},
    )


def _play_game_star(arguments: tuple) -> dict[str, Any]:
    return play_game(*arguments)


def prepare_agents(
    game_name: str, specs: Sequence[str], announce: Callable[[str], None] | None = None
) -> None:
    """Compile what each agent's decisions need, before any clock runs (see ``Agent.prepare``).

    ``announce`` (e.g. ``print`` to stderr) is told once per compiled agent kind what is being
    compiled. Each agent is prepared and makes two untimed decisions
    (:func:`agents.preparation.prepare_spec`). Games are unaffected: every game builds fresh
    agents.
    """
    game = make_game(game_name)
    state = first_decision(game)
    for spec in dict.fromkeys(specs):
        kind = parse_spec(spec)[0]
        if announce is not None and agent_class(kind).prepare is not ForwardModelAgent.prepare:
            announce(f"compiling {kind} for {game.info.name} (first use; cached afterwards)...")
        prepare_spec(game, spec, state)


def _start_worker(game_name: str, specs: Sequence[str], agent_modules: Sequence[str]) -> None:
    """Initializer of match worker processes: die with the parent, register, prepare."""
    exit_with_parent()
    for module in agent_modules:
        import_agent_module(module)
    prepare_agents(game_name, specs)


@dataclass
class AgentStats:
    """Results of one agent over a match.

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
    def games(self) -> int:
        """Finished games played."""
        return self.wins + self.draws + self.losses

    @property
    def win_rate(self) -> float:
        """Wins / games (0 if no games)."""
        return self.wins / self.games if self.games else 0.0

    @property
    def score(self) -> float:
        """(wins + draws / 2) / games (0.5 if no games)."""
        return (self.wins + 0.5 * self.draws) / self.games if self.games else 0.5

    def win_interval(self) -> tuple[float, float]:
        """Wilson 95% interval of the win rate."""
        return wilson_interval(self.wins, self.games)

    def score_interval(self) -> tuple[float, float]:
        """Approximate Wilson 95% interval of the score (draws count half)."""
        return wilson_interval(self.wins + 0.5 * self.draws, self.games)

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
        low, high = self.a.score_interval()
        return elo_difference(self.a.score), elo_difference(low), elo_difference(high)

    def summary(self) -> str:
        """A text table: W/D/L, win rate with Wilson 95% interval, score, moves/s, Elo of A - B.

        Rows are labelled ``A`` and ``B`` (so two agents with one spec are told apart); games cut
        by a move cap are counted and shown as unfinished.
        """
        played = len(self.records)
        unfinished = played - self.a.games
        head = f"{self.game}: {played} games in {self.seconds:.1f} s"
        if unfinished:
            head += f" ({self.a.games} finished, {unfinished} unfinished: cut by the move cap)"
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
                f"Elo of A minus B: {format_elo(elo)} [{format_elo(low)}, {format_elo(high)}] "
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
        if record["result"] == "a":
            a.wins += 1
            b.losses += 1
        elif record["result"] == "b":
            b.wins += 1
            a.losses += 1
        elif record["result"] == "draw":
            a.draws += 1
            b.draws += 1
    return MatchResult(game, a, b, kept)


class MatchOptions(NamedTuple):
    """How a match is played, beyond who plays whom.

    Attributes:
        seed: master seed; the same seed gives the same games (any number of workers).
        workers: processes to use (1: play in this process).
        max_moves: stop a game after this many decisions (it is then counted as unfinished).
        agent_modules: modules to import in every process first (they call ``register_agent``).
        announce: told what is being compiled before the first game (e.g. a print to stderr).
    """

    seed: int | None = 0
    workers: int = 1
    max_moves: int | None = None
    agent_modules: tuple[str, ...] = ()
    announce: Callable[[str], None] | None = None


def iterate_match(
    game: str, spec_a: str, spec_b: str, num_games: int, options: MatchOptions | None = None
) -> Iterator[dict[str, Any]]:
    """Yield the records of a match in game order (played in ``options.workers`` processes).

    Everything is checked before the first game, and the agents are prepared (compiled) before
    any game is timed.

    Raises:
        UnknownGameError / UnknownAgentError / InvalidOptionError: checked before any game.
    """
    options = options or MatchOptions()
    name = get_entry(game).name
    for module in options.agent_modules:
        import_agent_module(module)
    make_agent(spec_a)  # validate both specs up front, in this process
    make_agent(spec_b)
    check_count(num_games, "the number of games", minimum=0)
    workers = check_workers(options.workers, "workers")
    max_moves = options.max_moves
    if max_moves is not None:
        check_count(max_moves, "max_moves", maximum=move_cap(make_game(name)))
    seed = check_seed(options.seed)
    master = np.random.SeedSequence(seed)
    jobs = (
        (name, spec_a, spec_b, index, game_seed(master, index), max_moves)
        for index in range(num_games)
    )
    if num_games:
        # In this process first: compiles to numba's disk cache, which workers then load.
        prepare_agents(name, (spec_a, spec_b), options.announce)
    workers = 1 if num_games <= 1 else workers
    return _play_jobs(name, (spec_a, spec_b), jobs, workers, options.agent_modules)


def _play_jobs(
    name: str,
    specs: tuple[str, str],
    jobs: Iterable[tuple],
    workers: int,
    agent_modules: tuple[str, ...],
) -> Iterator[dict[str, Any]]:
    """Yield the records of checked ``jobs`` in order (see :func:`iterate_match`)."""
    if workers == 1:
        for job in jobs:
            yield play_game(*job)
        return
    with ProcessPoolExecutor(
        max_workers=workers,
        initializer=_start_worker,
        initargs=(name, specs, tuple(agent_modules)),
    ) as pool:
        yield from ordered_map(pool, _play_game_star, jobs, workers)


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
) -> MatchResult:
    """Play a seat-alternated match of ``num_games`` games and tally it.

    With ``options.workers > 1`` the calling script needs the ``if __name__ == "__main__":``
    guard (worker processes are started with the spawn method on some platforms).

    Args:
        game: game name (see ``mcts_envs.list_games()``).
        spec_a, spec_b: agent specs (see :func:`agents.spec.make_agent`).
        num_games: games to play; agent A is ``player_0`` in even-numbered games.
        seed, workers, max_moves, agent_modules, announce: see :class:`MatchOptions`.
        progress: show a tqdm progress bar.
        on_record: called with each record as it completes (in game order), e.g. to write it.
    """
    options = MatchOptions(seed, workers, max_moves, tuple(agent_modules), announce)
    records = iterate_match(game, spec_a, spec_b, num_games, options)  # checks and compiles
    start = time.perf_counter()
    if progress:
        from tqdm import tqdm

        records = tqdm(records, total=num_games, desc=f"{spec_a} vs {spec_b}", unit="game")
    kept = []
    for record in records:
        if on_record is not None:
            on_record(record)
        kept.append(record)
    result = summarize(get_entry(game).name, spec_a, spec_b, kept)
    result.seconds = time.perf_counter() - start
    return result


# -- tournaments and budget curves ------------------------------------------------------------


@dataclass
class TournamentResult:
    """Round-robin results with Elo ratings.

    Attributes:
        specs: the agents.
        scores: ``scores[i, j]`` = points of agent i against agent j (win 1, draw 0.5).
        games: ``games[i, j]`` = finished games between i and j.
        elo: ratings (mean 0) fitted by maximum likelihood (Bradley-Terry, draws as half wins).
        elo_low, elo_high: 95% intervals from a seeded bootstrap over the games.
    """

    specs: list[str]
    scores: np.ndarray
    games: np.ndarray
    elo: np.ndarray
    elo_low: np.ndarray
    elo_high: np.ndarray

    def summary(self) -> str:
        """Agents sorted by Elo, with intervals and total score."""
        order = np.argsort(-self.elo)
        lines = [f"{'agent':<34} {'Elo':>6} {'95% interval':>16} {'score':>10}"]
        for i in order:
            total = self.games[i].sum()
            lines.append(
                f"{self.specs[i]:<34} {self.elo[i]:+6.0f} [{self.elo_low[i]:+6.0f}, "
                f"{self.elo_high[i]:+6.0f}] {self.scores[i].sum():5.1f}/{total:<4.0f}"
            )
        return "\n".join(lines)


def fit_elo(scores: np.ndarray, games: np.ndarray, iterations: int = 2000) -> np.ndarray:
    """Maximum-likelihood Elo ratings (mean 0) from pairwise scores (draws as half wins).

    Uses the minorisation-maximisation update of the Bradley-Terry model, with a tiny prior
    (half a draw against every opponent) so that unbeaten agents keep finite ratings.
    """
    count = len(scores)
    prior = 0.5 * (np.ones((count, count)) - np.eye(count))
    wins = scores + 0.5 * prior
    played = games + prior
    strength = np.ones(count)
    for _ in range(iterations):
        denominator = (played / (strength[:, None] + strength[None, :])).sum(axis=1)
        updated = wins.sum(axis=1) / denominator
        updated /= np.exp(np.log(updated).mean())
        if np.allclose(updated, strength, rtol=1e-10, atol=0):
            strength = updated
            break
        strength = updated
    ratings = 400.0 * np.log10(strength)
    return ratings - ratings.mean()


def round_robin(
    game: str,
    specs: Sequence[str],
    games_per_pair: int,
    seed: int | None = 0,
    workers: int = 1,
    progress: bool = False,
    bootstrap: int = 200,
) -> TournamentResult:
    """Play every pair of ``specs`` (seat-alternated) and fit Elo ratings with 95% intervals.

    Pair ``(i, j)`` uses master seed ``SeedSequence(seed).spawn`` child number ``i * n + j``, so
    results do not depend on ``workers``.
    """
    count = len(specs)
    if count < 2:
        raise InvalidOptionError("a round robin needs at least two agents")
    pair_seeds = np.random.SeedSequence(seed).spawn(count * count)
    outcomes: list[tuple[int, int, float]] = []  # (i, j, points of i)
    scores = np.zeros((count, count))
    games = np.zeros((count, count))
    for i in range(count):
        for j in range(i + 1, count):
            pair_seed = int(pair_seeds[i * count + j].generate_state(1)[0])
            result = play_match(
                game, specs[i], specs[j], games_per_pair, pair_seed, workers, progress
            )
            for record in result.records:
                points = {"a": 1.0, "b": 0.0, "draw": 0.5}.get(record["result"])
                if points is None:
                    continue
                outcomes.append((i, j, points))
                scores[i, j] += points
                scores[j, i] += 1.0 - points
                games[i, j] += 1
                games[j, i] += 1
    elo = fit_elo(scores, games)
    generator = np.random.default_rng(np.random.SeedSequence(seed).spawn(count * count + 1)[-1])
    samples = []
    for _ in range(bootstrap):
        if not outcomes:
            break
        picks = generator.integers(len(outcomes), size=len(outcomes))
        sample_scores = np.zeros((count, count))
        sample_games = np.zeros((count, count))
        for pick in picks:
            i, j, points = outcomes[pick]
            sample_scores[i, j] += points
            sample_scores[j, i] += 1.0 - points
            sample_games[i, j] += 1
            sample_games[j, i] += 1
        samples.append(fit_elo(sample_scores, sample_games, iterations=500))
    if samples:
        low, high = np.percentile(np.array(samples), [2.5, 97.5], axis=0)
    else:
        low, high = np.full(count, -np.inf), np.full(count, np.inf)
    return TournamentResult(list(specs), scores, games, elo, low, high)


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
