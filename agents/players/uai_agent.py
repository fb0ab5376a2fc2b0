"""An external Ataxx engine as an agent, spoken to over UAI (spec ``uai:cmd=...``).

``make_agent("uai:cmd=./my-engine,movetime=100")`` starts ``./my-engine`` (split like a shell
command line, run without a shell) when the agent first acts, and asks it for a move with
``position fen ...`` and ``go movetime 100`` (or ``go depth N`` / ``go nodes N``). The command is
the user's own: a spec from the command line runs whatever program it names, so take specs only
from people you would let run programs. A spec's options are separated by commas, so the command
cannot contain one (put such a command in a script).

Any UAI engine works (our own: ``uai:cmd=mcts-envs uai --agent mcts``).

Engine processes outlive the agents that use them: matches and tournaments build fresh agents
for every game, and starting an engine (and, for ours, loading its compiled search) would
otherwise cost seconds per game. An agent takes a running engine of its command from the
process-wide :data:`ENGINES` pool when it first acts (or starts one), sends ``uainewgame``
(and its ``Seed``), and gives the engine back when it is garbage collected; engines of one
command are never shared by two live agents (both sides of a game may run the same command).
An engine found dead before a move (it exited while idle) is started again, with a
:class:`EngineRestartWarning` saying so.

:meth:`UAIAgent.close` sends ``quit`` and ends the agent's engine; the pooled ones end with
:meth:`EnginePool.close` (at the latest when the interpreter exits; an engine whose parent
died also ends, as its standard input closes).

An engine that fails *during* a move loses that game, as in cutechess: an illegal or unparseable
``bestmove`` (``bestmove pass`` is read as the protocol's ``0000``), an exit before answering (a
crash), a ``bestmove`` later than the move's time plus ``margin`` milliseconds (``"time"``; the
arrival of the line is stamped by the thread that reads the engine, so a loaded machine does not
make a punctual engine late), or none at all by then (``"timeout"``; under ``go depth`` or ``go
nodes``, which set no time, none within ``timeout`` seconds). :meth:`UAIAgent.act_state`
then raises :class:`EngineForfeitError`, which carries the reason and the engine's line; the one
game loop of matches and tournaments (:func:`mcts_envs.agents.evaluation.games.play_game`) records the game as
lost with a ``forfeit`` entry (see :meth:`EngineForfeitError.forfeit`) and plays on. A crashed or
silent engine is ended (a late answer must not reach the next game); the next game starts a new one.
An engine that cannot start (in ``prepare``, before any game) stops the match with an
:class:`EngineError`.

What an engine sends is bounded: a line is read up to :data:`MAX_LINE_CHARS` characters (the rest
of a longer line is dropped), the lines before a move's ``bestmove`` are kept only as a window of
the last :data:`INFO_WINDOW` (:attr:`UAIAgent.last_info`; the count of the others is
:attr:`UAIAgent.last_info_dropped`), and at most :data:`MAX_PENDING_LINES` unread lines wait in
memory (past that, lines no read waits for are dropped): an engine flooding ``info`` lines costs
a bounded amount of memory. Its ``id name`` is kept up to :data:`MAX_NAME_CHARS` characters.

Engines never outlive the program that started them: each is ended (``quit``, then killed after
:data:`QUIT_GRACE` seconds) when its game is lost by a fault, when :meth:`UAIAgent.close` or
:meth:`EnginePool.close` runs, and when the interpreter exits; on Linux an engine started by the
main thread also gets SIGKILL from the kernel when that process dies in any way (SIGTERM, SIGKILL,
a crash: ``prctl(PR_SET_PDEATHSIG)``), so an engine that ignores the end of its input does not
survive a killed tournament.

Think time: :attr:`UAIAgent.last_think_seconds` is the time from ``go`` to ``bestmove`` (the
loops' ``timing.think_seconds`` measures the whole decision: that plus a pipe write). With
``seconds`` (set before every move by a tournament's ``--time`` or ``--clock``) the engine is
asked for ``go movetime`` of the move's budget, so both sides of a ``--clock`` game play on
equal clocks, each charged its measured time (with ``--loss-on-time`` an engine that overruns
its clock loses). An engine that ignores ``movetime`` (AtaxxDotCpp thinks as if it had 10 s on its
clock whatever ``movetime`` says) gets the budget as a clock with ``clock_factor``.
"""

