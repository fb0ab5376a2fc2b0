"""The Agent protocol shared by search agents and learned policies.

Every agent can act inside any PettingZoo ``agent_iter()`` loop (:meth:`Agent.act`) and, for fast
arenas, directly on the forward model (:meth:`Agent.act_state`). Search agents also expose a policy
target (:meth:`Agent.policy`).
"""

from __future__ import annotations

import math
import numbers
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np

from mcts_envs.core.constants import CHANCE, TERMINAL
from mcts_envs.core.errors import IllegalActionError, InvalidOptionError, MctsEnvsError
from mcts_envs.core.quoting import bounded, quote

if TYPE_CHECKING:  # annotations only: importing agents imports no numba
    from mcts_envs.core.game import Game

#: Characters of an agent's answer and of the message a forfeit keeps in the game record.
FORFEIT_QUOTE = 200
#: A forfeit's ``fault``: the agent's own play (an invalid or illegal move, a timeout, a crash).
AGENT_FAULT = "agent"
#: A forfeit's ``fault``: the agent's server or engine could not be reached or did not answer
#: properly (a refused connection, an HTTP error, a malformed response), nothing about its play.
INFRASTRUCTURE_FAULT = "infrastructure"
#: The kinds of fault a forfeit records.
FAULTS = (AGENT_FAULT, INFRASTRUCTURE_FAULT)


class ForfeitError(MctsEnvsError, RuntimeError):
    """An agent lost the game by a fault during its move (an external engine's illegal or
    unparseable answer, crash or timeout; a model server that cannot be reached). The game loop
    ends that game as a loss of the agent and the match goes on (until an agent's infrastructure
    has failed several games in a row: :mod:`mcts_envs.agents.evaluation.faults`).

    Attributes:
        reason: a short cause, e.g. ``"illegal move"``, ``"crash"``, ``"timeout"`` or
            ``"connection"``.
        line: the agent's raw answer, if it gave one.
        fault: :data:`AGENT_FAULT` (its play) or :data:`INFRASTRUCTURE_FAULT` (its server or
            engine could not be reached or did not answer properly).
    """

    def __init__(
        self, message: str, reason: str, line: str | None = None, fault: str = AGENT_FAULT
    ) -> None:
        super().__init__(message)
        if fault not in FAULTS:
            raise ValueError(f"fault must be one of {FAULTS}, got {fault!r}")
        self.reason = reason
        self.line = line
        self.fault = fault

    def forfeit(self, seat: int) -> dict[str, Any]:
        """What a game record keeps of the fault of the agent at ``seat``: ``{"seat", "reason",
        "fault", "line", "message"}`` (the line and the message cut to a few hundred
        characters)."""
        return {
            "seat": seat,
            "reason": self.reason,
            "fault": self.fault,
            "line": None if self.line is None else bounded(self.line, FORFEIT_QUOTE),
            "message": bounded(str(self), 2 * FORFEIT_QUOTE),
        }


@runtime_checkable
class Agent(Protocol):
    """What every agent provides.

    Attributes:
        name: a short label for tables and records, e.g. ``"mcts:iterations=800"``.
    """

    name: str

    def act(self, env: Any) -> int:
        """An action for ``env.agent_selection`` (reads ``env.unwrapped``; never deep-copies)."""
        ...

    def act_state(self, game: Game, state: np.ndarray) -> int:
        """An action for ``game.current_player(state)`` in ``state``."""
        ...

    def policy(self, env_or_game: Any, state: np.ndarray | None = None) -> tuple[np.ndarray, float]:
        """``(probs float64[num_actions], value)`` for the player to move; value in [-1, 1]."""
        ...

    def reset(self) -> None:
        """Forget anything kept between moves (e.g. a reused search tree): a new game starts."""
        ...

    def prepare(self, game: Game) -> None:
        """Compile every code path a decision on ``game`` can take, before any clock runs.

        Callers (arena, CLI, tournaments, engines) call it once per agent and game before the
        first timed move, so JIT compilation is never charged to a decision's budget.
        """
        ...

    def inform(self, action: int) -> None:
        """Follow the game: ``action`` (a move or chance outcome) was just played from the state
        last searched or informed; lets a search reuse its tree without looking for the root."""
        ...

    def restart(self, state: np.ndarray) -> None:
        """Follow the game: the next decision starts from ``state`` (not reached by ``inform``)."""
        ...


