"""The ``serve`` subcommand of ``mcts-envs``: its arguments and its run (``web`` extra).

Only :func:`run` imports Starlette and uvicorn, so ``mcts-envs --help`` works without them.
"""

from __future__ import annotations

import argparse
import ipaddress
import socket
from typing import Any

from mcts_envs.agents.frontends import CommandIO
from mcts_envs.agents.frontends.web.limits import ServeLimits
from mcts_envs.core.errors import InvalidOptionError, require_optional

DEFAULTS = ServeLimits()


def add_parser(commands: Any) -> None:
    """Add the ``serve`` subcommand."""
    serve = commands.add_parser(
        "serve",
        help="play against an agent in the browser (local web app; extra 'web')",
        description="Serve a web page on which a person plays any game against an agent spec: "
        "click to move, see the agent's estimate, undo, new game. Binds 127.0.0.1 by default.",
    )
    serve.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    serve.add_argument("--seed", type=int, help="seed game i with SEED + i (default: random)")
    serve.add_argument(
        "--opponent", default="mcts:iterations=2000", help="opponent spec filled into the form"
    )
    serve.add_argument(
        "--max-sessions", type=int, default=DEFAULTS.max_sessions, help="games open at once"
    )
    serve.add_argument(
        "--idle-minutes",
        type=float,
        default=DEFAULTS.idle_seconds / 60,
        help="close a game untouched this long (default %(default)g)",
    )
    serve.add_argument(
        "--max-seconds",
        type=float,
        default=DEFAULTS.max_seconds,
        help="longest search per agent move; specs asking for more are clipped "
        "(default %(default)g)",
    )
    serve.add_argument(
        "--max-iterations",
        type=int,
        default=DEFAULTS.max_iterations,
        help="largest MCTS iterations per move (default %(default)d)",
    )
    serve.add_argument(
        "--max-connections",
        type=int,
        default=DEFAULTS.max_connections,
        help="connections open at once; more are answered 503 and closed (default %(default)d)",
    )
    serve.add_argument(
        "--request-seconds",
        type=float,
        default=DEFAULTS.request_seconds,
        help="close a connection that has not sent a complete request this long after opening "
        "or after its previous answer (default %(default)g)",
    )
    serve.add_argument(
        "--keep-alive-seconds",
        type=float,
        default=DEFAULTS.keep_alive_seconds,
        help="close a connection idle this long after an answer (default %(default)g)",
    )


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _check_can_listen(host: str, port: int) -> None:
    """Raise :class:`InvalidOptionError` if ``host:port`` cannot be bound (e.g. in use)."""
    try:
        info = socket.getaddrinfo(host.strip("[]"), port, type=socket.SOCK_STREAM)[0]
        with socket.socket(info[0], socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind(info[4])
    except OSError as error:
        raise InvalidOptionError(
            f"cannot listen on {host} port {port}: {error.strerror or error}; "
            "choose another --port (or --host)"
        ) from None


def run(args: argparse.Namespace, io: CommandIO) -> int:
    """Serve until interrupted; returns the exit status.

    Raises:
        OptionalDependencyError: without the ``web`` extra.
        InvalidOptionError: for a bad port or limit.
    """
    out = io.out
    require_optional("starlette", "web")
    require_optional("uvicorn", "web")
    from mcts_envs.agents.frontends.web.app import LOOPBACK_HOSTS, create_app
    from mcts_envs.agents.frontends.web.server import serve

    if not 0 <= args.port <= 65535:
        raise InvalidOptionError(f"--port must be 0..65535, got {args.port}")
    limits = ServeLimits(
        max_sessions=args.max_sessions,
        idle_seconds=args.idle_minutes * 60,
        max_seconds=args.max_seconds,
        max_iterations=args.max_iterations,
        max_connections=args.max_connections,
        request_seconds=args.request_seconds,
        keep_alive_seconds=args.keep_alive_seconds,
    ).check()
    loopback = _is_loopback(args.host)
    if not loopback:
        print(
            f"warning: serving on {args.host}: anyone who can reach this address can play and "
            "use this machine's CPU (up to the limits); the default 127.0.0.1 is local only",
            file=out,
        )
    app = create_app(
        limits,
        seed=args.seed,
        default_opponent=args.opponent,
        allowed_hosts=LOOPBACK_HOSTS if loopback else ("*",),
    )
    _check_can_listen(args.host, args.port)
    shown = f"[{args.host}]" if ":" in args.host else args.host
    print(f"mcts-envs serve: http://{shown}:{args.port}/  (Ctrl+C stops)", file=out, flush=True)
    serve(app, args.host, args.port, limits)
    return 0
