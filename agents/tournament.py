"""Resumable tournaments: round-robin or gauntlet, paired openings, time controls, backends.

A tournament is a list of *pairings* (two agent specs) and, for each, ``games_per_pair`` games
played in pairs: game pair ``p`` starts both games from opening ``p`` (the same position for every
pairing) with the colours swapped, so the opening's bias cancels within the pair.

Every game is a :class:`GameTask` whose seeds come only from ``(master seed, pairing, pair,
colour)`` (agents) and ``(master seed, pair)`` (chance, so both games of a pair and every pairing
draw from the same sequence). A game's record therefore does not depend on the backend, on the
number of workers, or on the order in which games finish (compare records with
:func:`mcts_envs.records.game_identity`; searches limited by *time* are the exception).

Results are appended to a JSON-lines file, one version-2 record per game
(:mod:`mcts_envs.records`), flushed and fsynced as each game ends, in the order the games end.
:func:`open_results` resumes such a file: finished games are skipped, and a last line cut by a
crash is dropped (its game is played again). SIGINT stops handing out games, lets the games in
flight finish and be written, and the command exits with status 130; SIGKILL loses at most the games
in flight. Worker processes die with their parent (:func:`agents.workers.exit_with_parent`).

Backends: ``local`` (this process), ``process`` (a pool of worker processes) and ``ray``
(:mod:`agents.backends.ray_backend`, the ``ray`` extra).
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import signal
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, NamedTuple, Protocol, TextIO

import numpy as np

from agents.preparation import first_decision, prepare_spec
from agents.spec import agent_parameters, import_agent_module, make_agent, parse_spec
from agents.uai_agent import EngineForfeitError
from agents.workers import exit_with_parent
from mcts_envs.core.compiling import compile_notice
from mcts_envs.core.errors import InvalidOptionError, InvalidRecordError
from mcts_envs.core.game import CHANCE, TERMINAL, Game, sample_chance_outcome
from mcts_envs.core.registry import get_entry, make_game
from mcts_envs.core.seeding import check_seed
from mcts_envs.records import check_record, dumps, make_record, quote

__all__ = [
    "Adjudication",
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

    Raises:
        InvalidRecordError: naming the line of a position that does not parse, or a file with no
            position.
        FileNotFoundError: if the file does not exist.
    """
    openings = []
    with open(path, encoding="utf-8", errors="strict") as stream:
        for number, line in enumerate(stream, start=1):
            text = line.strip()
            if not text or text.startswith("#"):
                continue
            where = f"{path}, line {number}"
            if text.startswith("{"):
                try:
                    text = check_record(json.loads(text), where)["final"]
                except json.JSONDecodeError as error:
                    raise InvalidRecordError(f"{where}: not valid JSON ({error.msg})") from None
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


def make_openings(game: Game, source: str | None, master_seed: int, pairs: int) -> list[str]:
    """The opening of each game pair ``0..pairs-1``.

    Args:
        source: ``None`` (the initial position), ``"random:K"`` (K random plies, seeded by the
            master seed and the pair), or a file (see :func:`read_openings`; pair ``p`` uses its
            position ``p`` modulo their number).

    Raises:
        InvalidOptionError / InvalidRecordError / FileNotFoundError: for a bad source.
    """
    if source is None:
        return [game.to_text(game.initial_state())] * pairs
    kind, colon, rest = source.partition(":")
    if kind == "random" and colon:
        try:
            plies = int(rest)
        except ValueError:
            plies = -1
        if plies < 0:
            raise InvalidOptionError(
                f"--openings random:K needs K >= 0 random plies, got {quote(source)}"
            )
        return [_random_opening(game, plies, master_seed, pair) for pair in range(pairs)]
    positions = read_openings(game, source)
    return [positions[pair % len(positions)] for pair in range(pairs)]


