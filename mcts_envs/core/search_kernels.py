"""What a game tells alpha-beta beyond its rules: a static evaluation, the material a move wins,
and a null move where passing the turn is a safe test (:class:`SearchKernels`).

A game declares them on its class (``search_kernels = SearchKernels.from_module(module)``);
every field it leaves out is a generic kernel that says "not known here", so one compiled search
serves every game, and a ``has_*`` flag tells it which knowledge is real:

* ``evaluation`` (``has_evaluation``): the search's static evaluation; without it alpha-beta
  scores a position by the game's ``heuristic`` (``h(s, p) - h(s, 1 - p)``).
* ``material_gain`` (``has_captures``): how much a move raises the mover's material lead; moves
  that capture are the ones quiescence search follows, and the gain orders moves cheaply.
  Without it, moves are ordered by the heuristic of the position they lead to.
* ``null_move`` (``has_null_move``): passes the turn in place when the game allows it as a
  search device in that position (never where being on move could be a disadvantage, the
  zugzwang that would make the test wrong); without it, null-move pruning is off.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from mcts_envs.core.numba_cache import njit


@njit(cache=True)
def no_evaluation(state, player):
    """The placeholder evaluation of games without one (never called: ``has_evaluation`` is
    False): 0."""
    return 0.0


@njit(cache=True)
def no_material_gain(state, action):
    """The placeholder material gain of games without captures: 0 for every move."""
    return 0


@njit(cache=True)
def no_null_move(state):
    """The placeholder null move of games without one: never applies (returns False)."""
    return False


class SearchKernels(NamedTuple):
    """Alpha-beta's game knowledge (compiled kernels with these signatures; see the module
    docstring for what each is for and what the search does without it).

    Attributes:
        evaluation: ``(state, player) -> float``: the position's value for ``player`` in
            ``[-1, 1]`` at a state where the game goes on; antisymmetric
            (``evaluation(s, 1 - p) == -evaluation(s, p)``).
        has_evaluation: whether ``evaluation`` is the game's own.
        material_gain: ``(state, action) -> int``: the rise of the mover's material lead that
            the legal ``action`` brings; at least 2 exactly for the moves that capture.
        has_captures: whether ``material_gain`` is the game's own.
        null_move: ``(state) -> bool``: passes the turn in place and returns True where that is
            a safe test (the game goes on, the mover is not in zugzwang); else leaves ``state``
            alone and returns False.
        has_null_move: whether ``null_move`` is the game's own.
        material_unit: how much ``evaluation`` rises with one unit of material (0: no unit;
            margins of pruning are then off).
    """

    evaluation: Callable[..., Any] = no_evaluation
    has_evaluation: bool = False
    material_gain: Callable[..., Any] = no_material_gain
    has_captures: bool = False
    null_move: Callable[..., Any] = no_null_move
    has_null_move: bool = False
    material_unit: float = 0.0

    @classmethod
    def from_module(cls, module: Any) -> SearchKernels:
        """The kernels ``module`` defines under the names ``evaluation``, ``material_gain`` and
        ``null_move`` (each one absent is the placeholder, its flag False), and the number
        ``MATERIAL_UNIT`` (0 if absent)."""
        fields: dict[str, Any] = {"material_unit": float(getattr(module, "MATERIAL_UNIT", 0.0))}
        for name, flag in (
            ("evaluation", "has_evaluation"),
            ("material_gain", "has_captures"),
            ("null_move", "has_null_move"),
        ):
            kernel = getattr(module, name, None)
            if kernel is not None:
                fields[name] = kernel
                fields[flag] = True
        return cls(**fields)

    def dispatchers(self) -> tuple[Any, ...]:
        """The compiled kernels (the fields that are not flags)."""
        return (self.evaluation, self.material_gain, self.null_move)
