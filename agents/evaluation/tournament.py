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
in flight. Worker processes die with their parent (:func:`mcts_envs.agents.evaluation.backends.workers.exit_with_parent`).

Backends: ``local`` (this process), ``process`` (a pool of worker processes) and ``ray``
(:mod:`mcts_envs.agents.evaluation.backends.ray_backend`, the ``ray`` extra).
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import signal
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, TextIO

import numpy as np

from mcts_envs.agents.evaluation.backends import Backend, make_backend
from mcts_envs.agents.evaluation.backends.local import LocalBackend
from mcts_envs.agents.evaluation.backends.process import ProcessBackend
from mcts_envs.agents.evaluation.backends.workers import MAX_GAMES, check_count
from mcts_envs.agents.evaluation.games import (
    OPENING_STREAM,
    TERMINATIONS,
    Adjudication,
    GameRules,
    GameTask,
    TimeControl,
    build_agent,
    parse_clock,
    play_game,
    prepare_agents,
    result_of,
    task_seeds,
    winner_of,
)
from mcts_envs.core.errors import InvalidOptionError, InvalidRecordError
from mcts_envs.core.game import CHANCE, TERMINAL, Game, sample_chance_outcome
from mcts_envs.core.registry import get_entry, make_game
from mcts_envs.core.seeding import check_seed
from mcts_envs.records import (
    bounded_lines,
    check_record,
    dumps,
    move_cap,
    open_for_append,
    quote,
    scan_records,
    validate_record,
)

#: The one game loop under its former name (kept for one release).
play_task = play_game

__all__ = [
    "Adjudication",
    "Backend",
    "GameRules",
    "GameTask",
    "LocalBackend",
    "Openings",
    "ProcessBackend",
    "ResultsFile",
    "TaskList",
    "TimeControl",
    "TournamentPlan",
    "build_agent",
    "make_backend",
    "make_openings",
    "open_results",
    "parse_clock",
    "pending_tasks",
    "plan_match",
    "plan_tournament",
    "play_game",
    "play_task",
    "prepare_agents",
    "run_tournament",
    "task_seeds",
]

#: A random opening that ends the game is drawn again, at most this many times.
_OPENING_ATTEMPTS = 100
#: Most lines an openings file may have (blank lines and comments included).
MAX_OPENING_LINES = 1_000_000


# -- openings ----------------------------------------------------------------------------------


