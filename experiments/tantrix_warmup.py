"""Imported in every tournament worker of ``tantrix_report.py`` before its agents are prepared.

Runs two untimed-enough MCTS decisions on Tantrix (20 iterations, then 1 s) so the compiled
search is loaded before any timed move. Without it, the first timed MCTS decision of a process
can spend a small budget (0.05 s) loading the search and then stop before expanding the root
(``RuntimeError: the search ended before expanding the root``, raised by ``agents.mcts``).
"""

from __future__ import annotations

import numpy as np

import mcts_envs
from agents import make_agent
from mcts_envs import CHANCE


def warm_up() -> None:
    """Two MCTS decisions at the first decision of a seeded Tantrix deal."""
    game = mcts_envs.make_game("tantrix")
    state = game.initial_state()
    generator = np.random.default_rng(0)
    while game.current_player(state) == CHANCE:
        outcomes, _ = game.chance_outcomes(state)
        state = game.apply(state, int(outcomes[generator.integers(len(outcomes))]))
    for spec in ("mcts:iterations=20,win_check=false", "mcts:iterations=50,seconds=1.0"):
        agent = make_agent(spec, seed=0)
        agent.prepare(game)
        agent.act_state(game, state)


warm_up()
