"""Self-play: a league of frozen snapshots of a learner that plays as a batched opponent.

:class:`OpponentPool` holds frozen policies (``fn(observation, mask) -> actions`` on batches,
e.g. copies of a network taken during training). At the start of every game each env draws its
opponent: the latest snapshot with probability ``latest_probability``, otherwise one of the
older ones uniformly; with an empty pool a uniformly random player fills in. Fixed members
(``fixed=[(opponent, probability), ...]``, e.g. a random player or a search agent) take a share
of the games first, which keeps a self-play learner honest against other styles. It works with any
loop that calls opponents the :mod:`mcts_envs.rl.opponents` way (``LearnerVectorEnv`` does), so
with Stable-Baselines3 (:class:`mcts_envs.rl.sb3.SelfPlayCallback` adds the snapshots) or a
user's own training loop (call :meth:`OpponentPool.add` yourself).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from mcts_envs.core.errors import InvalidOptionError
from mcts_envs.core.seeding import check_seed
from mcts_envs.rl.opponents import OpponentView, random_legal_actions, subview

Policy = Callable[[np.ndarray, np.ndarray], Any]


class OpponentPool:
    """Frozen learner snapshots as opponents (see the module docstring).

    Args:
        max_size: snapshots kept (the oldest is dropped first; the latest is always kept).
        latest_probability: chance that a new game is played against the latest snapshot.
        seed: seed of the draws and of the random fill-in player.
        fixed: ``(opponent, probability)`` pairs of batched opponents (the
            :mod:`mcts_envs.rl.opponents` protocol) that play that share of the games.

    Attributes:
        names: the snapshots' names, oldest first.
        assignment: ``int64[N]`` snapshot index per env for the current game (-1: random).
    """

    def __init__(
        self,
        max_size: int = 10,
        latest_probability: float = 0.5,
        seed: int | None = None,
        fixed: Sequence[tuple[Any, float]] = (),
    ):
        if isinstance(max_size, bool) or not isinstance(max_size, int) or max_size < 1:
            raise InvalidOptionError(f"max_size must be an int >= 1, got {max_size!r}")
        if not 0.0 <= latest_probability <= 1.0:
            raise InvalidOptionError(
                f"latest_probability must be in [0, 1], got {latest_probability!r}"
            )
        self.fixed = [(opponent, float(p)) for opponent, p in fixed]
        if any(p < 0 for _, p in self.fixed) or sum(p for _, p in self.fixed) > 1.0:
            raise InvalidOptionError("fixed opponents' probabilities must be >= 0 and sum to <= 1")
        self.max_size = max_size
        self.latest_probability = float(latest_probability)
        self.policies: list[Policy] = []
        self.names: list[str] = []
        self.assignment = np.full(0, -1, np.int64)
        self.name = "pool"
        self.reset(seed)

    def add(self, policy: Policy, name: str | None = None) -> None:
        """Add a frozen ``policy`` (the caller must not change it afterwards) as the latest."""
        if not callable(policy):
            raise TypeError(f"a snapshot is a callable fn(observation, mask), got {policy!r}")
        self.policies.append(policy)
        self.names.append(name or f"snapshot_{len(self.names)}")
        if len(self.policies) > self.max_size:
            del self.policies[0]
            del self.names[0]
            # games against the dropped snapshot go on against the oldest kept one
            kept = np.maximum(self.assignment - 1, 0)
            self.assignment = np.where(self.assignment >= 0, kept, self.assignment)

    def reset(self, seed: int | None) -> None:
        """Re-seed the draws and the fill-in player (snapshots are kept)."""
        self.generator = np.random.default_rng(check_seed(seed))
        for index, (opponent, _) in enumerate(self.fixed):
            hook = getattr(opponent, "reset", None)
            if hook is not None:
                hook(None if seed is None else seed + 1 + index)

    def draw(self) -> int:
        """A snapshot index for a new game (-1: random fill-in; ``-2 - k``: fixed member k)."""
        if self.fixed:
            u = self.generator.random()
            for k, (_, probability) in enumerate(self.fixed):
                if u < probability:
                    return -2 - k
                u -= probability
        count = len(self.policies)
        if count == 0:
            return -1
        if count == 1 or self.generator.random() < self.latest_probability:
            return count - 1
        return int(self.generator.integers(count - 1))

    def new_games(self, env_indices: np.ndarray) -> None:
        """Draw an opponent for each env in ``env_indices`` (called when their games start)."""
        needed = int(np.max(env_indices)) + 1 if len(env_indices) else 0
        if needed > len(self.assignment):
            grown = np.full(needed, -1, np.int64)
            grown[: len(self.assignment)] = self.assignment
            self.assignment = grown
        for i in env_indices:
            self.assignment[int(i)] = self.draw()

    def __call__(self, view: OpponentView) -> np.ndarray:
        self.new_games(view.env_indices[view.env_indices >= len(self.assignment)])
        chosen = self.assignment[view.env_indices]
        actions = np.empty(len(view.env_indices), np.int64)
        for index in np.unique(chosen):
            rows = np.flatnonzero(chosen == index)
            if index <= -2:
                opponent = self.fixed[-2 - index][0]
                actions[rows] = np.asarray(opponent(subview(view, rows))).reshape(-1)
            elif index == -1:
                actions[rows] = random_legal_actions(view.take(rows), self.generator)
            else:
                rows_view = view.take(rows)
                picked = self.policies[index](rows_view.observation, rows_view.action_mask)
                actions[rows] = np.asarray(picked).reshape(-1)
        return actions

    def __len__(self) -> int:
        return len(self.policies)
