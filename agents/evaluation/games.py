"""The one game loop: a game between two agents, fully determined by a :class:`GameTask`.

A match (:mod:`mcts_envs.agents.evaluation.arena`) and a tournament are plans
(:mod:`mcts_envs.agents.evaluation.plan`) of :class:`GameTask` values that the one run function
(:func:`mcts_envs.agents.evaluation.run.run_plan`) hands to a backend
(:mod:`mcts_envs.agents.evaluation.backends`), which calls :func:`play_game` for each. A task names the pairing, the game pair (= opening number), the colour
and the seeds; the seeds come only from ``(master seed, pairing, pair, colour)`` for the agents and
``(master seed, pair)`` for chance (:func:`task_seeds`). So ``mcts-envs match G A B --games N
--seed S`` plays exactly the games of ``mcts-envs tournament G A B --games-per-pair N --seed S``,
on any backend, in any order.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from typing import Any, NamedTuple

import numpy as np

from mcts_envs.agents.base import ForfeitError
from mcts_envs.agents.preparation import first_decision, prepare_spec
from mcts_envs.agents.resolved import resolved_agent
from mcts_envs.agents.spec import agent_parameters, make_agent, parse_spec
from mcts_envs.core.compiling import compile_notice
from mcts_envs.core.errors import InvalidOptionError
from mcts_envs.core.game import CHANCE, TERMINAL, Game, sample_chance_outcome
from mcts_envs.core.registry import make_game
from mcts_envs.provenance import provenance
from mcts_envs.records import clip_foreign, make_record, move_cap, quote

__all__ = [
    "TERMINATIONS",
    "Adjudication",
    "GameRules",
    "GameTask",
    "TimeControl",
    "build_agent",
    "parse_clock",
    "play_game",
    "prepare_agents",
    "result_of",
    "set_move_seconds",
    "task_seeds",
    "winner_of",
]

#: Spawn-key tags that keep the seed streams of openings, chance and agents apart.
OPENING_STREAM = 1
CHANCE_STREAM = 2
AGENT_STREAM = 3
#: With a clock, a move may use the time left divided by this (plus most of the increment).
_MOVES_TO_GO = 20
#: How :func:`play_game` can end a game (a record's ``termination``); only ``"end"`` has returns.
TERMINATIONS = ("end", "move cap", "material", "time", "forfeit")


# -- settings -----------------------------------------------------------------------------------


class TimeControl(NamedTuple):
    """How much time a decision may take.

    Attributes:
        move_seconds: a fixed budget per decision (``--time``), or ``None``.
        base_seconds: a clock per player and game (``--clock BASE+INC``), or ``None``.
        increment: seconds added to a player's clock after each of its decisions.
        loss_on_time: a player whose clock runs below zero loses the game.

    Agents whose kind takes a ``seconds`` option (``mcts``, ``alphabeta``) get the budget;
    others play at their own pace, but their time is still charged to their clock.
    """

    move_seconds: float | None = None
    base_seconds: float | None = None
    increment: float = 0.0
    loss_on_time: bool = False

    @property
    def active(self) -> bool:
        """Whether any time limit is set."""
        return self.move_seconds is not None or self.base_seconds is not None

    def budget(self, clock_left: float) -> float | None:
        """Seconds the next decision may use given the mover's clock (``None``: no limit)."""
        if self.base_seconds is not None:
            share = max(clock_left, 0.0) / _MOVES_TO_GO + 0.9 * self.increment
            share = min(share, max(clock_left, 0.0) * 0.5 + self.increment)
            return max(share, 1e-3)
        return self.move_seconds


def parse_clock(text: str) -> tuple[float, float]:
    """``"60+0.5"`` -> ``(60.0, 0.5)`` (base seconds, increment); ``"60"`` has no increment.

    Raises:
        InvalidOptionError: if the text is not ``BASE`` or ``BASE+INC`` with ``BASE > 0``,
            ``INC >= 0``.
    """
    base, _, increment = str(text).partition("+")
    try:
        values = float(base), float(increment or 0.0)
    except ValueError:
        values = (math.nan, math.nan)
    if not (values[0] > 0 and values[1] >= 0 and all(map(math.isfinite, values))):
        raise InvalidOptionError(
            f"a clock is BASE or BASE+INC in seconds (e.g. 60+0.5, BASE > 0, INC >= 0), "
            f"got {quote(text)}"
        )
    return values


