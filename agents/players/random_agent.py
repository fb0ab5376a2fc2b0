"""The uniform random agent: a legal action drawn uniformly from the action mask, seeded."""

from __future__ import annotations

from typing import Any

import numpy as np

from mcts_envs.agents.base import ForwardModelAgent, game_and_state
from mcts_envs.core.errors import IllegalActionError
from mcts_envs.core.game import Game
from mcts_envs.core.seeding import check_seed


class RandomAgent(ForwardModelAgent):
    """Plays a legal action chosen uniformly at random (``numpy`` Generator seeded by ``seed``).

    Works in any PettingZoo loop: ``act(env)`` reads the ``action_mask`` of the agent to move, so
    it needs no forward model. The same seed gives the same sequence of choices.
    """

    name = "random"

    def __init__(self, *, seed: int | None = None) -> None:
        self.seed = check_seed(seed)
        self._generator = np.random.default_rng(self.seed)

    def choose(self, legal: np.ndarray) -> int:
        """One of ``legal`` (a non-empty int array), uniformly.

        Raises:
            IllegalActionError: if ``legal`` is empty (nothing can be played).
        """
        if len(legal) == 0:
            raise IllegalActionError("the random agent was asked to act with no legal action")
        return int(legal[self._generator.integers(len(legal))])

    def act(self, env: Any) -> int:
        unwrapped = getattr(env, "unwrapped", env)
        if hasattr(unwrapped, "game") and getattr(unwrapped, "state", None) is not None:
            game, state = game_and_state(env)
            return self.act_state(game, state)
        mask = np.asarray(env.observe(env.agent_selection)["action_mask"])
        return self.choose(np.flatnonzero(mask))

    def act_state(self, game: Game, state: np.ndarray) -> int:
        return self.choose(game.legal_actions(state))

    def policy(self, env_or_game: Any, state: np.ndarray | None = None) -> tuple[np.ndarray, float]:
        """Uniform over the legal actions; value 0."""
        game, state = game_and_state(env_or_game, state)
        probs = np.zeros(game.info.num_actions, np.float64)
        legal = game.legal_actions(state)
        if len(legal):
            probs[legal] = 1.0 / len(legal)
        return probs, 0.0

    def reset(self) -> None:
        """Nothing is kept between moves (the generator keeps running: reseed by rebuilding)."""
        return None