def game_and_state(env_or_game: Any, state: np.ndarray | None = None) -> tuple[Game, np.ndarray]:
    """Resolve ``policy``'s arguments: an env (forward model in ``env.unwrapped``) or game + state.

    Raises:
        TypeError: if neither form is given.
    """
    if state is not None:
        return env_or_game, state
    unwrapped = getattr(env_or_game, "unwrapped", None)
    if unwrapped is not None and hasattr(unwrapped, "game") and hasattr(unwrapped, "game_state"):
        return unwrapped.game, unwrapped.game_state
    raise TypeError(
        "pass an mcts_envs env, or a Game and a state: policy(env) or policy(game, state)"
    )


def search_buffer_size(game: Game) -> int:
    """The largest number of legal actions or chance outcomes a state of ``game`` can have: the
    length of the action / outcome buffers of the compiled searches and of an MCTS child block."""
    return max(game.info.max_legal_actions, game.info.max_chance_outcomes, 1)


#: Largest simulation / node budget an agent accepts (fits int64 arithmetic with room to spare).
MAX_ITERATIONS = 10**12
#: Largest time budget per decision in seconds (about 11.6 days): a finite bound, so a search ends.
MAX_SECONDS = 1e6
#: Smallest time budget per decision in seconds.
MIN_SECONDS = 1e-6


def check_number(
    agent: str,
    name: str,
    value: Any,
    low: float,
    high: float,
    *,
    integer: bool,
    optional: bool = False,
) -> Any:
    """Return ``value`` (an ``int`` if ``integer``, else a ``float``) if it is a finite number in
    ``[low, high]`` (or ``None`` when ``optional``); otherwise raise :class:`InvalidOptionError`
    naming the agent, the option and the allowed range. Every numeric agent option goes through
    here, so no value that would overflow, never end or exhaust memory reaches a search."""
    if value is None and optional:
        return None
    kind = "an integer" if integer else "a finite number"
    bounds = f"[{int(low)}, {int(high)}]" if integer else f"[{low:g}, {high:g}]"
    allowed = f"{kind} in {bounds}" + (" or None" if optional else "")
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool)
    if ok and integer:
        ok = isinstance(value, numbers.Integral) or (
            math.isfinite(float(value)) and float(value).is_integer()
        )
    if ok:
        number = int(value) if integer else float(value)
        if (integer or math.isfinite(number)) and low <= number <= high:
            return number
    raise InvalidOptionError(f"{agent}: {name} must be {allowed}, got {quote(value)}")


def check_decision(agent: str, game: Game, state: Any) -> tuple[np.ndarray, int]:
    """``(state as a contiguous state array of game, player to move)`` for a search.

    Raises:
        TypeError: if ``state`` is not a state array of ``game``.
        IllegalActionError: if no player is to move (terminal state or chance node).
    """
    state = np.ascontiguousarray(game.check_state(state))
    player = game.current_player(state)
    if player < 0:
        raise IllegalActionError(
            f"{game.info.name}: {agent} needs a state with a player to move, the state is "
            f"{'terminal' if player == TERMINAL else 'a chance node'}"
        )
    return state, player


def decision_state(game: Game) -> np.ndarray:
    """The first state of ``game`` with a player to move (at chance nodes, the first outcome):
    what ``prepare`` hooks search to compile a game's code paths."""
    state = game.initial_state()
    while game.current_player(state) == CHANCE:
        state = game.apply(state, int(game.chance_outcomes(state)[0][0]))
    return state


class ForwardModelAgent:
    """Base for agents that decide from the forward model: ``act(env)`` calls ``act_state``."""

    name = "agent"

    def act(self, env: Any) -> int:
        game, state = game_and_state(env)
        return self.act_state(game, state)

    def act_state(self, game: Game, state: np.ndarray) -> int:
        raise NotImplementedError

    def policy(self, env_or_game: Any, state: np.ndarray | None = None) -> tuple[np.ndarray, float]:
        """One-hot on the chosen action, value 0 (override for a real policy target)."""
        game, state = game_and_state(env_or_game, state)
        probs = np.zeros(game.info.num_actions, np.float64)
        probs[self.act_state(game, state)] = 1.0
        return probs, 0.0

    def reset(self) -> None:
        return None

    def prepare(self, game: Game) -> None:
        """Nothing to compile by default (override in compiled agents)."""
        return None

    def inform(self, action: int) -> None:
        """Ignored by default (agents without state between moves)."""
        return None

    def restart(self, state: np.ndarray) -> None:
        """Ignored by default (agents without state between moves)."""
        return None

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"
