"""Resumable tournaments: round-robin or gauntlet, paired openings, time controls, backends.

A tournament is a list of *pairings* (two agent specs) and, for each, ``games_per_pair`` games
played in pairs: game pair ``p`` starts both games from opening ``p`` (the same position for every
pairing) with the colours swapped, so the opening's bias cancels within the pair.

Every game is a :class:`GameTask` whose seeds come only from ``(master seed, pairing, pair,
colour)`` (agents) and ``(master seed, pair)`` (chance, so both games of a pair and every pairing
draw from the same sequence). A game's record therefore does not depend on the backend, on the
number of workers, or on the order in which games finish (compare records with
:func:`mcts_envs.records.game_identity`; searches limited by *time* are the exception).

The plan is lazy: a task, its seeds and its opening are computed when the task is handed out,
so ``--games-per-pair`` up to :data:`~agents.workers.MAX_GAMES` allocates nothing up front.

Results are appended to a JSON-lines file, one version-2 record per game
(:mod:`mcts_envs.records`), flushed and fsynced as each game ends, in the order the games end.
:func:`open_results` resumes such a file: every line is checked as ``mcts-envs replay`` checks
a record (:func:`mcts_envs.records.validate_record`) and against the plan, and refused with its
line number if it is not a game of this tournament, the file left untouched; only a last line
without its newline (a write cut by a crash) is dropped, and its game played again. SIGINT
stops handing out games, lets the games in flight finish and be written, and the command exits
with status 130; SIGKILL loses at most the games in flight. Worker processes die with their parent (:func:`agents.workers.exit_with_parent`).

Backends: ``local`` (this process), ``process`` (a pool of worker processes) and ``ray``
(:mod:`agents.backends.ray_backend`, the ``ray`` extra).
"""

from __future__ import annotations

import contextlib
import functools
import json
import math
import os
import signal
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from collections.abc import Sequence as SequenceABC
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, NamedTuple, Protocol, TextIO

import numpy as np

from agents.preparation import first_decision, prepare_spec
from agents.spec import agent_parameters, import_agent_module, make_agent, parse_spec
from agents.workers import check_count, check_workers, exit_with_parent
from mcts_envs.core.errors import InvalidOptionError, InvalidRecordError, MctsEnvsError
from mcts_envs.core.game import CHANCE, TERMINAL, Game, sample_chance_outcome
from mcts_envs.core.registry import get_entry, make_game
from mcts_envs.core.seeding import check_seed
from mcts_envs.records import (
    bounded_lines,
    check_record,
    dumps,
    make_record,
    move_cap,
    open_for_append,
    quote,
    scan_records,
    validate_record,
)

__all__ = [
    "Adjudication",
    "BackendError",
    "GameRules",
    "GameTask",
    "ResultsFile",
    "TimeControl",
    "TournamentPlan",
    "make_backend",
    "make_openings",
    "open_results",
    "plan_tournament",
    "play_task",
    "prepare_agents",
    "run_tournament",
]

#: Spawn-key tags that keep the seed streams of openings, chance and agents apart.
_OPENING_STREAM = 1
_CHANCE_STREAM = 2
_AGENT_STREAM = 3
#: A random opening that ends the game is drawn again, at most this many times.
_OPENING_ATTEMPTS = 100
#: With a clock, a move may use the time left divided by this (plus most of the increment).
_MOVES_TO_GO = 20
#: Most lines an openings file may have (blank lines and comments included).
MAX_OPENING_LINES = 1_000_000
#: Random openings kept computed (tasks are handed out pair by pair, so a few suffice).
_OPENINGS_CACHED = 64


# -- settings -----------------------------------------------------------------------------------


class TimeControl(NamedTuple):
    """How much time a decision may take.

    Attributes:
        move_seconds: a fixed budget per decision (``--time``), or ``None``.
        base_seconds: a clock per player and game (``--clock BASE+INC``), or ``None``.
        increment: seconds added to a player's clock after each of its decisions.
        loss_on_time: a player whose clock runs below zero loses the game.

    Agents whose kind takes a ``seconds`` option (``mcts``, ``alphabeta``) get the budget;
    others play at their own pace, but their time is still charged to their clock.
    """

    move_seconds: float | None = None
    base_seconds: float | None = None
    increment: float = 0.0
    loss_on_time: bool = False

    @property
    def active(self) -> bool:
        """Whether any time limit is set."""
        return self.move_seconds is not None or self.base_seconds is not None

    def budget(self, clock_left: float) -> float | None:
        """Seconds the next decision may use given the mover's clock (``None``: no limit)."""
        if self.base_seconds is not None:
            share = max(clock_left, 0.0) / _MOVES_TO_GO + 0.9 * self.increment
            share = min(share, max(clock_left, 0.0) * 0.5 + self.increment)
            return max(share, 1e-3)
        return self.move_seconds