from __future__ import annotations

import atexit
import collections
import contextlib
import ctypes
import queue
import shlex
import signal
import subprocess
import sys
import threading
import time
import warnings
import weakref
from typing import Any, NamedTuple

import numpy as np

from mcts_envs.agents.base import ForfeitError, ForwardModelAgent
from mcts_envs.agents.resolved import constructor_options
from mcts_envs.core.errors import IllegalActionError, InvalidOptionError, MctsEnvsError
from mcts_envs.core.game import Game
from mcts_envs.records import bounded, quote

#: Seconds ``close`` waits for the engine to exit after ``quit`` before killing it.
QUIT_GRACE = 2.0
#: Default milliseconds an engine may answer after its ``go movetime`` (the ``margin`` option).
DEFAULT_MARGIN_MS = 250
#: Seconds this process may take, beyond the margin, to read a ``bestmove`` sent in time.
READ_SLACK = 1.0
#: Longest engine line read (characters); the rest of a longer line is dropped.
MAX_LINE_CHARS = 4096
#: Lines before a ``bestmove`` kept (the last ones; ``UAIAgent.last_info``).
INFO_WINDOW = 64
#: Unread lines kept waiting; past this, lines whose first word no read waits for are dropped.
MAX_PENDING_LINES = 1024
#: First words of the lines a read waits for (kept while :data:`MAX_PENDING_LINES` allows
#: four times as many).
ANSWER_WORDS = ("bestmove", "uaiok", "readyok", "id", "option")
#: Longest ``id name`` kept (characters), and most option names learnt in a handshake.
MAX_NAME_CHARS = 200
MAX_OPTIONS = 256
#: Longest part of an engine's line kept in a message or a record.
MAX_LINE_QUOTE = 200
#: ``bestmove`` words read as the protocol's null move ``0000`` (some engines send ``pass``).
NULL_MOVES = ("0000", "pass")
#: Longest move time (seconds) a ``seconds`` option may ask for (about 24 days, UAI's int32 ms).
MAX_MOVE_SECONDS = (2**31 - 1) / 1000
#: Largest ``clock_factor``.
MAX_CLOCK_FACTOR = 1000.0


class EngineError(MctsEnvsError, RuntimeError):
    """The engine could not be started, stopped answering, or broke the protocol."""


class EngineForfeitError(EngineError, ForfeitError):
    """The engine lost the game by a fault during a move (see the module docstring).

    Attributes:
        reason: ``"illegal move"``, ``"unparseable move"``, ``"crash"``, ``"time"`` (a
            ``bestmove`` after the move's time and margin) or ``"timeout"`` (none by then).
        line: the engine's ``bestmove`` line (``None`` if it sent none).
    """


class EngineRestartWarning(RuntimeWarning):
    """An engine process had exited (crashed or was killed) and a new one was started."""


class _Reply(NamedTuple):
    """The line a read waited for, and what came before it.

    Attributes:
        line: the line (at most :data:`MAX_LINE_CHARS` characters).
        stamp: when the reader thread read it (``time.monotonic()``).
        before: the last :data:`INFO_WINDOW` lines before it.
        skipped: the lines before it that ``before`` does not keep (dropped by the reader
            while unread lines were over the bound included).
        length: the line's length as the engine sent it (more than ``len(line)`` when cut).
    """

    line: str
    stamp: float
    before: list[str]
    skipped: int
    length: int