class Adjudication(NamedTuple):
    """When a game is stopped before its end.

    Attributes:
        max_moves: after this many decisions the game is a draw (``None``: 100 times the game's
            longest game, a draw as well).
        material_margin: stop when one side has this many more stones than the other and give it
            the win (games with ``stone_counts``, i.e. Ataxx), or ``None``.
    """

    max_moves: int | None = None
    material_margin: int | None = None


class GameRules(NamedTuple):
    """What every game of a tournament shares: the game, its time control and adjudication."""

    game: str
    time: TimeControl = TimeControl()
    adjudication: Adjudication = Adjudication()


class GameTask(NamedTuple):
    """One game of a tournament, fully determined by its fields.

    Attributes:
        pairing: index of the pairing in the tournament.
        spec_a, spec_b: the pairing's agents (A is the first, e.g. the gauntlet agent).
        pair: game pair number within the pairing (= opening number).
        colour: 0 if A plays ``player_0``, 1 if A plays ``player_1``.
        opening: the starting position (``game.to_text``).
        seeds: ``(seed of A, seed of B, chance seed)``.
    """

    pairing: int
    spec_a: str
    spec_b: str
    pair: int
    colour: int
    opening: str
    seeds: tuple[int, int, int]

    @property
    def index(self) -> int:
        """Game number within the pairing: ``2 * pair + colour``."""
        return 2 * self.pair + self.colour

    @property
    def key(self) -> tuple[str, str, int]:
        """What identifies the game in a results file: ``(spec_a, spec_b, index)``."""
        return self.spec_a, self.spec_b, self.index


def _words(master_seed: int, *key: int, count: int = 1) -> list[int]:
    sequence = np.random.SeedSequence(master_seed, spawn_key=key)
    return [int(word) for word in sequence.generate_state(count, dtype=np.uint32)]


def task_seeds(master_seed: int, pairing: int, pair: int, colour: int) -> tuple[int, int, int]:
    """``(seed of A, seed of B, chance seed)`` of one game.

    The agents' seeds depend on ``(master_seed, pairing, pair, colour)``; the chance seed only on
    ``(master_seed, pair)``, so both games of a pair (and every pairing) see the same draws.
    """
    seed_a, seed_b = _words(master_seed, AGENT_STREAM, pairing, pair, colour, count=2)
    (chance,) = _words(master_seed, CHANCE_STREAM, pair)
    return seed_a, seed_b, chance


# -- playing one game ---------------------------------------------------------------------------


def _takes_seconds(spec: str) -> bool:
    kind, options = parse_spec(spec)
    return any(p.name == "seconds" for p in agent_parameters(kind)) and "seconds" not in options


def build_agent(spec: str, seed: int | None, time_control: TimeControl) -> Any:
    """The agent of ``spec``; with a time control, kinds that take ``seconds`` get a budget."""
    if time_control.active and _takes_seconds(spec):
        budget = time_control.budget(time_control.base_seconds or 0.0)
        kind, options = parse_spec(spec)
        separator = "," if options else ":"
        return make_agent(f"{spec}{separator}seconds={budget!r}", seed=seed)
    return make_agent(spec, seed=seed)


def set_move_seconds(agent: Any, seconds: float) -> bool:
    """Give ``agent`` a time budget for its next decision; ``False`` if it has no time budget."""
    config = getattr(agent, "config", None)
    if config is not None and getattr(config, "seconds", None) is not None:
        agent.config = replace(config, seconds=seconds)
        return True
    if getattr(agent, "seconds", None) is not None:
        agent.seconds = seconds
        return True
    return False


