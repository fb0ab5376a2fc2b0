"""A small OpenAI-compatible chat endpoint for tests: a real HTTP server on 127.0.0.1.

``POST /v1/chat/completions`` answers by the request's ``model``, reading the legal moves from the
prompt (the text env's ``Legal moves (N): a, b, ...`` line):

* ``legal``: ``<move>FIRST LEGAL</move>``;
* ``prose``: the last legal move buried in prose, no tag, another legal move named earlier;
* ``garbage``: text naming no move;
* ``second-try``: garbage, then (when the prompt says the last answer was invalid) a legal move;
* ``slow``: sleeps ``SLOW_SECONDS`` before answering a legal move;
* ``error500``: HTTP 500 every time; ``error401``: HTTP 401;
* ``not-json``: a 200 whose body is not JSON.

Every request body (and its ``Authorization`` header) is kept in ``server.requests``.
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
    return "No idea, to be honest."


class _Handler(BaseHTTPRequestHandler):
    server: ChatServer

    def log_message(self, *args: Any) -> None:  # keep the test output quiet
        return None

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length", 0))
        body = json.loads(self.rfile.read(length))
        self.server.requests.append(
            {"path": self.path, "body": body, "authorization": self.headers.get("Authorization")}
        )
        model = body.get("model")
        if self.path != "/v1/chat/completions":
            self._send(404, {"error": {"message": f"no route {self.path}"}})
        elif model == "error500":
            self._send(500, {"error": {"message": "the model crashed"}})
        elif model == "error401":
            self._send(401, {"error": {"message": "invalid API key"}})
        elif model == "not-json":
            self._send_raw(200, b"<html>gateway</html>")
        else:
            content = answer_for(model, body["messages"][-1]["content"])
            self._send(
                200,
                {
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
                },
            )

    def _send(self, status: int, obj: dict[str, Any]) -> None:
        self._send_raw(status, json.dumps(obj).encode())

    def _send_raw(self, status: int, data: bytes) -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):  # the client gave up (a timeout)
            pass


class ChatServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.requests: list[dict[str, Any]] = []

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