class _EngineProcess:
    """The engine's process, with a reader thread queuing its output lines (bounded, see the
    module docstring), each stamped with the time it was read."""

    def __init__(self, argv: list[str]) -> None:
        self.argv = list(argv)
        #: The engine's ``id name``, ``id author`` and its option names (lower case), after
        #: :meth:`handshake`.
        self.name: str | None = None
        self.author: str | None = None
        self.options: set[str] = set()
        #: Lines the reader dropped (unread lines beyond the bound) and lines cut at
        #: :data:`MAX_LINE_CHARS`.
        self.dropped = 0
        self.cut = 0
        try:
            self.process = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=None,  # the engine's own complaints reach the user
                text=True,
                encoding="utf-8",
                errors="replace",
                bufsize=1,
                preexec_fn=_die_with_parent if _may_die_with_parent() else None,
            )
        except OSError as error:
            raise EngineError(f"cannot start the UAI engine {argv!r}: {error}") from None
        self.lines: queue.Queue[tuple[float, str, int] | None] = queue.Queue()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        stream = self.process.stdout
        with contextlib.suppress(OSError, ValueError):  # the stream closed under the reader
            while True:
                piece = stream.readline(MAX_LINE_CHARS + 1)
                if not piece:
                    break
                stamp = time.monotonic()
                length = len(piece.rstrip("\r\n"))
                if not piece.endswith("\n") and len(piece) > MAX_LINE_CHARS:
                    self.cut += 1  # skip the rest of the line, a bounded piece at a time
                    rest = piece
                    while rest and not rest.endswith("\n"):
                        rest = stream.readline(MAX_LINE_CHARS)
                        length += len(rest.rstrip("\r\n"))
                line = piece.rstrip("\r\n")[:MAX_LINE_CHARS]
                pending = self.lines.qsize()
                if pending >= MAX_PENDING_LINES:
                    first = line.split(maxsplit=1)[:1]
                    if (
                        pending >= 4 * MAX_PENDING_LINES
                        or first[0:1] == []
                        or (first[0] not in ANSWER_WORDS)
                    ):
                        self.dropped += 1
                        continue
                self.lines.put((stamp, line, length))
        self.lines.put(None)

    def send(self, line: str) -> None:
        try:
            self.process.stdin.write(line + "\n")
            self.process.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            raise EngineForfeitError(
                f"the UAI engine exited (code {self.process.poll()}) before {line!r}", "crash"
            ) from None

    def expect(self, first_word: str, timeout: float, seen: Any = None) -> _Reply:
        """Read lines until one starts with ``first_word``; ``seen(line)`` is called on each
        line before it, if given.

        Raises:
            EngineForfeitError: ``"timeout"`` if no such line comes within ``timeout`` seconds,
                ``"crash"`` if the engine exits first.
        """
        deadline = time.monotonic() + timeout
        window: collections.deque[str] = collections.deque(maxlen=INFO_WINDOW)
        before = self.dropped
        count = 0
        while True:
            left = deadline - time.monotonic()
            try:
                item = self.lines.get(timeout=max(left, 0.0)) if left > 0 else None
            except queue.Empty:
                item = None
                left = 0
            if item is None:
                if left <= 0:
                    raise EngineForfeitError(
                        f"the UAI engine sent no {first_word!r} in {timeout:g} s", "timeout"
                    )
                raise EngineForfeitError(
                    f"the UAI engine exited (code {self.process.poll()}) before sending "
                    f"{first_word!r}",
                    "crash",
                )
            stamp, line, length = item
            if line.split()[:1] == [first_word]:
                skipped = count - len(window) + self.dropped - before
                return _Reply(line, stamp, list(window), skipped, length)
            count += 1
            window.append(line)
            if seen is not None:
                seen(line)

    def handshake(self, timeout: float) -> None:
        """``uai`` .. ``uaiok``: learn the engine's name (up to :data:`MAX_NAME_CHARS`
        characters) and options (the first :data:`MAX_OPTIONS`)."""

        def learn(line: str) -> None:
            words = line.split()
            if words[:2] == ["id", "name"]:
                self.name = bounded(" ".join(words[2:]), MAX_NAME_CHARS)
            if words[:2] == ["id", "author"]:
                self.author = bounded(" ".join(words[2:]), MAX_NAME_CHARS)
            room = len(self.options) < MAX_OPTIONS
            if words[:2] == ["option", "name"] and len(words) > 2 and room:
                self.options.add(words[2].lower())

        self.send("uai")
        self.expect("uaiok", timeout, learn)

    def alive(self) -> bool:
        """Whether the process is still running."""
        return self.process.poll() is None

    def death_notice(self) -> str:
        """What to tell the user about an engine found dead."""
        return (
            f"the UAI engine {shlex.join(self.argv)!r} (pid {self.process.pid}) exited with "
            f"code {self.process.poll()}; starting a new one"
        )

    def close(self) -> None:
        """``quit``, then kill after :data:`QUIT_GRACE` seconds (at once if interrupted)."""
        if self.process.poll() is None:
            try:
                self.send("quit")
                self.process.wait(QUIT_GRACE)
            except (EngineError, subprocess.TimeoutExpired):
                self.process.kill()
                self.process.wait()
            except BaseException:  # Ctrl-C or exit during the grace: no engine left behind
                self.process.kill()
                self.process.wait()
                raise
        for stream in (self.process.stdin, self.process.stdout):
            with contextlib.suppress(OSError):
                stream.close()


