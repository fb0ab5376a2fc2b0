"""What a web request may ask of the server: the allowed opponents and the caps on their search.

Opponent specs come from the browser, so they are never passed to :func:`mcts_envs.agents.spec.make_agent`
as they are: they pass :func:`mcts_envs.agents.safe_spec.check_safe_spec` (only safe kinds with plain
options: no callables, no worker processes, nothing that names a program or a file), and every
search budget is clipped to :class:`ServeLimits`: a time limit per move is always set for the
searching agents.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from mcts_envs.agents.safe_spec import check_safe_spec
from mcts_envs.core.errors import InvalidOptionError

if TYPE_CHECKING:  # annotations only: 'mcts-envs --help' imports no numba
    from mcts_envs.core.game import Game


class ServeLimits(NamedTuple):
    """Server-side bounds (set on the command line, never by a request).

    Attributes:
        max_sessions: games open at once.
        idle_seconds: a game untouched this long is closed.
        max_age_seconds: a game older than this is closed.
        max_seconds: the longest search per move (every searching agent gets a time limit).
        max_iterations: the largest MCTS ``iterations``.
        max_minimax_depth: the largest ``minimax2`` depth.
        max_table_bytes: the largest alpha-beta transposition table.
        max_connections: open connections at once; more are answered 503 and closed at once
            (a browser opens up to 6 per page).
        request_seconds: a connection must deliver each complete request (headers and body)
            within this many seconds of opening or of the previous answer, or it is closed
            (slow or half-sent requests cannot hold sockets).
        keep_alive_seconds: an idle connection is closed after this many seconds.
    """

    max_sessions: int = 16
    idle_seconds: float = 1800.0
    max_age_seconds: float = 4 * 3600.0
    max_seconds: float = 5.0
    max_iterations: int = 200_000
    max_minimax_depth: int = 3
    max_table_bytes: int = 256 * 1024 * 1024
    max_connections: int = 100
    request_seconds: float = 10.0
    keep_alive_seconds: float = 5.0

    def check(self) -> ServeLimits:
        """``self`` if every bound is positive.

        Raises:
            InvalidOptionError: naming the first bound that is not.
        """
        for name, value in self._asdict().items():
            if not value > 0:
                raise InvalidOptionError(f"{name} must be positive, got {value!r}")
        return self


class Opponent(NamedTuple):
    """A checked opponent: the spec to build it from and what the caps changed.

    Attributes:
        spec: the spec actually used (canonical, caps applied).
        notes: human-readable notes on clipped or added budgets.
        warmup: the same agent with the smallest budget, to load its compiled code before the
            first timed move (a first search can otherwise spend its whole time budget loading).
    """

    spec: str
    notes: tuple[str, ...]
    warmup: str


def _spec_text(kind: str, options: dict[str, Any]) -> str:
    if not options:
        return kind
    return kind + ":" + ",".join(f"{key}={value}" for key, value in options.items())


def check_opponent(spec: object, game: Game, limits: ServeLimits) -> Opponent:
    """Validate an opponent spec from a request and apply the caps.

    Args:
        spec: the spec text from the request (e.g. ``"mcts:iterations=2000"``).
        game: the game it will play (the alpha-beta table cap depends on its state size).
        limits: the server's caps.

    Raises:
        InvalidOptionError: for anything but a short spec of an allowed kind with allowed
            options and well-typed values (the message says what is allowed).
    """
    kind, raw, probe = check_safe_spec(spec)
    options: dict[str, Any] = dict(raw)
    notes: list[str] = []
    cap = limits.max_seconds
    if kind == "mcts":
        iterations, seconds = probe.config.iterations, probe.config.seconds
        if iterations is not None and iterations > limits.max_iterations:
            options["iterations"] = limits.max_iterations
            notes.append(f"iterations clipped from {iterations} to {limits.max_iterations}")
        if seconds is None or seconds > cap:
            options["seconds"] = cap
            notes.append(
                f"seconds clipped from {seconds} to {cap}"
                if seconds is not None
                else f"at most {cap} s per move"
            )
    elif kind == "alphabeta":
        if probe.seconds is None or probe.seconds > cap:
            options["seconds"] = cap
            notes.append(
                f"seconds clipped from {probe.seconds} to {cap}"
                if probe.seconds is not None
                else f"at most {cap} s per move"
            )
        largest = max(1, limits.max_table_bytes // (8 * (game.info.state_size + 4)))
        if probe.table_size > largest:
            options["table_size"] = 1 << (largest.bit_length() - 1)
            notes.append(f"table_size clipped to {options['table_size']}")
    elif kind == "minimax2" and probe.depth > limits.max_minimax_depth:
        options["depth"] = limits.max_minimax_depth
        notes.append(f"depth clipped from {probe.depth} to {limits.max_minimax_depth}")
    warmup = {key: value for key, value in options.items() if key not in ("seconds", "depth")}
    if kind == "mcts":
        warmup["iterations"] = 2
    elif kind in ("alphabeta", "minimax2"):
        warmup["depth"] = 1
    return Opponent(_spec_text(kind, options), tuple(notes), _spec_text(kind, warmup))
