"""The Starlette app of ``mcts-envs serve`` (needs the ``web`` extra).

Routes (all answers JSON except the page; errors are ``{"error": message}`` with a 4xx status,
never a traceback):

==========================  ========================================================  =========
``GET /``                   the page                                                  HTML
``POST /api/new``           ``{game, opponent, seat, previous?}``: a new game         panel
``POST /api/click``         ``{session, target}``: one click towards a move           panel
``POST /api/agent``         ``{session}``: the agent plays (its estimate included)    panel
``POST /api/undo``          ``{session}``: take back your last move                   panel
``POST /api/clear``         ``{session}``: forget the clicks made towards a move      panel
``GET /api/record``         ``?session=``: the game as a version-2 record             record
==========================  ========================================================  =========

A panel answer is ``{"html", "version", "agent_turn", "over"}``. Requests must be JSON
(``Content-Type: application/json``, at most :data:`MAX_BODY` bytes) with exactly the keys
listed; clicks are checked against the legal moves, opponents against
:mod:`mcts_envs.agents.frontends.web.limits`; nothing in a request is run as code or opened as a file.
"""

from __future__ import annotations

import itertools
import json
import logging
import secrets
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from mcts_envs.agents.frontends.web.limits import ServeLimits, check_opponent
from mcts_envs.agents.frontends.web.page import game_panel, index_page
from mcts_envs.agents.frontends.web.session import BusyError, PlaySession
from mcts_envs.agents.frontends.web.store import SessionStore, StoreFullError, UnknownSessionError
from mcts_envs.core.errors import InvalidOptionError, MctsEnvsError
from mcts_envs.core.registry import list_games, make_game

#: Largest request body accepted, in bytes.
MAX_BODY = 4096
#: Longest string accepted in a request field.
MAX_FIELD = 200
SEATS = {"player_0": 0, "player_1": 1}
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1", "[::1]")

log = logging.getLogger("mcts_envs.serve")


class RequestError(Exception):
    """A request the app refuses, with its HTTP status and a message for the user."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


async def _json_body(request: Request, keys: tuple[str, ...], optional: tuple[str, ...] = ()):
    """The request's JSON object, checked: content type, size, exactly these string fields."""
    content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if content_type != "application/json":
        raise RequestError(415, "send JSON (Content-Type: application/json)")
    length = request.headers.get("content-length")
    if length is not None and (not length.isdigit() or int(length) > MAX_BODY):
        raise RequestError(413, f"the request body is larger than {MAX_BODY} bytes")
    body = b""
    try:
        async for chunk in request.stream():
            body += chunk
            if len(body) > MAX_BODY:
                raise RequestError(413, f"the request body is larger than {MAX_BODY} bytes")
    except ClientDisconnect:  # e.g. closed by the server's request deadline
        raise RequestError(400, "the request body was cut off before its end") from None
    try:
        data = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise RequestError(400, "the request body is not valid JSON") from None
    except RecursionError:  # json's decoder recurses once per nested array or object
        raise RequestError(
            400, "the request body is nested too deeply; send a flat object of strings"
        ) from None
    if not isinstance(data, dict):
        raise RequestError(400, "the request body must be a JSON object")
    unknown = sorted(set(data) - set(keys) - set(optional))
    missing = [key for key in keys if key not in data]
    if unknown or missing:
        raise RequestError(
            400,
            f"expected the fields {', '.join(keys)}"
            + (f" (optional: {', '.join(optional)})" if optional else "")
            + (f"; missing {', '.join(missing)}" if missing else "")
            + (f"; unknown {', '.join(str(k)[:MAX_FIELD] for k in unknown)}" if unknown else ""),
        )
    for key, value in data.items():
        if value is None and key in optional:
            continue
        if not isinstance(value, str) or len(value) > MAX_FIELD:
            raise RequestError(400, f"{key} must be a string of at most {MAX_FIELD} characters")
    return data


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


def _handled(handler: Callable[[Request], Awaitable[Response]]):
    """Turn the app's exceptions into JSON errors with the right status (no tracebacks)."""

    async def endpoint(request: Request) -> Response:
        try:
            return await handler(request)
        except RequestError as error:
            return _error(error.status, str(error))
        except UnknownSessionError as error:
            return _error(404, str(error))
        except BusyError as error:
            return _error(409, str(error))
        except StoreFullError as error:
            return _error(503, str(error))
        except MctsEnvsError as error:
            return _error(400, str(error))
        except Exception:
            log.exception("unexpected error in %s %s", request.method, request.url.path)
            return _error(500, "internal error; the server log has the details")

    return endpoint


