"""Exact solution of small games by exhaustive search over every reachable position.

:func:`solve_game` walks the whole game graph from a root (memoised on ``game.key``), so each
position is searched once, and gives every position its exact value under perfect play (minimax;
expectation at chance nodes) together with the number of distinct games (paths to an end) that
run through it, split by result. For Tic-Tac-Toe this is the table of all 5,478 legal positions
(RULES.md section 1): 4,520 with a player to move, 958 finished; 255,168 games from the empty
board (131,184 won by X, 77,904 by O, 46,080 drawn); value 0 (a draw) at the start.

The solver is plain Python over the :class:`~mcts_envs.core.game.Game` protocol, so it is an
oracle independent of the compiled searches; it refuses games with more than ``max_positions``
reachable positions instead of running for hours.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

import numpy as np

from mcts_envs.core.errors import InvalidOptionError, InvalidRecordError, MctsEnvsError
from mcts_envs.core.game import CHANCE, TERMINAL, Game

#: Default bound on the number of positions :func:`solve_game` visits.
DEFAULT_MAX_POSITIONS = 200_000


class TooManyPositionsError(MctsEnvsError, ValueError):
    """The game has more reachable positions than the solver was allowed to visit."""


@dataclass
class SolvedGame:
    """Every position reachable from a root, with its exact value and game counts.

    Attributes:
        game: the solved game.
        index: ``game.key(state) -> row`` of the arrays below.
        states: ``int64[N, state_size]``, the positions (row 0 is the root).
        to_move: ``int64[N]``: ``game.current_player`` of each position (``TERMINAL``, ``CHANCE``).
        values: ``float64[N]``: exact value for ``player_0`` (+1 win, 0 draw, -1 loss; an
            expectation at and above chance nodes); ``player_1``'s is its negation.
        games: ``int64[N, 3]``: games from the position to an end won by ``player_0``, won by
            ``player_1``, drawn (one game per path, chance outcomes counted as branches).
    """

    game: Game
    index: dict[bytes, int]
    states: np.ndarray
    to_move: np.ndarray
    values: np.ndarray
    games: np.ndarray
    action_values: np.ndarray = field(repr=False)

    def __len__(self) -> int:
        return len(self.index)

    def row(self, state: np.ndarray) -> int:
        """The row of ``state``.

        Raises:
            InvalidOptionError: if ``state`` was not reached from the solved root.
        """
        row = self.index.get(self.game.key(state))
        if row is None:
            raise InvalidOptionError(
                f"{self.game.info.name}: position {self.game.to_text(state)!r} is not reachable "
                "from the solved root"
            )
        return row

    def value(self, state: np.ndarray, player: int) -> float:
        """The exact value of ``state`` for ``player`` (0 or 1)."""
        value = float(self.values[self.row(state)])
        return value if player == 0 else -value

    def move_values(self, state: np.ndarray) -> np.ndarray:
        """``float64[num_actions]``: the exact value of each legal action for the player to move
        (NaN at illegal actions).

        Raises:
            InvalidOptionError: if no player is to move at ``state``.
        """
        row = self.row(state)
        if self.to_move[row] < 0:
            raise InvalidOptionError(f"{self.game.info.name}: no player to move in this position")
        return self.action_values[row].copy()

    def best_actions(self, state: np.ndarray) -> np.ndarray:
        """The legal actions of highest exact value for the player to move (increasing)."""
        values = self.move_values(state)
        best = np.nanmax(values)
        return np.flatnonzero(values >= best - 1e-12)

    def decision_rows(self) -> np.ndarray:
        """Rows of the positions with a player to move (not terminal, not chance)."""
        return np.flatnonzero(self.to_move >= 0)

    def save(self, path: str | Path) -> None:
        """Write the table as ``.npz``: ``game`` (str), ``states``, ``texts`` (``to_text`` of each
        state), ``to_move``, ``values``, ``games``, ``action_values`` (fields as above)."""
        np.savez_compressed(
            path,
            game=np.array(self.game.info.name),
            states=self.states,
            texts=np.array([self.game.to_text(s) for s in self.states]),
            to_move=self.to_move,
            values=self.values,
            games=self.games,
            action_values=self.action_values,
        )

    @classmethod
    def load(cls, path: str | Path, game: Game) -> SolvedGame:
        """Read a table written by :meth:`save` for ``game``.

        Raises:
            InvalidRecordError: if the file is for another game or a field is missing.
        """
        with np.load(path, allow_pickle=False) as data:
            fields = ("game", "states", "to_move", "values", "games", "action_values")
            missing = [f for f in fields if f not in data.files]
            if missing:
                raise InvalidRecordError(f"{path}: missing field(s) {', '.join(missing)}")
            if str(data["game"]) != game.info.name:
                raise InvalidRecordError(
                    f"{path}: a solution of {str(data['game'])!r}, not {game.info.name!r}"
                )
            states = data["states"].astype(np.int64)
            return cls(
                game=game,
                index={game.key(state): row for row, state in enumerate(states)},
                states=states,
                to_move=data["to_move"].astype(np.int64),
                values=data["values"].astype(np.float64),
                games=data["games"].astype(np.int64),
                action_values=data["action_values"].astype(np.float64),
            )


def shipped_solution(game: Game) -> SolvedGame | None:
    """The solution shipped in ``agents/data/<game>_solution.npz`` (Tic-Tac-Toe), or None.

    The shipped table is :func:`solve_game`'s output saved once; a test checks it still equals a
    fresh solve.
    """
    path = resources.files("mcts_envs.agents") / "data" / f"{game.info.name}_solution.npz"
    if not path.is_file():
        return None
    with resources.as_file(path) as file:
        return SolvedGame.load(file, game)


def solve_game(
    game: Game, root: np.ndarray | None = None, max_positions: int = DEFAULT_MAX_POSITIONS
) -> SolvedGame:
    """Solve ``game`` exactly from ``root`` (default: the initial state).

    Args:
        game: any game of the :class:`~mcts_envs.core.game.Game` protocol.
        root: the position to solve from.
        max_positions: refuse (raise) after visiting this many distinct positions.

    Raises:
        TooManyPositionsError: if more than ``max_positions`` positions are reachable.
    """
    if isinstance(max_positions, bool) or not isinstance(max_positions, int) or max_positions < 1:
        raise InvalidOptionError(f"max_positions must be an int >= 1, got {max_positions!r}")
    root = game.initial_state() if root is None else np.asarray(root, np.int64)
    index: dict[bytes, int] = {}
    states: list[np.ndarray] = []
    to_move: list[int] = []
    values: list[float] = []
    games: list[tuple[int, int, int]] = []
    action_values: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    open_rows: set[int] = set()

    def visit(state: np.ndarray) -> int:
        key = game.key(state)
        row = index.get(key)
        if row is not None:
            if row in open_rows:
                raise InvalidOptionError(
                    f"{game.info.name}: a position repeats within one line of play; the exact "
                    "solver handles games without cycles only"
                )
            return row
        if len(index) >= max_positions:
            raise TooManyPositionsError(
                f"{game.info.name} has more than {max_positions} reachable positions; the exact "
                "solver is for small games such as tictactoe (raise max_positions to insist)"
            )
        row = len(states)
        index[key] = row
        states.append(state)
        player = game.current_player(state)
        to_move.append(player)
        values.append(0.0)
        games.append((0, 0, 0))
        if player == TERMINAL:
            result = float(game.returns(state)[0])
            values[row] = result
            games[row] = (int(result > 0), int(result < 0), int(result == 0))
            return row
        if player == CHANCE:
            moves, probabilities = game.chance_outcomes(state)
        else:
            moves = game.legal_actions(state)
            probabilities = None
        open_rows.add(row)
        rows = np.array([visit(game.apply(state, int(a))) for a in moves], np.int64)
        open_rows.discard(row)
        child_values = np.array([values[r] for r in rows])
        if player == CHANCE:
            values[row] = float(np.dot(probabilities, child_values))
        else:
            values[row] = float(child_values.max() if player == 0 else child_values.min())
        games[row] = tuple(sum(games[r][i] for r in rows) for i in range(3))
        if player != CHANCE:
            action_values[row] = (np.asarray(moves, np.int64), child_values)
        return row

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 4 * game.info.max_game_length + 1000))
    try:
        visit(root)
    finally:
        sys.setrecursionlimit(limit)
    table = np.full((len(states), game.info.num_actions), np.nan)
    for row, (moves, child_values) in action_values.items():
        table[row, moves] = child_values if to_move[row] == 0 else -child_values
    return SolvedGame(
        game=game,
        index=index,
        states=np.array(states, np.int64),
        to_move=np.array(to_move, np.int64),
        values=np.array(values, np.float64),
        games=np.array(games, np.int64),
        action_values=table,
    )
