"""Any agent as an Ataxx engine over UAI (``mcts-envs uai --agent SPEC``).

UAI is the Ataxx dialect of UCI that tournament managers such as cuteataxx speak over a pipe.
Supported commands:

* ``uai``: ``id name``, ``id author``, the options, ``uaiok``;
* ``isready``: ``readyok``, at once while searching (the first one, when idle, also compiles the
  agent's search, so no ``go`` pays for compilation);
* ``uainewgame``; ``setoption name NAME value VALUE`` (options ``Agent``: the agent spec,
  ``Seed`` (0 to 2147483647), ``MoveOverhead``: milliseconds kept in hand for the pipe (0 to
  5000); a value out of range is refused with an ``info string`` and the option keeps its value);
* ``position startpos|fen FEN [moves M1 M2 ...]``;
* ``go`` with ``movetime``, ``wtime``/``btime``/``winc``/``binc`` (x, the side that moves first,
  uses ``btime``/``binc`` as libataxx's black), ``depth``, ``nodes`` (``simulations`` is read as
  ``nodes``), ``infinite``; then ``stop``; ``quit``. Unknown words are ignored, as UCI asks.
  Numbers are clamped to 0..:data:`MAX_GO_NUMBER` and a depth to the agent's deepest search.

The ``Agent`` option comes from whatever writes to the engine's input (a GUI, a tournament
manager, a relay of remote users' options), so it accepts only the safe built-in agents with
plain options (:func:`mcts_envs.agents.safe_spec.check_safe_spec`: ``random``, ``minimax2``,
``alphabeta``, ``mcts``; no ``uai:cmd=``, which runs a program, no ``ppo:path=``, which unpickles
a file, no agents of ``--agent-module``), unless the engine was started with
``--allow-unsafe-agents``. The ``--agent`` of the command line is the user's own and may be any
spec.

A search that fails never answers a silent garbage move: the engine sends ``info string error:
...`` and the best move of a one-ply search (:func:`fallback_action`). Every ``go`` gets a
``bestmove``: a malformed one (``go movetime nan``) gets ``info string error: ...`` and at once
the one-ply search's move (``0000`` when the game is over); only a ``go`` sent while a search
runs is refused with an ``info string`` alone (that search's ``bestmove`` answers the manager).

``stop`` is answered within :data:`STOP_ANSWER_SECONDS` (plus the time to read the line) whatever
the agent and its budget: the built-in searches end at once (below); a search that has not
answered by then (an agent that cannot be stopped: ``--agent-module`` agents, ``uai:cmd=``,
``ppo:path=``) is answered by the one-ply search, and its own late answer is dropped. Each MCTS
search's tree is bounded to :data:`SEARCH_MEMORY_MB` MB unless the spec sets ``max_memory_mb``
(a full tree ends the search with what it has).

The search runs in a thread, so ``stop``, ``isready`` and ``quit`` are answered while it runs:

* alpha-beta and minimax2 search in compiled code that releases the GIL and reads a stop flag
  (:func:`mcts_envs.agents.players.alphabeta.new_stop_flag`) every few nodes: ``stop`` (or the move's time, for
  minimax2 which has no clock of its own) ends the search at once, and the answer is the best
  move of the last completed iteration (both deepen one ply at a time); ``go infinite`` deepens
  until ``stop``;
* agents that reuse a search tree (MCTS) search in slices of :data:`SLICE_SECONDS` on one tree
  and stop between slices, before the deadline if the time left is shorter than a recent slice
  took (under ``go nodes`` alone, slices of at most :data:`SLICE_NODES` simulations, so a seeded
  search is reproducible; the count is rounded up to whole slices); a ``go`` without a time or
  node limit (a bare ``go``, or ``go depth`` for MCTS) searches the spec's own budget
  (``iterations`` as nodes, ``seconds`` as the move time) in the same slices;
* other agents (random, ...) get the whole budget in one call (``stop`` answers for them, see
  above).

``info`` lines report ``depth`` (alpha-beta's and minimax2's completed depth; for MCTS the length
of its principal variation), ``nodes`` (simulations for MCTS, searched nodes for alpha-beta),
``nps``, ``score cp`` and ``pv`` (alpha-beta: its best move, then the transposition table's
moves; MCTS: the most visited line, :meth:`mcts_envs.agents.mcts.MCTSAgent.principal_variation`).
Alpha-beta sends one after every completed iteration. The score maps the agent's value ``v`` in
[-1, 1] (expected result for the side to move) to centipawns as
``400 * log10((1 + v) / (1 - v))``, capped at +-3000, the Elo-style logistic that engines use to
turn scores into win chances.
"""

