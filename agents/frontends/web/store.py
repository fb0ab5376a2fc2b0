"""The open games of a server: bounded in number, closed when idle or old, named by random ids."""

from __future__ import annotations

import contextlib
import re
import secrets
import threading
import time
from collections.abc import Callable, Iterator

from mcts_envs.agents.frontends.web.limits import ServeLimits
from mcts_envs.agents.frontends.web.session import PlaySession
from mcts_envs.core.errors import InvalidOptionError

_SESSION_ID = re.compile(r"^[A-Za-z0-9_-]{16,64}$")


class UnknownSessionError(LookupError):
    """No open game has this id (never opened, expired, or replaced by a new game)."""


class StoreFullError(RuntimeError):
    """As many games are open as the server allows."""


class Place:
    """A place in the store held for one game while it is prepared (see
    :meth:`SessionStore.reserve`); :meth:`fill` stores the game in it."""

    def __init__(self, store: SessionStore, replacing: str | None):
        self._store = store
        self.replacing = replacing

    def fill(self, session: PlaySession) -> str:
        """Store ``session`` under a new random id, close the game it replaces (if any), and
        return the id. The place was counted when it was reserved, so this never refuses.

        Raises:
            RuntimeError: if the place was already filled or released.
        """
        return self._store._fill(self, session)


class SessionStore:
    """Open games by id; every access first closes the games past their lifetime.

    A new game holds its place from before its preparation (which can take tens of seconds
    of compiling) until it is stored: :meth:`reserve` refuses at once when the server is full,
    and a game it replaces stays open (and keeps its place) until the new one is stored.

    Args:
        limits: ``max_sessions``, ``idle_seconds`` and ``max_age_seconds`` are used.
        clock: seconds, monotonic (tests pass a fake clock).
    """

    def __init__(self, limits: ServeLimits, clock: Callable[[], float] = time.monotonic):
        self.limits = limits
        self.clock = clock
        self._sessions: dict[str, PlaySession] = {}
        self._pending: set[Place] = set()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        with self._lock:
            self._expire()
            return len(self._sessions)

    def _expire(self) -> None:
        now = self.clock()
        replaced = {place.replacing for place in self._pending}
        for key, session in list(self._sessions.items()):
            idle = now - session.touched > self.limits.idle_seconds
            old = now - session.created > self.limits.max_age_seconds
            if (idle or old) and key not in replaced:  # a replaced game lends its place
                del self._sessions[key]

    @contextlib.contextmanager
    def reserve(self, replacing: object = None) -> Iterator[Place]:
        """Hold a place for a game being prepared; released on leaving unless filled.

        Args:
            replacing: the id of the player's current game, if any: an open game that no other
                pending game replaces gives its place to the new one (it stays open until
                :meth:`Place.fill`, so a failed preparation loses nothing); any other value
                is ignored and a free place is needed.

        Raises:
            StoreFullError: if ``max_sessions`` games are open or being prepared.
        """
        with self._lock:
            self._expire()
            lends = (
                isinstance(replacing, str)
                and replacing in self._sessions
                and all(place.replacing != replacing for place in self._pending)
            )
            if not lends:
                replacing = None
                places = len(self._sessions) + sum(p.replacing is None for p in self._pending)
                if places >= self.limits.max_sessions:
                    raise StoreFullError(
                        f"{places} games are open or starting, the most this server allows; "
                        "close one (start a new game in its tab) or wait until one has been "
                        f"idle for {self.limits.idle_seconds:.0f} s"
                    )
            place = Place(self, replacing)
            self._pending.add(place)
        try:
            yield place
        finally:
            with self._lock:
                self._pending.discard(place)

    def _fill(self, place: Place, session: PlaySession) -> str:
        with self._lock:
            if place not in self._pending:
                raise RuntimeError("this place was already filled or released")
            self._pending.discard(place)
            if place.replacing is not None:
                self._sessions.pop(place.replacing, None)
            key = secrets.token_urlsafe(18)
            session.created = session.touched = self.clock()
            self._sessions[key] = session
            return key

    def add(self, session: PlaySession) -> str:
        """Store ``session`` under a new random id and return the id.

        Raises:
            StoreFullError: if ``max_sessions`` games are open or being prepared.
        """
        with self.reserve() as place:
            return place.fill(session)

    def get(self, key: object) -> PlaySession:
        """The open game ``key``; touching it keeps it open.

        Raises:
            InvalidOptionError: if ``key`` is not a well-formed id.
            UnknownSessionError: if no open game has this id.
        """
        if not isinstance(key, str) or not _SESSION_ID.match(key):
            raise InvalidOptionError("a game id is 16-64 letters, digits, '-' or '_'")
        with self._lock:
            self._expire()
            session = self._sessions.get(key)
            if session is None:
                raise UnknownSessionError(
                    "no open game with this id (it may have expired); start one"
                )
            session.touched = self.clock()
            return session
