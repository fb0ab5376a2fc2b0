"""OpenSpiel's C++ ``MCTSBot`` as an agent on our Ultimate Tic-Tac-Toe (experiment-local).

Encodings: our action is ``board * 9 + cell`` (boards and cells row-major, ``Discrete(81)``).
OpenSpiel's ``ultimate_tic_tac_toe`` has 9 actions: when the mover may play on any local board
(its state prints ``Forced board: any``), the move is two decisions of the same player, first
the board and then the cell; otherwise one decision, the cell on the forced board. The agent
keeps an OpenSpiel state in step with the game (``restart`` / ``inform``); a decision asks the
bot once or twice (board, then cell) and both calls count toward the move's time, since the
tournament times the whole ``act_state`` call.

Importing this module registers the kind ``openspiel_mcts`` (options ``simulations``, ``uct_c``,
``rollouts``, ``solve``) with :func:`agents.spec.register_agent`. Needs ``pyspiel``
(``pip install 'mcts-envs[bench]'``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.base import ForwardModelAgent
from agents.spec import register_agent
from mcts_envs.core.errors import IllegalActionError, InvalidOptionError, require_optional
from mcts_envs.core.game import Game
from mcts_envs.core.registry import make_game
from mcts_envs.core.seeding import check_seed

NAME = "openspiel_mcts"
OPENSPIEL_GAME = "ultimate_tic_tac_toe"


def free_move(os_state: Any) -> bool:
    """Whether the OpenSpiel state asks its mover to choose a local board first."""
    return str(os_state).rstrip().endswith("Forced board: any")


def to_openspiel(action: int, free: bool) -> list[int]:
    """Our ``board * 9 + cell`` as OpenSpiel decisions: ``[board, cell]`` on a free move,
    ``[cell]`` otherwise.

    Raises:
        IllegalActionError: for an action outside 0..80.
    """
    if not 0 <= int(action) < 81:
        raise IllegalActionError(f"an Ultimate Tic-Tac-Toe action is 0..80, got {action!r}")
    board, cell = divmod(int(action), 9)
    return [board, cell] if free else [cell]


def from_openspiel(board: int, cell: int) -> int:
    """Our action of OpenSpiel's local ``board`` and ``cell`` (each 0..8)."""
    return int(board) * 9 + int(cell)


def forced_board(os_state: Any) -> int:
    """The local board the mover must play on (OpenSpiel's printout), or -1 if free."""
    line = str(os_state).rstrip().rsplit("\n", 1)[-1]
    tail = line.split(":")[-1].strip()
    return -1 if tail == "any" else int(tail)


def apply_ours(os_state: Any, action: int) -> None:
    """Apply our ``action`` to an OpenSpiel state (one or two decisions).

    Raises:
        IllegalActionError: if OpenSpiel does not allow the move (the states are out of step).
    """
    free = free_move(os_state)
    if not free and forced_board(os_state) != action // 9:
        raise IllegalActionError(
            f"action {action} is on board {action // 9}, OpenSpiel forces {forced_board(os_state)}"
        )
    for decision in to_openspiel(action, free):
        if decision not in os_state.legal_actions():
            raise IllegalActionError(f"OpenSpiel does not allow {decision} for our {action}")
        os_state.apply_action(decision)


class OpenSpielMCTS(ForwardModelAgent):
    """OpenSpiel's C++ ``MCTSBot`` with random rollouts, following our game.

    Args:
        seed: the bot's and the rollout evaluator's seed.
        simulations: ``max_simulations`` per OpenSpiel decision (a free move makes two).
        uct_c: OpenSpiel's UCT constant (2 in its examples).
        rollouts: random rollouts per leaf.
        solve: OpenSpiel's MCTS-Solver switch.
    """

    name = NAME

    def __init__(
        self,
        *,
        seed: int | None = None,
        simulations: int = 1000,
        uct_c: float = 2.0,
        rollouts: int = 1,
        solve: bool = True,
    ) -> None:
        if isinstance(simulations, bool) or not isinstance(simulations, int) or simulations < 1:
            raise InvalidOptionError(
                f"{NAME}: simulations must be an int >= 1, got {simulations!r}"
            )
        self.pyspiel = require_optional("pyspiel", "bench")
        self.seed = check_seed(seed)
        seed_value = int(self.seed if self.seed is not None else 0) % (2**31)
        self.os_game = self.pyspiel.load_game(OPENSPIEL_GAME)
        evaluator = self.pyspiel.RandomRolloutEvaluator(int(rollouts), seed_value)
        self.bot = self.pyspiel.MCTSBot(
            self.os_game,
            evaluator,
            float(uct_c),
            simulations,
            1000,
            bool(solve),
            seed_value,
            False,
        )
        self.os_state = self.os_game.new_initial_state()
        self._initial = make_game("ultimate_tictactoe").initial_state()

    def restart(self, state: np.ndarray) -> None:
        """Start from ``state``: only the initial position is supported (OpenSpiel cannot load
        an arbitrary position; play from the start and ``inform`` every move).

        Raises:
            InvalidOptionError: for any other position.
        """
        self.os_state = self.os_game.new_initial_state()
        if not np.array_equal(np.asarray(state), self._initial):
            raise InvalidOptionError(f"{NAME} follows games from the initial position only")

    def reset(self) -> None:
        self.os_state = self.os_game.new_initial_state()

    def inform(self, action: int) -> None:
        apply_ours(self.os_state, int(action))

    def act_state(self, game: Game, state: np.ndarray) -> int:
        """Ask the bot for a move (board then cell on a free move); both decisions are timed."""
        os_state = self.os_state.clone()
        if free_move(os_state):
            board = int(self.bot.step(os_state))
            os_state.apply_action(board)
            return from_openspiel(board, int(self.bot.step(os_state)))
        return from_openspiel(forced_board(os_state), int(self.bot.step(os_state)))


register_agent(NAME, OpenSpielMCTS)
