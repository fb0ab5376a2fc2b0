"""Move selection from a search's visit distribution with a temperature (AlphaZero's schedule).

AlphaZero plays its first moves in proportion to the root visit counts (temperature 1), so
self-play games differ, then greedily (temperature -> 0). :func:`alphazero_temperature` is that
schedule; :func:`apply_temperature` turns a distribution into the one moves are drawn from;
:func:`sample_action` draws a move with an explicit generator.
"""

from __future__ import annotations

import numpy as np

from mcts_envs.core.errors import InvalidOptionError

#: Decisions per game an expert dataset draws in proportion to the visits by default (then greedy).
DEFAULT_TEMPERATURE_MOVES = 4


def alphazero_temperature(ply: int, moves: int, early: float = 1.0, late: float = 0.0) -> float:
    """The temperature of decision ``ply`` (0-based): ``early`` for the first ``moves`` decisions
    of a game, ``late`` afterwards (AlphaZero: 1 for 30 moves, then 0)."""
    if moves < 0 or early < 0 or late < 0:
        raise InvalidOptionError(
            f"temperature schedule needs moves, early, late >= 0, got {moves}, {early}, {late}"
        )
    return early if ply < moves else late


def apply_temperature(probs: np.ndarray, temperature: float) -> np.ndarray:
    """``probs ** (1 / temperature)``, renormalised; temperature 0 gives the uniform distribution
    over the most probable entries (the greedy move, ties shared).

    Raises:
        InvalidOptionError: if ``temperature < 0`` or ``probs`` has no positive entry.
    """
    probs = np.asarray(probs, np.float64)
    if temperature < 0:
        raise InvalidOptionError(f"temperature must be >= 0, got {temperature}")
    if not np.any(probs > 0):
        raise InvalidOptionError("a distribution to sample from needs a positive entry")
    if temperature == 0:
        best = probs >= probs.max() * (1 - 1e-12)
        return best / best.sum()
    # work in logs so small temperatures do not underflow
    with np.errstate(divide="ignore"):
        logits = np.log(probs) / temperature
    logits -= logits.max()
    weights = np.exp(logits)
    return weights / weights.sum()


def sample_action(probs: np.ndarray, temperature: float, generator: np.random.Generator) -> int:
    """An action drawn from ``apply_temperature(probs, temperature)`` with ``generator``."""
    tempered = apply_temperature(probs, temperature)
    return int(generator.choice(len(tempered), p=tempered))