class EnginePool:
    """Idle engine processes by command line, kept for the next agent of that command.

    Thread-safe. :attr:`starts` counts the processes started per command (``tuple(argv)``).
    """

    def __init__(self) -> None:
        self._idle: dict[tuple[str, ...], list[_EngineProcess]] = {}
        self._lock = threading.Lock()
        self._closed = False
        self.starts: dict[tuple[str, ...], int] = {}

    def acquire(self, argv: list[str], timeout: float) -> tuple[_EngineProcess, bool]:
        """``(engine, new)``: an idle running engine of ``argv``, else a new one after its
        handshake (``new`` True). Idle engines found dead are dropped with an
        :class:`EngineRestartWarning`.

        Raises:
            EngineError: if a new engine cannot start or does not finish its handshake.
        """
        key = tuple(argv)
        with self._lock:
            idle = self._idle.get(key, [])
            while idle:
                engine = idle.pop()
                if engine.alive():
                    return engine, False
                warnings.warn(engine.death_notice(), EngineRestartWarning, stacklevel=3)
                engine.close()
            self.starts[key] = self.starts.get(key, 0) + 1
        engine = _EngineProcess(argv)
        try:
            engine.handshake(timeout)
        except EngineError:
            engine.close()
            raise
        return engine, True

    def release(self, engine: _EngineProcess) -> None:
        """Keep ``engine`` for the next agent of its command (ended if dead or closed)."""
        with self._lock:
            if engine.alive() and not self._closed:
                self._idle.setdefault(tuple(engine.argv), []).append(engine)
                return
        engine.close()

    def close(self) -> None:
        """End every idle engine (``quit``, then killed after :data:`QUIT_GRACE` seconds)."""
        with self._lock:
            engines = [engine for idle in self._idle.values() for engine in idle]
            self._idle.clear()
        for engine in engines:
            engine.close()

    def _shut(self) -> None:
        self._closed = True
        self.close()


def _die_with_parent() -> None:  # pragma: no cover - runs in the child before exec
    """In the engine's process before it runs: SIGKILL when the parent dies (Linux)."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)


_PR_SET_PDEATHSIG = 1


def _may_die_with_parent() -> bool:
    """Whether an engine started now may ask for the parent-death signal: Linux sends it when
    the *thread* that started the child ends, so only the main thread's children ask."""
    return (
        sys.platform.startswith("linux") and threading.current_thread() is threading.main_thread()
    )


#: The process-wide pool of idle engines (closed when the interpreter exits).
ENGINES = EnginePool()
atexit.register(ENGINES._shut)


#: The ``info`` fields :func:`info_numbers` reads (each followed by an integer).
INFO_FIELDS = ("depth", "seldepth", "time", "nodes", "nps", "hashfull")


