"""The ``ray`` tournament backend: games as Ray actor calls, streamed with ``ray.wait``.

One actor per worker slot. Each actor starts in its own process with its own cache of compiled
code (``MCTS_ENVS_CACHE_DIR``, see :mod:`mcts_envs.core.numba_cache`, set through the actor's
``runtime_env`` so it holds before numba is imported), prepares every agent once, then
plays the games it is handed. The driver keeps one game in flight per actor, hands the next game
to whichever actor finishes (``ray.wait``, so slow games never hold up a fixed chunk), and is the
only writer of results. A game whose actor died or raised is played again, from the same task and
therefore the same seeds, on a fresh actor (at most ``max_attempts`` times).

Across machines: ``ray start --head`` on one machine, ``ray start --address HEAD:6379`` on the
others (the same mcts-envs version installed everywhere), then
``mcts-envs tournament ... --backend ray --address auto --workers N`` on the head.
"""

from __future__ import annotations

import logging
import os
import tempfile
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from mcts_envs.agents.evaluation.backends.workers import check_count, check_workers
from mcts_envs.core.errors import require_optional
from mcts_envs.core.numba_cache import CACHE_DIR_VARIABLE
from mcts_envs.records import bounded, printable

#: Most actors on a cluster given by ``--address`` (its CPUs are not this machine's).
MAX_CLUSTER_WORKERS = 4096

__all__ = ["GameWorker", "RayBackend"]


class GameWorker:
    """A Ray actor (wrapped by :class:`RayBackend`): prepares agents once, then plays games."""

    def __init__(
        self,
        rules: Any,
        specs: Sequence[str],
        opening: str,
        agent_modules: Sequence[str],
        play: Callable[..., dict[str, Any]] | None = None,
    ) -> None:
        from mcts_envs.agents.evaluation.games import play_game, prepare_agents
        from mcts_envs.agents.spec import import_agent_module

        for module in agent_modules:
            import_agent_module(module)
        prepare_agents(rules.game, specs, opening)
        self.rules = rules
        self.play_task = play or play_game

    def play(self, task: Any) -> dict[str, Any]:
        """The record of one game (:func:`mcts_envs.agents.evaluation.games.play_game` by default)."""
        return self.play_task(task, self.rules)

    def info(self) -> dict[str, Any]:
        """The actor's pid and the cache directory it compiles into."""
        from mcts_envs.core.numba_cache import cache_root

        return {"pid": os.getpid(), "numba_cache_dir": str(cache_root())}


def _source_root() -> str | None:
    """The repository root when the package runs from a source checkout."""
    root = Path(__file__).resolve().parents[3]
    return None if "site-packages" in root.parts else str(root)


