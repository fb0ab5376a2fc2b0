"""A small OpenAI-compatible chat endpoint for tests: a real HTTP server on 127.0.0.1.

``POST /v1/chat/completions`` answers by the request's ``model``, reading the legal moves from the
prompt (the text env's ``Legal moves (N): a, b, ...`` line):

* ``legal``: ``<move>FIRST LEGAL</move>``;
* ``prose``: the last legal move buried in prose, no tag, another legal move named earlier;
* ``garbage``: text naming no move;
* ``second-try``: garbage, then (when the prompt says the last answer was invalid) a legal move;
* ``slow``: sleeps ``SLOW_SECONDS`` before answering a legal move;
* ``error500``: HTTP 500 every time; ``error401``: HTTP 401;
* ``not-json``: a 200 whose body is not JSON;
* ``trickle``: a legal answer sent one byte every ``TRICKLE_SECONDS``, status line included;
* ``redirect``: a 302 to ``server.redirect_to`` (another server's URL);
* ``echo500``: HTTP 500 whose body echoes the request's headers; ``echo``: a 200 whose answer
  echoes them (a key in either must never reach a record, a log or an error);
* ``huge``: a legal move after ``HUGE_CHARS`` non-ASCII characters.

Every request (path, method, body and ``Authorization`` header) is kept in ``server.requests``.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

SLOW_SECONDS = 1.5
TRICKLE_SECONDS = 0.2
HUGE_CHARS = 1_900_000
LEGAL_LINE = re.compile(r"Legal moves \(\d+\): (.*)")


def legal_moves(prompt: str) -> list[str]:
    """The legal moves the prompt lists."""
    match = LEGAL_LINE.search(prompt)
    if match is None:
        return []
    separator = ";" if ";" in match.group(1) else ","  # as the text env writes the line
    return [move.strip() for move in match.group(1).split(separator)]


def answer_for(model: str, prompt: str) -> str:
    moves = legal_moves(prompt)
    if model == "legal":
        return f"<move>{moves[0]}</move>"
    if model == "prose":
        return (
            f"Let me think. {moves[0]} looks natural, but after some thought I prefer "
            f"{moves[-1]}. That is my choice."
        )
    if model == "second-try":
        if "Your last answer was invalid" in prompt:
            return f"Sorry. <move>{moves[-1]}</move>"
        return "I resign myself to thinking about the weather."
    if model == "slow":
        time.sleep(SLOW_SECONDS)
        return f"<move>{moves[0]}</move>"
    if model == "huge":
        return "\u00e9" * HUGE_CHARS + f"<move>{moves[0]}</move>"
    return "No idea, to be honest."


class _Handler(BaseHTTPRequestHandler):
    server: ChatServer

    def log_message(self, *args: Any) -> None:  # keep the test output quiet
        return None

    def do_GET(self) -> None:  # where a redirected POST arrives (urllib follows with a GET)
        self.server.requests.append(
            {
                "path": self.path,
                "method": "GET",
                "body": None,
                "authorization": self.headers.get("Authorization"),
            }
        )
        self._send(405, {"error": {"message": "POST only"}})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length", 0))
        body = json.loads(self.rfile.read(length))
        self.server.requests.append(
            {
                "path": self.path,
                "method": "POST",
                "body": body,
                "authorization": self.headers.get("Authorization"),
            }
        )
        model = body.get("model")
        echoed = "\n".join(f"{name}: {value}" for name, value in self.headers.items())
        if model == "trickle":
            self._trickle(body)
        elif model == "redirect":
            self.send_response(302)
            self.send_header("Location", self.server.redirect_to)
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif model == "echo500":
            self._send(500, {"error": {"message": f"bad request with headers {echoed}"}})
        elif model == "echo":
            self._send(200, _completion(model, f"You sent {echoed}"))
        elif self.path != "/v1/chat/completions":
            self._send(404, {"error": {"message": f"no route {self.path}"}})
        elif model == "error500":
            self._send(500, {"error": {"message": "the model crashed"}})
        elif model == "error401":
            self._send(401, {"error": {"message": "invalid API key"}})
        elif model == "not-json":
            self._send_raw(200, b"<html>gateway</html>")
        else:
            content = answer_for(model, body["messages"][-1]["content"])
            self._send(200, _completion(model, content))

    def _trickle(self, body: dict[str, Any]) -> None:
        """A legal answer, status line and all, one byte every ``TRICKLE_SECONDS``."""
        moves = legal_moves(body["messages"][-1]["content"])
        data = json.dumps(_completion("trickle", f"<move>{moves[0]}</move>")).encode()
        head = f"HTTP/1.1 200 OK\r\nContent-Length: {len(data)}\r\n\r\n".encode()
        try:
            for byte in head + data:
                self.wfile.write(bytes([byte]))
                self.wfile.flush()
                time.sleep(TRICKLE_SECONDS)
        except (BrokenPipeError, ConnectionResetError):  # the client gave up
            pass

    def _send(self, status: int, obj: dict[str, Any]) -> None:
        self._send_raw(status, json.dumps(obj, ensure_ascii=False).encode())

    def _send_raw(self, status: int, data: bytes) -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):  # the client gave up (a timeout)
            pass


def _completion(model: str, content: str) -> dict[str, Any]:
    """A chat-completions response whose one choice is ``content``."""
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop",
            }
        ],
    }


class ChatServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.requests: list[dict[str, Any]] = []
        self.redirect_to = ""

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


@contextmanager
def chat_server() -> Iterator[ChatServer]:
    """A running :class:`ChatServer` (shut down on exit)."""
    server = ChatServer()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
