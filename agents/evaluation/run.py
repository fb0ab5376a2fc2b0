"""The run of a plan: the one function that plays the games of a match, tournament, ladder build,
expert dataset or experiment.

:func:`run_plan` takes a plan (:mod:`mcts_envs.agents.evaluation.plan`), builds the backend from it
(:func:`mcts_envs.agents.evaluation.backends.make_backend`), opens the results file
(:mod:`mcts_envs.agents.evaluation.results_file`, resumed or new), prepares (compiles) every agent
in this process before any clock runs, plays the games the file is missing and returns every record.
Where and how games are played is a :class:`RunSettings`; what the caller sees on the way (notices,
each record, monitors that close pairings, a stop flag, a progress bar) is a :class:`RunHooks`.

SIGINT (with ``RunHooks(catch_sigint=True)``) stops handing out games, lets the games in flight
finish and be written; a second SIGINT aborts. An agent whose server or engine keeps failing stops
the run the same way, then raises :class:`~mcts_envs.agents.evaluation.faults.InfrastructureError`
(``RunSettings.fault_limit`` games in a row; :mod:`mcts_envs.agents.evaluation.faults`). SIGKILL loses at most the games in flight. Worker
processes die with their parent
(:func:`mcts_envs.agents.evaluation.backends.workers.exit_with_parent`).
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol

from mcts_envs.agents.evaluation.backends import Backend, make_backend
from mcts_envs.agents.evaluation.faults import (
    DEFAULT_FAULT_LIMIT,
    FaultWatch,
    InfrastructureError,
    check_fault_limit,
)
from mcts_envs.agents.evaluation.games import GameRules, GameTask, prepare_agents
from mcts_envs.agents.evaluation.plan import TournamentPlan
from mcts_envs.agents.evaluation.progress import ProgressBar
from mcts_envs.agents.evaluation.results_file import ResultsFile, done_keys, open_results

__all__ = ["Monitor", "RunHooks", "RunOutcome", "RunSettings", "StopFlag", "run_plan"]


class StopFlag:
    """Set by SIGINT (or a caller's decision): stop handing out games; a second SIGINT aborts."""

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
    def catching_sigint(self, announce: Callable[[str], None] | None) -> Iterator[None]:
        """While active (in the main thread), SIGINT sets the flag (once, telling ``announce``)
        and raises ``KeyboardInterrupt`` the second time."""
        if threading.current_thread() is not threading.main_thread():
            yield
            return

        def handler(signum: int, frame: Any) -> None:
            if self.interrupted:
                raise KeyboardInterrupt
            self.interrupted = True
            self.stop("interrupted")
            if announce is not None:
                announce("\ninterrupted: finishing the games in flight (Ctrl-C again to abort)")

        previous = signal.signal(signal.SIGINT, handler)
        try:
            yield
        finally:
            signal.signal(signal.SIGINT, previous)


class Monitor(Protocol):
    """Sees every record (the resumed ones first, then each as it is written) and may close
    pairings (e.g. an SPRT that decided).

    Attributes:
        closed: pairing numbers whose remaining games are not to be played.
    """

    closed: set[int]

    def update(self, record: dict[str, Any]) -> None:
        """Take one record (already written)."""
        ...


@dataclass(frozen=True)
class RunSettings:
    """Where and how the games of a plan are played; none of it changes a record.

    Attributes:
        out: the JSON-lines results file, or ``None`` (records kept in memory only).
        resume: continue ``out``: play only the games it is missing.
        overwrite: start an existing ``out`` afresh.
        backend: ``local``, ``process`` or ``ray`` (``None``: local for one worker, else process).
        workers: games in flight.
        address: the Ray cluster of the ``ray`` backend (``None``: start one).
        agent_modules: modules every worker imports first (they call ``register_agent``); the
            plan's agents must already be known here (import the modules before planning).
        play: the game loop ``(task, rules) -> record`` (``None``:
            :func:`~mcts_envs.agents.evaluation.games.play_game`), e.g. one that also records
            training data; picklable for the process and Ray backends.
        fault_limit: stop once an agent has lost this many games in a row to faults of its
            server or engine (:mod:`~mcts_envs.agents.evaluation.faults`); ``None``: play on.
    """

    out: str | os.PathLike | None = None
    resume: bool = False
    overwrite: bool = False
    backend: str | None = None
    workers: int = 1
    address: str | None = None
    agent_modules: tuple[str, ...] = ()
    play: Callable[[GameTask, GameRules], dict[str, Any]] | None = None
    fault_limit: int | None = DEFAULT_FAULT_LIMIT

    def __post_init__(self) -> None:
        check_fault_limit(self.fault_limit)


@dataclass(frozen=True)
class RunHooks:
    """What the caller of :func:`run_plan` sees while the games are played.

    Attributes:
        announce: told, one line each, of a cut last line removed from ``out``, the plan (games,
            how many are already played, the backend), compiling, and each agent's preparation
            time; e.g. :data:`mcts_envs.core.compiling.print_to_stderr`.
        on_record: called with each new record once it is written.
        monitors: told of every record (the resumed ones first); games of a pairing a monitor
            closed are not handed out (those in flight still finish and are written).
        stop: a flag the caller may set to stop handing out games (default: a fresh one).
        catch_sigint: SIGINT sets the stop flag instead of raising (the command line's Ctrl-C).
        progress: show a progress bar on stderr with the W/D/L and Elo of the plan's first agent.
    """

    announce: Callable[[str], None] | None = None
    on_record: Callable[[dict[str, Any]], None] | None = None
    monitors: Sequence[Monitor] = ()
    stop: StopFlag | None = None
    catch_sigint: bool = False
    progress: bool = False


class RunOutcome(NamedTuple):
    """What a run left.

    Attributes:
        records: every record of the results file, resumed and new, in file order (the order
            the games ended).
        played: how many games this run played.
        seconds: wall-clock seconds spent playing (after preparation).
        stopped: why the run stopped before its end (``"interrupted"`` by SIGINT, or a reason
            given to the stop flag), or ``None``.
    """

    records: list[dict[str, Any]]
    played: int
    seconds: float
    stopped: str | None

    @property
    def interrupted(self) -> bool:
        """Whether SIGINT stopped the run."""
        return self.stopped == "interrupted"


def _open(settings: RunSettings) -> ResultsFile:
    if settings.out is None:
        return ResultsFile(None)
    return open_results(settings.out, settings.resume, settings.overwrite)


def run_plan(
    plan: TournamentPlan, settings: RunSettings | None = None, hooks: RunHooks | None = None
) -> RunOutcome:
    """Play the games of ``plan`` that ``settings.out`` is missing and return every record.

    In order: the backend is built and started (a cluster that cannot start fails before any
    file is opened), the results file is opened (resumed: every line checked against the plan),
    the agents are prepared in this process when a game is left to play (compiled code is then
    loaded from the cache by every worker), and the missing games are played in plan order (at
    most ``settings.workers`` in flight), each record appended (fsynced) as its game ends.

    Args:
        plan: the games (:func:`~mcts_envs.agents.evaluation.plan.plan_match`,
            :func:`~mcts_envs.agents.evaluation.plan.plan_tournament`).
        settings: where and how they are played (default: in this process, no file).
        hooks: what the caller sees on the way (default: nothing).

    Returns:
        The records (resumed and new), the games played, the seconds and why it stopped early.

    Raises:
        MctsEnvsError: for a bad results file, backend or worker count, before any game.
        InfrastructureError: when an agent lost ``settings.fault_limit`` games in a row to
            faults of its server or engine (the games in flight were finished and written).
    """
    settings = settings or RunSettings()
    hooks = hooks or RunHooks()
    announce = hooks.announce or _silent
    opening = plan.tasks[0].opening
    backend = make_backend(
        settings.backend,
        settings.workers,
        plan.specs,
        opening,
        settings.address,
        settings.agent_modules,
        settings.play,
    )
    backend.start()
    with _open(settings) as results:
        if results.dropped_line is not None:
            announce(
                f"{settings.out}: line {results.dropped_line} was cut by a crash (no newline at "
                "its end); removed that cut part, its game is played again"
            )
        done = done_keys(plan, results.records, results.lines)
        todo = len(plan.tasks) - len(done)
        where = f" {len(done)} already in {settings.out}," if settings.out is not None else ""
        announce(
            f"{plan.rules.game}: {len(plan.pairings)} pairing(s), {len(plan.tasks)} games;"
            f"{where} {todo} to play on {backend.name} ({settings.workers} worker(s))"
        )
        if todo:
            start = time.perf_counter()
            seconds = prepare_agents(plan.rules.game, plan.specs, opening, hooks.announce)
            announce(
                "prepared: "
                + ", ".join(f"{spec} {took:.1f} s" for spec, took in seconds.items())
                + f" (in all {time.perf_counter() - start:.1f} s)"
            )
        bar = None
        if hooks.progress:
            bar = ProgressBar(len(plan.tasks), len(done), _focus(plan))
            for record in results.records:
                bar.count(record)
        stop = hooks.stop or StopFlag()
        sigint = (
            stop.catching_sigint(hooks.announce) if hooks.catch_sigint else contextlib.nullcontext()
        )
        start = time.perf_counter()
        try:
            with sigint:
                played = _play_missing(
                    plan, results, backend, done, stop, hooks, bar, FaultWatch(settings.fault_limit)
                )
        finally:
            if bar is not None:
                bar.close()
        seconds_playing = time.perf_counter() - start
        return RunOutcome(list(results.records), played, seconds_playing, stop.reason)


def _play_missing(
    plan: TournamentPlan,
    results: ResultsFile,
    backend: Backend,
    done: set[tuple[str, str, int]],
    stop: StopFlag,
    hooks: RunHooks,
    bar: ProgressBar | None,
    faults: FaultWatch,
) -> int:
    """Hand the games of ``plan`` not in ``done`` to ``backend`` and append each record; the
    number played. When ``faults`` stops the run, the games in flight are finished and written
    before its :class:`InfrastructureError` is raised."""
    monitors = hooks.monitors
    for monitor in monitors:
        for record in results.records:
            monitor.update(record)

    def wanted(task: GameTask) -> bool:
        return task.key not in done and not any(task.pairing in m.closed for m in monitors)

    played = 0
    failure: InfrastructureError | None = None
    tasks = (task for task in plan.tasks if wanted(task))
    for record in backend.run(tasks, plan.rules, stop):
        results.append(record)
        played += 1
        if bar is not None:
            bar(record)
        if hooks.on_record is not None:
            hooks.on_record(record)
        for monitor in monitors:
            monitor.update(record)
        try:
            faults.update(record)
        except InfrastructureError as error:
            failure = failure or error
            stop.stop("infrastructure faults")
    if failure is not None:
        raise failure
    return played


def _focus(plan: TournamentPlan) -> str | None:
    """The agent the progress bar follows: the plan's first (a gauntlet's agent, a match's A),
    none when it plays only itself."""
    specs = plan.specs
    return specs[0] if len(specs) > 1 else None


def _silent(text: str) -> None:
    """An announcement nobody asked for."""
