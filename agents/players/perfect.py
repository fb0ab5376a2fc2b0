"""The ``perfect`` agent: plays a best move of the exact solution (small games: Tic-Tac-Toe).

Tic-Tac-Toe's solution is shipped (``agents/data/tictactoe_solution.npz``, loaded in milliseconds);
other games are solved once per agent (:func:`mcts_envs.agents.players.solver.solve_game`, every reachable position)
on :meth:`PerfectAgent.prepare` or the first decision. Positions the initial state does not reach
(e.g. set with ``from_text``) are solved from there on demand.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np

from mcts_envs.agents.base import ForwardModelAgent, game_and_state
from mcts_envs.agents.players.solver import (
    DEFAULT_MAX_POSITIONS,
    SolvedGame,
    shipped_solution,
    solve_game,
)
from mcts_envs.core.errors import IllegalActionError, InvalidOptionError
from mcts_envs.core.game import Game
from mcts_envs.core.seeding import check_seed


class PerfectAgent(ForwardModelAgent):
    """Plays a move of highest exact value (solver over all reachable positions).

    Only for games small enough to solve completely (Tic-Tac-Toe: 5,478 positions, about a
    second in Python); larger games raise an error naming the limit.

    Args:
        seed: seed of the choice among equally valued best moves.
        tiebreak: ``"random"`` (uniform among the best moves) or ``"first"`` (lowest action).
        max_positions: refuse games with more reachable positions than this.
    """

    name = "perfect"

    def __init__(
        self,
        *,
        seed: int | None = None,
        tiebreak: Literal["random", "first"] = "random",
        max_positions: int = DEFAULT_MAX_POSITIONS,
    ) -> None:
        if tiebreak not in ("random", "first"):
            raise InvalidOptionError(f"perfect: tiebreak is 'random' or 'first', got {tiebreak!r}")
        if (
            isinstance(max_positions, bool)
            or not isinstance(max_positions, int)
            or max_positions < 1
        ):
            raise InvalidOptionError(
                f"perfect: max_positions must be an int >= 1, got {max_positions!r}"
            )
        self.seed = check_seed(seed)
        self.tiebreak = tiebreak
        self.max_positions = max_positions
        self._generator = np.random.default_rng(self.seed)
        self._solutions: dict[str, list[SolvedGame]] = {}

    def prepare(self, game: Game) -> None:
        """Solve ``game`` from its initial state (raises if it is too large)."""
        self.solution(game)

    def solution(self, game: Game, state: np.ndarray | None = None) -> SolvedGame:
        """The solution that contains ``state`` (default: the one from the initial state)."""
        solutions = self._solutions.get(game.info.name)
        if solutions is None:
            solved = shipped_solution(game) or solve_game(game, max_positions=self.max_positions)
            solutions = [solved]
            self._solutions[game.info.name] = solutions
        if state is None:
            return solutions[0]
        key = game.key(state)
        for solved in solutions:
            if key in solved.index:
                return solved
        solved = solve_game(game, state, max_positions=self.max_positions)
        solutions.append(solved)
        return solved

    def best_actions(self, game: Game, state: np.ndarray) -> np.ndarray:
        """The legal actions of highest exact value for the player to move."""
        if game.current_player(state) < 0:
            raise IllegalActionError(f"{game.info.name}: the perfect agent needs a player to move")
        return self.solution(game, state).best_actions(state)

    def act_state(self, game: Game, state: np.ndarray) -> int:
        best = self.best_actions(game, state)
        if self.tiebreak == "first":
            return int(best[0])
        return int(best[self._generator.integers(len(best))])

    def policy(self, env_or_game: Any, state: np.ndarray | None = None) -> tuple[np.ndarray, float]:
        """Uniform over the best moves; the exact value for the player to move."""
        game, state = game_and_state(env_or_game, state)
        best = self.best_actions(game, state)
        probs = np.zeros(game.info.num_actions, np.float64)
        probs[best] = 1.0 / len(best)
        player = game.current_player(state)
        return probs, self.solution(game, state).value(state, player)
