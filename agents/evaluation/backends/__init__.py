"""Where the games of a match or tournament are played: a backend turns tasks into records.

Every backend calls the one game loop (:func:`mcts_envs.agents.evaluation.games.play_game`) on the
:class:`~mcts_envs.agents.evaluation.games.GameTask` values it is handed, so a task gives the same record on
any backend. :mod:`.local` plays in this process, :mod:`.process` in a pool of worker processes,
:mod:`.ray_backend` on Ray actors (one machine or a cluster; the ``ray`` extra).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from mcts_envs.agents.evaluation.backends.workers import check_workers
from mcts_envs.core.errors import InvalidOptionError, MctsEnvsError

if TYPE_CHECKING:  # annotations only: the command line's help imports no game code
    from mcts_envs.agents.evaluation.games import GameRules, GameTask

__all__ = ["Backend", "BackendError", "make_backend"]


class BackendError(MctsEnvsError, RuntimeError):
    """A backend that cannot play: Ray does not start or its cluster cannot be reached."""


class Backend(Protocol):
    """Plays tasks and yields their records as they finish."""

    name: str

    def start(self) -> None:
        """Start what the backend plays on (a cluster), so that a failure comes before any game
        or file; ``run`` starts it otherwise.

        Raises:
            BackendError: in one line, if it cannot start.
        """
        ...

    def run(
        self, tasks: Iterator[GameTask], rules: GameRules, stopping: Callable[[], bool]
    ) -> Iterator[dict[str, Any]]:
        """Play tasks drawn from ``tasks`` (none once ``stopping()``) and yield every record of a
        game that was started, as it finishes."""
        ...


def make_backend(
    name: str | None,
    workers: int,
    specs: Sequence[str],
    opening: str,
    address: str | None = None,
    agent_modules: Sequence[str] = (),
    play: Callable[[GameTask, GameRules], dict[str, Any]] | None = None,
) -> Backend:
    """The backend called ``name``: ``local``, ``process`` or ``ray``.

    ``None`` chooses ``local`` for one worker and ``process`` for more. ``specs`` are prepared
    once per worker, deciding from ``opening``; ``agent_modules`` are imported in every worker
    first (they register extra agent kinds). ``play`` replaces the game loop
    (:func:`mcts_envs.agents.evaluation.games.play_game`, e.g. by one that also records training data; it
    must be picklable for the process and Ray backends). Ray's worker count is not bounded by this machine's
    CPUs (a cluster has more).

    Raises:
        InvalidOptionError: for an unknown name or a bad worker count.
        OptionalDependencyError: for ``ray`` without Ray installed.
    """
    if name is None:
        name = "local" if workers == 1 else "process"
    if name == "local":
        if workers != 1:
            raise InvalidOptionError("the local backend plays in this process: --workers 1 only")
        from mcts_envs.agents.evaluation.backends.local import LocalBackend

        return LocalBackend() if play is None else LocalBackend(play)
    if name == "process":
        from mcts_envs.agents.evaluation.backends.process import ProcessBackend

        return ProcessBackend(
            check_workers(workers), specs, opening, agent_modules, *([play] if play else [])
        )
    if name == "ray":
        from mcts_envs.agents.evaluation.backends.ray_backend import RayBackend

        return RayBackend(
            workers, specs, opening, address=address, agent_modules=agent_modules, play=play
        )
    raise InvalidOptionError(f"unknown backend {name!r}; choose local, process or ray")
