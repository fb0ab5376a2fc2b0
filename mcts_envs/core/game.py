"""The Game protocol: the forward model every game implements and every agent relies on.

A game is immutable facts (:class:`GameInfo`) plus pure functions over a *state*: a 1-D
``np.int64`` array of length ``info.state_size`` whose layout each game documents in its
``kernels`` module. States are values: :meth:`Game.apply` returns a new array and never mutates
its input, so agents can keep references, clone cheaply and use :meth:`Game.key` in tables.

The same rules are exposed twice, without being written twice:

* :class:`GameKernels`: the compiled (numba ``njit``) functions that hold the rules, for hot loops
  (playouts, compiled search). Their signatures are fixed here so generic compiled code can take
  any game's kernels as arguments.
* :class:`Game`: the checked Python API (clear errors on bad input) built on those kernels by
  :class:`KernelGame`.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol, runtime_checkable

import numpy as np

from mcts_envs.core import json_state
from mcts_envs.core.constants import CHANCE, TERMINAL
from mcts_envs.core.errors import (
    ActionTypeError,
    IllegalActionError,
    InvalidOptionError,
    InvalidRecordError,
    InvalidStateError,
    StateTypeError,
)
from mcts_envs.core.hashing import hash_words
from mcts_envs.core.jit import pin_identity
from mcts_envs.core.numba_cache import njit
from mcts_envs.core.quoting import quote
from mcts_envs.core.search_kernels import SearchKernels
from mcts_envs.core.seeding import make_rng

_INT64 = np.dtype(np.int64)


@dataclass(frozen=True)
class GameInfo:
    """Static facts about a game.

    Attributes:
        name: registry name, e.g. ``"tictactoe"``.
        num_actions: size of the flat ``Discrete`` action space.
        max_game_length: upper bound on the number of player decisions in one game.
        has_chance: whether chance nodes occur.
        observation_shape: shape of ``observation(state, player)``.
        state_size: length of the state array.
        max_legal_actions: upper bound on ``len(legal_actions(state))``; kernel buffers use it.
        max_chance_outcomes: upper bound on the number of outcomes at a chance node (0 if none).
        num_players: always 2 here.
        observation_dtype: dtype of the observation planes.
        observation_high: upper bound of the observation values (lower bound is 0).
    """

    name: str
    num_actions: int
    max_game_length: int
    has_chance: bool
    observation_shape: tuple[int, ...]
    state_size: int
    max_legal_actions: int
    max_chance_outcomes: int = 0
    num_players: int = 2
    observation_dtype: type = np.int8
    observation_high: int = 1


class GameKernels(NamedTuple):
    """The compiled rules of one game (numba dispatchers with these signatures).

    ``state`` is the game's ``int64[state_size]`` array; kernels named ``*_inplace`` or
    ``apply_action`` mutate it, the others only read it.

    Attributes:
        current_player: ``(state) -> int``: 0, 1, ``CHANCE`` or ``TERMINAL``.
        legal_actions: ``(state, out: int64[max_legal_actions]) -> int``: writes the legal actions
            (or, at a chance node, the possible outcomes) in increasing order, returns the count.
        apply_action: ``(state, action) -> None``: plays a legal action (or chance outcome) in place.
        chance_outcomes: ``(state, outcomes: int64[], probabilities: float64[]) -> int``: at a
            chance node, writes outcomes and their probabilities (summing to 1), returns the count.
        returns: ``(state, out: float64[2]) -> None``: +1 win, -1 loss, 0 draw, at terminal states.
        score: ``(state, out: float64[2]) -> None``: graded result in [0, 1] per player.
        heuristic: ``(state, player) -> float``: static evaluation in [0, 1] from ``player``'s view
            (1 is best), used by minimax2 and alpha-beta at the depth limit.
        random_playout: ``(state, rng: uint64[1]) -> None``: plays uniformly random legal actions
            (chance outcomes by their probabilities) in place until the state is terminal.
        hash_state: ``(state) -> int64``: a non-negative 64-bit hash, equal for equal states
            (transposition tables; see :mod:`mcts_envs.core.hashing`). Games that do not define
            one get :func:`~mcts_envs.core.hashing.hash_words` (every word of the state).
    """

    current_player: Callable[..., Any]
    legal_actions: Callable[..., Any]
    apply_action: Callable[..., Any]
    chance_outcomes: Callable[..., Any]
    returns: Callable[..., Any]
    score: Callable[..., Any]
    heuristic: Callable[..., Any]
    random_playout: Callable[..., Any]
    hash_state: Callable[..., Any] = hash_words

    @classmethod
    def from_module(cls, module: Any) -> GameKernels:
        """The kernels a game's ``kernels`` module defines under the field names above
        (``hash_state`` defaults to :func:`~mcts_envs.core.hashing.hash_words`)."""
        return cls(
            *(getattr(module, field) for field in cls._fields[:-1]),
            getattr(module, "hash_state", hash_words),
        )


class VectorKernels(NamedTuple):
    """Compiled kernels of one game for the batched API (:class:`mcts_envs.vector.VectorGame`).

    A game declares them (``vector_kernels`` on its class, usually
    ``VectorKernels.from_module(kernels_module)``); ``observation_planes`` is needed for a
    ``VectorGame``, the others are optional fast paths (``None``: the vector uses the generic
    path built on :class:`GameKernels`). A game defined outside this package gets its fast paths
    by declaring them the same way.

    Attributes:
        observation_planes: ``(state, player, out) -> None``: writes the observation planes.
        observation_writes_every_entry: whether ``observation_planes`` writes every entry of
            ``out`` (else the vector clears the row first).
        observation_update: ``(state, player, out) -> None``: updates the previous decision's
            planes within a game (cheaper than writing them anew), or ``None``.
        legal_mask: ``(state, mask_row) -> None``: writes the whole mask row (True exactly at the
            legal actions), or ``None``.
        random_action: ``(state, rng) -> int``: a uniformly random legal action drawn with the
            kernel generator ``rng`` (a ``uint64[1]`` view), or ``None``.
        apply_and_list: ``(state, action, legal, scratch) -> int``: applies ``action`` and, at a
            player decision, lists its legal actions into ``legal`` and returns their count
            (else -1), or ``None``.
        apply_and_list_scratch: words of working memory ``apply_and_list`` needs.
        random_outcome: ``(state, rng) -> int``: a chance outcome drawn with the probabilities
            ``chance_outcomes`` gives, or ``None``.
    """

    observation_planes: Callable[..., Any] | None = None
    observation_writes_every_entry: bool = False
    observation_update: Callable[..., Any] | None = None
    legal_mask: Callable[..., Any] | None = None
    random_action: Callable[..., Any] | None = None
    apply_and_list: Callable[..., Any] | None = None
    apply_and_list_scratch: int = 1
    random_outcome: Callable[..., Any] | None = None

    @classmethod
    def from_module(cls, module: Any) -> VectorKernels:
        """The kernels ``module`` defines under the field names above (and the constants
        ``OBSERVATION_WRITES_EVERY_ENTRY`` and ``APPLY_AND_LIST_SCRATCH``).

        Raises:
            ValueError: if the module defines ``apply_and_list`` without
                ``APPLY_AND_LIST_SCRATCH``.
        """
        apply_and_list = getattr(module, "apply_and_list", None)
        if apply_and_list is not None and not hasattr(module, "APPLY_AND_LIST_SCRATCH"):
            raise ValueError(
                f"{module.__name__} defines apply_and_list but not APPLY_AND_LIST_SCRATCH (the "
                "words of its scratch argument)"
            )
        return cls(
            getattr(module, "observation_planes", None),
            bool(getattr(module, "OBSERVATION_WRITES_EVERY_ENTRY", False)),
            getattr(module, "observation_update", None),
            getattr(module, "legal_mask", None),
            getattr(module, "random_action", None),
            apply_and_list,
            int(getattr(module, "APPLY_AND_LIST_SCRATCH", 1)),
            getattr(module, "random_outcome", None),
        )


@runtime_checkable
class Game(Protocol):
    """The forward model of a two-player game (laws checked by ``tests/core/test_game_laws.py``).

    Laws: ``current_player(s) in (0, 1)`` iff ``legal_actions(s)`` is non-empty;
    ``action_mask(s).nonzero()[0] == legal_actions(s)``; ``apply`` never mutates ``s``;
    at a terminal state ``returns(s).sum() == 0``; ``from_text(to_text(s))`` equals ``s``.
    """

    info: GameInfo
    kernels: GameKernels
    vector_kernels: VectorKernels = VectorKernels()
    search_kernels: SearchKernels = SearchKernels()
    svg_module: str | None = None
    json_module: str | None = None
    symmetry_module: str | None = None

    def initial_state(self) -> np.ndarray:
        """The state before the first decision (may be a chance node)."""
        ...

    def current_player(self, state: np.ndarray) -> int:
        """0 or 1 for the player to act, or ``CHANCE`` / ``TERMINAL``."""
        ...

    def legal_actions(self, state: np.ndarray) -> np.ndarray:
        """Legal actions (int64, increasing); empty at terminal and chance nodes."""
        ...

    def action_mask(self, state: np.ndarray) -> np.ndarray:
        """``int8[num_actions]`` with 1 exactly at the legal actions."""
        ...

    def apply(self, state: np.ndarray, action: int) -> np.ndarray:
        """A new state after ``action`` (or chance outcome); ``state`` is left unchanged."""
        ...

    def chance_outcomes(self, state: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(outcomes, probabilities)`` at a chance node; probabilities sum to 1."""
        ...

    def returns(self, state: np.ndarray) -> np.ndarray:
        """``float64[2]``: +1 win, -1 loss, 0 draw (zeros before the end); zero-sum."""
        ...

    def score(self, state: np.ndarray) -> np.ndarray:
        """``float64[2]`` graded result in [0, 1], ``score[p]`` from player p's view."""
        ...

    def observation(self, state: np.ndarray, player: int) -> np.ndarray:
        """Observation planes from ``player``'s perspective (own pieces first)."""
        ...

    def clone(self, state: np.ndarray) -> np.ndarray:
        """An independent copy of ``state``."""
        ...

    def key(self, state: np.ndarray) -> bytes:
        """A hashable key, equal for equal states."""
        ...

    def to_text(self, state: np.ndarray) -> str:
        """A human-readable record of ``state`` that :meth:`from_text` reads back."""
        ...

    def from_text(self, text: str) -> np.ndarray:
        """Parse :meth:`to_text` output; raises ``InvalidRecordError`` on malformed text."""
        ...

    def check_state(self, state: object) -> np.ndarray:
        """Return ``state`` if it is a state array the kernels can run on, else raise
        ``StateTypeError`` (wrong type) or ``InvalidStateError`` (words out of range)."""
        ...

    def is_terminal(self, state: np.ndarray) -> bool:
        """Whether the game is over."""
        ...

    def apply_unchecked(self, state: np.ndarray, action: int) -> np.ndarray:
        """Like :meth:`apply` without the legality check (for callers that checked already)."""
        ...

    def heuristic(self, state: np.ndarray, player: int) -> float:
        """Static evaluation in [0, 1] from ``player``'s view (see :class:`GameKernels`)."""
        ...

    def hash(self, state: np.ndarray) -> int:
        """The state's 64-bit hash (:attr:`GameKernels.hash_state`), equal for equal states."""
        ...

    def action_to_string(self, state: np.ndarray, action: int) -> str:
        """A human-readable name of ``action`` in ``state``."""
        ...

    def step_info(self, state: np.ndarray) -> dict[str, Any] | None:
        """Extra facts for the env's ``infos`` after each step, or ``None`` for none."""
        ...

    def moves_played(self, state: np.ndarray) -> int | None:
        """The decisions of both players made before ``state`` (chance outcomes not counted),
        read off the position's own counters, or ``None`` if the position does not tell."""
        ...


