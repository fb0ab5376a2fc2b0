"""Mistake rates of agents and policies against labelled positions (exact or deep-search values).

A *labelled position set* gives, for each position, the value of every legal action for the
player to move. A move is a **mistake** when its value is below the position's best value by more
than the set's ``tolerance``: it loses value (a won position let slip to a draw, a draw to a
loss), as AlphaZero.jl measures its Connect Four agents against a perfect solver. The mistake rate
of a policy is the share of positions where its move is a mistake (with a Wilson 95% interval);
for a policy that returns probabilities, also the mean probability it puts on mistakes.

Two kinds of labels:

* exact, from :mod:`mcts_envs.agents.players.solver`: :func:`exact_labels` (Tic-Tac-Toe: all 4,520 positions with a
  player to move, tolerance 0);
* deep alpha-beta, for the games too large to solve: :func:`search_labels` scores each legal
  action by an alpha-beta search of the position after it (``depth - 1`` more plies, so the
  position is searched ``depth`` plies deep). The shipped sets (``agents/data/<game>_labels.npz``,
  :func:`load_shipped_labels`) were made by ``scripts/make_label_sets.py`` (seeded; see its
  docstring for the positions' origin and depths). Depth-limited values are heuristic below
  the horizon, so those sets use a tolerance (0.05 on the [-1, 1] scale) to ignore near ties.

File format (``.npz``, loads with plain numpy): ``game`` (str), ``states`` (``int64[N, S]``),
``texts`` (``str[N]``, ``game.to_text`` of each state), ``action_values`` (``float64[N, A]``,
mover's view, NaN at illegal actions), ``tolerance`` (float), ``source`` (str, how the values were
made).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from mcts_envs.agents.evaluation.stats import wilson_interval
from mcts_envs.agents.players.solver import SolvedGame
from mcts_envs.core.errors import InvalidOptionError, InvalidRecordError
from mcts_envs.core.game import CHANCE, TERMINAL, Game
from mcts_envs.core.registry import make_game

#: Tolerance of the shipped deep-search label sets (values on the [-1, 1] scale).
SEARCH_TOLERANCE = 0.05

#: A decision function: ``(game, state) -> action`` or ``-> probabilities[num_actions]``.
Decide = Callable[[Game, np.ndarray], Any]


@dataclass(frozen=True)
class LabelledPositions:
    """Positions with the value of every legal action for the player to move.

    Attributes:
        game: the game's registry name.
        states: ``int64[N, state_size]``.
        action_values: ``float64[N, num_actions]``, mover's view, NaN at illegal actions.
        tolerance: a move is a mistake when its value is below the best by more than this.
        source: how the values were made, e.g. ``"exact solver"`` or ``"alphabeta:depth=9"``.
    """

    game: str
    states: np.ndarray
    action_values: np.ndarray
    tolerance: float
    source: str

    def __len__(self) -> int:
        return len(self.states)

    def mistakes(self, row: int) -> np.ndarray:
        """``bool[num_actions]``: the legal actions that are mistakes at position ``row``."""
        values = self.action_values[row]
        legal = ~np.isnan(values)
        best = values[legal].max()
        return legal & (np.where(legal, values, np.inf) < best - self.tolerance)

    def save(self, path: str | Path) -> None:
        """Write the set as ``.npz`` (format in the module docstring)."""
        game = make_game(self.game)
        np.savez_compressed(
            path,
            game=np.array(self.game),
            states=self.states,
            texts=np.array([game.to_text(s) for s in self.states]),
            action_values=self.action_values,
            tolerance=np.array(self.tolerance),
            source=np.array(self.source),
        )

    @classmethod
    def load(cls, path: str | Path) -> LabelledPositions:
        """Read a set written by :meth:`save`.

        Raises:
            InvalidRecordError: if a field is missing or has the wrong shape.
        """
        with np.load(path, allow_pickle=False) as data:
            missing = {"game", "states", "action_values", "tolerance", "source"} - set(data.files)
            if missing:
                raise InvalidRecordError(f"{path}: missing field(s) {', '.join(sorted(missing))}")
            labels = cls(
                game=str(data["game"]),
                states=data["states"].astype(np.int64),
                action_values=data["action_values"].astype(np.float64),
                tolerance=float(data["tolerance"]),
                source=str(data["source"]),
            )
        game = make_game(labels.game)
        if labels.states.shape[1:] != (game.info.state_size,) or labels.action_values.shape != (
            len(labels.states),
            game.info.num_actions,
        ):
            raise InvalidRecordError(f"{path}: states or action_values do not fit {labels.game}")
        return labels


class MistakeReport(NamedTuple):
    """Mistake rate of one policy on one labelled set.

    Attributes:
        positions: positions evaluated.
        mistakes: positions where the chosen (or most probable) move is a mistake.
        rate: ``mistakes / positions``.
        interval: Wilson 95% interval of ``rate``.
        mistake_mass: mean probability on mistakes (equals ``rate`` for a policy that returns
            actions).
    """

    positions: int
    mistakes: int
    rate: float
    interval: tuple[float, float]
    mistake_mass: float

    def summary(self) -> str:
        """One line: rate, interval, count."""
        low, high = self.interval
        return (
            f"mistake rate {self.rate:.4f} [{low:.4f}, {high:.4f}] "
            f"({self.mistakes} of {self.positions} positions; mistake mass {self.mistake_mass:.4f})"
        )


def exact_labels(solved: SolvedGame) -> LabelledPositions:
    """Every position of ``solved`` with a player to move, labelled with exact values."""
    rows = solved.decision_rows()
    values = solved.action_values[rows]
    return LabelledPositions(
        game=solved.game.info.name,
        states=solved.states[rows],
        action_values=values,
        tolerance=0.0,
        source="exact solver",
    )


def searched_value(agent: Any, game: Game, state: np.ndarray, player: int) -> float:
    """Value of ``state`` for ``player`` by ``agent``'s search (exact returns at the end; the
    expectation over outcomes at chance nodes). The one place that reads a search result."""
    mover = game.current_player(state)
    if mover == TERMINAL:
        return float(game.returns(state)[player])
    if mover == CHANCE:
        outcomes, probabilities = game.chance_outcomes(state)
        return float(
            sum(
                p * searched_value(agent, game, game.apply(state, int(o)), player)
                for o, p in zip(outcomes, probabilities, strict=True)
            )
        )
    value = float(agent.search(game, state).value)
    return value if mover == player else -value


def search_labels(
    game: Game, states: np.ndarray, depth: int, seed: int = 0, progress: bool = False
) -> LabelledPositions:
    """Label ``states`` by alpha-beta: each legal action scored by a search ``depth - 1`` plies
    deep of the position after it (the position itself is thus searched ``depth`` plies).

    Raises:
        InvalidOptionError: if ``depth < 2`` or a state has no player to move.
    """
    from mcts_envs.agents.players.alphabeta import MINIMAX_EQUIVALENT, AlphaBetaAgent

    if depth < 2:
        raise InvalidOptionError(f"search_labels: depth must be >= 2, got {depth}")
    # plain depth-limited minimax values on the heuristic (no reductions or pruning)
    agent = AlphaBetaAgent(seed=seed, depth=depth - 1, table_size=1 << 18, **MINIMAX_EQUIVALENT)
    values = np.full((len(states), game.info.num_actions), np.nan)
    rows = range(len(states))
    if progress:
        from tqdm import tqdm

        rows = tqdm(rows, desc=f"labelling {game.info.name}", unit="position")
    for row in rows:
        state = states[row]
        player = game.current_player(state)
        if player < 0:
            raise InvalidOptionError(f"{game.info.name}: position {row} has no player to move")
        for action in game.legal_actions(state):
            child = game.apply(state, int(action))
            values[row, action] = searched_value(agent, game, child, player)
    return LabelledPositions(
        game=game.info.name,
        states=np.asarray(states, np.int64),
        action_values=values,
        tolerance=SEARCH_TOLERANCE,
        source=f"alphabeta:depth={depth}",
    )


def shipped_label_games() -> list[str]:
    """Games with a shipped label set."""
    folder = resources.files("mcts_envs.agents") / "data"
    return sorted(
        p.name.removesuffix("_labels.npz")
        for p in folder.iterdir()
        if p.name.endswith("_labels.npz")
    )


def load_shipped_labels(game_name: str) -> LabelledPositions:
    """The shipped deep alpha-beta label set of ``game_name``.

    Raises:
        InvalidOptionError: if none is shipped for that game (the message lists those that are).
    """
    path = resources.files("mcts_envs.agents") / "data" / f"{game_name}_labels.npz"
    if not path.is_file():
        raise InvalidOptionError(
            f"no shipped label set for {game_name!r}; available: "
            f"{', '.join(shipped_label_games())} (tictactoe: exact_labels(solve_game(game)))"
        )
    with resources.as_file(path) as file:
        return LabelledPositions.load(file)


def mistake_rate(
    labels: LabelledPositions, decide: Decide, progress: bool = False
) -> MistakeReport:
    """The mistake rate of ``decide`` on ``labels``.

    Args:
        labels: the labelled positions.
        decide: ``(game, state) -> action`` (an int), or ``-> probabilities[num_actions]`` (the
            most probable legal action is the policy's move; the probability on mistakes is
            averaged into ``mistake_mass``). E.g. ``agent.act_state``, or
            ``lambda g, s: agent.policy(g, s)[0]``.
        progress: show a progress bar.
    """
    game = make_game(labels.game)
    mistakes, mass = 0, 0.0
    rows = range(len(labels))
    if progress:
        from tqdm import tqdm

        rows = tqdm(rows, desc=f"mistakes on {labels.game}", unit="position")
    for row in rows:
        state = labels.states[row]
        wrong = labels.mistakes(row)
        answer = decide(game, state.copy())
        if np.ndim(answer) == 0:
            action = int(answer)
            if np.isnan(labels.action_values[row, action]):
                raise InvalidOptionError(
                    f"{labels.game}: the policy chose illegal action {action} at position {row}"
                )
            mistakes += int(wrong[action])
            mass += float(wrong[action])
        else:
            probs = np.asarray(answer, np.float64)
            legal = ~np.isnan(labels.action_values[row])
            total = probs[legal].sum()
            action = int(np.flatnonzero(legal)[np.argmax(probs[legal])])
            mistakes += int(wrong[action])
            mass += float(probs[wrong].sum() / total) if total > 0 else float(wrong.any())
    positions = len(labels)
    return MistakeReport(
        positions=positions,
        mistakes=mistakes,
        rate=mistakes / positions if positions else 0.0,
        interval=wilson_interval(mistakes, positions),
        mistake_mass=mass / positions if positions else 0.0,
    )
