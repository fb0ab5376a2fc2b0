"""The progress bar of a run: games done, their rate, the time left, and one agent's W/D/L and Elo."""

from __future__ import annotations

import sys
from typing import Any

from mcts_envs.agents.evaluation.ratings import PairingStats
from mcts_envs.agents.evaluation.stats import format_elo_games

__all__ = ["ProgressBar"]


class ProgressBar:
    """A tqdm bar on stderr over a run's games, with the W/D/L and Elo of the ``focus`` agent
    against all others (no W/D/L when ``focus`` is ``None``, e.g. an agent playing itself).

    Args:
        total: the games of the plan.
        done: the games already played (a resumed results file).
        focus: the agent whose results the bar shows, or ``None``.
    """

    def __init__(self, total: int, done: int, focus: str | None) -> None:
        from tqdm import tqdm

        self.focus = focus
        self.stats = PairingStats(focus or "", "others")
        self.bar = tqdm(total=total, initial=done, unit="game", file=sys.stderr)

    def count(self, record: dict[str, Any]) -> None:
        """Count a record in the focus agent's statistics (a resumed record: no bar step)."""
        result, agents = record.get("result"), record.get("agents", [])
        if self.focus is None or self.focus not in agents or result not in ("a", "b", "draw"):
            return
        points = 0.5 if result == "draw" else float((result == "a") == (agents[0] == self.focus))
        self.stats.add(points, (record.get("pairing"), record.get("index")), 0)

    def __call__(self, record: dict[str, Any]) -> None:
        """Count a new record and step the bar."""
        self.count(record)
        self.bar.update(1)
        if self.focus is None:
            return
        elo, low, high = self.stats.elo()
        self.bar.set_postfix_str(
            f"{self.focus[:24]} W/D/L {self.stats.wins}/{self.stats.draws}/{self.stats.losses} "
            f"Elo {format_elo_games(elo, low, high, self.stats.games)}"
        )

    def close(self) -> None:
        """Close the bar."""
        self.bar.close()