# -- the plan -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class TournamentPlan:
    """Every game of a tournament, in the order they are handed out.

    Attributes:
        rules: the shared game rules.
        pairings: ``(spec_a, spec_b)`` per pairing.
        tasks: all games, pair by pair, interleaving the pairings (pair 0 of every pairing first).
        seed: the master seed.
    """

    rules: GameRules
    pairings: tuple[tuple[str, str], ...]
    tasks: tuple[GameTask, ...]
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
        InvalidOptionError / UnknownGameError / UnknownAgentError: for bad input (before any game).
    """
    entry = get_entry(rules.game)
    rules = rules._replace(game=entry.name)
    game = make_game(entry.name)
    seed = check_seed(seed)
    if seed is None:
        raise InvalidOptionError("a tournament needs an integer master seed")
    if isinstance(games_per_pair, bool) or not isinstance(games_per_pair, int):
        raise InvalidOptionError(f"--games-per-pair must be an int, got {games_per_pair!r}")
    if games_per_pair < 2 or games_per_pair % 2:
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
    pairs = games_per_pair // 2
    opening_texts = make_openings(game, openings, seed, pairs)
    tasks = tuple(
        GameTask(
            number, a, b, pair, colour, opening_texts[pair], task_seeds(seed, number, pair, colour)
        )
        for pair in range(pairs)
        for number, (a, b) in enumerate(pairings)
        for colour in (0, 1)
    )
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
    if adjudication.max_moves is not None and adjudication.max_moves < 1:
        raise InvalidOptionError(f"--max-moves must be at least 1, got {adjudication.max_moves}")
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
    afterwards)...`` and then the seconds it took to ``out`` if given, only when numba really
    compiles (:func:`mcts_envs.core.compiling.compile_notice`). Numba keeps the compiled code
    for the process, so the fresh agents of each game start at full speed.
    """
    game = make_game(rules.game)
    state = first_decision(game, opening)
    announce = None if out is None else lambda text: print(text, file=out, flush=True)
    for spec in specs:
        with compile_notice(f"{spec} for {game.info.name}", announce):
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
        ``"material"``, ``"time"`` or ``"forfeit"``: an engine's illegal move, crash or timeout,
        with ``forfeit``: ``{"seat", "reason", "line", "message"}``), ``moves`` per seat, and
        ``timing`` (think seconds and the clocks left; not part of
        :func:`~mcts_envs.records.game_identity`).
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
    cap = rules.adjudication.max_moves or 100 * max(game.info.max_game_length, 1)
    winner: int | None = None
    termination = "end"
    forfeit: dict[str, Any] | None = None
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
            try:
                action = int(seated[player].act_state(game, state))
            except EngineForfeitError as failure:  # it loses this game; the tournament goes on
                forfeit = failure.forfeit(player)
            used = time.perf_counter() - start
            think[player] += used
            if forfeit is not None:
                winner, termination = 1 - player, "forfeit"
                break
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
        **({} if forfeit is None else {"forfeit": forfeit}),
    )


# -- the results file ---------------------------------------------------------------------------


def record_key(record: dict[str, Any]) -> tuple[str, str, int]:
    """``(spec_a, spec_b, index)`` of a tournament record (see :attr:`GameTask.key`)."""
    agents = record.get("agents")
    index = record.get("index")
    if not (isinstance(agents, list) and len(agents) == 2 and isinstance(index, int)):
        raise InvalidRecordError("not a tournament record: it needs 'agents' and 'index'")
    return str(agents[0]), str(agents[1]), index


@dataclass
class ResultsFile:
    """An open results file: records already in it, and appends that survive a crash.

    Attributes:
        path: the file.
        records: the records read back on resume (in file order) plus those appended since.
        dropped_line: the number of a last line cut by a crash that was removed, or ``None``.
    """

    path: Path
    records: list[dict[str, Any]] = field(default_factory=list)
    dropped_line: int | None = None
    _stream: Any = None

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