def info_numbers(words: list[str]) -> dict[str, int]:
    """The integer fields of one ``info`` line's words: :data:`INFO_FIELDS`, and ``score``
    (``score 37``, or UCI's ``score cp 37``; ``score mate N`` is kept as ``mate``). Fields
    that are absent or not integers are left out."""
    numbers: dict[str, int] = {}
    for index, word in enumerate(words[:-1]):
        value = words[index + 1]
        if word == "score" and value in ("cp", "mate") and index + 2 < len(words):
            word, value = ("score" if value == "cp" else "mate"), words[index + 2]
        elif word not in (*INFO_FIELDS, "score"):
            continue
        with contextlib.suppress(ValueError):
            numbers[word] = int(value)
    return numbers


class UAIAgent(ForwardModelAgent):
    """An external Ataxx engine over UAI (runs the command ``cmd``; Ataxx only).

    Args:
        cmd: the engine's command line (split like a shell's, run without a shell; no commas).
        seed: sent as ``setoption name Seed`` if the engine offers that option.
        movetime: milliseconds per move (``go movetime``); the default budget.
        depth: ask for ``go depth N`` instead of a move time.
        nodes: ask for ``go nodes N`` instead of a move time.
        timeout: seconds allowed for start-up, and for the answer to ``go depth`` or ``go
            nodes`` (no move time).
        seconds: seconds per move, sent as ``go movetime`` (replaces ``movetime``; a
            tournament's ``--time`` and ``--clock`` set it for every move).
        margin: milliseconds an answer to ``go movetime`` may come after the move time (default
            :data:`DEFAULT_MARGIN_MS`); a later one loses the game.
        clock_factor: send the move's budget as a clock instead, ``go wtime X btime X`` with
            ``X`` this many times the budget, for engines that ignore ``movetime`` and share
            out a clock (AtaxxDotCpp ends its iterations at a fortieth of it and stops at a
            fifth); ``None``: ``go movetime``. The engine then answers within the clock's time
            plus ``timeout`` (``margin`` does not apply: the clock is the engine's to share out),
            and its measured think time is in the record.

    Raises:
        InvalidOptionError: for an empty command or non-positive budgets.
    """

    def __init__(
        self,
        *,
        cmd: str,
        seed: int | None = None,
        movetime: int = 100,
        depth: int | None = None,
        nodes: int | None = None,
        timeout: float = 30.0,
        seconds: float | None = None,
        margin: int = DEFAULT_MARGIN_MS,
        clock_factor: float | None = None,
    ) -> None:
        try:
            argv = shlex.split(cmd)
        except ValueError as error:
            raise InvalidOptionError(f"uai: cannot split cmd {quote(cmd)}: {error}") from None
        if not argv:
            raise InvalidOptionError("uai: cmd is empty; give the engine's command line")
        for label, value in (("movetime", movetime), ("depth", depth), ("nodes", nodes)):
            if value is not None and (isinstance(value, bool) or int(value) < 1):
                raise InvalidOptionError(f"uai: {label} must be a positive integer, got {value!r}")
        if not timeout > 0:
            raise InvalidOptionError(f"uai: timeout must be > 0, got {timeout!r}")
        if isinstance(margin, bool) or not isinstance(margin, int) or not 0 <= margin <= 10**6:
            raise InvalidOptionError(
                f"uai: margin must be an integer of milliseconds from 0 to 1000000, got "
                f"{quote(margin)}"
            )
        if seconds is not None and not (0 < seconds < MAX_MOVE_SECONDS):
            raise InvalidOptionError(
                f"uai: seconds must be > 0 and < {MAX_MOVE_SECONDS}, got {seconds!r}"
            )
        if clock_factor is not None and not (0 < clock_factor <= MAX_CLOCK_FACTOR):
            raise InvalidOptionError(
                f"uai: clock_factor must be > 0 and <= {MAX_CLOCK_FACTOR:g}, got {clock_factor!r}"
            )
        self.argv = argv
        self.cmd = cmd
        self.seed = seed
        self.clock_factor = None if clock_factor is None else float(clock_factor)
        self.movetime = int(movetime)
        self.depth = depth
        self.nodes = nodes
        self.timeout = float(timeout)
        self.seconds = None if seconds is None else float(seconds)
        self.margin = int(margin)
        self.name = f"uai:cmd={cmd}"
        #: The engine's ``id name``, once started.
        self.engine_name: str | None = None
        #: Seconds from ``go`` to ``bestmove`` of the last move (``None`` before one).
        self.last_think_seconds: float | None = None
        #: The last :data:`INFO_WINDOW` lines the engine sent before its last ``bestmove``
        #: (each at most :data:`MAX_LINE_CHARS` characters), and how many earlier ones of that
        #: move were not kept.
        self.last_info: list[str] = []
        self.last_info_dropped = 0
        #: The numbers of the engine's last ``info`` line before its last ``bestmove``
        #: (:func:`info_numbers`: ``depth``, ``nodes``, ``nps``, ``score``, ...).
        self.last_info_numbers: dict[str, int] = {}
        self._engine: _EngineProcess | None = None
        self._finalizer: Any = None

    # -- engine life --------------------------------------------------------------------------
    def _start(self) -> _EngineProcess:
        """This agent's engine: the one it holds if alive; else one from :data:`ENGINES`
        (a new game for it: ``Seed``, ``uainewgame``, ``readyok``)."""
        if self._engine is not None:
            if self._engine.alive():
                return self._engine
            warnings.warn(self._engine.death_notice(), EngineRestartWarning, stacklevel=3)
            self._finalizer.detach()
            self._engine.close()
            self._engine = None
        engine, _ = ENGINES.acquire(self.argv, self.timeout)
        self._engine = engine
        self._finalizer = weakref.finalize(self, ENGINES.release, engine)
        self.engine_name = engine.name
        if self.seed is not None and "seed" in engine.options:
            engine.send(f"setoption name Seed value {int(self.seed) % 2**31}")
        engine.send("uainewgame")
        engine.send("isready")
        engine.expect("readyok", self.timeout)
        return engine

    @property
    def engine_pid(self) -> int | None:
        """The process id of the engine this agent holds (``None`` before it first acts)."""
        return None if self._engine is None else self._engine.process.pid

    def close(self) -> None:
        """Send ``quit`` and end this agent's engine (a new one starts if the agent acts
        again); idle engines of the pool are left running (see :meth:`EnginePool.close`)."""
        if self._finalizer is not None:
            self._finalizer.detach()
            self._finalizer = None
        if self._engine is not None:
            self._engine.close()
            self._engine = None

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["_engine"] = None  # a copy (another process) starts its own engine
        state["_finalizer"] = None
        return state

    def resolved_options(self, game: Game) -> dict[str, Any]:
        """Every constructor option as this agent keeps it, for game records
        (:mod:`mcts_envs.agents.resolved`); ``margin`` only where it applies (not with
        ``clock_factor``: a clock is the engine's to share out)."""
        options = constructor_options(self)
        if self.clock_factor is not None:
            del options["margin"]
        return options

    def identity(self) -> dict[str, str | None]:
        """The engine's ``id name`` and ``id author`` (``None`` before it has started), what
        game records keep beside the options (:mod:`mcts_envs.agents.resolved`)."""
        engine = self._engine
        return {
            "name": self.engine_name,
            "author": None if engine is None else engine.author,
        }

    # -- Agent protocol -----------------------------------------------------------------------
    def prepare(self, game: Game) -> None:
        """Start the engine and wait for ``readyok`` (the engine's own start-up and compilation
        stay out of the first move's time)."""
        self._check_game(game)
        self._start()

    def reset(self) -> None:
        """A new game: ``uainewgame`` if the engine runs."""
        if self._engine is not None and self._engine.alive():
            self._engine.send("uainewgame")
            self._engine.send("isready")
            self._engine.expect("readyok", self.timeout)

    def act_state(self, game: Game, state: np.ndarray) -> int:
        """The engine's move in ``state`` (sent as a FEN; ``bestmove pass`` reads as ``0000``).

        An engine found dead before the move is started again (with an
        :class:`EngineRestartWarning`); one that fails during the move loses the game.

        Raises:
            InvalidOptionError: if ``game`` is not Ataxx.
            EngineForfeitError: if the engine answers an illegal or unparseable move, exits
                before answering, answers after its move time plus ``margin`` or not at all
                (under ``go depth``/``nodes``: not within ``timeout``), or a dead one cannot be
                started again; the engine is ended first, except after an illegal or
                unparseable move (it answered and waits).
            EngineError: if a dead engine cannot be started again.
        """
        self._check_game(game)
        try:
            engine = self._start()
            reply = self._ask(engine, game, state)
        except BaseException as failure:  # never leave an engine mid-search behind
            if not isinstance(failure, EngineForfeitError):
                self.close()
                raise
            self.close()  # dead, or may answer late into the next game: never reused
            raise EngineForfeitError(
                f"the UAI engine {self._label()} lost the game in {game.to_text(state)!r}: "
                f"{failure}",
                failure.reason,
                failure.line,
                line_length=failure.line_length,
            ) from None
        line = reply.line
        words = line.split()
        move = words[1] if len(words) > 1 else ""
        try:
            return game.uai_to_move(state, "0000" if move in NULL_MOVES else move)
        except (IllegalActionError, MctsEnvsError) as error:
            reason = "illegal move" if isinstance(error, IllegalActionError) else "unparseable move"
            raise EngineForfeitError(
                f"the UAI engine {self._label()} lost the game by an {reason}: it answered "
                f"{quote(line, MAX_LINE_QUOTE)} in {game.to_text(state)!r} "
                f"({bounded(str(error))})",
                reason,
                line,
                line_length=reply.length,
            ) from None

    def _label(self) -> str:
        """The engine's name for messages (its ``id name``, else its program)."""
        return quote(self.engine_name or self.argv[0], MAX_LINE_QUOTE)

    def _ask(self, engine: _EngineProcess, game: Game, state: np.ndarray) -> _Reply:
        """Send the position and ``go``; the ``bestmove`` reply (its time from ``go`` to its
        arrival is :attr:`last_think_seconds`).

        Raises:
            EngineForfeitError: ``"time"`` if it arrived after the move time plus ``margin``,
                ``"timeout"`` if none came (see :meth:`_EngineProcess.expect`).
        """
        engine.send(f"position fen {game.to_text(state)}")
        allowed = None
        if self.depth is not None:
            go, wait = f"go depth {int(self.depth)}", self.timeout
        elif self.nodes is not None:
            go, wait = f"go nodes {int(self.nodes)}", self.timeout
        else:
            movetime = self.movetime if self.seconds is None else max(1, round(self.seconds * 1000))
            if self.clock_factor is None:
                allowed = (movetime + self.margin) / 1000
                go, wait = f"go movetime {movetime}", allowed + READ_SLACK
            else:
                clock = min(2**31 - 1, max(1, round(self.clock_factor * movetime)))
                go, wait = f"go wtime {clock} btime {clock}", clock / 1000 + self.timeout
        start = time.monotonic()
        engine.send(go)
        try:
            reply = engine.expect("bestmove", wait)
        except EngineForfeitError as failure:
            if allowed is None or failure.reason != "timeout":
                raise
            raise EngineForfeitError(
                f"the UAI engine sent no 'bestmove' within its move time plus margin "
                f"({movetime} + {self.margin} ms)",
                "timeout",
            ) from None
        self.last_think_seconds = reply.stamp - start
        self.last_info, self.last_info_dropped = reply.before, reply.skipped
        infos = (words for words in map(str.split, reversed(reply.before)) if words[:1] == ["info"])
        last = next(infos, None)  # the lines are split from the last back to the last info
        self.last_info_numbers = info_numbers(last) if last is not None else {}
        if allowed is not None and reply.stamp - start > allowed:
            raise EngineForfeitError(
                f"the UAI engine answered after {reply.stamp - start:.3f} s, over its move time "
                f"plus margin ({movetime} + {self.margin} ms)",
                "time",
                reply.line,
                line_length=reply.length,
            )
        return reply

    @staticmethod
    def _check_game(game: Game) -> None:
        if game.info.name != "ataxx":
            raise InvalidOptionError(
                f"uai agents play Ataxx only (UAI is the Ataxx engine protocol), not "
                f"{game.info.name}"
            )
