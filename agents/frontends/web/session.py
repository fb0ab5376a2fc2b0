"""One game between a person and an agent: the positions, click-by-click move entry, the
agent's replies with its estimate, undo, and the game record.

Positions come from the game's forward model only (``game.apply``, ``game.legal_actions``);
a click is checked against the click paths of the legal moves (:mod:`mcts_envs.svg`) before
anything is played. Chance outcomes (Tantrix draws) are sampled from the session's seeded
generator, so a session with a given seed and the same clicks replays the same game.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from typing import Any, NamedTuple

import numpy as np

from mcts_envs.agents.spec import make_agent
from mcts_envs.core.errors import IllegalActionError
from mcts_envs.core.game import CHANCE, TERMINAL, Game
from mcts_envs.core.svg import advance, resolve
from mcts_envs.records import make_record
from mcts_envs.svg import board, move_paths

#: Moves listed in the top-moves table of an estimate.
TOP_MOVES = 5


class Estimate(NamedTuple):
    """What the agent said about its move.

    Attributes:
        value: its value of the position for itself in [-1, 1] (``None`` if it gives none).
        top_moves: ``(move text, share of the search or None, value or None)``, best first.
        note: how the estimate was made (e.g. ``"1000 simulations in 0.21 s"``).
    """

    value: float | None
    top_moves: tuple[tuple[str, float | None, float | None], ...]
    note: str

    @property
    def win_probability(self) -> float | None:
        """``(value + 1) / 2``: the agent's expected score (a draw counts one half)."""
        return None if self.value is None else (self.value + 1.0) / 2.0


class BusyError(RuntimeError):
    """A request arrived while the session was still working on the previous one."""


def _estimate(agent: Any, game: Game, state: np.ndarray, action: int, seconds: float) -> Estimate:
    """Read the estimate the agent left after choosing ``action`` in ``state``."""
    name = game.action_to_string
    policy = getattr(agent, "last_policy", None)
    if policy is not None:  # MCTS: the root visit distribution and value
        probs, value = policy
        order = [int(a) for a in np.argsort(-probs, kind="stable")[:TOP_MOVES] if probs[a] > 0]
        facts = getattr(agent, "last_search", {})
        note = (
            "immediate win, no search"
            if facts.get("immediate")
            else f"{facts.get('simulations', '?')} simulations in {seconds:.2f} s"
        )
        top = tuple((name(state, a), float(probs[a]), None) for a in order)
        return Estimate(float(value), top, note)
    result = getattr(agent, "last_result", None)
    if result is not None:  # alpha-beta: the value of the best move
        solved = ", solved" if result.solved else ""
        note = f"depth {result.depth}{solved}, {result.nodes} nodes in {seconds:.2f} s"
        return Estimate(float(result.value), ((name(state, action), None, result.value),), note)
    values = getattr(agent, "action_values", None)
    if values is not None:  # minimax2: every move's value (cheap: depth <= the server cap)
        actions, scores = values(game, state)
        order = np.argsort(-scores, kind="stable")[:TOP_MOVES]
        top = tuple(
            (name(state, int(actions[i])), None, 2.0 * float(scores[i]) - 1.0) for i in order
        )
        return Estimate(2.0 * float(scores.max()) - 1.0, top, f"depth {agent.depth} minimax")
    return Estimate(None, (), "this agent gives no estimate")