from __future__ import annotations

import contextlib
import math
import sys
import threading
import time
from typing import Any, NamedTuple, TextIO

import numpy as np

from mcts_envs.agents.frontends import CommandIO
from mcts_envs.agents.safe_spec import ALLOWED_OPTIONS
from mcts_envs.core.constants import TERMINAL
from mcts_envs.core.errors import InvalidOptionError, MctsEnvsError

#: Seconds per search slice of a tree-reusing agent (bounds the answer time of ``stop``).
SLICE_SECONDS = 0.01
#: Most simulations per slice of a ``go nodes`` search without a time limit.
SLICE_NODES = 256
#: Default milliseconds kept in hand for the pipe and the move's bookkeeping.
DEFAULT_OVERHEAD_MS = 10
#: Largest centipawn score reported.
SCORE_CAP = 3000
#: Seconds between two ``info`` lines of a long search.
INFO_INTERVAL = 0.5
#: Moves a clock is shared over when no ``movestogo`` is given.
MOVES_TO_GO = 25
#: Most moves of a ``pv``.
MAX_PV = 12
#: Seconds a thread waits for the GIL before asking for it while the engine serves (see serve).
SWITCH_INTERVAL = 0.001
#: Largest number ``go`` takes (milliseconds, nodes, depth); larger ones are read as this.
MAX_GO_NUMBER = 2**31 - 1
#: The ``Seed`` option's range.
SEED_RANGE = (0, 2**31 - 1)
#: The ``MoveOverhead`` option's range (milliseconds).
OVERHEAD_RANGE = (0, 5000)
#: The end of the message refusing an option's value.
KEPT = "; the option keeps its value"
#: Seconds ``stop`` waits for the search's own ``bestmove`` before answering for it.
STOP_ANSWER_SECONDS = 0.05
#: Memory bound (MB) of each MCTS search's tree, unless the spec sets ``max_memory_mb``.
SEARCH_MEMORY_MB = 1024
ENGINE_NAME = "mcts-envs"
ENGINE_AUTHOR = "mcts-envs developers"


class GoLimits(NamedTuple):
    """The limits of one ``go`` command (``None``: not given).

    Attributes:
        movetime: milliseconds for this move.
        wtime, btime, winc, binc: clocks and increments in milliseconds (o is white, x black).
        movestogo: moves until the next time control.
        depth: search depth (alpha-beta and minimax2 plies).
        nodes: nodes (MCTS simulations).
        infinite: search until ``stop``.
    """

    movetime: int | None = None
    wtime: int | None = None
    btime: int | None = None
    winc: int | None = None
    binc: int | None = None
    movestogo: int | None = None
    depth: int | None = None
    nodes: int | None = None
    infinite: bool = False


_GO_NUMBERS = ("movetime", "wtime", "btime", "winc", "binc", "movestogo", "depth", "nodes")


def parse_go(words: list[str]) -> GoLimits:
    """The limits of ``go`` from its words (after ``go``); unknown words are skipped; numbers
    are clamped to ``0..MAX_GO_NUMBER``.

    Raises:
        ValueError: if a limit is not followed by an integer.
    """
    values: dict[str, Any] = {}
    index = 0
    while index < len(words):
        word = words[index].lower()
        key = "nodes" if word == "simulations" else word
        if key in _GO_NUMBERS:
            if index + 1 >= len(words):
                raise ValueError(f"go {word}: a number is missing")
            try:
                number = int(words[index + 1])
            except ValueError:
                raise ValueError(f"go {word}: {words[index + 1]!r} is not an integer") from None
            values[key] = min(max(number, 0), MAX_GO_NUMBER)
            index += 2
            continue
        if word == "infinite":
            values["infinite"] = True
        index += 1
    return GoLimits(**values)


def think_seconds(limits: GoLimits, side: int, overhead_ms: int) -> float | None:
    """Seconds to think for ``side`` (0 is x) under ``limits``; ``None`` for no time limit.

    ``movetime`` minus the overhead; on a clock, ``remaining / movestogo + 3/4 increment``, never
    more than half the remaining time minus the overhead; at least 1 ms.
    """
    if limits.infinite:
        return None
    if limits.movetime is not None:
        return max(0.001, (limits.movetime - overhead_ms) / 1000)
    remaining = limits.btime if side == 0 else limits.wtime
    increment = (limits.binc if side == 0 else limits.winc) or 0
    if remaining is None:
        return None
    moves = limits.movestogo if limits.movestogo and limits.movestogo > 0 else MOVES_TO_GO
    share = remaining / moves + 0.75 * increment
    ceiling = remaining / 2 - overhead_ms
    return max(0.001, min(share, ceiling) / 1000)