def sample_chance_outcome(game: Game, state: np.ndarray, generator: np.random.Generator) -> int:
    """One outcome of the chance node ``state``, drawn with ``generator`` by the game's
    probabilities (``generator.choice`` over the outcome indices: one draw per node, so the same
    generator state gives the same outcome in the env, the arena and every tool)."""
    outcomes, probabilities = game.chance_outcomes(state)
    return int(outcomes[generator.choice(len(outcomes), p=probabilities)])


def check_action_type(action: object) -> int:
    """Return ``action`` as a Python int or raise :class:`ActionTypeError`."""
    if type(action) is int:  # the common case, checked first for speed
        return action
    if isinstance(action, np.integer):
        return int(action)
    if isinstance(action, bool) or not isinstance(action, numbers.Integral):
        if isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu":
            return int(action)
        raise ActionTypeError(
            f"an action must be an integer (int or NumPy integer), got {action!r} "
            f"of type {type(action).__name__}"
        )
    return int(action)


def describe_actions(actions: np.ndarray, limit: int = 20) -> str:
    """A short human-readable list of actions for error messages."""
    shown = ", ".join(str(int(a)) for a in actions[:limit])
    more = f", ... ({len(actions)} in all)" if len(actions) > limit else ""
    return f"[{shown}{more}]"


