"""The ``process`` backend: games in a pool of spawned worker processes on this machine.

Each worker dies with its parent (:func:`mcts_envs.agents.evaluation.backends.workers.exit_with_parent`), ignores SIGINT (the
driver decides when to stop), imports the agent modules and prepares every agent once; the driver
keeps at most ``workers`` games in flight and hands out the next as one finishes.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from typing import Any

from mcts_envs.agents.evaluation.backends.workers import check_workers, exit_with_parent
from mcts_envs.agents.evaluation.games import GameRules, GameTask, play_game, prepare_agents
from mcts_envs.agents.spec import import_agent_module

__all__ = ["ProcessBackend"]


def _process_worker_start(
    parent: int, rules: GameRules, specs: list[str], opening: str, agent_modules: list[str]
) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the driver decides when to stop
    exit_with_parent(parent)
    for module in agent_modules:
        import_agent_module(module)
    prepare_agents(rules.game, specs, opening)


class ProcessBackend:
    """Plays games in ``workers`` worker processes (spawned; each prepares the agents once).

    At most ``workers`` games are in flight; a new one is handed out as one finishes. ``play``
    (default :func:`play_game`) must be picklable: a module-level function or a
    ``functools.partial`` of one.
    """

    name = "process"

    def __init__(
        self,
        workers: int,
        specs: Sequence[str],
        opening: str,
        agent_modules: Sequence[str] = (),
        play: Callable[[GameTask, GameRules], dict[str, Any]] = play_game,
    ) -> None:
        self.workers = check_workers(workers)
        self.play = play
        self.specs = list(specs)
        self.opening = opening
        self.agent_modules = list(agent_modules)

    def start(self) -> None:
        """Nothing to start here: the pool starts with the first game."""

    def run(
        self, tasks: Iterator[GameTask], rules: GameRules, stopping: Callable[[], bool]
    ) -> Iterator[dict[str, Any]]:
        import multiprocessing

        context = multiprocessing.get_context("spawn")
        pool = ProcessPoolExecutor(
            max_workers=self.workers,
            mp_context=context,
            initializer=_process_worker_start,
            initargs=(os.getpid(), rules, self.specs, self.opening, self.agent_modules),
        )
        in_flight: set[Future] = set()
        try:
            while True:
                while len(in_flight) < self.workers and not stopping():
                    task = next(tasks, None)
                    if task is None:
                        break
                    in_flight.add(pool.submit(self.play, task, rules))
                if not in_flight:
                    break
                finished, in_flight = wait(in_flight, return_when=FIRST_COMPLETED)
                for future in finished:
                    yield future.result()
        except BaseException:  # an abort (second Ctrl-C) or an error: do not wait for games
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        pool.shutdown(wait=True)