def parse_clock(text: str) -> tuple[float, float]:
    """``"60+0.5"`` -> ``(60.0, 0.5)`` (base seconds, increment); ``"60"`` has no increment.

    Raises:
        InvalidOptionError: if the text is not ``BASE`` or ``BASE+INC`` with ``BASE > 0``,
            ``INC >= 0``.
    """
    base, _, increment = str(text).partition("+")
    try:
        values = float(base), float(increment or 0.0)
    except ValueError:
        values = (math.nan, math.nan)
    if not (values[0] > 0 and values[1] >= 0 and all(map(math.isfinite, values))):
        raise InvalidOptionError(
            f"a clock is BASE or BASE+INC in seconds (e.g. 60+0.5, BASE > 0, INC >= 0), "
            f"got {quote(text)}"
        )
    return values


class Adjudication(NamedTuple):
    """When a game is stopped before its end.

    Attributes:
        max_moves: after this many decisions the game is a draw (``None``: 100 times the game's
            longest game, a draw as well).
        material_margin: stop when one side has this many more stones than the other and give it
            the win (games with ``stone_counts``, i.e. Ataxx), or ``None``.
    """

    max_moves: int | None = None
    material_margin: int | None = None


class GameRules(NamedTuple):
    """What every game of a tournament shares: the game, its time control and adjudication."""

    game: str
    time: TimeControl = TimeControl()
    adjudication: Adjudication = Adjudication()


class GameTask(NamedTuple):
    """One game of a tournament, fully determined by its fields.

    Attributes:
        pairing: index of the pairing in the tournament.
        spec_a, spec_b: the pairing's agents (A is the first, e.g. the gauntlet agent).
        pair: game pair number within the pairing (= opening number).
        colour: 0 if A plays ``player_0``, 1 if A plays ``player_1``.
        opening: the starting position (``game.to_text``).
        seeds: ``(seed of A, seed of B, chance seed)``.
    """

    pairing: int
    spec_a: str
    spec_b: str
    pair: int
    colour: int
    opening: str
    seeds: tuple[int, int, int]

    @property
    def index(self) -> int:
        """Game number within the pairing: ``2 * pair + colour``."""
        return 2 * self.pair + self.colour

    @property
    def key(self) -> tuple[str, str, int]:
        """What identifies the game in a results file: ``(spec_a, spec_b, index)``."""
        return self.spec_a, self.spec_b, self.index


def _words(master_seed: int, *key: int, count: int = 1) -> list[int]:
    sequence = np.random.SeedSequence(master_seed, spawn_key=key)
    return [int(word) for word in sequence.generate_state(count, dtype=np.uint32)]


def task_seeds(master_seed: int, pairing: int, pair: int, colour: int) -> tuple[int, int, int]:
    """``(seed of A, seed of B, chance seed)`` of one game.

    The agents' seeds depend on ``(master_seed, pairing, pair, colour)``; the chance seed only on
    ``(master_seed, pair)``, so both games of a pair (and every pairing) see the same draws.
    """
    seed_a, seed_b = _words(master_seed, _AGENT_STREAM, pairing, pair, colour, count=2)
    (chance,) = _words(master_seed, _CHANCE_STREAM, pair)
    return seed_a, seed_b, chance


# -- openings ----------------------------------------------------------------------------------


def _random_opening(game: Game, plies: int, master_seed: int, pair: int) -> str:
    """The text of a position after ``plies`` uniformly random decisions (chance sampled)."""
    for attempt in range(_OPENING_ATTEMPTS):
        generator = np.random.default_rng(
            np.random.SeedSequence(master_seed, spawn_key=(_OPENING_STREAM, pair, attempt))
        )
        state = game.initial_state()
        made = 0
        while True:
            player = game.current_player(state)
            if player == TERMINAL:
                break
            if player == CHANCE:
                state = game.apply(state, sample_chance_outcome(game, state, generator))
                continue
            if made == plies:
                return game.to_text(state)
            legal = game.legal_actions(state)
            state = game.apply(state, int(legal[generator.integers(len(legal))]))
            made += 1
    raise InvalidOptionError(
        f"{game.info.name}: {_OPENING_ATTEMPTS} random openings of {plies} plies all ended the "
        "game; use fewer plies"
    )