class RayBackend:
    """Plays games on Ray actors (``workers`` of them, one CPU each).

    Args:
        workers: actors, i.e. games in flight.
        specs: the agents, prepared once per actor.
        opening: a position to warm the agents up on.
        address: a running cluster (``"auto"``, ``"ray://host:10001"``...); ``None`` uses the
            Ray already initialised in this process or starts a local one with ``workers`` CPUs.
        cache_root: parent of the per-actor numba cache directories (default: a directory in
            the system's temporary directory, on each machine).
        max_attempts: plays of one game before its error is raised.
        agent_modules: modules each actor imports first (they register extra agent kinds).
    """

    name = "ray"

    def __init__(
        self,
        workers: int,
        specs: Sequence[str],
        opening: str,
        address: str | None = None,
        cache_root: str | None = None,
        max_attempts: int = 3,
        agent_modules: Sequence[str] = (),
        play: Callable[..., dict[str, Any]] | None = None,
    ) -> None:
        require_optional("ray", "ray")
        if address is None:  # a local Ray with one CPU per worker
            self.workers = check_workers(workers)
        else:
            self.workers = check_count(workers, "--workers", maximum=MAX_CLUSTER_WORKERS)
        self.specs = list(specs)
        self.opening = opening
        self.address = address
        self.cache_root = cache_root or os.path.join(tempfile.gettempdir(), "mcts-envs-numba")
        self.max_attempts = max_attempts
        self.agent_modules = list(agent_modules)
        self.play = play
        #: How many games were played again after a failure (for reports and tests).
        self.retries = 0
        self._actors: list[Any] = []
        self._started_here = False

    def _actor(self, ray: Any, slot: int, rules: Any) -> Any:
        env_vars = {CACHE_DIR_VARIABLE: os.path.join(self.cache_root, f"worker-{slot}")}
        root = _source_root()
        if root is not None:
            env_vars["PYTHONPATH"] = os.pathsep.join(
                [root, *filter(None, [os.environ.get("PYTHONPATH")])]
            )
        actor_class = ray.remote(num_cpus=1, max_restarts=0)(GameWorker)
        return actor_class.options(runtime_env={"env_vars": env_vars}).remote(
            rules, self.specs, self.opening, self.agent_modules, self.play
        )

    def worker_info(self) -> list[dict[str, Any]]:
        """Pid and numba cache directory of each running actor (waits for their current game)."""
        ray = require_optional("ray", "ray")
        return ray.get([actor.info.remote() for actor in self._actors])

    def start(self) -> None:
        """Start Ray (or connect to ``address``) now, so that a failure comes before any game or
        file (``run`` starts it otherwise).

        Raises:
            BackendError: one line saying why Ray did not start (its message, bounded).
        """
        self._started_here = self._start(require_optional("ray", "ray")) or self._started_here

    def _start(self, ray: Any) -> bool:
        """Start Ray or connect to ``address`` unless Ray is up; whether it was started here.

        Raises:
            BackendError: one line saying why Ray did not start (its message, bounded).
        """
        from mcts_envs.agents.evaluation.backends import BackendError

        if ray.is_initialized():
            return False
        where = "a local Ray" if self.address is None else f"the Ray cluster at {self.address!r}"
        try:
            quiet = {"log_to_driver": False, "logging_level": logging.WARNING}
            if self.address is None:
                ray.init(num_cpus=self.workers, include_dashboard=False, **quiet)
            else:
                ray.init(address=self.address, **quiet)
        except Exception as error:  # Ray raises ValueError, ConnectionError, RuntimeError, ...
            reason = " ".join(printable(str(error)).split()) or type(error).__name__
            raise BackendError(
                bounded(f"--backend ray: could not start {where}: {reason}", 300)
            ) from None
        return True

    def run(
        self, tasks: Iterator[Any], rules: Any, stopping: Callable[[], bool]
    ) -> Iterator[dict[str, Any]]:
        """Stream ``tasks`` to the actors; yield each record as its game ends.

        Raises:
            BackendError: if Ray does not start (:meth:`_start`).
        """
        ray = require_optional("ray", "ray")
        started_here = self._start(ray) or self._started_here
        self._started_here = False
        actors = self._actors = [self._actor(ray, slot, rules) for slot in range(self.workers)]
        in_flight: dict[Any, tuple[int, Any, int]] = {}
        idle = list(range(self.workers))
        retry: list[tuple[Any, int]] = []
        try:
            while True:
                while idle and (retry or not stopping()):
                    if retry:
                        task, attempt = retry.pop()
                    else:
                        task, attempt = next(tasks, None), 1
                        if task is None:
                            break
                    slot = idle.pop()
                    in_flight[actors[slot].play.remote(task)] = (slot, task, attempt)
                if not in_flight:
                    return
                (ready,), _ = ray.wait(list(in_flight), num_returns=1)
                slot, task, attempt = in_flight.pop(ready)
                try:
                    record = ray.get(ready)
                except (ray.exceptions.RayActorError, ray.exceptions.RayTaskError):
                    if attempt >= self.max_attempts:
                        raise
                    self.retries += 1
                    ray.kill(actors[slot], no_restart=True)
                    actors[slot] = self._actor(ray, slot, rules)
                    retry.append((task, attempt + 1))
                    idle.append(slot)
                    continue
                idle.append(slot)
                yield record
        finally:
            for actor in actors:
                ray.kill(actor, no_restart=True)
            if started_here:
                ray.shutdown()
