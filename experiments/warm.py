"""Warm the compiled MCTS before any timed search (imported first in every worker).

A fresh process's first time-limited ``mcts`` search on a loaded machine can spend its whole
budget loading compiled code and end without expanding the root (``RuntimeError: the search
ended before expanding the root``; seen with 0.05-0.25 s budgets at load average 10+ on 2
cores). The experiments with time budgets list this module in ``agent_modules``; importing it
runs one short *iteration*-limited search per game, which has no deadline to miss.
"""

from __future__ import annotations

from agents.spec import make_agent
from mcts_envs.core.registry import make_game

GAMES = ("pentago_twist", "ultimate_tictactoe")


def warm(games: tuple[str, ...] = GAMES) -> None:
    """One 64-iteration search from the initial position of each game."""
    for name in games:
        game = make_game(name)
        agent = make_agent("mcts:iterations=64", seed=0)
        agent.prepare(game)
        agent.act_state(game, game.initial_state())


warm()