def prepare_agents(
    game_name: str,
    specs: Iterable[str],
    opening: str | None = None,
    announce: Callable[[str], None] | None = None,
) -> dict[str, float]:
    """Compile what each agent of ``specs`` needs on the game, before any clock runs.

    Each distinct spec is prepared once (:func:`mcts_envs.agents.preparation.prepare_spec`: ``prepare(game)``
    and two untimed decisions from ``opening`` or the initial position). Numba keeps the compiled
    code for the process (and on disk), so the fresh agents of every game start at full speed. A
    fault in a warm-up decision (an engine's illegal move, crash, hang) is announced and stops
    nothing: the games decide, each fault losing its game.

    Args:
        game_name: the game.
        specs: agent specs (duplicates are prepared once).
        opening: a ``game.to_text`` position to decide from (default: the initial position).
        announce: told ``"compiling SPEC for GAME (first use; cached afterwards)..."`` and then
            the seconds it took, only when preparing a spec really compiles (nothing when numba
            loads everything from its cache; :func:`mcts_envs.core.compiling.compile_notice`),
            e.g. a print to stderr.

    Returns:
        Seconds each spec took to prepare, by spec.
    """
    game = make_game(game_name)
    state = first_decision(game, opening)
    seconds: dict[str, float] = {}
    for spec in dict.fromkeys(specs):
        start = time.perf_counter()
        with compile_notice(f"{spec} for {game.info.name}", announce):
            fault = prepare_spec(game, spec, state)
        seconds[spec] = time.perf_counter() - start
        if fault is not None and announce is not None:
            announce(
                f"warm-up of {quote(spec, 200)}: {fault.reason} ({quote(str(fault), 300)}); "
                "playing on: each fault of its games loses that game"
            )
    return seconds


def _material_winner(game: Game, state: Any, margin: int | None) -> int | None:
    if margin is None:
        return None
    stones = game.stone_counts(state)
    if stones[0] - stones[1] >= margin:
        return 0
    if stones[1] - stones[0] >= margin:
        return 1
    return None


def winner_of(returns: Sequence[float]) -> int | None:
    """The seat with the higher return of a finished game, ``None`` for a draw (equal returns)."""
    return None if returns[0] == returns[1] else int(returns[1] > returns[0])


def result_of(winner: int | None, seat_a: int) -> str:
    """A record's ``result`` from agent A's view: ``"a"``, ``"b"``, or ``"draw"`` (no winner)."""
    return "draw" if winner is None else ("a" if winner == seat_a else "b")


#: Text fields of a transcript entry that a record keeps to :data:`MAX_FOREIGN_CHARS`.
TRANSCRIPT_TEXTS = ("prompt", "answer", "error")


def _transcripts(seated: list[Any]) -> dict[str, Any]:
    """``{"transcripts": {seat: entries}}`` for the seated agents that keep a ``transcript`` (an
    LLM's prompts and answers), or nothing; each text field of an entry is kept to
    :data:`~mcts_envs.records.MAX_FOREIGN_CHARS` characters, a cut one listed in the entry's
    ``truncated`` (:func:`~mcts_envs.records.clip_foreign`)."""
    kept = {
        str(seat): [
            clip_foreign(entry, TRANSCRIPT_TEXTS) if isinstance(entry, dict) else entry
            for entry in agent.transcript
        ]
        for seat, agent in enumerate(seated)
        if getattr(agent, "transcript", None)
    }
    return {"transcripts": kept} if kept else {}