def centipawns(value: float) -> int:
    """The ``score cp`` of a value in [-1, 1] (see the module docstring)."""
    value = min(max(float(value), -1.0), 1.0)
    if value >= 1.0:
        return SCORE_CAP
    if value <= -1.0:
        return -SCORE_CAP
    return int(max(-SCORE_CAP, min(SCORE_CAP, round(400 * math.log10((1 + value) / (1 - value))))))


class SearchReport(NamedTuple):
    """What a search has found so far (``pv``: the expected line, starting with ``action``;
    empty for just the action)."""

    action: int
    value: float
    depth: int
    nodes: int
    pv: tuple[int, ...] = ()


def _spec_with(spec: str, overrides: dict[str, Any]) -> str:
    """``spec`` with options replaced or added (values as spec text; ``None`` as ``none``)."""
    from mcts_envs.agents.spec import parse_spec

    name, options = parse_spec(spec)
    for key, value in overrides.items():
        options[key] = "none" if value is None else str(value)
    return name + (":" + ",".join(f"{k}={v}" for k, v in options.items()) if options else "")


class UAIEngine:
    """A UAI engine around agent specs; :meth:`handle` takes one line of the protocol.

    Args:
        spec: the agent spec (the ``Agent`` option).
        out: where replies go (each line flushed; writes from both threads are serialised).
        seed: the ``Seed`` option: game ``g``'s move ``m`` uses a seed derived from it, so a
            search with a node or depth budget is reproducible.
        allow_unsafe_agents: let ``setoption name Agent`` name any spec (by default only the
            safe kinds of :func:`mcts_envs.agents.safe_spec.check_safe_spec`, or ``spec`` again: it is
            the caller's own and is not restricted).

    Raises:
        InvalidOptionError: for a bad ``spec`` or a ``seed`` outside :data:`SEED_RANGE`.
    """

    def __init__(
        self, spec: str, out: TextIO, seed: int = 0, allow_unsafe_agents: bool = False
    ) -> None:
        import mcts_envs
        from mcts_envs.agents.spec import make_agent

        make_agent(spec, seed=0)  # a bad spec fails here, before any protocol line
        self.spec = spec
        #: The spec of the command line: the ``Agent`` option may always set it again.
        self.trusted_spec = spec
        self.out = out
        self.seed = _spin("Seed", str(seed), SEED_RANGE)
        self.allow_unsafe_agents = allow_unsafe_agents
        self.overhead_ms = DEFAULT_OVERHEAD_MS
        self.game = mcts_envs.make_game("ataxx")
        self.state = self.game.initial_state()
        self.ready = False
        self._lock = threading.Lock()
        # the running search's stop event, compiled stop flag (see the module docstring) and
        # answered event; each search has its own, so a search abandoned by stop (one that
        # could not be stopped) never touches the next one's
        self._stop = threading.Event()
        self._stop_flag = _new_flag()
        self._answered = threading.Event()
        self._answered.set()
        self._thread: threading.Thread | None = None
        self._searched: np.ndarray | None = None  # the running search's position
        self._searches = 0

    # -- output -------------------------------------------------------------------------------
    def send(self, line: str) -> None:
        """Write one line and flush (safe from the search thread)."""
        with self._lock:
            self.out.write(line + "\n")
            self.out.flush()

    # -- commands -----------------------------------------------------------------------------
    def handle(self, line: str) -> bool:
        """Act on one protocol line; returns ``False`` after ``quit``."""
        words = line.split()
        if not words:
            return True
        command, arguments = words[0], words[1:]
        if command == "quit":
            self.stop_search()
            return False
        handler = {
            "uai": self._uai,
            "isready": self._isready,
            "uainewgame": self._new_game,
            "setoption": self._setoption,
            "position": self._position,
            "go": self._go,
            "stop": lambda _: self.stop_search(),
        }.get(command)
        if handler is None:
            self.send(f"info string unknown command {line.strip()[:60]!r}")
            return True
        try:
            handler(arguments)
        except (MctsEnvsError, ValueError, TypeError) as error:
            self.send(f"info string error: {str(error)[:300]}")
        return True

    def _uai(self, _: list[str]) -> None:
        self.send(f"id name {ENGINE_NAME} {self.spec}")
        self.send(f"id author {ENGINE_AUTHOR}")
        self.send(f"option name Agent type string default {self.spec}")
        low, high = SEED_RANGE
        self.send(f"option name Seed type spin default {self.seed} min {low} max {high}")
        low, high = OVERHEAD_RANGE
        self.send(
            f"option name MoveOverhead type spin default {self.overhead_ms} min {low} max {high}"
        )
        self.send("uaiok")

    def _isready(self, _: list[str]) -> None:
        if not self.searching() and not self.ready:
            try:
                self.warm_up()
            except Exception as error:  # still ready: the first go will try again and answer
                self.send(f"info string warm-up failed: {str(error)[:300]}")
        self.send("readyok")

    def warm_up(self) -> None:
        """Compile the agent's search (``prepare`` plus a short search of the start position)."""
        from mcts_envs.agents.spec import agent_parameters, make_agent, parse_spec

        name, _ = parse_spec(self.spec)
        accepted = {p.name for p in agent_parameters(name)}
        small = {"iterations": 64} if "iterations" in accepted else {}
        small.update({"depth": 1} if "depth" in accepted else {})
        small.update({"seconds": None} if "seconds" in accepted else {})
        agent = make_agent(_spec_with(self.spec, small), seed=0)
        agent.prepare(self.game)
        action = agent.act_state(self.game, self.game.initial_state())
        self._line(self.game.initial_state(), (int(action),))  # the pv's own calls load too
        sliced = self._agent_for(GoLimits(movetime=1000), 1.0, seed=0)
        if getattr(sliced, "reuse_tree", False):
            with contextlib.suppress(RuntimeError):  # the path of a timed search, compiled too
                sliced.policy(self.game, self.game.initial_state())
        self.ready = True

    def _new_game(self, _: list[str]) -> None:
        self.stop_search()
        self.state = self.game.initial_state()
        self._searches = 0  # a game's searches are seeded alike however many games came before

    def _setoption(self, words: list[str]) -> None:
        text = " ".join(words)
        lowered = text.lower()
        if not lowered.startswith("name ") or " value " not in lowered:
            raise ValueError("setoption name NAME value VALUE")
        split = lowered.index(" value ")
        name, value = text[5:split].strip().lower(), text[split + 7 :].strip()
        if name == "agent":
            self._check_agent(value)
            self.stop_search()
            self.spec, self.ready = value, False
        elif name == "seed":
            seed = _spin("Seed", value, SEED_RANGE, KEPT)
            self.stop_search()
            self.seed = seed
            self._searches = 0
        elif name == "moveoverhead":
            self.overhead_ms = _spin("MoveOverhead", value, OVERHEAD_RANGE, KEPT)
        else:
            raise ValueError(f"unknown option {name!r}; options: Agent, Seed, MoveOverhead")

    def _check_agent(self, spec: str) -> None:
        """Check a spec sent as the ``Agent`` option (see the module docstring).

        Raises:
            InvalidOptionError: for a bad spec, or one that is not safe while unsafe agents are
                not allowed (the message says what is allowed and how to allow more).
        """
        from mcts_envs.agents.safe_spec import check_safe_spec
        from mcts_envs.agents.spec import make_agent

        if self.allow_unsafe_agents or spec == self.trusted_spec:
            make_agent(spec, seed=0)
            return
        hint = " (any agent spec only if the engine was started with --allow-unsafe-agents)"
        check_safe_spec(spec, what="agent", where="over UAI", hint=hint)

    def _position(self, words: list[str]) -> None:
        if not words:
            raise ValueError("position startpos|fen FEN [moves ...]")
        rest = words[1:]
        if words[0] == "startpos":
            state = self.game.initial_state()
        elif words[0] == "fen":
            fen_words = rest[: rest.index("moves")] if "moves" in rest else rest
            rest = rest[len(fen_words) :]
            state = self.game.from_text(" ".join(fen_words))
        else:
            raise ValueError(f"position {words[0]!r}: expected startpos or fen")
        if rest and rest[0] == "moves":
            for move in rest[1:]:
                state = self.game.apply(state, self.game.uai_to_move(state, move))
        self.state = state

    def _go(self, words: list[str]) -> None:
        if self.searching():
            raise ValueError("already searching; send stop first")
        try:
            limits = parse_go(words)
        except ValueError as error:  # still a bestmove: a manager waits for one
            self.send(f"info string error: {str(error)[:300]}; answering a one-ply search")
            answered = threading.Event()
            self._answer(answered, self.state, None)
            return
        if not self.ready:
            with contextlib.suppress(Exception):  # the search reports its own failure
                self.warm_up()
        self._stop = threading.Event()
        self._stop_flag = _new_flag()  # a fresh flag: the last search's may still be set
        self._answered = threading.Event()
        self._searches += 1
        self._searched = self.state.copy()
        self._thread = threading.Thread(
            target=self._search_and_answer,
            args=(
                self._searched,
                limits,
                time.perf_counter(),
                self._searches,
                _Search(self._stop, self._stop_flag, self._answered),
            ),
            daemon=True,
        )
        self._thread.start()

    # -- search -------------------------------------------------------------------------------
    def searching(self) -> bool:
        """Whether a search is running (started and ``bestmove`` not yet sent)."""
        return self._thread is not None and self._thread.is_alive() and not self._answered.is_set()

    def stop_search(self) -> None:
        """Ask a running search to stop; its ``bestmove`` is sent within
        :data:`STOP_ANSWER_SECONDS` (by the one-ply search if the search has not answered by
        then; its own answer is then dropped and its thread left to end on its own)."""
        self._stop.set()
        self._stop_flag[0] = 1
        thread = self._thread
        if thread is None:
            return
        thread.join(STOP_ANSWER_SECONDS)
        answered = self._answered.is_set()
        if thread.is_alive() and not answered and self._searched is not None:
            self.send("info string the search did not stop in time: answering a one-ply search")
            self._answer(self._answered, self._searched, None)
        self._thread = None

    def _answer(
        self, answered: threading.Event, state: np.ndarray, report: SearchReport | None
    ) -> bool:
        """Send search ``answered``'s ``bestmove`` once: ``report``'s move, else the one-ply
        search's (``0000`` for a finished game); False if it was answered already."""
        if report is not None:
            move = self.game.move_to_uai(state, report.action)
        elif self.game.current_player(state) >= 0:
            move = self.game.move_to_uai(state, fallback_action(self.game, state))
        else:
            move = "0000"
        with self._lock:  # answered before the manager can read bestmove and send the next go
            if answered.is_set():
                return False
            answered.set()
            self.out.write(f"bestmove {move}\n")
            self.out.flush()
        return True

    def _agent_for(self, limits: GoLimits, seconds: float | None, seed: int) -> Any:
        """An agent of the spec with this search's budget (options the kind lacks are skipped)."""
        from mcts_envs.agents.spec import agent_parameters, make_agent, parse_spec

        name, given = parse_spec(self.spec)
        accepted = {p.name for p in agent_parameters(name)}
        overrides: dict[str, Any] = {}
        if "max_memory_mb" in accepted and "max_memory_mb" not in given:
            overrides["max_memory_mb"] = SEARCH_MEMORY_MB
        if "reuse_tree" in accepted and "seconds" in accepted:  # sliced (see _run_sliced)
            if seconds is None and limits.nodes is not None and not limits.infinite:
                slices = -(-max(limits.nodes, 1) // SLICE_NODES)
                overrides |= {"seconds": None, "iterations": -(-max(limits.nodes, 1) // slices)}
            else:
                overrides |= {"seconds": SLICE_SECONDS, "iterations": None}
            # a new agent (and tree) per search: following the game in one tree would be
            # stronger, but re-rooting a tree of millions of nodes outlasts short move times
        else:
            if limits.depth is not None and "depth" in accepted:
                overrides["depth"] = min(max(1, limits.depth), _deepest(name))
            elif limits.infinite and "depth" in accepted:  # deepen until stop
                overrides["depth"] = _deepest(name)
            if limits.infinite and "seconds" in accepted:
                overrides["seconds"] = None
            if seconds is not None and "seconds" in accepted:
                overrides["seconds"] = seconds
                if "depth" in accepted and limits.depth is None:
                    overrides["depth"] = None
        return make_agent(_spec_with(self.spec, overrides), seed=seed)

    def _search_and_answer(
        self, state: np.ndarray, limits: GoLimits, start: float, n: int, search: _Search
    ) -> None:
        try:
            report = self._search(state, limits, start, n, search)
        except Exception as error:  # never leave the manager without a bestmove
            report = None
            if self.game.current_player(state) >= 0:
                action = fallback_action(self.game, state)
                report = SearchReport(action, 0.0, 1, len(self.game.legal_actions(state)))
            if not search.answered.is_set():
                self.send(
                    f"info string error: the search failed ({type(error).__name__}: "
                    f"{str(error)[:300]}); answering the best move of a one-ply search"
                )
        if limits.infinite:
            search.stop.wait()
        if search.answered.is_set():
            return  # stop answered for this search already
        if report is None:
            self.send("info string the game is over: no move")
        else:
            self._info(report, time.perf_counter() - start, state)
        self._answer(search.answered, state, report)

    def _info(self, report: SearchReport, elapsed: float, state: np.ndarray) -> None:
        pv = " ".join(self._line(state, report.pv or (report.action,)))
        nps = int(report.nodes / elapsed) if elapsed > 0 else 0
        self.send(
            f"info depth {report.depth} nodes {report.nodes} nps {nps} "
            f"time {int(elapsed * 1000)} score cp {centipawns(report.value)} pv {pv}"
        )

    def _line(self, state: np.ndarray, actions: tuple[int, ...]) -> list[str]:
        """The UAI moves of ``actions`` played from ``state`` (up to the first one illegal)."""
        moves = []
        for action in actions:
            if action not in self.game.legal_actions(state):
                break
            moves.append(self.game.move_to_uai(state, action))
            state = self.game.apply(state, action)
        return moves

    def _search(
        self, state: np.ndarray, limits: GoLimits, start: float, n: int, search: _Search
    ) -> SearchReport | None:
        if self.game.current_player(state) < 0:
            return None
        side = self.game.current_player(state)
        seconds = think_seconds(limits, side, self.overhead_ms)
        seed = self.seed * 1_000_003 + n
        agent = self._agent_for(limits, seconds, seed)
        if getattr(agent, "reuse_tree", False):
            if seconds is None and limits.nodes is None and not limits.infinite:
                # no limit it understands (a bare "go", or "go depth" for MCTS): the spec's
                # budget, searched in the same stoppable slices
                limits, seconds = self._spec_budget(limits, seed)
                agent = self._agent_for(limits, seconds, seed)
            return self._run_sliced(agent, state, limits, seconds, start, search.stop)
        from mcts_envs.agents.players.alphabeta import AlphaBetaAgent
        from mcts_envs.agents.players.minimax import Minimax2Agent

        if isinstance(agent, AlphaBetaAgent | Minimax2Agent):
            return self._run_stoppable(agent, state, seconds, start, search.flag)
        return self._run_whole(agent, state)

    def _spec_budget(self, limits: GoLimits, seed: int) -> tuple[GoLimits, float | None]:
        """The spec's own budget as a tree search's limits: its ``iterations`` as nodes and its
        ``seconds`` as the move time (both when it sets both)."""
        from mcts_envs.agents.spec import make_agent

        config = getattr(make_agent(self.spec, seed=seed), "config", None)
        iterations = getattr(config, "iterations", None)
        seconds = getattr(config, "seconds", None)
        if iterations is None and seconds is None:
            iterations = SLICE_NODES
        return limits._replace(nodes=iterations), seconds

    def _run_stoppable(
        self,
        agent: Any,
        state: np.ndarray,
        seconds: float | None,
        start: float,
        flag: np.ndarray,
    ) -> SearchReport:
        """Alpha-beta or minimax2 with the stop ``flag`` (set by ``stop``, and by a timer at
        the move's time: alpha-beta keeps its own deadline too, minimax2 has none)."""
        from mcts_envs.agents.players.minimax import Minimax2Agent

        timer = None
        if seconds is not None:
            timer = threading.Timer(
                max(0.0, start + seconds - time.perf_counter()), _set_flag, (flag,)
            )
            timer.daemon = True
            timer.start()
        try:
            if isinstance(agent, Minimax2Agent):
                action, value, depth = agent.search(self.game, state, flag)
                return SearchReport(action, 2.0 * value - 1.0, depth, 0)

            def report(result: Any) -> SearchReport:
                pv = agent.principal_variation(self.game, state, MAX_PV)
                return SearchReport(
                    result.action, result.value, result.depth, result.nodes, tuple(pv)
                )

            def progress(result: Any) -> None:
                self._info(report(result), time.perf_counter() - start, state)

            return report(agent.search(self.game, state, stop=flag, on_iteration=progress))
        finally:
            if timer is not None:
                timer.cancel()

    def _run_whole(self, agent: Any, state: np.ndarray) -> SearchReport:
        """One call of the agent (alpha-beta, minimax2, random): budget set at construction."""
        probs, value = agent.policy(self.game, state)
        legal = self.game.legal_actions(state)
        action = int(legal[np.argmax(probs[legal])])
        from mcts_envs.agents.mcts import MCTSAgent

        if isinstance(agent, MCTSAgent):
            simulations = int(agent.last_search.get("simulations", 1))
            return self._tree_report(agent, action, float(value), simulations)
        result = getattr(agent, "last_result", None)
        depth = int(getattr(result, "depth", 1) or 1)
        nodes = int(
            getattr(result, "nodes", 0) or getattr(agent, "last_search", {}).get("simulations", 1)
        )
        return SearchReport(action, float(value), depth, nodes)

    def _run_sliced(
        self,
        agent: Any,
        state: np.ndarray,
        limits: GoLimits,
        seconds: float | None,
        start: float,
        stop: threading.Event,
    ) -> SearchReport:
        """Slices of :data:`SLICE_SECONDS` on one reused tree until time, nodes or ``stop``.

        A slice that could not reuse the tree (e.g. MCTS's block-loss pruning starts afresh)
        starts a new segment; the answer weighs every segment's visit shares by its simulations.
        """
        deadline = None if seconds is None else start + seconds
        legal = self.game.legal_actions(state)
        closed = np.zeros(self.game.info.num_actions)
        closed_value = closed_weight = 0.0
        segment = np.zeros_like(closed)
        segment_value = segment_weight = 0.0
        nodes = 0
        last_info = time.perf_counter()
        recent: list[float] = []  # wall time of the last slices (longer than asked under load)
        while True:
            began = time.perf_counter()
            try:
                probs, value = agent.policy(self.game, state)
            except RuntimeError:  # the slice's time ran out before the root was expanded
                if stop.is_set() or (deadline is not None and time.perf_counter() > deadline):
                    break
                continue
            facts = getattr(agent, "last_search", {})
            done = int(facts.get("simulations", 1))
            if not facts.get("reused", False):
                closed += segment * segment_weight
                closed_value += segment_value * segment_weight
                closed_weight += segment_weight
                segment_weight = 0.0
            segment, segment_value = probs, float(value)
            segment_weight += max(done, 1)
            nodes += done
            now = time.perf_counter()
            recent = [*recent[-2:], now - began]
            if now - last_info > INFO_INTERVAL:
                last_info = now
                mixed = closed + segment * segment_weight
                best = int(legal[np.argmax(mixed[legal])])
                self._info(self._tree_report(agent, best, segment_value, nodes), now - start, state)
            finished = facts.get("immediate", False) or done == 0
            if (
                finished
                or stop.is_set()
                or (limits.nodes is not None and nodes >= limits.nodes)
                or (deadline is not None and deadline - now < max(SLICE_SECONDS, *recent))
            ):
                break
        weights = closed + segment * segment_weight
        total = closed_weight + segment_weight
        if total == 0:  # not one slice finished in time: a minimal search still gives a move
            from mcts_envs.agents.spec import make_agent

            quick = _spec_with(self.spec, {"iterations": 16, "seconds": None})
            action = int(make_agent(quick, seed=0).act_state(self.game, state))
            return SearchReport(action, 0.0, 1, 16)
        value = (closed_value + segment_value * segment_weight) / total
        return self._tree_report(agent, int(legal[np.argmax(weights[legal])]), value, nodes)

    @staticmethod
    def _tree_report(agent: Any, action: int, value: float, nodes: int) -> SearchReport:
        """The report of a tree search answering ``action``: its principal variation when
        that starts with ``action`` (depth: the line's length), else ``action`` alone."""
        from mcts_envs.agents.mcts import MCTSAgent

        line = tuple(agent.principal_variation(MAX_PV)) if isinstance(agent, MCTSAgent) else ()
        pv = line if line[:1] == (action,) else (action,)
        return SearchReport(action, value, len(pv), nodes, pv)


class _Search(NamedTuple):
    """One search's own signals: ``stop`` (set by ``stop``), the compiled searches' stop
    ``flag``, and ``answered`` (set once its ``bestmove`` is sent, by it or by ``stop``)."""

    stop: threading.Event
    flag: np.ndarray
    answered: threading.Event


def fallback_action(game: Any, state: np.ndarray) -> int:
    """The move of a one-ply search for the side to move in a non-terminal ``state``.

    Each legal move is played once and valued for the mover: a win best, a loss worst, a draw
    as an even position, else the game's static evaluation (:meth:`Game.heuristic`, in [0, 1]);
    ties go to the first move. Plain Python on the game's compiled rules, without a search's
    options or memory, so it answers where a search failed.
    """
    player = game.current_player(state)
    best, best_value = -1, -math.inf
    for action in game.legal_actions(state):
        after = game.apply(state, int(action))
        if game.current_player(after) == TERMINAL:
            value = 0.5 + 1.5 * float(game.returns(after)[player])  # win 2, draw 0.5, loss -1
        else:
            value = game.heuristic(after, player)
        if value > best_value:
            best, best_value = int(action), value
    return best


def _spin(name: str, value: str, bounds: tuple[int, int], note: str = "") -> int:
    """The integer ``value`` of the spin option ``name`` if it lies within ``bounds``.

    Raises:
        InvalidOptionError: if it is not an integer in range (``note`` ends the message).
    """
    from mcts_envs.records import quote

    low, high = bounds
    try:
        number = int(value)
    except ValueError:
        number = None
    if number is None or not low <= number <= high:
        raise InvalidOptionError(
            f"{name} must be an integer from {low} to {high}, got {quote(value)}{note}"
        )
    return number


def _set_flag(flag: np.ndarray) -> None:
    """Set a stop flag (the move-time timer of a stoppable search)."""
    flag[0] = 1


def _new_flag() -> np.ndarray:
    """A stop flag (:func:`mcts_envs.agents.players.alphabeta.new_stop_flag`; imported when first needed, so the
    command line starts without loading the searches)."""
    from mcts_envs.agents.players.alphabeta import new_stop_flag

    return new_stop_flag()


def _deepest(kind: str) -> int:
    """The largest ``depth`` option of an agent kind (how deep ``go infinite`` may go)."""
    from mcts_envs.agents.players import alphabeta, minimax

    return {"alphabeta": alphabeta.MAX_DEPTH, "minimax2": minimax.MAX_DEPTH}.get(kind, 64)


def serve(
    spec: str, keys: TextIO, out: TextIO, seed: int = 0, allow_unsafe_agents: bool = False
) -> int:
    """Run a UAI engine on ``keys`` (commands) and ``out`` (replies) until ``quit`` or the end of
    input; returns 0 (see :class:`UAIEngine` for the arguments).

    While it runs, the interpreter's thread switch interval is :data:`SWITCH_INTERVAL` (restored
    afterwards): a command arriving while MCTS searches (its compiled chunks hold the GIL for a
    few milliseconds each) then waits for the GIL about 1 ms instead of Python's default 5 ms
    before the search thread is asked to hand it over."""
    engine = UAIEngine(spec, out, seed, allow_unsafe_agents)
    interval = sys.getswitchinterval()
    sys.setswitchinterval(SWITCH_INTERVAL)
    try:
        for line in iter(keys.readline, ""):
            if not engine.handle(line):
                return 0
        engine.stop_search()
        return 0
    finally:
        sys.setswitchinterval(interval)


def add_parser(commands: Any) -> None:
    """Add the ``uai`` subcommand."""
    parser = commands.add_parser(
        "uai",
        help="run an agent as an Ataxx engine over UAI (stdin/stdout)",
        description="Speak UAI on stdin/stdout so Ataxx tournament managers (cuteataxx) and GUIs "
        "can play the agent of --agent. 'go movetime' and clocks are honoured to the ms "
        "(minus MoveOverhead); 'stop' and 'isready' answer while searching. 'setoption name Agent' "
        "accepts only safe built-in agents unless --allow-unsafe-agents is given.",
    )
    parser.add_argument(
        "--agent",
        default="mcts",
        help="agent spec (default mcts); go's time and node limits replace its budget, a go "
        "without them uses the spec's own",
    )
    parser.add_argument("--seed", type=int, default=0, help="the Seed option (default 0)")
    parser.add_argument(
        "--allow-unsafe-agents",
        action="store_true",
        help="let 'setoption name Agent' choose any agent spec, including uai:cmd=... (runs a "
        "program) and ppo:path=... (unpickles a file). By default it accepts only "
        + ", ".join(ALLOWED_OPTIONS)
        + " with plain options: whatever writes to the engine's input (a GUI, a tournament "
        "manager, remote users) must not run programs. --agent itself may be any spec",
    )


def run(args: Any, io: CommandIO) -> int:
    """``mcts-envs uai``: :func:`serve` on stdin/stdout (or ``io.keys``/``io.out`` in tests)."""
    return serve(args.agent, io.keys, io.out, args.seed, args.allow_unsafe_agents)