def read_openings(game: Game, path: str | os.PathLike) -> list[str]:
    """Openings from a file: one position per line, as ``game.to_text`` writes it, or JSON-lines
    game records (their ``final`` position). Blank lines and lines starting with ``#`` are skipped.

    At most :data:`MAX_OPENING_LINES` lines of at most
    :data:`~mcts_envs.records.MAX_LINE_BYTES` bytes are read (``/dev/zero`` fails at once).

    Raises:
        InvalidRecordError: naming the line of a position that does not parse (or is not UTF-8,
            or is too long), a file of too many lines, or a file with no position.
        FileNotFoundError: if the file does not exist.
    """
    openings = []
    with open(path, "rb") as stream:
        for number, raw in bounded_lines(stream, path, MAX_OPENING_LINES):
            where = f"{path}, line {number}"
            try:
                text = raw.decode("utf-8").strip()
            except UnicodeDecodeError as error:
                raise InvalidRecordError(
                    f"{where}: not UTF-8 text (byte {error.start + 1})"
                ) from None
            if not text or text.startswith("#"):
                continue
            if text.startswith("{"):
                try:
                    text = check_record(json.loads(text), where)["final"]
                except json.JSONDecodeError as error:
                    raise InvalidRecordError(f"{where}: not valid JSON ({error.msg})") from None
                except RecursionError:
                    raise InvalidRecordError(f"{where}: JSON nested too deeply") from None
            try:
                state = game.from_text(text)
            except (InvalidRecordError, ValueError) as error:
                raise InvalidRecordError(
                    f"{where}: not a {game.info.name} position: {error}"
                ) from None
            if game.current_player(state) == TERMINAL:
                raise InvalidRecordError(f"{where}: the position is already over")
            openings.append(game.to_text(state))
    if not openings:
        raise InvalidRecordError(f"{path}: no opening positions in the file")
    return openings


def opening_source(game: Game, source: str | None, master_seed: int) -> Callable[[int], str]:
    """A function ``pair -> opening text`` (computed when asked; see :func:`make_openings`).

    A file is read and a random opening of pair 0 drawn at once, so a bad source fails here.

    Raises:
        InvalidOptionError / InvalidRecordError / FileNotFoundError: for a bad source.
    """
    if source is None:
        initial = game.to_text(game.initial_state())
        return lambda pair: initial
    kind, colon, rest = source.partition(":")
    if kind == "random" and colon:
        try:
            plies = int(rest)
        except ValueError:
            plies = -1
        if not 0 <= plies <= 10 * max(game.info.max_game_length, 1):
            raise InvalidOptionError(
                f"--openings random:K needs 0 <= K <= {10 * max(game.info.max_game_length, 1)} "
                f"random plies, got {quote(source)}"
            )
        random_opening = functools.lru_cache(maxsize=_OPENINGS_CACHED)(
            functools.partial(_random_opening, game, plies, master_seed)
        )
        random_opening(0)
        return random_opening
    positions = read_openings(game, source)
    return lambda pair: positions[pair % len(positions)]


def make_openings(game: Game, source: str | None, master_seed: int, pairs: int) -> list[str]:
    """The opening of each game pair ``0..pairs-1``.

    Args:
        source: ``None`` (the initial position), ``"random:K"`` (K random plies, seeded by the
            master seed and the pair), or a file (see :func:`read_openings`; pair ``p`` uses its
            position ``p`` modulo their number).

    Raises:
        InvalidOptionError / InvalidRecordError / FileNotFoundError: for a bad source.
    """
    opening = opening_source(game, source, master_seed)
    return [opening(pair) for pair in range(pairs)]


# -- the plan -----------------------------------------------------------------------------------


