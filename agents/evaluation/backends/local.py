"""The ``local`` backend: games one after another in this process."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from mcts_envs.agents.evaluation.games import GameRules, GameTask, play_game

__all__ = ["LocalBackend"]


class LocalBackend:
    """Plays the games one after another in this process.

    Args:
        play: the game loop, ``(task, rules) -> record`` (default :func:`play_game`).
    """

    name = "local"

    def __init__(self, play: Callable[[GameTask, GameRules], dict[str, Any]] = play_game) -> None:
        self.play = play

    def start(self) -> None:
        """Nothing to start: games run in this process."""

    def run(
        self, tasks: Iterator[GameTask], rules: GameRules, stopping: Callable[[], bool]
    ) -> Iterator[dict[str, Any]]:
        """Play each task until ``stopping()``; yield each record as its game ends."""
        for task in tasks:
            if stopping():
                return
            yield self.play(task, rules)
