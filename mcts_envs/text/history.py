"""What a prompt may say about the past: the move number and the moves known since a start.

A position can arise from a game played from the start, from a position set up mid-game (the
env's ``set_game_state``, a tournament opening) or across chance outcomes (Tantrix's draws). A
prompt therefore takes the move number from the position itself (:func:`moves_played`) and the
moves it reports from a :class:`MoveHistory`, which knows only what happened since its start
position.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from mcts_envs.core.constants import CHANCE
from mcts_envs.core.game import Game


def moves_played(game: Game, state: np.ndarray) -> int | None:
    """``game.moves_played(state)``: the decisions of both players made before ``state``
    (chance outcomes not counted), read off the position by the game, or ``None`` for a game
    whose position does not tell (see :meth:`mcts_envs.core.game.Game.moves_played`)."""
    return game.moves_played(state)


class KnownMove(NamedTuple):
    """One action of a :class:`MoveHistory`.

    Attributes:
        player: the seat (0 or 1) that decided, or ``CHANCE`` for a chance outcome.
        action: the action (or chance outcome).
        name: ``game.action_to_string`` of it in the position it was played in.
    """

    player: int
    action: int
    name: str


class MoveHistory:
    """The actions played since a start position, named, with the position they lead to.

    It follows a game as an agent does: :meth:`restart` at the start position, :meth:`inform`
    of every action, chance outcomes included (the same history whether built from a base
    env's ``history`` or from the calls a game loop makes to its agents). It knows nothing
    before its start position; :meth:`mcts_envs.text.TextEnv.follow` prompts from it.

    Attributes:
        game: the game.
        start: the start position (a copy).
        state: the position after every action informed.
        moves: every action informed, in order (:class:`KnownMove`).
        start_moves: the decisions made before ``start`` (:func:`moves_played`), ``0`` for the
            game's initial position, ``None`` when not known.
    """

    def __init__(self, game: Game, state: np.ndarray | None = None) -> None:
        self.game = game
        self.restart(game.initial_state() if state is None else state)

    def restart(self, state: np.ndarray) -> None:
        """Start following a game at ``state`` (earlier actions are unknown)."""
        game = self.game
        self.start = np.array(state, copy=True)
        self.state = self.start.copy()
        self.moves: list[KnownMove] = []
        self.start_moves = game.moves_played(self.start)
        if self.start_moves is None and game.key(self.start) == game.key(game.initial_state()):
            self.start_moves = 0

    def inform(self, action: int) -> None:
        """Follow one action (a decision or a chance outcome), legal in :attr:`state`."""
        game = self.game
        player = int(game.current_player(self.state))
        name = game.action_to_string(self.state, int(action))
        self.moves.append(KnownMove(player if player >= 0 else CHANCE, int(action), name))
        self.state = game.apply_unchecked(self.state, int(action))

    def copy(self) -> MoveHistory:
        """An independent copy (informing one does not change the other)."""
        other = MoveHistory.__new__(MoveHistory)
        other.game = self.game
        other.start, other.state = self.start.copy(), self.state.copy()
        other.moves = list(self.moves)
        other.start_moves = self.start_moves
        return other

    def move_number(self) -> int | None:
        """The number of the next decision in the game (1 before the first), or ``None``."""
        played = self.game.moves_played(self.state)
        if played is None and self.start_moves is not None:
            played = self.start_moves + sum(move.player != CHANCE for move in self.moves)
        return None if played is None else played + 1

    def decided(self, seat: int) -> bool:
        """Whether ``seat`` made a decision since the start position."""
        return any(move.player == seat for move in self.moves)

    def since_last_turn(self, seat: int) -> tuple[list[KnownMove], bool]:
        """The actions after the last decision of ``seat``, and whether that decision is known.

        Returns:
            ``(moves, known)``: the actions (the opponent's decisions and chance outcomes)
            played since ``seat`` last decided; if ``seat`` made no decision since the start
            position, every action since the start and ``known=False``.
        """
        for index in range(len(self.moves) - 1, -1, -1):
            if self.moves[index].player == seat:
                return self.moves[index + 1 :], True
        return list(self.moves), False