class KernelGame(Game):
    """Implements the :class:`Game` protocol on top of a game's :class:`GameKernels`.

    Subclasses set ``info`` and ``kernels`` and implement ``initial_state``, ``observation``,
    ``to_text`` and ``from_text``. They may declare ``vector_kernels`` (the batched API's
    compiled paths, :class:`VectorKernels`) and ``svg_module`` (the dotted name of the module
    that draws the board as SVG, imported when a picture is asked for; see :mod:`mcts_envs.svg`)
    and ``json_module`` (the dotted name of the module that converts states to and from JSON; see
    :mod:`mcts_envs.core.json_state`), ``symmetry_module`` (the dotted name of the module
    whose ``SYMMETRIES`` maps the board's symmetries; see :mod:`mcts_envs.core.symmetry`) and
    ``search_kernels`` (alpha-beta's game knowledge beyond the rules,
    :class:`~mcts_envs.core.search_kernels.SearchKernels`): what a game provides beyond the rules
    is declared here, never found by module name. They may override ``action_to_string`` (with
    ``notation`` and, for abbreviations,
    ``normalise_move_text``), ``step_info`` and ``moves_played``.
    """

    info: GameInfo
    kernels: GameKernels

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # Cached generic code (searches, the batched API) then loads in every process. Pinned
        # here, before anything compiles or pickles them: a dispatcher pickled first (numba
        # pickles the globals a cached function calls) keeps a random identity.
        for dispatcher in (*getattr(cls, "kernels", ()), *getattr(cls, "vector_kernels", ())):
            pin_identity(dispatcher)  # (the vector kernels' other fields are left alone)
        for dispatcher in getattr(cls, "search_kernels", SearchKernels()).dispatchers():
            pin_identity(dispatcher)

    # -- state checks -------------------------------------------------------------------------
    #: The game's compiled range check ``(state) -> int``, set with ``staticmethod``: 0 when every
    #: kernel can run on ``state`` without reading or writing outside its tables or looping
    #: forever, else an index into :attr:`state_problems`. Cheap (O(words)), so every public
    #: method runs it; ``None`` for a game whose kernels cannot be led astray by any word.
    state_problem: Callable[[np.ndarray], int] | None = None
    #: What each code of :attr:`state_problem` means (entry 0, no problem, unused).
    state_problems: tuple[str, ...] = ("",)

    def check_state(self, state: object) -> np.ndarray:
        """Return ``state`` if it is a state array the kernels can run on, else raise.

        Every public method taking a state calls this first (compiled search and the vector
        games call the kernels directly and do not pay for it). It checks the type and shape,
        then the words' ranges and the few relations the kernels index by (the game's
        :attr:`state_problem`); it is not :meth:`validate_state`, which also checks that the
        position can occur (a state it accepts may have no record, but never crashes).

        Raises:
            StateTypeError: (a ``TypeError``) if ``state`` is not an int64 array of the game's
                state shape.
            InvalidStateError: (a ``ValueError``) if a word is out of range.
        """
        self._check_state_type(state)
        kernel = self.state_problem
        if kernel is not None:
            problem = kernel(state)
            if problem:
                raise InvalidStateError(
                    f"{self.info.name}: not a state of this game: {self.state_problems[problem]} "
                    "(states come from initial_state(), apply() and from_text())"
                )
        return state

    def _check_state_type(self, state: object) -> None:
        """:meth:`check_state`'s type and shape part (enough for pure-Python views of the
        words, which cannot crash on any values).

        Raises:
            StateTypeError: if ``state`` is not an int64 array of the game's state shape.
        """
        wrong_type = (  # the common case is decided by identity (this runs on every call)
            type(state) is not np.ndarray or state.dtype is not _INT64
        ) and not (isinstance(state, np.ndarray) and state.dtype == np.int64)
        if wrong_type or state.shape != (self.info.state_size,):
            raise StateTypeError(
                f"a {self.info.name} state is an int64 array of shape ({self.info.state_size},), "
                f"got {type(state).__name__}"
                + (f" {state.dtype}{state.shape}" if isinstance(state, np.ndarray) else "")
            )

    def check_player(self, player: object) -> int:
        """Return ``player`` as an int if it is 0 or 1 (kernels index with it), else raise.

        Raises:
            InvalidOptionError: for anything but 0 and 1 (ints or NumPy integers).
        """
        integral = isinstance(player, (int, np.integer)) and not isinstance(player, bool)
        if integral and int(player) in (0, 1):
            return int(player)
        raise InvalidOptionError(f"{self.info.name}: a player is 0 or 1, got {player!r}"[:200])

    # -- protocol -----------------------------------------------------------------------------
    def initial_state(self) -> np.ndarray:
        raise NotImplementedError

    def current_player(self, state: np.ndarray) -> int:
        return int(self.kernels.current_player(self.check_state(state)))

    def is_terminal(self, state: np.ndarray) -> bool:
        """Whether the game is over."""
        return self.current_player(state) == TERMINAL

    def _raw_legal(self, state: np.ndarray) -> np.ndarray:
        buffer = np.empty(max(self.info.max_legal_actions, self.info.max_chance_outcomes), np.int64)
        count = self.kernels.legal_actions(state, buffer)
        return buffer[:count]

    def legal_actions(self, state: np.ndarray) -> np.ndarray:
        self.check_state(state)
        if self.kernels.current_player(state) < 0:
            return np.empty(0, np.int64)
        return self._raw_legal(state).copy()

    def action_mask(self, state: np.ndarray) -> np.ndarray:
        mask = np.zeros(self.info.num_actions, np.int8)
        mask[self.legal_actions(state)] = 1
        return mask

    def apply(self, state: np.ndarray, action: int) -> np.ndarray:
        """A new state after ``action``; at a chance node ``action`` is a chance outcome.

        Raises:
            ActionTypeError: if ``action`` is not an integer.
            IllegalActionError: if ``action`` is not legal here (the message lists what is).
        """
        self.check_state(state)
        action = check_action_type(action)
        player = int(self.kernels.current_player(state))
        if player == TERMINAL:
            raise IllegalActionError(
                f"{self.info.name}: the game is over, no action is allowed (got {action})"
            )
        if player == CHANCE:
            allowed = self.chance_outcomes(state)[0]
            what = "chance outcome"
        else:
            allowed = self._raw_legal(state)
            what = f"action for player {player}"
        if action not in allowed:
            if player != CHANCE and not 0 <= action < self.info.num_actions:
                problem = (
                    f"action {action} is outside the action space 0..{self.info.num_actions - 1}"
                )
            else:
                problem = f"{action} is not a legal {what}"
            raise IllegalActionError(
                f"{self.info.name}: {problem}; legal here: {describe_actions(allowed)}"
            )
        child = state.copy()
        self.kernels.apply_action(child, action)
        return child

    def apply_unchecked(self, state: np.ndarray, action: int) -> np.ndarray:
        """Like :meth:`apply` without the legality check (for callers that checked already):
        ``action`` must be legal in ``state`` (the state itself is checked)."""
        child = self.check_state(state).copy()
        self.kernels.apply_action(child, action)
        return child

    def chance_outcomes(self, state: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        self.check_state(state)
        if self.kernels.current_player(state) != CHANCE:
            return np.empty(0, np.int64), np.empty(0, np.float64)
        size = max(self.info.max_chance_outcomes, 1)
        outcomes = np.empty(size, np.int64)
        probabilities = np.empty(size, np.float64)
        count = self.kernels.chance_outcomes(state, outcomes, probabilities)
        return outcomes[:count].copy(), probabilities[:count].copy()

    def returns(self, state: np.ndarray) -> np.ndarray:
        out = np.zeros(2, np.float64)
        if self.current_player(state) == TERMINAL:
            self.kernels.returns(state, out)
        return out

    def score(self, state: np.ndarray) -> np.ndarray:
        out = np.zeros(2, np.float64)
        self.kernels.score(self.check_state(state), out)
        return out

    def heuristic(self, state: np.ndarray, player: int) -> float:
        """Static evaluation in [0, 1] from ``player``'s view (see :class:`GameKernels`)."""
        return float(self.kernels.heuristic(self.check_state(state), self.check_player(player)))

    def observation(self, state: np.ndarray, player: int) -> np.ndarray:
        raise NotImplementedError

    def clone(self, state: np.ndarray) -> np.ndarray:
        return self.check_state(state).copy()

    def key(self, state: np.ndarray) -> bytes:
        return self.check_state(state).tobytes()

    def hash(self, state: np.ndarray) -> int:
        """The state's 64-bit hash (the game's ``hash_state`` kernel), equal for equal states."""
        return int(self.kernels.hash_state(np.ascontiguousarray(self.check_state(state))))

    def to_text(self, state: np.ndarray) -> str:
        raise NotImplementedError

    def from_text(self, text: str) -> np.ndarray:
        raise NotImplementedError

    def validate_state(self, state: object) -> np.ndarray:
        """Return ``state`` if it is a position of this game the kernels can play, else raise.

        ``from_text`` is the one place that checks a game's invariants (what the compiled
        kernels assume: counts, hands, statuses, ...); a state array is valid when it is exactly
        the state its own record describes, ``from_text(to_text(state))``. Use this before
        handing an array from outside (a file, a user, a pickle) to the kernels.

        Raises:
            StateTypeError: (a ``TypeError``) if ``state`` is not an int64 array of the game's
                state shape.
            InvalidStateError: (an ``InvalidRecordError``) if ``state`` breaks an invariant of
                the game.
        """
        self.check_state(state)
        try:
            text = self.to_text(state)
        except (IndexError, ValueError, KeyError, OverflowError, TypeError) as error:
            raise InvalidStateError(
                f"{self.info.name}: not a valid state (it has no record: {error})"
            ) from None
        canonical = self.from_text(text)
        if not np.array_equal(canonical, state):
            words = np.flatnonzero(canonical != state)
            raise InvalidStateError(
                f"{self.info.name}: not a valid state: words {describe_actions(words)} differ "
                f"from the position its record {text[:RECORD_QUOTE_LIMIT]!r} describes"
            )
        return state

    def moves_played(self, state: np.ndarray) -> int | None:
        """The decisions of both players made before ``state`` (chance outcomes not counted),
        counted from the game's start and read off the position itself (right after a
        position set up mid-game), or ``None`` if the position does not tell; a game whose
        state counts its decisions overrides this (here: ``None`` for every valid state).

        Raises:
            StateTypeError: if ``state`` is not a state array of the game.
            InvalidStateError: if a word is out of range.
        """
        self.check_state(state)
        return None

    # -- JSON view (mcts_envs.core.json_state; per game in games/<game>/json_state.py) ---------
    def to_json(self, state: np.ndarray) -> dict[str, Any]:
        """``state`` as a JSON object (see :func:`mcts_envs.core.json_state.state_to_json`)."""
        return json_state.state_to_json(self, state)

    def from_json(self, obj: object) -> np.ndarray:
        """The state of a JSON object; raises ``InvalidRecordError`` naming the bad field (see
        :func:`mcts_envs.core.json_state.state_from_json`)."""
        return json_state.state_from_json(self, obj)

    def json_schema(self) -> dict[str, Any]:
        """The JSON Schema of :meth:`to_json`'s objects (:func:`~mcts_envs.core.json_state.json_schema`)."""
        return json_state.json_schema(self)

    # -- extras -------------------------------------------------------------------------------
    def random_playout(self, state: np.ndarray, seed: int) -> np.ndarray:
        """A terminal state reached from ``state`` by the compiled random playout (seeded)."""
        final = self.check_state(state).copy()
        self.kernels.random_playout(final, make_rng(seed))
        return final

    #: How moves are written, in one line (shown by ``mcts-envs play``; see the game card).
    notation = "a move is its action number"

    def action_to_string(self, state: np.ndarray, action: int) -> str:
        """A human-readable name of ``action`` in ``state`` (default: the integer)."""
        return str(int(action))

    def normalise_move_text(self, text: str) -> str:
        """``text`` in the canonical spelling of :meth:`action_to_string`, for comparison.

        The default lowercases and collapses runs of spaces; games with several accepted
        spellings of a move (abbreviations) override it.
        """
        return " ".join(text.lower().split())

    def string_to_action(self, state: np.ndarray, text: str) -> int:
        """The legal action of the player to move whose name (:meth:`action_to_string`) is
        ``text``; case and spacing are ignored, and the game's abbreviations accepted.

        Raises:
            ActionTypeError: if ``text`` is not a str.
            IllegalActionError: if no legal action here has that name (the message says how moves
                are written and lists legal moves), or no player is to move.
        """
        self.check_state(state)
        if not isinstance(text, str):
            raise ActionTypeError(f"a move is a str, got {type(text).__name__}")
        legal = self.legal_actions(state)
        wanted = self.normalise_move_text(text)
        names = []
        for action in legal:
            name = self.action_to_string(state, int(action))
            if self.normalise_move_text(name) == wanted:
                return int(action)
            names.append(name)
        shown = repr(text[:40] + ("..." if len(text) > 40 else ""))
        if not len(legal):
            raise IllegalActionError(f"{self.info.name}: no player is to move here (got {shown})")
        listed = ", ".join(names[:20]) + (f", ... ({len(names)} in all)" if len(names) > 20 else "")
        raise IllegalActionError(
            f"{self.info.name}: {shown} is not a legal move here ({self.notation}); "
            f"legal here: {listed}"
        )

    def step_info(self, state: np.ndarray) -> dict[str, Any] | None:
        """Extra facts for the env's ``infos`` after each step, or ``None`` for none."""
        return None

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


#: Longest prefix of a whole record quoted in a parse error (the problem quotes its own piece).
RECORD_QUOTE_LIMIT = 300


#: What :func:`two_boards_problem` codes mean (0: none), for the games whose state starts with
#: two bitboards, the player to move and a status (0 ongoing, 1, 2 won, 3 draw).
TWO_BOARDS_PROBLEMS = (
    "",
    "a bitboard (words 0 and 1) has bits outside the board",
    "a cell holds stones of both players (words 0 and 1 overlap)",
    "the player to move (word 2) is not 0 or 1",
    "the status is not 0 (ongoing), 1, 2 (won) or 3 (draw)",
    "the game goes on on a full board",
)


@njit(cache=True)
def two_boards_problem(first, second, full, side, status):
    """The range check shared by the bitboard games (see :attr:`KernelGame.state_problem`):
    0 if the boards ``first`` and ``second`` lie within ``full`` and do not overlap, ``side``
    is 0 or 1, ``status`` 0..3, and an ongoing game has an empty cell; else an index of
    :data:`TWO_BOARDS_PROBLEMS`."""
    if first < 0 or first & ~full or second < 0 or second & ~full:
        return 1
    if first & second:
        return 2
    if side != 0 and side != 1:
        return 3
    if status < 0 or status > 3:
        return 4
    if status == 0 and (first | second) == full:
        return 5
    return 0


def parse_error(game: str, text: object, problem: str, expected: str) -> InvalidRecordError:
    """Build an :class:`InvalidRecordError` that quotes the text and says what is expected.

    The text is quoted up to :data:`RECORD_QUOTE_LIMIT` characters, so a huge record gives a
    short message.
    """
    return InvalidRecordError(
        f"{game}: cannot parse {quote(text, RECORD_QUOTE_LIMIT)}: {problem}; expected {expected}"
    )