class PlanTasks(SequenceABC):
    """The games of a tournament as a lazy, read-only sequence of :class:`GameTask`.

    Task ``i`` is pair ``i // (2 * pairings)``, pairing ``(i // 2) % pairings``, colour ``i % 2``;
    its seeds and opening are computed when it is asked for (O(1) memory for any count).
    """

    def __init__(
        self,
        pairings: Sequence[tuple[str, str]],
        pairs: int,
        seed: int,
        opening: Callable[[int], str],
    ) -> None:
        self.pairings = tuple(pairings)
        self.pairs = pairs
        self.seed = seed
        self.opening = opening

    def __len__(self) -> int:
        return 2 * self.pairs * len(self.pairings)

    def position(self, index: int) -> tuple[int, int, int]:
        """``(pairing, pair, colour)`` of task ``index``."""
        pair, rest = divmod(index, 2 * len(self.pairings))
        return rest // 2, pair, rest % 2

    def key(self, index: int) -> tuple[str, str, int]:
        """:attr:`GameTask.key` of task ``index`` (without computing its seeds or opening)."""
        number, pair, colour = self.position(index)
        a, b = self.pairings[number]
        return a, b, 2 * pair + colour

    def _task(self, index: int) -> GameTask:
        number, pair, colour = self.position(index)
        a, b = self.pairings[number]
        seeds = task_seeds(self.seed, number, pair, colour)
        return GameTask(number, a, b, pair, colour, self.opening(pair), seeds)

    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            return [self._task(i) for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(f"task {index} of {len(self)}")
        return self._task(index)

    def __iter__(self) -> Iterator[GameTask]:
        return (self._task(index) for index in range(len(self)))


@dataclass(frozen=True)
class TournamentPlan:
    """Every game of a tournament, in the order they are handed out.

    Attributes:
        rules: the shared game rules.
        pairings: ``(spec_a, spec_b)`` per pairing.
        tasks: all games, pair by pair, interleaving the pairings (pair 0 of every pairing first):
            a lazy sequence (:class:`PlanTasks`).
        seed: the master seed.
    """

    rules: GameRules
    pairings: tuple[tuple[str, str], ...]
    tasks: PlanTasks
    seed: int

    @property
    def specs(self) -> list[str]:
        """The distinct agents, in order of first appearance."""
        return list(dict.fromkeys(spec for pairing in self.pairings for spec in pairing))


def plan_tournament(
    rules: GameRules,
    specs: Sequence[str],
    games_per_pair: int,
    seed: int = 0,
    gauntlet: str | None = None,
    openings: str | None = None,
) -> TournamentPlan:
    """Check everything and list the games of a round-robin (or a gauntlet of ``gauntlet``).

    Args:
        rules: game, time control and adjudication.
        specs: agent specs (two or more for a round robin, one or more opponents for a gauntlet).
        games_per_pair: games per pairing, an even number (whole game pairs).
        seed: master seed.
        gauntlet: play only ``gauntlet`` against each of ``specs``.
        openings: see :func:`make_openings`.

    Raises:
        InvalidOptionError / UnknownGameError / UnknownAgentError: for bad input (before any game),
            e.g. ``games_per_pair`` above :data:`~agents.workers.MAX_GAMES`.
    """
    entry = get_entry(rules.game)
    rules = rules._replace(game=entry.name)
    game = make_game(entry.name)
    seed = check_seed(seed)
    if seed is None:
        raise InvalidOptionError("a tournament needs an integer master seed")
    check_count(games_per_pair, "--games-per-pair", minimum=2)
    if games_per_pair % 2:
        raise InvalidOptionError(
            f"--games-per-pair must be even and >= 2 (games come in pairs with colours swapped), "
            f"got {games_per_pair}"
        )
    specs = [str(spec) for spec in specs]
    if len(set(specs)) != len(specs):
        raise InvalidOptionError(f"an agent is listed twice: {specs}")
    _check_rules(rules, game)
    for spec in [*specs, *([gauntlet] if gauntlet else [])]:
        build_agent(spec, 0, rules.time)  # with the time control's budget, as games build it
    if gauntlet is not None:
        if gauntlet in specs:
            raise InvalidOptionError(f"the gauntlet agent {gauntlet!r} is also an opponent")
        if not specs:
            raise InvalidOptionError("a gauntlet needs at least one opponent")
        pairings = tuple((gauntlet, spec) for spec in specs)
    else:
        if len(specs) < 2:
            raise InvalidOptionError("a round robin needs at least two agents")
        pairings = tuple(
            (specs[i], specs[j]) for i in range(len(specs)) for j in range(i + 1, len(specs))
        )
    tasks = PlanTasks(pairings, games_per_pair // 2, seed, opening_source(game, openings, seed))
    return TournamentPlan(rules, pairings, tasks, seed)


def _check_rules(rules: GameRules, game: Game) -> None:
    clock = rules.time
    for name, value in (("--time", clock.move_seconds), ("--clock", clock.base_seconds)):
        if value is not None and not (math.isfinite(value) and value > 0):
            raise InvalidOptionError(f"{name} must be a positive number of seconds, got {value}")
    if clock.move_seconds is not None and clock.base_seconds is not None:
        raise InvalidOptionError("give --time (per move) or --clock (per game), not both")
    if clock.loss_on_time and clock.base_seconds is None:
        raise InvalidOptionError("--loss-on-time needs a --clock")
    adjudication = rules.adjudication
    if adjudication.max_moves is not None:
        check_count(adjudication.max_moves, "--max-moves", maximum=move_cap(game))
    if adjudication.material_margin is not None:
        if not hasattr(game, "stone_counts"):
            raise InvalidOptionError(
                f"--adjudicate-material needs a game that counts stones (ataxx), not "
                f"{game.info.name}"
            )
        if adjudication.material_margin < 1:
            raise InvalidOptionError(
                f"--adjudicate-material must be at least 1 stone, got "
                f"{adjudication.material_margin}"
            )


# -- playing one game ---------------------------------------------------------------------------


def _takes_seconds(spec: str) -> bool:
    kind, options = parse_spec(spec)
    return any(p.name == "seconds" for p in agent_parameters(kind)) and "seconds" not in options


def build_agent(spec: str, seed: int | None, time_control: TimeControl) -> Any:
    """The agent of ``spec``; with a time control, kinds that take ``seconds`` get a budget."""
    if time_control.active and _takes_seconds(spec):
        budget = time_control.budget(time_control.base_seconds or 0.0)
        kind, options = parse_spec(spec)
        separator = "," if options else ":"
        return make_agent(f"{spec}{separator}seconds={budget!r}", seed=seed)
    return make_agent(spec, seed=seed)


def set_move_seconds(agent: Any, seconds: float) -> bool:
    """Give ``agent`` a time budget for its next decision; ``False`` if it has no time budget."""
    settings = getattr(agent, "settings", None)
    if settings is not None and getattr(settings, "seconds", None) is not None:
        agent.settings = replace(settings, seconds=seconds)
        return True
    if getattr(agent, "seconds", None) is not None:
        agent.seconds = seconds
        return True
    return False


def prepare_agents(
    rules: GameRules, specs: Iterable[str], opening: str | None = None, out: TextIO | None = None
) -> None:
    """Compile every agent of ``specs`` for the game before any clock runs (once per process).

    Calls each agent's ``prepare(game)`` and lets it make two untimed decisions (from ``opening``
    or the initial position), printing ``compiling <spec> for <game> (first use; cached
    afterwards)...`` to ``out`` if given. Numba keeps the compiled code for the process, so the
    fresh agents of each game start at full speed.
    """
    game = make_game(rules.game)
    state = first_decision(game, opening)
    for spec in specs:
        if out is not None:
            print(
                f"compiling {spec} for {game.info.name} (first use; cached afterwards)...",
                file=out,
                flush=True,
            )
        prepare_spec(game, spec, state)


def _material_winner(game: Game, state: Any, margin: int | None) -> int | None:
    if margin is None:
        return None
    stones = game.stone_counts(state)
    if stones[0] - stones[1] >= margin:
        return 0
    if stones[1] - stones[0] >= margin:
        return 1
    return None


def play_task(task: GameTask, rules: GameRules) -> dict[str, Any]:
    """Play one game and return its record.

    Both agents are built fresh from their specs and seeds, ``prepare``-d, told the opening
    (``restart``) and every action (``inform``). Chance is sampled from the task's chance seed.

    Returns:
        A version-2 record (:mod:`mcts_envs.records`; ``returns`` is ``null`` unless the game
        reached its end) with ``index``, ``agents`` (``[spec_a, spec_b]``), ``seat_a``,
        ``pairing``, ``pair``, ``colour``, ``seed`` (``{"a", "b", "chance"}``), ``result``
        (``"a"``, ``"b"`` or ``"draw"``), ``termination`` (``"end"``, ``"move cap"``,
        ``"material"`` or ``"time"``), ``moves`` per seat, and ``timing`` (think seconds and the
        clocks left; not part of :func:`~mcts_envs.records.game_identity`).
    """
    game = make_game(rules.game)
    seed_a, seed_b, seed_chance = task.seeds
    seat_a = task.colour
    agent_a = build_agent(task.spec_a, seed_a, rules.time)
    agent_b = build_agent(task.spec_b, seed_b, rules.time)
    seated = [agent_a, agent_b] if seat_a == 0 else [agent_b, agent_a]
    chance_generator = np.random.default_rng(seed_chance)
    state = game.from_text(task.opening)
    for agent in seated:
        agent.prepare(game)
        agent.restart(state)
    actions: list[int] = []
    chance_indices: list[int] = []
    moves = [0, 0]
    think = [0.0, 0.0]
    base = rules.time.base_seconds
    clock = [base, base] if base is not None else [math.inf, math.inf]
    cap = rules.adjudication.max_moves or move_cap(game)
    winner: int | None = None
    termination = "end"
    while True:
        player = game.current_player(state)
        if player == TERMINAL:
            break
        if sum(moves) >= cap:
            termination = "move cap"
            break
        leader = _material_winner(game, state, rules.adjudication.material_margin)
        if leader is not None:
            winner, termination = leader, "material"
            break
        if player == CHANCE:
            action = sample_chance_outcome(game, state, chance_generator)
            chance_indices.append(len(actions))
        else:
            budget = rules.time.budget(clock[player])
            if budget is not None:
                set_move_seconds(seated[player], budget)
            start = time.perf_counter()
            action = int(seated[player].act_state(game, state))
            used = time.perf_counter() - start
            think[player] += used
            moves[player] += 1
            if base is not None:
                clock[player] += rules.time.increment - used
                if rules.time.loss_on_time and clock[player] < 0:
                    winner, termination = 1 - player, "time"
                    break
        state = game.apply(state, action)
        actions.append(action)
        for agent in seated:
            agent.inform(action)
    finished = game.current_player(state) == TERMINAL
    returns = [float(r) for r in game.returns(state)] if finished else None
    if returns is not None:
        winner = None if returns[0] == returns[1] else int(returns[1] > returns[0])
    result = "draw" if winner is None else ("a" if winner == seat_a else "b")
    players = [task.spec_a, task.spec_b] if seat_a == 0 else [task.spec_b, task.spec_a]
    timing: dict[str, Any] = {"think_seconds": [round(t, 6) for t in think]}
    if base is not None:
        timing["clock_left"] = [round(c, 6) for c in clock]
    return make_record(
        game.info.name,
        task.opening,
        actions,
        chance_indices,
        players,
        returns,
        game.to_text(state),
        seed={"a": seed_a, "b": seed_b, "chance": seed_chance},
        index=task.index,
        agents=[task.spec_a, task.spec_b],
        seat_a=seat_a,
        pairing=task.pairing,
        pair=task.pair,
        colour=task.colour,
        result=result,
        termination=termination,
        moves=moves,
        timing=timing,
    )


# -- the results file ---------------------------------------------------------------------------


def record_key(record: dict[str, Any], where: str = "record") -> tuple[str, str, int]:
    """``(spec_a, spec_b, index)`` of a tournament record (see :attr:`GameTask.key`).

    Raises:
        InvalidRecordError: naming ``where`` if the record has no such key.
    """
    agents = record.get("agents")
    index = record.get("index")
    if not (
        isinstance(agents, list)
        and len(agents) == 2
        and all(isinstance(agent, str) for agent in agents)
        and isinstance(index, int)
        and not isinstance(index, bool)
    ):
        raise InvalidRecordError(f"{where}: it needs 'agents' (two specs) and 'index'")
    return agents[0], agents[1], index


#: The end of every refusal of a results file on resume.
_LEFT_AS_IS = (
    "only a last line without its newline is a write cut by a crash, so the file is left as it "
    "is; resume with the same arguments, or write to another file"
)
#: How a tournament game can end (``termination``); only ``end`` has returns.
_TERMINATIONS = ("end", "move cap", "material", "time")


def _refusal(reason: str) -> InvalidRecordError:
    """The error of a results file that cannot be resumed (``reason`` names the line)."""
    return InvalidRecordError(f"{reason}: not a tournament record; {_LEFT_AS_IS}")


@dataclass
class ResultsFile:
    """An open results file: records already in it, and appends that survive a crash.

    Attributes:
        path: the file.
        records: the records read back on resume (in file order) plus those appended since.
        dropped_line: the number of a last line cut by a crash that was removed, or ``None``.
        lines: the line number of each record read back on resume.
    """

    path: Path
    records: list[dict[str, Any]] = field(default_factory=list)
    dropped_line: int | None = None
    _stream: Any = None
    lines: list[int] = field(default_factory=list)

    def append(self, record: dict[str, Any]) -> None:
        """Write one record as a JSON line, flushed and fsynced before returning."""
        self._stream.write(dumps(record) + "\n")
        self._stream.flush()
        os.fsync(self._stream.fileno())
        self.records.append(record)

    def close(self) -> None:
        """Close the file."""
        if self._stream is not None:
            self._stream.close()
            self._stream = None

    def __enter__(self) -> ResultsFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _read_for_resume(path: Path) -> tuple[list[dict[str, Any]], list[int]]:
    """The records of ``path`` and their line numbers, each checked as ``mcts-envs replay``
    checks a record and as a tournament record (a last line cut by a crash is left out).

    Raises:
        InvalidRecordError: naming the first line that is not a tournament record.
    """
    try:
        scan = scan_records(path)
    except InvalidRecordError as error:
        raise _refusal(str(error)) from None
    for record, number in zip(scan.records, scan.lines, strict=True):
        where = f"{path}, line {number}"
        try:
            validate_record(record, where)
            record_key(record, where)
        except InvalidRecordError as error:
            raise _refusal(str(error)) from None
    return scan.records, scan.lines


def open_results(path: str | os.PathLike, resume: bool, overwrite: bool) -> ResultsFile:
    """Open the results file for appending.

    Args:
        path: the JSON-lines file.
        resume: read the finished games back (every line checked; a last line without its
            newline that is not a record, the cut of a crash, is dropped).
        overwrite: start an existing file afresh.

    Raises:
        InvalidOptionError: if the file exists and neither ``resume`` nor ``overwrite`` is set.
        InvalidRecordError: on resume, naming the first line that is not a tournament record
            (the file is left untouched).
    """
    target = Path(path)
    if target.is_dir():
        raise InvalidOptionError(f"--out {target} is a directory")
    records: list[dict[str, Any]] = []
    lines: list[int] = []
    dropped = None
    if target.exists() and resume:
        records, lines = _read_for_resume(target)
        stream, dropped = open_for_append(target, drop_cut=True)
    elif target.exists() and not overwrite:
        raise InvalidOptionError(
            f"--out {target} exists; pass --resume to continue it, --overwrite to start again, "
            "or choose another file"
        )
    else:
        stream = open(target, "w", encoding="utf-8")  # noqa: SIM115
    return ResultsFile(target, records, dropped, stream, lines)


class PendingTasks:
    """The tasks of a plan not yet played, in plan order (lazy: iterate to get them)."""

    def __init__(self, tasks: PlanTasks, done: set[tuple[str, str, int]]) -> None:
        self.tasks = tasks
        self.done = done

    def __len__(self) -> int:
        return len(self.tasks) - len(self.done)

    def __iter__(self) -> Iterator[GameTask]:
        tasks, done = self.tasks, self.done
        return (tasks[i] for i in range(len(tasks)) if not done or tasks.key(i) not in done)


def _task_of(plan: TournamentPlan, key: tuple[str, str, int]) -> GameTask | None:
    """The task of ``plan`` with ``key``, or ``None``."""
    number = {pairing: n for n, pairing in enumerate(plan.pairings)}.get(key[:2])
    pair, colour = divmod(key[2], 2)
    if number is None or not 0 <= pair < plan.tasks.pairs:
        return None
    return plan.tasks[2 * (pair * len(plan.pairings) + number) + colour]


def _plan_mismatch(plan: TournamentPlan, task: GameTask | None, record: dict[str, Any]) -> str:
    """What in ``record`` differs from the game ``task`` of ``plan`` ("" if nothing)."""
    if task is None:
        return "not a game of the plan"
    seed = record.get("seed") if isinstance(record.get("seed"), dict) else {}
    colour = task.colour
    players = [task.spec_a, task.spec_b][:: 1 - 2 * colour]
    expected = {
        "game": plan.rules.game,
        "seed": {"a": task.seeds[0], "b": task.seeds[1], "chance": task.seeds[2]},
        "initial": task.opening,
        "players": players,
        "seat_a": colour,
        "pairing": task.pairing,
        "pair": task.pair,
        "colour": colour,
    }
    found = {**record, "seed": {key: seed.get(key) for key in ("a", "b", "chance")}}
    for key, value in expected.items():
        if found.get(key) != value:
            return f"its {key!r} is {quote(found.get(key))}, the plan's {quote(value)}"
    returns, result = record["returns"], record.get("result")
    termination = record.get("termination")
    if termination not in _TERMINATIONS or (termination == "end") != (returns is not None):
        return f"its 'termination' {quote(termination)} does not fit its 'returns'"
    if returns is not None:
        winner = None if returns[0] == returns[1] else int(returns[1] > returns[0])
        wanted = {"draw" if winner is None else ("a" if winner == colour else "b")}
    else:  # stopped: a draw at the move cap, a win on material or time
        wanted = {"draw"} if termination == "move cap" else {"a", "b"}
    if result not in wanted:
        return f"its 'result' {quote(result)} does not fit its returns {quote(returns)}"
    return ""


def pending_tasks(
    plan: TournamentPlan, records: Iterable[dict[str, Any]], lines: Sequence[int] = ()
) -> PendingTasks:
    """The tasks of ``plan`` without a record in ``records`` (lazy, with a length).

    Args:
        plan: the tournament.
        records: records read back (checked by :func:`open_results`).
        lines: their line numbers, for messages (default: their positions).

    Raises:
        InvalidRecordError: if a record is not a game of this plan (other agents, game, seeds,
            opening, seats or a result that does not fit its returns): the file belongs to
            another tournament or was edited.
    """
    done = set()
    for position, record in enumerate(records):
        where = f"line {lines[position]}" if position < len(lines) else f"record {position + 1}"
        key = record_key(record, f"{where} of the results file")
        problem = _plan_mismatch(plan, _task_of(plan, key), record)
        if problem:
            raise InvalidRecordError(
                f"{where} of the results file ({key[0]} vs {key[1]}, game {key[2]}) is not a game "
                f"of this tournament: {problem}; resume with the same arguments, or write to "
                "another file"
            )
        done.add(key)
    return PendingTasks(plan.tasks, done)


# -- backends -----------------------------------------------------------------------------------


class BackendError(MctsEnvsError, RuntimeError):
    """A backend that cannot play: Ray does not start or its cluster cannot be reached."""


class Backend(Protocol):
    """Plays tasks and yields their records as they finish."""

    name: str

    def run(
        self, tasks: Iterator[GameTask], rules: GameRules, stopping: Callable[[], bool]
    ) -> Iterator[dict[str, Any]]:
        """Play tasks drawn from ``tasks`` (none once ``stopping()``) and yield every record of a
        game that was started, as it finishes."""
        ...


class LocalBackend:
    """Plays the games one after another in this process."""

    name = "local"

    def run(
        self, tasks: Iterator[GameTask], rules: GameRules, stopping: Callable[[], bool]
    ) -> Iterator[dict[str, Any]]:
        for task in tasks:
            if stopping():
                return
            yield play_task(task, rules)


def _process_worker_start(
    rules: GameRules, specs: list[str], opening: str, agent_modules: list[str]
) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the driver decides when to stop
    exit_with_parent()
    for module in agent_modules:
        import_agent_module(module)
    prepare_agents(rules, specs, opening)


class ProcessBackend:
    """Plays games in ``workers`` worker processes (spawned; each prepares the agents once).

    At most ``workers`` games are in flight; a new one is handed out as one finishes.
    """

    name = "process"

    def __init__(
        self,
        workers: int,
        specs: Sequence[str],
        opening: str,
        agent_modules: Sequence[str] = (),
    ) -> None:
        self.workers = check_workers(workers)
        self.specs = list(specs)
        self.opening = opening
        self.agent_modules = list(agent_modules)

    def run(
        self, tasks: Iterator[GameTask], rules: GameRules, stopping: Callable[[], bool]
    ) -> Iterator[dict[str, Any]]:
        import multiprocessing

        context = multiprocessing.get_context("spawn")
        pool = ProcessPoolExecutor(
            max_workers=self.workers,
            mp_context=context,
            initializer=_process_worker_start,
            initargs=(rules, self.specs, self.opening, self.agent_modules),
        )
        in_flight: set[Future] = set()
        try:
            while True:
                while len(in_flight) < self.workers and not stopping():
                    task = next(tasks, None)
                    if task is None:
                        break
                    in_flight.add(pool.submit(play_task, task, rules))
                if not in_flight:
                    break
                finished, in_flight = wait(in_flight, return_when=FIRST_COMPLETED)
                for future in finished:
                    yield future.result()
        except BaseException:  # an abort (second Ctrl-C) or an error: do not wait for games
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        pool.shutdown(wait=True)


def make_backend(
    name: str,
    workers: int,
    specs: Sequence[str],
    opening: str,
    address: str | None = None,
    agent_modules: Sequence[str] = (),
) -> Backend:
    """The backend called ``name`` (``local``, ``process`` or ``ray``).

    ``agent_modules`` are imported in every worker first (they register extra agent kinds).

    Raises:
        InvalidOptionError: for an unknown name or bad worker count (more than
            :func:`agents.workers.max_workers`, except on a Ray cluster given by ``address``).
        OptionalDependencyError: for ``ray`` without Ray installed.
    """
    if name == "local":
        if workers != 1:
            raise InvalidOptionError("the local backend plays in this process: --workers 1 only")
        return LocalBackend()
    if name == "process":
        return ProcessBackend(workers, specs, opening, agent_modules)
    if name == "ray":
        from agents.backends.ray_backend import RayBackend

        return RayBackend(workers, specs, opening, address=address, agent_modules=agent_modules)
    raise InvalidOptionError(f"unknown backend {name!r}; choose local, process or ray")


# -- running a tournament -----------------------------------------------------------------------


class StopFlag:
    """Set by SIGINT (or an SPRT decision): stop handing out games; a second SIGINT aborts."""

    def __init__(self) -> None:
        self.reason: str | None = None
        self.interrupted = False

    def __call__(self) -> bool:
        return self.reason is not None

    def stop(self, reason: str) -> None:
        """Stop handing out games (the first reason is kept)."""
        if self.reason is None:
            self.reason = reason

    @contextlib.contextmanager
    def catching_sigint(self, out: TextIO | None) -> Iterator[None]:
        """While active, SIGINT sets the flag (once) and raises ``KeyboardInterrupt`` the 2nd time."""
        if threading.current_thread() is not threading.main_thread():
            yield
            return

        def handler(signum: int, frame: Any) -> None:
            if self.interrupted:
                raise KeyboardInterrupt
            self.interrupted = True
            self.stop("interrupted")
            if out is not None:
                print(
                    "\ninterrupted: finishing the games in flight (Ctrl-C again to abort)",
                    file=out,
                    flush=True,
                )

        previous = signal.signal(signal.SIGINT, handler)
        try:
            yield
        finally:
            signal.signal(signal.SIGINT, previous)


class Monitor(Protocol):
    """Sees each record as it is written and may close pairings (e.g. an SPRT that decided).

    Attributes:
        closed: pairing numbers whose remaining games are not to be played.
    """

    closed: set[int]

    def update(self, record: dict[str, Any]) -> None:
        """Take one record (already written)."""
        ...


def run_tournament(
    plan: TournamentPlan,
    results: ResultsFile,
    backend: Backend,
    monitors: Sequence[Monitor] = (),
    stop: StopFlag | None = None,
    progress: Callable[[dict[str, Any]], None] | None = None,
) -> StopFlag:
    """Play the games of ``plan`` missing from ``results`` and append their records.

    Args:
        plan: the tournament.
        results: the open results file (resumed or new).
        backend: where games are played.
        monitors: told of every record (the resumed ones first); games of a pairing a monitor
            closed are not handed out (those in flight still finish and are written).
        stop: the stop flag (SIGINT handling is the caller's, see :meth:`StopFlag.catching_sigint`).
        progress: called with every new record.

    Returns:
        The stop flag: ``reason`` is ``None`` unless the run was stopped before its end.
    """
    stop = stop or StopFlag()
    todo = pending_tasks(plan, results.records, results.lines)
    for monitor in monitors:
        for record in results.records:
            monitor.update(record)

    def closed(task: GameTask) -> bool:
        return any(task.pairing in monitor.closed for monitor in monitors)

    tasks = (task for task in todo if not closed(task))
    for record in backend.run(tasks, plan.rules, stop):
        results.append(record)
        if progress is not None:
            progress(record)
        for monitor in monitors:
            monitor.update(record)
    return stop
