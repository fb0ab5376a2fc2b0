"""The HTTP server of ``mcts-envs serve``: uvicorn with request deadlines and a connection cap
(``web`` extra; only :func:`mcts_envs.agents.frontends.serve.run` imports this module).

uvicorn closes an idle connection after ``timeout_keep_alive``, but not one that is slow to
send its request: a client that sends half a header line, or headers and half a body, holds its
socket for ever, and enough of them exhaust the server. :class:`BoundedH11Protocol` closes a
connection that has not delivered a complete request within ``request_seconds`` of opening or of
its previous answer, and answers ``503`` and closes every connection beyond ``max_connections``
(uvicorn's own ``limit_concurrency`` would keep such a connection open and read its request
first). A request that has fully arrived is never cut, however long its answer takes (an agent
thinking).
"""

from __future__ import annotations

import asyncio
import logging
import math
from typing import Any

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from mcts_envs.agents.frontends.web.limits import ServeLimits

log = logging.getLogger("mcts_envs.serve")

_FULL_BODY = b'{"error": "the server has as many connections open as it allows; try again soon"}'
#: The answer to a connection beyond the cap, sent before its request is read.
FULL_ANSWER = (
    b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\n"
    b"connection: close\r\nretry-after: 5\r\ncontent-length: %d\r\n\r\n%s"
) % (len(_FULL_BODY), _FULL_BODY)
#: Refused connections are logged at most once in this many seconds (with their count).
REFUSAL_WARNING_SECONDS = 10.0
#: The peer's HTTP states in which it still owes us (part of) a request.
_RECEIVING = (h11.IDLE, h11.SEND_BODY)


class BoundedH11Protocol(H11Protocol):
    """uvicorn's h11 connection with a deadline on each request and a cap on connections.

    :func:`server_config` makes a subclass with the server's limits in the class attributes.

    Attributes:
        max_connections: connections open at once; the next is answered 503 and closed.
        request_seconds: the time a connection has to deliver a complete request (headers and
            body), counted from its opening or from the end of its previous answer.
    """

    max_connections: int = ServeLimits().max_connections
    request_seconds: float = ServeLimits().request_seconds
    _refused = 0
    _warned_at = -math.inf

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self._deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if len(self.connections) > self.max_connections:
            self._refuse(transport)
        else:
            self._arm()

    def _refuse(self, transport: asyncio.Transport) -> None:
        transport.write(FULL_ANSWER)
        transport.close()
        server = type(self)  # counts shared by the server's connections; one warning a while
        server._refused += 1
        now = self.loop.time()
        if now - server._warned_at >= REFUSAL_WARNING_SECONDS:
            log.warning(
                "refused %d connection(s): %d are open, the most --max-connections allows",
                server._refused,
                self.max_connections,
            )
            server._refused, server._warned_at = 0, now

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._arm()  # the next request on this connection gets its own deadline

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        self._disarm()
        self._deadline = self.loop.call_later(self.request_seconds, self._on_deadline)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _on_deadline(self) -> None:
        self._deadline = None
        if not self.transport.is_closing() and self.conn.their_state in _RECEIVING:
            self.transport.close()


def server_config(app: Any, host: str, port: int, limits: ServeLimits) -> uvicorn.Config:
    """The uvicorn configuration of ``mcts-envs serve``.

    Args:
        app: the ASGI app (:func:`mcts_envs.agents.frontends.web.app.create_app`).
        host: the address to bind.
        port: the port (0 for any free one).
        limits: ``max_connections``, ``request_seconds`` and ``keep_alive_seconds`` are used.

    Returns:
        A configuration for ``uvicorn.Server``: the h11 protocol bounded by ``limits``
        (:class:`BoundedH11Protocol`), idle connections closed after ``keep_alive_seconds``,
        headers of at most h11's default 16 KiB, warnings only in the log.
    """

    class Protocol(BoundedH11Protocol):
        max_connections = limits.max_connections
        request_seconds = limits.request_seconds

    return uvicorn.Config(
        app,
        host=host,
        port=port,
        http=Protocol,
        ws="none",  # the app has no WebSocket routes; an upgrade would escape the deadlines
        timeout_keep_alive=limits.keep_alive_seconds,  # type: ignore[arg-type]  # a float works
        log_level="warning",
    )


def serve(app: Any, host: str, port: int, limits: ServeLimits) -> None:
    """Serve ``app`` on ``host:port`` until interrupted (Ctrl+C), within ``limits``."""
    uvicorn.Server(server_config(app, host, port, limits)).run()