def play_game(
    task: GameTask, rules: GameRules, agents: tuple[Any, Any] | None = None
) -> dict[str, Any]:
    """Play one game and return its record: the one game loop of matches, tournaments and
    expert datasets.

    Both agents are built fresh from their specs and seeds (or given: ``agents`` = ``(A, B)``,
    e.g. a recording wrapper; one object may play both seats), ``prepare``-d, told the opening
    (``restart``) and every action (``inform``, once per distinct agent). Chance is sampled from
    the task's chance seed.

    Returns:
        A version-2 record (:mod:`mcts_envs.records`; ``returns`` is ``null`` unless the game
        reached its end) with ``index``, ``agents`` (``[spec_a, spec_b]``), ``seat_a``,
        ``pairing``, ``pair``, ``colour``, ``seed`` (``{"a", "b", "chance"}``), ``result``
        (``"a"``, ``"b"`` or ``"draw"``), ``resolved`` (each agent of ``agents`` as resolved for
        the game: :func:`~mcts_envs.agents.resolved.resolved_agent`), ``provenance``
        (:func:`mcts_envs.provenance.provenance`), ``termination`` (``"end"``, ``"move cap"``,
        ``"material"``, ``"time"`` or ``"forfeit"``: an agent's :class:`~mcts_envs.agents.base.ForfeitError`
        such as an engine's illegal move, crash or timeout, recorded as ``forfeit``: ``{"seat",
        "reason", "fault", "line", "message"}``, ``fault`` one of
        :data:`mcts_envs.agents.base.FAULTS`), ``transcripts`` (for agents that keep one, e.g. an LLM's
        prompts and answers: ``{seat: entries}``), ``score`` (the game's graded score per seat), ``moves``
        per seat, and ``timing`` (think seconds and the clocks left; not part of
        :func:`~mcts_envs.records.game_identity`).
    """
    game = make_game(rules.game)
    seed_a, seed_b, seed_chance = task.seeds
    seat_a = task.colour
    if agents is None:
        agents = (
            build_agent(task.spec_a, seed_a, rules.time),
            build_agent(task.spec_b, seed_b, rules.time),
        )
    agent_a, agent_b = agents
    seated = [agent_a, agent_b] if seat_a == 0 else [agent_b, agent_a]
    distinct = list({id(agent): agent for agent in seated}.values())
    chance_generator = np.random.default_rng(seed_chance)
    state = game.from_text(task.opening)
    for agent in distinct:
        agent.prepare(game)
        agent.restart(state)
    # what played, as resolved for this game before its first move (engines have started)
    resolved = [
        resolved_agent(agent_a, game, task.spec_a),
        resolved_agent(agent_b, game, task.spec_b),
    ]
    actions: list[int] = []
    chance_indices: list[int] = []
    moves = [0, 0]
    think = [0.0, 0.0]
    base = rules.time.base_seconds
    clock = [base, base] if base is not None else [math.inf, math.inf]
    cap = rules.adjudication.max_moves or move_cap(game)
    winner: int | None = None
    termination = "end"
    forfeit: dict[str, Any] | None = None
    while True:
        player = game.current_player(state)
        if player == TERMINAL:
            break
        if sum(moves) >= cap:
            termination = "move cap"
            break
        leader = _material_winner(game, state, rules.adjudication.material_margin)
        if leader is not None:
            winner, termination = leader, "material"
            break
        if player == CHANCE:
            action = sample_chance_outcome(game, state, chance_generator)
            chance_indices.append(len(actions))
        else:
            budget = rules.time.budget(clock[player])
            if budget is not None:
                set_move_seconds(seated[player], budget)
            start = time.perf_counter()
            try:
                action = int(seated[player].act_state(game, state))
            except ForfeitError as failure:  # it loses this game; the match goes on
                forfeit = failure.forfeit(player)
            if forfeit is not None:
                winner, termination = 1 - player, "forfeit"
                break
            used = time.perf_counter() - start
            think[player] += used
            moves[player] += 1
            if base is not None:
                clock[player] += rules.time.increment - used
                if rules.time.loss_on_time and clock[player] < 0:
                    winner, termination = 1 - player, "time"
                    break
        state = game.apply(state, action)
        actions.append(action)
        for agent in distinct:
            agent.inform(action)
    finished = game.current_player(state) == TERMINAL
    returns = [float(r) for r in game.returns(state)] if finished else None
    if returns is not None:
        winner = winner_of(returns)
    result = result_of(winner, seat_a)
    players = [task.spec_a, task.spec_b] if seat_a == 0 else [task.spec_b, task.spec_a]
    timing: dict[str, Any] = {"think_seconds": [round(t, 6) for t in think]}
    if base is not None:
        timing["clock_left"] = [round(c, 6) for c in clock]
    return make_record(
        game.info.name,
        task.opening,
        actions,
        chance_indices,
        players,
        returns,
        game.to_text(state),
        seed={"a": seed_a, "b": seed_b, "chance": seed_chance},
        index=task.index,
        agents=[task.spec_a, task.spec_b],
        resolved=resolved,
        provenance=provenance(),
        seat_a=seat_a,
        pairing=task.pairing,
        pair=task.pair,
        colour=task.colour,
        result=result,
        termination=termination,
        score=[float(s) for s in game.score(state)],
        **({} if forfeit is None else {"forfeit": forfeit}),
        **_transcripts(seated),
        moves=moves,
        timing=timing,
    )