def _random_opening(game: Game, plies: int, master_seed: int, pair: int) -> str:
    """The text of a position after ``plies`` uniformly random decisions (chance sampled)."""
    for attempt in range(_OPENING_ATTEMPTS):
        generator = np.random.default_rng(
            np.random.SeedSequence(master_seed, spawn_key=(OPENING_STREAM, pair, attempt))
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


class Openings:
    """The opening of each game pair, made when asked (no list of every pair is kept).

    Args:
        game: the game.
        source: ``None`` (the initial position), ``"random:K"`` (K random plies, seeded by the
            master seed and the pair), or a file (see :func:`read_openings`; pair ``p`` uses its
            position ``p`` modulo their number).
        master_seed: the tournament's master seed.

    Raises:
        InvalidOptionError / InvalidRecordError / FileNotFoundError: for a bad source.
    """

    def __init__(self, game: Game, source: str | None, master_seed: int) -> None:
        self.game = game
        self.master_seed = master_seed
        self.plies: int | None = None
        self.positions: list[str] = []
        self._last: tuple[int, str] | None = None  # the pair asked last (both colours ask)
        if source is None:
            self.positions = [game.to_text(game.initial_state())]
            return
        kind, colon, rest = source.partition(":")
        if kind == "random" and colon:
            try:
                plies = int(rest)
            except ValueError:
                plies = -1
            most = 10 * max(game.info.max_game_length, 1)
            if not 0 <= plies <= most:
                raise InvalidOptionError(
                    f"--openings random:K needs 0 <= K <= {most} random plies, got {quote(source)}"
                )
            self.plies = plies
            self[0]  # an opening that cannot be made fails before any game
            return
        self.positions = read_openings(game, source)

    def __getitem__(self, pair: int) -> str:
        if self.plies is None:
            return self.positions[pair % len(self.positions)]
        if self._last is None or self._last[0] != pair:
            self._last = (pair, _random_opening(self.game, self.plies, self.master_seed, pair))
        return self._last[1]


def make_openings(game: Game, source: str | None, master_seed: int, pairs: int) -> list[str]:
    """The openings of game pairs ``0..pairs-1`` as a list (see :class:`Openings`)."""
    openings = Openings(game, source, master_seed)
    return [openings[pair] for pair in range(pairs)]


# -- the plan -----------------------------------------------------------------------------------


class TaskList(Sequence[GameTask]):
    """The games of a plan in the order they are handed out, each made when asked.

    Game pair by game pair, interleaving the pairings (pair 0 of every pairing first), both
    colours of a pair in a row; the first ``count`` of them. O(1) memory, whatever the count.
    """

    def __init__(
        self,
        pairings: tuple[tuple[str, str], ...],
        openings: Openings,
        seed: int,
        count: int,
    ) -> None:
        self.pairings = pairings
        self.openings = openings
        self.seed = seed
        self.count = count

    def task(self, pairing: int, pair: int, colour: int) -> GameTask:
        """The game of ``pairing``'s game pair ``pair`` with colour ``colour``."""
        a, b = self.pairings[pairing]
        return GameTask(
            pairing, a, b, pair, colour, self.openings[pair],
            task_seeds(self.seed, pairing, pair, colour),
        )  # fmt: skip

    def position(self, pairing: int, pair: int, colour: int) -> int:
        """Where that game is in the list (it is in the plan if this is below ``len(self)``)."""
        return (pair * len(self.pairings) + pairing) * 2 + colour

    def __len__(self) -> int:
        return self.count

    def __getitem__(self, k):  # type: ignore[override]
        if isinstance(k, slice):
            return [self[i] for i in range(*k.indices(self.count))]
        if k < 0:
            k += self.count
        if not 0 <= k < self.count:
            raise IndexError(f"task {k} of {self.count}")
        colour = k % 2
        pairing = (k // 2) % len(self.pairings)
        pair = k // (2 * len(self.pairings))
        return self.task(pairing, pair, colour)

    def __iter__(self) -> Iterator[GameTask]:
        return (self[k] for k in range(self.count))


@dataclass(frozen=True)
class TournamentPlan:
    """Every game of a tournament (or a match: one pairing), in the order they are handed out.

    Attributes:
        rules: the shared game rules.
        pairings: ``(spec_a, spec_b)`` per pairing.
        tasks: all games (:class:`TaskList`, made on demand).
        seed: the master seed.
    """

    rules: GameRules
    pairings: tuple[tuple[str, str], ...]
    tasks: TaskList
    seed: int

    @property
    def specs(self) -> list[str]:
        """The distinct agents, in order of first appearance."""
        return list(dict.fromkeys(spec for pairing in self.pairings for spec in pairing))

    def task_of(self, key: tuple[str, str, int]) -> GameTask | None:
        """The planned game with ``key`` (``(spec_a, spec_b, index)``), or ``None``."""
        spec_a, spec_b, index = key
        try:
            pairing = self.pairings.index((spec_a, spec_b))
        except ValueError:
            return None
        if not (isinstance(index, int) and index >= 0):
            return None
        pair, colour = divmod(index, 2)
        if self.tasks.position(pairing, pair, colour) >= len(self.tasks):
            return None
        return self.tasks.task(pairing, pair, colour)


def _plan(
    rules: GameRules,
    pairings: Sequence[tuple[str, str]],
    count: int,
    seed: int | None,
    openings: str | None,
) -> TournamentPlan:
    """Check the rules and agents, then make the plan of the first ``count`` games."""
    entry = get_entry(rules.game)
    rules = rules._replace(game=entry.name)
    game = make_game(entry.name)
    seed = check_seed(seed)
    if seed is None:
        raise InvalidOptionError("a tournament needs an integer master seed")
    _check_rules(rules, game)
    for spec in dict.fromkeys(spec for pairing in pairings for spec in pairing):
        build_agent(spec, 0, rules.time)  # with the time control's budget, as games build it
    tasks = TaskList(tuple(pairings), Openings(game, openings, seed), seed, count)
    return TournamentPlan(rules, tuple(pairings), tasks, seed)


def plan_tournament(
    rules: GameRules,
    specs: Sequence[str],
    games_per_pair: int,
    seed: int = 0,
    gauntlet: str | None = None,
    openings: str | None = None,
) -> TournamentPlan:
    """Check everything and plan the games of a round-robin (or a gauntlet of ``gauntlet``).

    Args:
        rules: game, time control and adjudication.
        specs: agent specs (two or more for a round robin, one or more opponents for a gauntlet).
        games_per_pair: games per pairing, an even number (whole game pairs), at most
            :data:`MAX_GAMES`.
        seed: master seed.
        gauntlet: play only ``gauntlet`` against each of ``specs``.
        openings: see :class:`Openings`.

    Raises:
        InvalidOptionError / UnknownGameError / UnknownAgentError: for bad input (before any game).
    """
    check_count(games_per_pair, "--games-per-pair", minimum=2)
    if games_per_pair % 2:
        raise InvalidOptionError(
            f"--games-per-pair must be even and >= 2 (games come in pairs with colours swapped), "
            f"got {games_per_pair}"
        )
    specs = [str(spec) for spec in specs]
    if len(set(specs)) != len(specs):
        raise InvalidOptionError(f"an agent is listed twice: {specs}")
    if gauntlet is not None:
        if gauntlet in specs:
            raise InvalidOptionError(f"the gauntlet agent {gauntlet!r} is also an opponent")
        if not specs:
            raise InvalidOptionError("a gauntlet needs at least one opponent")
        pairings = [(gauntlet, spec) for spec in specs]
    else:
        if len(specs) < 2:
            raise InvalidOptionError("a round robin needs at least two agents")
        pairings = [
            (specs[i], specs[j]) for i in range(len(specs)) for j in range(i + 1, len(specs))
        ]
    if games_per_pair * len(pairings) > MAX_GAMES:
        raise InvalidOptionError(
            f"{len(pairings)} pairings x {games_per_pair:,} games is more than {MAX_GAMES:,} games"
        )
    return _plan(rules, pairings, games_per_pair * len(pairings), seed, openings)


def plan_match(
    rules: GameRules,
    spec_a: str,
    spec_b: str,
    num_games: int,
    seed: int = 0,
    openings: str | None = None,
) -> TournamentPlan:
    """A match as a tournament of one pairing: its first ``num_games`` games.

    With an even ``num_games`` this is exactly the plan of ``plan_tournament(rules, [spec_a,
    spec_b], num_games, seed, openings=openings)``: the same games, seeds and records; an odd count
    ends with the first game of a pair.

    Raises:
        InvalidOptionError / UnknownGameError / UnknownAgentError: for bad input (before any game).
    """
    check_count(num_games, "--games")
    return _plan(rules, [(str(spec_a), str(spec_b))], num_games, seed, openings)


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


def _refusal(reason: str) -> InvalidRecordError:
    """The error of a results file that cannot be resumed (``reason`` names the line)."""
    return InvalidRecordError(f"{reason}: not a tournament record; {_LEFT_AS_IS}")


@dataclass
class ResultsFile:
    """An open results file: records already in it, and appends that survive a crash.

    With ``path`` ``None`` the records are only kept in memory (a match without ``--out``).

    Attributes:
        path: the file, or ``None``.
        records: the records read back on resume (in file order) plus those appended since.
        dropped_line: the number of a last line cut by a crash that was removed, or ``None``.
        lines: the line number of each record read back on resume.
    """

    path: Path | None
    records: list[dict[str, Any]] = field(default_factory=list)
    dropped_line: int | None = None
    _stream: Any = None
    lines: list[int] = field(default_factory=list)

    def append(self, record: dict[str, Any]) -> None:
        """Keep one record; with a file, write it as a JSON line, flushed and fsynced first."""
        if self._stream is not None:
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
    if termination not in TERMINATIONS or (termination == "end") != (returns is not None):
        return f"its 'termination' {quote(termination)} does not fit its 'returns'"
    if returns is not None:
        wanted = {result_of(winner_of(returns), colour)}
    else:  # stopped: a draw at the move cap, a win on material or time
        wanted = {"draw"} if termination == "move cap" else {"a", "b"}
    if result not in wanted:
        return f"its 'result' {quote(result)} does not fit its returns {quote(returns)}"
    return ""


def done_keys(
    plan: TournamentPlan,
    records: Iterable[dict[str, Any]],
    lines: Sequence[int] = (),
    what: str = "a game of this tournament",
) -> set[tuple[str, str, int]]:
    """The keys of the games of ``plan`` that ``records`` already hold.

    Args:
        plan: the tournament.
        records: records read back (checked by :func:`open_results`).
        lines: their line numbers, for messages (default: their positions).
        what: what each record should be, for messages (e.g. a ladder names its run).

    Raises:
        InvalidRecordError: if a record is not a game of this plan (other agents, game, seeds,
            opening, seats or a result that does not fit its returns): the file belongs to
            another tournament or was edited.
    """
    done = set()
    for position, record in enumerate(records):
        where = f"line {lines[position]}" if position < len(lines) else f"record {position + 1}"
        key = record_key(record, f"{where} of the results file")
        problem = _plan_mismatch(plan, plan.task_of(key), record)
        if problem:
            raise InvalidRecordError(
                f"{where} of the results file ({quote(key[0])} vs {quote(key[1])}, game "
                f"{key[2]}) is not {what}: {problem}; resume with the same "
                "arguments, or write to another file"
            )
        done.add(key)
    return done


def pending_tasks(
    plan: TournamentPlan, records: Iterable[dict[str, Any]], lines: Sequence[int] = ()
) -> Iterator[GameTask]:
    """The tasks of ``plan`` without a record in ``records``, in plan order (made lazily).

    Raises:
        InvalidRecordError: as :func:`done_keys` (before the first task is yielded).
    """
    done = done_keys(plan, records, lines)
    return (task for task in plan.tasks if task.key not in done)


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
