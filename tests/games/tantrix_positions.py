"""Decision positions of seeded random Tantrix games, for tests that sweep kernels over them."""

from __future__ import annotations

import numpy as np

from mcts_envs.core.game import CHANCE, TERMINAL
from mcts_envs.games.tantrix.game import Tantrix


def decision_positions(game: Tantrix, games: int, seed: int) -> list[np.ndarray]:
    """The decision states of ``games`` uniformly random games, in order (every phase, bag full
    to empty); tile draws and moves from one generator seeded with ``seed``."""
    rng = np.random.default_rng(seed)
    states = []
    for _ in range(games):
        state = game.initial_state()
        while True:
            player = game.current_player(state)
            if player == TERMINAL:
                break
            if player == CHANCE:
                outcomes, _ = game.chance_outcomes(state)
                state = game.apply(state, int(rng.choice(outcomes)))
                continue
            states.append(state)
            legal = game.legal_actions(state)
            state = game.apply(state, int(legal[rng.integers(len(legal))]))
    return states