def _read_for_resume(path: Path) -> tuple[list[dict[str, Any]], int, int | None]:
    """Records of ``path``, the byte length of its good part, and a dropped last line's number."""
    data = path.read_bytes()
    records: list[dict[str, Any]] = []
    offset = 0
    lines = data.split(b"\n")
    complete = lines[:-1]  # the part after the last newline is a cut line (or empty)
    for number, raw in enumerate(complete, start=1):
        where = f"{path}, line {number}"
        end = offset + len(raw) + 1
        if raw.strip():
            try:
                record = json.loads(raw.decode("utf-8"))
                check_record(record, where)
                record_key(record)
            except (UnicodeDecodeError, json.JSONDecodeError, InvalidRecordError) as error:
                if number == len(complete) and not lines[-1]:
                    # A last line that ends in a newline but does not parse: a crash mid-write.
                    return records, offset, number
                raise InvalidRecordError(
                    f"{where}: not a tournament record ({error}); only the last line may be cut "
                    "by a crash, so the file is left as it is"
                ) from None
            records.append(record)
        offset = end
    if lines[-1]:
        return records, offset, len(complete) + 1
    return records, offset, None


def open_results(path: str | os.PathLike, resume: bool, overwrite: bool) -> ResultsFile:
    """Open the results file for appending.

    Args:
        path: the JSON-lines file.
        resume: read the finished games back (and drop a last line cut by a crash).
        overwrite: start an existing file afresh.

    Raises:
        InvalidOptionError: if the file exists and neither ``resume`` nor ``overwrite`` is set.
        InvalidRecordError: on resume, if a line other than the last is not a record.
    """
    target = Path(path)
    if target.is_dir():
        raise InvalidOptionError(f"--out {target} is a directory")
    records: list[dict[str, Any]] = []
    dropped = None
    if target.exists() and resume:
        records, good_bytes, dropped = _read_for_resume(target)
        if dropped is not None:
            with open(target, "r+b") as stream:
                stream.truncate(good_bytes)
                os.fsync(stream.fileno())
        stream = open(target, "a", encoding="utf-8")  # noqa: SIM115
    elif target.exists() and not overwrite:
        raise InvalidOptionError(
            f"--out {target} exists; pass --resume to continue it, --overwrite to start again, "
            "or choose another file"
        )
    else:
        stream = open(target, "w", encoding="utf-8")  # noqa: SIM115
    return ResultsFile(target, records, dropped, stream)


def pending_tasks(plan: TournamentPlan, records: Iterable[dict[str, Any]]) -> list[GameTask]:
    """The tasks of ``plan`` without a record in ``records``.

    Raises:
        InvalidRecordError: if a record is not a game of this plan (other agents, game, seeds or
            opening): the file belongs to another tournament.
    """
    by_key = {task.key: task for task in plan.tasks}
    done = set()
    for number, record in enumerate(records, start=1):
        key = record_key(record)
        task = by_key.get(key)
        expected = None if task is None else {"a": task.seeds[0], "b": task.seeds[1]}
        seed = record.get("seed") if isinstance(record.get("seed"), dict) else {}
        if (
            task is None
            or record.get("game") != plan.rules.game
            or {"a": seed.get("a"), "b": seed.get("b")} != expected
            or seed.get("chance") != task.seeds[2]
            or record.get("initial") != task.opening
        ):
            raise InvalidRecordError(
                f"record {number} of the results file ({key[0]} vs {key[1]}, game {key[2]}) is not "
                "a game of this tournament (different agents, game, seed or openings); resume with "
                "the same arguments, or write to another file"
            )
        done.add(key)
    return [task for task in plan.tasks if task.key not in done]


# -- backends -----------------------------------------------------------------------------------


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
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            raise InvalidOptionError(f"--workers must be an int >= 1, got {workers!r}")
        self.workers = workers
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
        InvalidOptionError: for an unknown name or bad worker count.
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
    todo = pending_tasks(plan, results.records)
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
