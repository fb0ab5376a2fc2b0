"""Batched opponents: who plays the other seat of a :class:`~mcts_envs.rl.vector_env.LearnerVectorEnv`.

An *opponent* is a callable ``opponent(view: OpponentView) -> actions`` that returns one legal
action per row of the view (the envs where the opponent is on move). It may also define

* ``reset(seed)``: called by the env's ``reset(seed=...)`` (re-seed, forget everything);
* ``new_games(env_indices)``: called when those envs start a new game (e.g. to draw a new
  opponent from a pool).

Here: :func:`random_opponent` and :func:`policy_opponent` (a function on batched observations and
masks, e.g. a frozen network). Search agents (``"alphabeta"``, ``"mcts:iterations=200"``) are
wrapped by ``mcts_envs.agents.learned.rl.agent_opponent`` (agents depend on mcts_envs, never the
reverse);
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
    "ViewSource",
    "check_opponent_actions",
    "epsilon_opponent",
    "policy_opponent",
    "random_legal_actions",
    "random_opponent",
    "sample_legal",
    "subview",
]


class ViewSource(NamedTuple):
    """The arrays a lazy :class:`OpponentView` gathers its rows from (a vector's batch views).

    Attributes:
        observation: ``[N, *observation_shape]``.
        action_mask: ``bool[N, num_actions]``.
        states: ``int64[N, state_size]`` forward-model states.
        legal: ``int64[N, max_legal]`` legal actions kept beside the masks, or None.
        num_legal: ``int64[N]`` how many of each row are legal, or None.
    """

    observation: np.ndarray
    action_mask: np.ndarray
    states: np.ndarray
    legal: np.ndarray | None = None
    num_legal: np.ndarray | None = None


class OpponentView:
    """What an opponent sees: the ``M`` envs where it is on move.

    Built with arrays (``OpponentView(observation, action_mask, states, env_indices, players,
    game)``), or by the learner env with :meth:`gather`, whose ``observation``, ``action_mask``
    and ``states`` are gathered from the batch on first use: an opponent that reads only the
    states (a search agent) or the legal action lists (the random opponent) never copies
    Tantrix's 90 KB observations and 121,104-wide mask rows.

    Attributes:
        observation: ``[M, *observation_shape]`` planes from the opponent's view (the game's own
            layout, not the learner env's ``image`` format).
        action_mask: ``bool[M, num_actions]``.
        states: ``int64[M, state_size]`` forward-model states (for search agents).
        env_indices: ``int64[M]``, which envs these rows are.
        players: ``int64[M]``, the opponent's seat (0 or 1) in each.
        game: the :class:`~mcts_envs.core.game.Game`.
    """

    __slots__ = ("_lists", "_mask", "_observation", "_rows", "_source", "_states", "env_indices")
    __slots__ += ("game", "players")

    def __init__(
        self,
        observation: np.ndarray | None,
        action_mask: np.ndarray | None,
        states: np.ndarray,
        env_indices: np.ndarray,
        players: np.ndarray,
        game: Any,
    ) -> None:
        self._observation = observation
        self._mask = action_mask
        self._states = states
        self.env_indices = env_indices
        self.players = players
        self.game = game
        self._source: ViewSource | None = None
        self._rows: np.ndarray | None = None
        self._lists: tuple[np.ndarray, np.ndarray] | None = None

    @classmethod
    def gather(
        cls, source: ViewSource, rows: np.ndarray, players: np.ndarray, game: Any
    ) -> OpponentView:
        """The view of rows ``rows`` of ``source`` (env indices ``rows``), gathered lazily."""
        view = cls(None, None, None, rows, players, game)
        view._source, view._rows = source, rows
        return view

    @property
    def states(self) -> np.ndarray:
        if self._states is None:
            self._states = self._source.states[self._rows]
        return self._states

    @property
    def observation(self) -> np.ndarray:
        if self._observation is None:
            self._observation = self._source.observation[self._rows]
        return self._observation

    @property
    def action_mask(self) -> np.ndarray:
        if self._mask is None:
            self._mask = self._source.action_mask[self._rows]
        return self._mask

    def legal_lists(self) -> tuple[np.ndarray, np.ndarray] | None:
        """``(legal int64[M, k], counts int64[M])``: row ``j``'s legal actions are
        ``legal[j, :counts[j]]`` (in the game kernel's order), when the vector keeps such lists
        (:meth:`~mcts_envs.vector.VectorGame.legal_lists`); else None (read ``action_mask``)."""
        source = self._source
        if self._lists is None and source is not None and source.legal is not None:
            self._lists = (source.legal[self._rows], source.num_legal[self._rows])
        return self._lists

    def is_legal(self, actions: np.ndarray) -> np.ndarray:
        """``bool[M]``: whether ``actions[j]`` (each inside the action space) is legal in row
        ``j`` (read from the source without gathering whole mask rows)."""
        rows = np.arange(len(actions))
        if self._mask is None and self._source is not None:
            return self._source.action_mask[self._rows, actions]
        return self.action_mask[rows, actions]

    def take(self, rows: np.ndarray) -> OpponentView:
        """The view of rows ``rows`` of this one (still lazy where this one is)."""
        lazy = self._observation is None and self._mask is None and self._states is None
        if self._source is not None and lazy:
            return OpponentView.gather(
                self._source, self._rows[rows], self.players[rows], self.game
            )
        return OpponentView(
            self.observation[rows],
            self.action_mask[rows],
            self.states[rows],
            self.env_indices[rows],
            self.players[rows],
            self.game,
        )


def sample_legal(mask: np.ndarray, generator: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row of a boolean mask (every row needs one)."""
    rows, cols = np.nonzero(mask)
    counts = np.bincount(rows, minlength=mask.shape[0])
    offsets = np.concatenate(([0], np.cumsum(counts)[:-1]))
    picks = (generator.random(mask.shape[0]) * counts).astype(np.int64)
    return cols[offsets + picks]


def random_legal_actions(view: OpponentView, generator: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row of ``view``: from its legal lists when it has
    them (``O(1)`` a row), else from its mask (:func:`sample_legal`); one uniform draw per row."""
    lists = view.legal_lists()
    if lists is None:
        return sample_legal(view.action_mask, generator)
    legal, counts = lists
    picks = (generator.random(len(counts)) * counts).astype(np.int64)
    return legal[np.arange(len(counts)), picks]


class RandomOpponent:
    """Uniformly random legal actions from a seeded NumPy generator (``reset(seed)`` re-seeds)."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.generator = np.random.default_rng(check_seed(seed))

    def reset(self, seed: int | None) -> None:
        self.generator = np.random.default_rng(check_seed(seed))

    def __call__(self, view: OpponentView) -> np.ndarray:
        return random_legal_actions(view, self.generator)


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
    """The rows ``rows`` of ``view`` (an opponent's view of fewer envs): ``view.take(rows)``."""
    return view.take(rows)


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
            actions[noisy] = random_legal_actions(view.take(np.flatnonzero(noisy)), self.generator)
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
    num_actions = view.game.info.num_actions
    inside = (array >= 0) & (array < num_actions)
    legal = inside & view.is_legal(np.where(inside, array, 0))
    if not legal.all():
        row = int(np.flatnonzero(~legal)[0])
        allowed = np.flatnonzero(view.action_mask[row]).tolist()
        raise IllegalActionError(
            f"opponent {who} played illegal action {int(array[row])} in env "
            f"{int(view.env_indices[row])}; legal actions: {allowed[:20]}"
            + (" ..." if len(allowed) > 20 else "")
        )
    return array
