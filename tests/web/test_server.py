"""The ``mcts-envs serve`` HTTP server (a real uvicorn on 127.0.0.1, a free port, raw sockets):
slow or half-sent requests are closed within their deadline, connections beyond the cap are
refused, and an answer that takes longer than the deadline is not cut."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
import time
from collections.abc import Iterator

import pytest

pytest.importorskip("starlette", reason="starlette is in the 'web' extra")
uvicorn = pytest.importorskip("uvicorn", reason="uvicorn is in the 'web' extra")

from mcts_envs.agents.frontends.web.app import create_app  # noqa: E402
from mcts_envs.agents.frontends.web.limits import ServeLimits  # noqa: E402
from mcts_envs.agents.frontends.web.server import server_config  # noqa: E402

#: Slack on every deadline (a loaded 2-core machine), and the longest any wait may take.
SLACK = 1.5
GET_PAGE = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"


@contextlib.contextmanager
def _serving(limits: ServeLimits, app=None) -> Iterator[tuple[int, uvicorn.Server]]:
    """Run the serve command's uvicorn configuration in a thread; yield its port and server."""
    server = uvicorn.Server(server_config(app or create_app(limits), "127.0.0.1", 0, limits))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the server did not start"
        time.sleep(0.01)
    try:
        yield server.servers[0].sockets[0].getsockname()[1], server
    finally:
        server.should_exit = True
        thread.join(10)


def _connect(port: int) -> socket.socket:
    connection = socket.create_connection(("127.0.0.1", port), timeout=5)
    connection.settimeout(SLACK + 5)
    return connection


def _read_until_closed(connection: socket.socket) -> tuple[bytes, float]:
    """Everything the server sends until it closes, and the seconds that took (a bounded wait:
    ``socket.timeout`` if the server keeps the connection open)."""
    start = time.monotonic()
    data = b""
    with contextlib.suppress(ConnectionResetError):
        while chunk := connection.recv(65536):
            data += chunk
    return data, time.monotonic() - start


def _wait_for(condition, seconds: float = 5.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out waiting for the server"
        time.sleep(0.01)


def test_slow_and_half_sent_requests_are_closed_within_the_deadline(caplog):
    limits = ServeLimits(request_seconds=0.5, keep_alive_seconds=0.3)
    with _serving(limits) as (port, _):
        start = time.monotonic()
        silent, half_header, half_body = (_connect(port) for _ in range(3))
        half_header.sendall(b"POST /api/new HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        half_body.sendall(
            b"POST /api/new HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b'Content-Length: 100\r\n\r\n{"game": '
        )
        for connection in (silent, half_header, half_body):
            with connection:
                data, _ = _read_until_closed(connection)  # socket.timeout if held open
            assert b"200 OK" not in data
        assert time.monotonic() - start < limits.request_seconds + SLACK
        with _connect(port) as answered:
            answered.sendall(GET_PAGE)
            data, seconds = _read_until_closed(answered)  # the answer, then closed when idle
        assert data.startswith(b"HTTP/1.1 200") and seconds < limits.keep_alive_seconds + SLACK
    assert "unexpected error" not in caplog.text  # a body cut off is no server error


def test_each_request_on_a_kept_alive_connection_has_its_own_deadline():
    limits = ServeLimits(request_seconds=0.5, keep_alive_seconds=30)
    with _serving(limits) as (port, _), _connect(port) as connection:
        connection.sendall(GET_PAGE)
        assert connection.recv(65536).startswith(b"HTTP/1.1 200")
        connection.sendall(b"GET / HTTP/1.1\r\n")  # the next request, half sent
        start = time.monotonic()
        _read_until_closed(connection)
        assert time.monotonic() - start < limits.request_seconds + SLACK  # not 30 s


async def _slow_app(scope, receive, send) -> None:
    """An app whose answer takes 1 s (an agent thinking), longer than the request deadline."""
    if scope["type"] != "http":
        return
    await asyncio.sleep(1.0)
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"thought"})


def test_an_answer_slower_than_the_deadline_is_not_cut():
    limits = ServeLimits(request_seconds=0.3, keep_alive_seconds=0.3)
    with _serving(limits, _slow_app) as (port, _), _connect(port) as connection:
        connection.sendall(GET_PAGE)
        data, _ = _read_until_closed(connection)
        assert data.startswith(b"HTTP/1.1 200") and b"thought" in data


def test_connections_beyond_the_cap_are_refused():
    limits = ServeLimits(max_connections=3, request_seconds=10)
    with _serving(limits) as (port, server):
        held = [_connect(port) for _ in range(3)]
        _wait_for(lambda: len(server.server_state.connections) == 3)
        with _connect(port) as extra:
            data, seconds = _read_until_closed(extra)
        assert data.startswith(b"HTTP/1.1 503") and b"connections open" in data
        assert seconds < SLACK  # at once, not after the request deadline
        held.pop().close()
        _wait_for(lambda: len(server.server_state.connections) == 2)
        with _connect(port) as again:  # a freed place is usable
            again.sendall(GET_PAGE)
            assert again.recv(65536).startswith(b"HTTP/1.1 200")
        for connection in held:
            connection.close()
