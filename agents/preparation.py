"""Preparing agents before any clock runs: the one warm-up used by matches, tournaments, play
and expert datasets.

:func:`prepare_spec` builds an agent of a spec with a small fixed budget instead of a time limit
(a search limited by time can end before its first iteration while it compiles), calls its
``prepare(game)`` and lets it make two untimed decisions, following the game with ``inform`` as a
real game does, so the paths of later moves (tree reuse, chance roots) compile too. Numba keeps
the compiled code for the process, so the fresh agents of each game start at full speed.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mcts_envs.agents.base import ForfeitError
from mcts_envs.agents.spec import agent_parameters, make_agent, parse_spec
from mcts_envs.core.game import CHANCE, TERMINAL, Game, sample_chance_outcome


def first_decision(game: Game, opening: str | None = None) -> np.ndarray:
    """The first position of ``opening`` (a ``to_text`` record; default the initial state) where
    a player decides or the game is over; chance is sampled with a fixed generator."""
    state = game.from_text(opening) if opening is not None else game.initial_state()
    generator = np.random.default_rng(0)
    while game.current_player(state) == CHANCE:
        state = game.apply(state, sample_chance_outcome(game, state, generator))
    return state


def untimed_spec(spec: str) -> str:
    """``spec`` with a small fixed budget (32 iterations or depth 1) instead of ``seconds``."""
    kind, options = parse_spec(spec)
    names = {p.name for p in agent_parameters(kind)}
    if "seconds" not in names:
        return spec
    options = {k: v for k, v in options.items() if k != "seconds"}
    if "iterations" in names:
        options["iterations"] = "32"
    elif "depth" in names:
        options["depth"] = "1"
    else:
        return spec
    return kind + ":" + ",".join(f"{k}={v}" for k, v in options.items())


def warm_up(game: Game, agent: Any, state: np.ndarray, decisions: int = 2) -> None:
    """Let ``agent`` play ``decisions`` untimed moves (both sides) from ``state``, following the
    game as in a real one (first chance outcome at chance nodes)."""
    agent.restart(state)
    for _ in range(decisions):
        while game.current_player(state) == CHANCE:
            outcome = int(game.chance_outcomes(state)[0][0])
            state = game.apply(state, outcome)
            agent.inform(outcome)
        if game.current_player(state) == TERMINAL:
            return
        action = int(agent.act_state(game, state))
        state = game.apply(state, action)
        agent.inform(action)


def prepare_spec(game: Game, spec: str, state: np.ndarray) -> ForfeitError | None:
    """Compile everything an agent of ``spec`` needs on ``game`` (``state``: a first decision).

    An agent whose ``needs_warm_up`` attribute is ``False`` (e.g. a language model behind an
    endpoint: nothing to compile, and each decision costs a request) is only ``prepare``-d.

    Returns:
        ``None``, or the fault of a warm-up decision (an engine's illegal move, crash or
        timeout: a :class:`~mcts_envs.agents.base.ForfeitError`): the warm-up stops there and
        the run goes on, the games deciding (each fault loses only its game). An agent that
        cannot even be prepared (an engine that does not start) still raises.
    """
    agent = make_agent(untimed_spec(spec), seed=0)
    agent.prepare(game)
    if getattr(agent, "needs_warm_up", True):
        try:
            warm_up(game, agent, state)
        except ForfeitError as fault:
            close = getattr(agent, "close", None)
            if callable(close):  # an engine that faulted is not kept for the games
                close()
            return fault
    return None