class PlaySession:
    """A game between a person (one seat) and an agent (the other seat).

    Args:
        game: the game.
        game_name: its registry name.
        opponent: the checked agent spec (see :func:`mcts_envs.agents.frontends.web.limits.check_opponent`).
        human_seat: 0 or 1.
        seed: seeds the agent and the chance draws.
        notes: notes on the opponent's caps, shown with the game.
        warmup: a spec of the same agent with a tiny budget, searched once by :meth:`prepare`.
    """

    def __init__(
        self,
        game: Game,
        game_name: str,
        opponent: str,
        human_seat: int,
        seed: int,
        notes: tuple[str, ...] = (),
        warmup: str | None = None,
    ):
        self.game = game
        self.game_name = game_name
        self.opponent = opponent
        self.human_seat = human_seat
        self.seed = seed
        self.notes = notes
        self.warmup = warmup
        self.agent = make_agent(opponent, seed=seed)
        self.created = self.touched = time.monotonic()
        self.version = 0
        self._lock = threading.Lock()
        self.states: list[np.ndarray] = [game.initial_state()]
        self.actions: list[int] = []
        self.chance: list[int] = []
        self.movers: list[int] = []
        self.selection: tuple[str, ...] = ()
        self.estimate: Estimate | None = None
        self.last_player_action: int | None = None
        self._settle_chance()

    # -- state ----------------------------------------------------------------------------
    @property
    def state(self) -> np.ndarray:
        """The current state."""
        return self.states[-1]

    @property
    def to_move(self) -> int:
        """0 or 1, or ``TERMINAL`` (chance nodes are always settled)."""
        return self.game.current_player(self.state)

    @property
    def over(self) -> bool:
        """Whether the game has ended."""
        return self.to_move == TERMINAL

    @property
    def agent_turn(self) -> bool:
        """Whether the agent is to move."""
        return self.to_move == 1 - self.human_seat

    def prepare(self) -> None:
        """Compile (or load) the agent's search for this game before its first timed move:
        the agent's ``prepare`` hook, then one search of the warm-up agent, if any."""
        self.agent.prepare(self.game)
        if self.warmup is not None and not self.over:
            make_agent(self.warmup, seed=0).act_state(self.game, self.state)

    def _play(self, action: int, mover: int) -> None:
        self.states.append(self.game.apply(self.state, action))
        self.actions.append(int(action))
        self.movers.append(mover)
        self.agent.inform(int(action))

    def _settle_chance(self) -> None:
        """Play chance outcomes until a player is to move. The outcome at action index ``i``
        depends only on the seed, ``i`` and the outcomes there, so an undone move played again
        draws the same tile (undo cannot fish for better draws)."""
        while self.game.current_player(self.state) == CHANCE:
            outcomes, probabilities = self.game.chance_outcomes(self.state)
            generator = np.random.default_rng([self.seed, 1, len(self.actions)])
            outcome = int(generator.choice(outcomes, p=probabilities))
            self.chance.append(len(self.actions))
            self._play(outcome, CHANCE)

    def _changed(self) -> None:
        self.version += 1

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        """Hold the session's lock for one request, or refuse at once if another holds it."""
        if not self._lock.acquire(blocking=False):
            raise BusyError("the agent is still thinking; wait for its move")
        try:
            yield
        finally:
            self._lock.release()

    # -- requests -------------------------------------------------------------------------
    def click(self, target: str) -> None:
        """A click on ``target``: extends the selection, or plays the move it completes.

        Raises:
            IllegalActionError: if it is not the person's turn or the click fits no legal move.
            BusyError: while the agent is thinking.
        """
        with self._locked():
            if self.to_move != self.human_seat:
                raise IllegalActionError("the game is over" if self.over else "it is not your turn")
            paths = move_paths(self.game, self.state)
            selection = advance(paths, self.selection, target)
            action = resolve(paths, selection)
            if action is None:
                self.selection = selection
            else:
                self.selection = ()
                self._play(action, self.human_seat)
                self.last_player_action = action
                self.estimate = None
                self._settle_chance()
            self._changed()

    def clear_selection(self) -> None:
        """Forget the clicks made towards a move."""
        with self._locked():
            self.selection = ()
            self._changed()

    def agent_move(self) -> None:
        """Let the agent choose and play its move (blocks for the search; call in a thread).

        Raises:
            IllegalActionError: if it is not the agent's turn.
            BusyError: if a request is already being handled.
        """
        with self._locked():
            if not self.agent_turn:
                raise IllegalActionError(
                    "the game is over" if self.over else "it is your turn, not the agent's"
                )
            state = self.state
            start = time.perf_counter()
            action = int(self.agent.act_state(self.game, state))
            seconds = time.perf_counter() - start
            if action not in self.game.legal_actions(state):  # never trust, even our agents
                raise IllegalActionError(f"the agent chose an illegal action {action}")
            self.estimate = _estimate(self.agent, self.game, state, action, seconds)
            self._play(action, 1 - self.human_seat)
            self.last_player_action = action
            self._settle_chance()
            self._changed()

    def undo(self) -> None:
        """Take back the person's last move and everything after it (the agent's reply).

        Raises:
            IllegalActionError: if the person has made no move yet.
            BusyError: while the agent is thinking.
        """
        with self._locked():
            mine = [i for i, mover in enumerate(self.movers) if mover == self.human_seat]
            if not mine:
                raise IllegalActionError("nothing to undo: you have not moved yet")
            keep = mine[-1]
            del self.states[keep + 1 :]
            del self.actions[keep:]
            del self.movers[keep:]
            self.chance = [i for i in self.chance if i < keep]
            players = [i for i, mover in enumerate(self.movers) if mover >= 0]
            self.last_player_action = self.actions[players[-1]] if players else None
            self.selection = ()
            self.estimate = None
            self.agent.reset()
            self.agent.restart(self.state)
            self._changed()

    # -- views ----------------------------------------------------------------------------
    def board_svg(self) -> str:
        """The board with the last move and, on the person's turn, the legal clicks."""
        mine = self.to_move == self.human_seat
        return board(
            self.game,
            self.state,
            last_action=self.last_player_action,
            highlight_legal=mine,
            selection=self.selection if mine else (),
        ).svg

    def result(self) -> str | None:
        """``"You won"``, ``"The agent won"`` or ``"Draw"`` once the game is over."""
        if not self.over:
            return None
        returns = self.game.returns(self.state)
        if returns[self.human_seat] > 0:
            return "You won"
        if returns[self.human_seat] < 0:
            return "The agent won"
        return "Draw"

    def history(self) -> list[str]:
        """The moves so far as text (chance draws included), oldest first."""
        lines = []
        for index, action in enumerate(self.actions):
            mover = self.movers[index]
            text = self.game.action_to_string(self.states[index], action)
            who = "chance" if mover == CHANCE else ("you" if mover == self.human_seat else "agent")
            lines.append(f"{who}: {text}")
        return lines

    def players(self) -> list[str]:
        """Who sits where: ``"human"`` and the opponent spec."""
        seats = [self.opponent, self.opponent]
        seats[self.human_seat] = "human"
        return seats

    def record(self) -> dict[str, Any]:
        """The game so far as a version-2 record (:mod:`mcts_envs.records`)."""
        returns = self.game.returns(self.state).tolist() if self.over else None
        return make_record(
            self.game_name,
            self.game.to_text(self.states[0]),
            self.actions,
            self.chance,
            self.players(),
            returns,
            self.game.to_text(self.state),
            seed=self.seed,
        )
