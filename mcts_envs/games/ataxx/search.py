"""What alpha-beta knows of Ataxx beyond the rules (:class:`~mcts_envs.core.search_kernels.
SearchKernels`): a static evaluation, the material a move wins, and the null move.

The evaluation is a weighted sum of five terms, each the difference between ``player`` and the
opponent (:func:`evaluation_terms`):

* **material**: stones;
* **mobility**: empty squares the side can copy to;
* **holes**: for every empty square the opponent can reach (by a copy or a jump), the side's
  stones next to it, which a move there would capture;
* **stability**: stones with no empty square next to them (no move can capture them any more);
* **tempo**: +1 for the side to move, -1 for the other.

:data:`WEIGHTS` holds the weights (fitted to the engine's scores as
``experiments/ataxx_evaluation.py`` describes); the sum is divided by :data:`EVALUATION_RANGE`, a bound of its magnitude, so the evaluation lies in
``[-1, 1]`` and is antisymmetric. Positions where the game is over are the game's ``returns``.
"""

from __future__ import annotations

import numpy as np

from mcts_envs.core.bits import popcount
from mcts_envs.core.numba_cache import njit
from mcts_envs.games.ataxx.kernels import (
    ACTION_ORIGIN_BITS,
    ACTION_TARGETS,
    FULL_BOARD,
    NEIGHBOUR_MASKS,
    O_BOARD,
    ONGOING,
    SIDE,
    STATUS,
    X_BOARD,
    dilate,
    lowest_square,
    play,
)

#: The evaluation terms, in the order of :func:`evaluation_terms` and :data:`WEIGHTS`.
TERMS = ("material", "mobility", "holes", "stability", "tempo")
MATERIAL, MOBILITY, HOLES, STABILITY, TEMPO = range(len(TERMS))
#: The weight of each term (one stone of material is 1): mobility, holes and stability as fitted
#: to AtaxxDotCpp's search scores (``experiments/ataxx_evaluation.py``: 2,420 positions of its
#: self-play, least squares, R^2 0.70 where material alone gives 0.57); tempo 0.5, as before the
#: fit (the fitted 4.3 lost: 0.695 against 0.75 for the first guess, in matches against the same
#: opponent at 0.05 s; these weights 0.76).
WEIGHTS = np.array([1.0, 0.235, -0.119, 1.054, 0.5])
#: The largest magnitude each term can reach (stones and squares of a 49-square board; holes
#: count up to 8 stones next to each of 49 squares).
TERM_BOUNDS = np.array([49.0, 49.0, 8.0 * 49.0, 49.0, 1.0])
#: A bound of the weighted sum's magnitude: dividing by it keeps the evaluation in [-1, 1].
EVALUATION_RANGE = float(np.abs(WEIGHTS) @ TERM_BOUNDS)
#: How much the evaluation rises with one stone of material.
MATERIAL_UNIT = float(WEIGHTS[MATERIAL] / EVALUATION_RANGE)
#: The null move is tried only with more empty squares than this (near the end, when the side
#: to move may have to open holes, passing is no safe test).
NULL_MOVE_MIN_EMPTY = 6


@njit(cache=True)
def _hole_stones(own, reach):
    """The stones of ``own`` next to each square of ``reach``, summed over its squares."""
    total = 0
    while reach:
        square = lowest_square(reach)
        reach &= reach - 1
        total += popcount(NEIGHBOUR_MASKS[square] & own)
    return total


@njit(cache=True)
def _side_terms(own, other, empty, out, sign):
    """Adds ``sign`` times one side's material, mobility, holes and stability to ``out``."""
    out[MATERIAL] += sign * popcount(own)
    out[MOBILITY] += sign * popcount(dilate(own) & empty)
    out[HOLES] += sign * _hole_stones(own, dilate(dilate(other)) & empty & dilate(own))
    out[STABILITY] += sign * popcount(own & ~dilate(empty))


@njit(cache=True)
def evaluation_terms(state, player, out):
    """Writes the five terms of :data:`TERMS` (``player``'s minus the opponent's) into
    ``out`` (``float64[5]``)."""
    own = state[player]
    other = state[1 - player]
    empty = FULL_BOARD & ~(own | other)
    for term in range(len(TERMS)):
        out[term] = 0.0
    _side_terms(own, other, empty, out, 1.0)
    _side_terms(other, own, empty, out, -1.0)
    out[TEMPO] = 1.0 if state[SIDE] == player else -1.0


@njit(cache=True)
def evaluation(state, player):
    """``player``'s evaluation in [-1, 1] of a position where the game goes on (antisymmetric):
    the weighted sum of :func:`evaluation_terms` over :data:`EVALUATION_RANGE`."""
    terms = np.empty(len(TERMS))
    evaluation_terms(state, player, terms)
    total = 0.0
    for term in range(len(TERMS)):
        total += WEIGHTS[term] * terms[term]
    return total / EVALUATION_RANGE


@njit(cache=True)
def material_gain(state, action):
    """The rise of the mover's stone lead that ``action`` brings: twice the stones it captures,
    plus one for a copy (the pass: 0)."""
    target = ACTION_TARGETS[action]
    if target < 0:
        return 0
    side = state[SIDE]
    captured = popcount(NEIGHBOUR_MASKS[target] & state[1 - side])
    return 2 * captured + (1 if ACTION_ORIGIN_BITS[action] == 0 else 0)


@njit(cache=True)
def null_move(state):
    """Passes the turn in place (as the pass action does) and returns True when the game goes
    on, the mover could copy (a copy never loses a stone, so being on move is no burden) and
    more than :data:`NULL_MOVE_MIN_EMPTY` squares are empty; else returns False, ``state``
    unchanged."""
    if state[STATUS] != ONGOING:
        return False
    own = state[state[SIDE]]
    empty = FULL_BOARD & ~(state[X_BOARD] | state[O_BOARD])
    if popcount(empty) <= NULL_MOVE_MIN_EMPTY or (dilate(own) & empty) == 0:
        return False
    play(state, -1, -1)
    return True