def create_app(
    limits: ServeLimits | None = None,
    seed: int | None = None,
    default_opponent: str = "mcts:iterations=2000",
    allowed_hosts: tuple[str, ...] = LOOPBACK_HOSTS,
) -> Starlette:
    """The web app.

    Args:
        limits: the server's caps (default :class:`ServeLimits`).
        seed: seeds game ``i`` (counting from 0) with ``seed + i``; ``None`` for random seeds.
        default_opponent: the spec filled into the form.
        allowed_hosts: accepted ``Host`` headers (loopback names by default, which also stops
            DNS-rebinding pages from talking to a local server); ``("*",)`` for any.
    """
    limits = (limits or ServeLimits()).check()
    store = SessionStore(limits)
    counter = itertools.count()
    games = list_games()

    def next_seed() -> int:
        return seed + next(counter) if seed is not None else secrets.randbits(31)

    def panel(key: str, session: PlaySession) -> JSONResponse:
        return JSONResponse(
            {
                "html": game_panel(key, session),
                "version": session.version,
                "agent_turn": session.agent_turn,
                "over": session.over,
            }
        )

    async def index(request: Request) -> Response:
        nonce = secrets.token_urlsafe(12)
        page = index_page(games, default_opponent).replace("<script>", f'<script nonce="{nonce}">')
        return HTMLResponse(page, headers=_page_headers(nonce))

    async def new_game(request: Request) -> Response:
        data = await _json_body(request, ("game", "opponent", "seat"), ("previous",))
        if data["game"] not in games:
            raise InvalidOptionError(f"unknown game; choose one of {', '.join(games)}")
        if data["seat"] not in SEATS:
            raise InvalidOptionError(f"seat must be one of {', '.join(SEATS)}")
        game = make_game(data["game"])
        opponent = check_opponent(data["opponent"], game, limits)
        # the place is checked before the warm-up (tens of seconds of compiling), and the
        # previous game stays open until the new one is stored
        with store.reserve(replacing=data.get("previous")) as place:
            session = PlaySession(
                game,
                data["game"],
                opponent.spec,
                SEATS[data["seat"]],
                next_seed(),
                opponent.notes,
                opponent.warmup,
            )
            await anyio.to_thread.run_sync(session.prepare)
            key = place.fill(session)
        return panel(key, session)

    def session_route(action: Callable[[PlaySession, dict[str, Any]], None], *keys: str):
        async def route(request: Request) -> Response:
            data = await _json_body(request, ("session", *keys))
            session = store.get(data["session"])
            await anyio.to_thread.run_sync(action, session, data)
            return panel(data["session"], session)

        return route

    async def record(request: Request) -> Response:
        session = store.get(request.query_params.get("session"))
        return JSONResponse(session.record())

    routes = [
        Route("/", _handled(index), methods=["GET"]),
        Route("/api/new", _handled(new_game), methods=["POST"]),
        Route(
            "/api/click",
            _handled(session_route(lambda s, d: s.click(d["target"]), "target")),
            methods=["POST"],
        ),
        Route("/api/agent", _handled(session_route(lambda s, d: s.agent_move())), methods=["POST"]),
        Route("/api/undo", _handled(session_route(lambda s, d: s.undo())), methods=["POST"]),
        Route(
            "/api/clear",
            _handled(session_route(lambda s, d: s.clear_selection())),
            methods=["POST"],
        ),
        Route("/api/record", _handled(record), methods=["GET"]),
    ]
    middleware = [Middleware(TrustedHostMiddleware, allowed_hosts=list(allowed_hosts))]
    app = Starlette(routes=routes, middleware=middleware)
    app.state.store = store
    app.state.limits = limits
    return app


def _page_headers(nonce: str) -> dict[str, str]:
    return {
        "Content-Security-Policy": (
            f"default-src 'none'; script-src 'nonce-{nonce}'; style-src 'unsafe-inline'; "
            "img-src 'self' data:; connect-src 'self'; form-action 'none'; "
            "frame-ancestors 'none'; base-uri 'none'"
        ),
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "no-referrer",
    }
