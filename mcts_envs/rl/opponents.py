"""Batched opponents: who plays the other seat of a :class:`~mcts_envs.rl.vector_env.LearnerVectorEnv`.

An *opponent* is a callable ``opponent(view: OpponentView) -> actions`` that returns one legal
action per row of the view (the envs where the opponent is on move). It may also define

* ``reset(seed)``: called by the env's ``reset(seed=...)`` (re-seed, forget everything);
* ``new_games(env_indices)``: called when those envs start a new game (e.g. to draw a new
  opponent from a pool).

Here: :func:`random_opponent` and :func:`policy_opponent` (a function on batched observations and
masks, e.g. a frozen network). Search agents (``"alphabeta"``, ``"mcts:iterations=200"``) are
wrapped by ``agents.opponents.agent_opponent`` (agents depend on mcts_envs, never the reverse);
self-play snapshots by :class:`mcts_envs.rl.selfplay.OpponentPool`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from mcts_envs.core.errors import IllegalActionError, InvalidOptionError
from mcts_envs.core.seeding import check_seed

__all__ = [
    "EpsilonOpponent",
    "OpponentView",
    "PolicyOpponent",
    "RandomOpponent",
    "check_opponent_actions",
    "epsilon_opponent",
    "policy_opponent",
    "random_opponent",
    "subview",
]


class OpponentView(NamedTuple):
    """What an opponent sees: the ``M`` envs where it is on move.

    Attributes:
        observation: ``[M, *observation_shape]`` planes from the opponent's view (the game's own
            layout, not the learner env's ``image`` format).
        action_mask: ``bool[M, num_actions]``.
        states: ``int64[M, state_size]`` forward-model states (for search agents).
        env_indices: ``int64[M]``, which envs these rows are.
        players: ``int64[M]``, the opponent's seat (0 or 1) in each.
        game: the :class:`~mcts_envs.core.game.Game`.
    """

    observation: np.ndarray
    action_mask: np.ndarray
    states: np.ndarray
    env_indices: np.ndarray
    players: np.ndarray
    game: Any


def sample_legal(mask: np.ndarray, generator: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row of a boolean mask (every row needs one)."""
    rows, cols = np.nonzero(mask)
    counts = np.bincount(rows, minlength=mask.shape[0])
    offsets = np.concatenate(([0], np.cumsum(counts)[:-1]))
    picks = (generator.random(mask.shape[0]) * counts).astype(np.int64)
    return cols[offsets + picks]


class RandomOpponent:
    """Uniformly random legal actions from a seeded NumPy generator (``reset(seed)`` re-seeds)."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.generator = np.random.default_rng(check_seed(seed))

    def reset(self, seed: int | None) -> None:
        self.generator = np.random.default_rng(check_seed(seed))

    def __call__(self, view: OpponentView) -> np.ndarray:
        return sample_legal(view.action_mask, self.generator)


def random_opponent(seed: int | None = None) -> RandomOpponent:
    """A :class:`RandomOpponent`."""
    return RandomOpponent(seed)


class PolicyOpponent:
    """An opponent from ``fn(observation [M, ...], action_mask bool[M, A]) -> actions [M]``."""

    def __init__(self, fn: Callable[[np.ndarray, np.ndarray], Any], name: str = "policy") -> None:
        if not callable(fn):
            raise TypeError(f"a policy opponent needs a callable fn(observation, mask), got {fn!r}")
        self.fn = fn
        self.name = name

    def __call__(self, view: OpponentView) -> np.ndarray:
        return np.asarray(self.fn(view.observation, view.action_mask)).reshape(-1)


def policy_opponent(fn: Callable[[np.ndarray, np.ndarray], Any], name: str = "policy"):
    """A :class:`PolicyOpponent` (e.g. a frozen network's batched ``predict``)."""
    return PolicyOpponent(fn, name)


def subview(view: OpponentView, rows: np.ndarray) -> OpponentView:
    """The rows ``rows`` of ``view`` (an opponent's view of fewer envs)."""
    return OpponentView(
        view.observation[rows],
        view.action_mask[rows],
        view.states[rows],
        view.env_indices[rows],
        view.players[rows],
        view.game,
    )


class EpsilonOpponent:
    """``base``, except that each move is uniformly random with probability ``epsilon``.

    A strong ``base`` (e.g. the perfect player) made noisy this way reaches the positions a random
    player creates and still punishes the learner's mistakes there. ``reset(seed)`` re-seeds the
    noise and resets ``base``; ``new_games`` is passed on to ``base``.

    Raises:
        InvalidOptionError: for ``epsilon`` outside [0, 1].
    """

    def __init__(self, base: Any, epsilon: float, seed: int | None = None) -> None:
        if not 0.0 <= float(epsilon) <= 1.0:
            raise InvalidOptionError(f"epsilon must be in [0, 1], got {epsilon!r}")
        self.base = base
        self.epsilon = float(epsilon)
        self.name = f"{getattr(base, 'name', type(base).__name__)}~{self.epsilon:g}"
        self.generator = np.random.default_rng(check_seed(seed))

    def reset(self, seed: int | None) -> None:
        self.generator = np.random.default_rng(check_seed(seed))
        hook = getattr(self.base, "reset", None)
        if hook is not None:
            hook(None if seed is None else seed + 1)

    def new_games(self, env_indices: np.ndarray) -> None:
        hook = getattr(self.base, "new_games", None)
        if hook is not None:
            hook(env_indices)

    def __call__(self, view: OpponentView) -> np.ndarray:
        noisy = self.generator.random(len(view.env_indices)) < self.epsilon
        actions = np.empty(len(view.env_indices), np.int64)
        if noisy.any():
            actions[noisy] = sample_legal(view.action_mask[noisy], self.generator)
        if not noisy.all():
            rows = np.flatnonzero(~noisy)
            actions[rows] = np.asarray(self.base(subview(view, rows))).reshape(-1)
        return actions


def epsilon_opponent(base: Any, epsilon: float, seed: int | None = None) -> EpsilonOpponent:
    """An :class:`EpsilonOpponent`."""
    return EpsilonOpponent(base, epsilon, seed)


def check_opponent_actions(actions: Any, view: OpponentView, who: str) -> np.ndarray:
    """``actions`` as ``int64[M]`` if every one is legal in its row of ``view``.

    Raises:
        IllegalActionError: naming the env, the action and the legal actions.
    """
    array = np.asarray(actions)
    if array.shape != (len(view.env_indices),) or array.dtype.kind not in "iu":
        raise IllegalActionError(
            f"opponent {who} must return {len(view.env_indices)} integer actions, got "
            f"{array.dtype}{array.shape}"
        )
    array = array.astype(np.int64)
    num_actions = view.action_mask.shape[1]
    inside = (array >= 0) & (array < num_actions)
    legal = inside.copy()
    legal[inside] = view.action_mask[np.flatnonzero(inside), array[inside]]
    if not legal.all():
        row = int(np.flatnonzero(~legal)[0])
        allowed = np.flatnonzero(view.action_mask[row]).tolist()
        raise IllegalActionError(
            f"opponent {who} played illegal action {int(array[row])} in env "
            f"{int(view.env_indices[row])}; legal actions: {allowed[:20]}"
            + (" ..." if len(allowed) > 20 else "")
        )
    return array
