"""The open games of a server: bounded in number, closed when idle or old, named by random ids."""

from __future__ import annotations

import re
import secrets
import threading
import time
from collections.abc import Callable

from agents.frontends.web.limits import ServeLimits
from agents.frontends.web.session import PlaySession
from mcts_envs.core.errors import InvalidOptionError

_SESSION_ID = re.compile(r"^[A-Za-z0-9_-]{16,64}$")


class UnknownSessionError(LookupError):
    """No open game has this id (never opened, expired, or replaced by a new game)."""


class StoreFullError(RuntimeError):
    """As many games are open as the server allows."""


class SessionStore:
    """Open games by id; every access first closes the games past their lifetime.

    Args:
        limits: ``max_sessions``, ``idle_seconds`` and ``max_age_seconds`` are used.
        clock: seconds, monotonic (tests pass a fake clock).
    """

    def __init__(self, limits: ServeLimits, clock: Callable[[], float] = time.monotonic):
        self.limits = limits
        self.clock = clock
        self._sessions: dict[str, PlaySession] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        with self._lock:
            self._expire()
            return len(self._sessions)

    def _expire(self) -> None:
        now = self.clock()
        for key, session in list(self._sessions.items()):
            idle = now - session.touched > self.limits.idle_seconds
            old = now - session.created > self.limits.max_age_seconds
            if idle or old:
                del self._sessions[key]

    def add(self, session: PlaySession) -> str:
        """Store ``session`` under a new random id and return the id.

        Raises:
            StoreFullError: if ``max_sessions`` games are open.
        """
        with self._lock:
            self._expire()
            if len(self._sessions) >= self.limits.max_sessions:
                raise StoreFullError(
                    f"{len(self._sessions)} games are open, the most this server allows; close "
                    f"one (start a new game in its tab) or wait until one has been idle for "
                    f"{self.limits.idle_seconds:.0f} s"
                )
            key = secrets.token_urlsafe(18)
            session.created = session.touched = self.clock()
            self._sessions[key] = session
            return key

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

    def remove(self, key: object) -> None:
        """Close game ``key`` if it is open (unknown or malformed ids are ignored)."""
        with self._lock:
            if isinstance(key, str):
                self._sessions.pop(key, None)
