"""The one generic PettingZoo AEC env that serves every game of the package.

Nothing here knows a rule: the env asks the :class:`~mcts_envs.core.game.Game` for the player to
move, the legal actions, the next state and the returns, and samples chance outcomes with its own
``np_random``. Each game's env module only adds its game card, metadata and renderer
(:func:`mcts_envs.envs.factory.define_env`).
"""

from __future__ import annotations

import copy
import functools
import inspect
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv

from mcts_envs.core.errors import (
    EnvUsageError,
    IllegalActionError,
    InvalidOptionError,
    MctsEnvsError,
    ResetRequiredError,
)
from mcts_envs.core.game import (
    CHANCE,
    TERMINAL,
    check_action_type,
    describe_actions,
    sample_chance_outcome,
)
from mcts_envs.core.seeding import check_seed
from mcts_envs.envs.rendering import available_render_modes
from mcts_envs.vector import observation_kernel

AGENTS = ("player_0", "player_1")
#: Every render mode the envs know; ``metadata["render_modes"]`` lists those that can render here
#: (:func:`~mcts_envs.envs.rendering.available_render_modes`).
RENDER_MODES = ("ansi", "rgb_array", "human")


def _check_game_options(definition: _EnvDefinition, options: dict[str, Any]) -> dict[str, Any]:
    """``options`` if the game's factory takes every one of them.

    Raises:
        InvalidOptionError: naming the unknown options and the allowed ones.
    """
    if not options:
        return options
    allowed = _factory_options(definition.game_factory)
    if allowed is None:
        return options
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        env_options = "render_mode, max_cycles, max_moves, random_first_player"
        game_options = ", ".join(allowed) if allowed else "none"
        raise InvalidOptionError(
            f"{definition.env_name}: unknown option(s) {', '.join(map(repr, unknown))}; "
            f"env options: {env_options}; game options: {game_options}"
        )
    return options


@functools.cache
def _factory_options(factory: Any) -> tuple[str, ...] | None:
    """The keyword options ``factory`` takes, or None when it takes any (``**kwargs``)."""
    parameters = inspect.signature(factory).parameters
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()):
        return None
    return tuple(name for name, p in parameters.items() if p.kind is not p.VAR_POSITIONAL)


class _Spaces(NamedTuple):
    """One game's spaces (built once per kind of game: Gymnasium's ``Box`` is slow to build)."""

    action: spaces.Discrete
    observation: spaces.Dict
    state: spaces.Box


@functools.cache
def _space_prototypes(num_actions: int, shape: tuple[int, ...], high: int, dtype: Any) -> _Spaces:
    observation = spaces.Dict(
        {
            "observation": spaces.Box(low=0, high=high, shape=shape, dtype=dtype),
            "action_mask": spaces.Box(low=0, high=1, shape=(num_actions,), dtype=np.int8),
        }
    )
    state = spaces.Box(low=0, high=max(1, high), shape=(*shape[:-1], shape[-1] + 1), dtype=dtype)
    return _Spaces(spaces.Discrete(num_actions), observation, state)


def _new_spaces(info: Any) -> _Spaces:
    """Spaces of their own for one env (shallow copies of the prototypes: each samples with its
    own generator, seeded by ``space.seed``; the bounds arrays are shared, never written)."""
    proto = _space_prototypes(
        info.num_actions,
        tuple(info.observation_shape),
        info.observation_high,
        np.dtype(info.observation_dtype),
    )
    observation = copy.copy(proto.observation)
    observation.spaces = {key: copy.copy(space) for key, space in proto.observation.spaces.items()}
    return _Spaces(copy.copy(proto.action), observation, copy.copy(proto.state))


@dataclass(frozen=True)
class _EnvDefinition:
    """What a game's env module supplies to the generic env (private: not Gymnasium's EnvSpec).

    Attributes:
        env_name: e.g. ``"tictactoe_v0"`` (PettingZoo's ``metadata["name"]``).
        game_factory: ``(**game_kwargs) -> Game``.
        renderer_factory: ``(game) -> renderer`` with ``game`` and ``text(state)``; pictures
            come from the game's SVG board (see :mod:`mcts_envs.envs.rendering`).
        render_fps: frames per second of the ``human`` mode.
    """

    env_name: str
    game_factory: Any
    renderer_factory: Any
    render_fps: int = 2


@dataclass(frozen=True)
class EnvSnapshot:
    """A game in progress with its chance generator, from :meth:`GameEnv.snapshot` (a value:
    restoring it any number of times gives the same game; pickles with the env's game).

    Attributes:
        env_name: the env it came from (``"tantrix_v0"``); :meth:`GameEnv.restore` checks it.
        game_state: the forward-model state.
        rng_state: ``np_random.bit_generator.state`` (a dict, copied).
        episode: the rest of the episode, copied: the agents and their rewards, flags and infos,
            ``agent_selection``, the history and counts behind ``record()``, ``first_player``.
    """

    env_name: str
    game_state: np.ndarray
    rng_state: dict[str, Any]
    episode: dict[str, Any]


#: The env's per-episode attributes a snapshot carries besides the state and the generator.
_EPISODE_FIELDS = (
    "agents",
    "rewards",
    "_cumulative_rewards",
    "terminations",
    "truncations",
    "infos",
    "_infos_filled",
    "agent_selection",
    "_player",
    "history",
    "_chance_indices",
    "num_moves",
    "agent_moves",
    "chance_outcomes",
    "first_player",
    "_initial_state",
    "np_random_seed",
)


class GameEnv(AECEnv):
    """PettingZoo AEC env over any :class:`~mcts_envs.core.game.Game`.

    * agents ``player_0`` and ``player_1``; ``agent_selection`` is always the player to act
      (the same agent may act several times in a row when the game says so);
    * observation ``{"observation": planes (mover's view), "action_mask": int8[num_actions]}``;
      the mask is all zeros for an agent that is not on move;
    * rewards only at the end: +1 / -1 / 0 from ``game.returns``; truncation only with
      ``max_cycles`` (PettingZoo's meaning: a cycle is one step of every agent, so each agent makes
      at most ``max_cycles`` moves) or ``max_moves`` (moves of both agents together);
    * ``num_moves`` counts the moves of the game so far and ``agent_moves[p]`` those of
      ``player_p`` (since the last ``reset`` or :meth:`set_game_state`);
    * ``env.game`` is the Game, ``env.game_state`` the current forward-model state (a value: each step
      makes a new array, so references held by agents stay valid); :meth:`set_game_state` is the
      one way to put the env in another position;
    * ``state()`` is PettingZoo's global view (``state_space``): ``observation(s, 0)`` from
      ``player_0``'s fixed seat plus one last channel equal to 1 while ``player_1`` is on move
      (all public information: Tantrix's observation already holds both hands and the bag);
    * chance outcomes are sampled with ``np_random``, re-created by ``reset(seed)``; those of the
      last step (or reset) are :attr:`chance_outcomes`; :meth:`snapshot` saves the game with
      ``np_random``'s state and :meth:`restore` puts both back, so a restored game draws the same
      tiles again;
    * ``infos`` hold the same keys at every step, each value a number or a fixed-length list of
      numbers (what TorchRL's and Gymnasium's vector wrappers batch): the game's
      ``step_info``, or nothing for a game without extras;
    * ``random_first_player=True``: at each reset a fair coin from ``np_random`` decides which
      agent holds the game's seat 0 (X, white, the first colour; it moves first but in Tantrix,
      where the highest tile decides); :attr:`first_player` is that agent's index. Observations,
      masks, rewards and ``agent_selection`` follow the agents; the game's state, ``state()``'s
      planes aside, and per-player entries of ``infos`` (Ataxx ``stones``, Tantrix ``scores``)
      stay in the game's seat order (seat ``s`` is agent ``s ^ first_player``);
    * an illegal action raises :class:`~mcts_envs.core.errors.IllegalActionError` and changes
      nothing (``env()`` wraps this class to end the game with a penalty instead, as PettingZoo does).

    Args:
        definition: the game's :class:`_EnvDefinition`.
        render_mode: ``None``, ``"ansi"``, ``"rgb_array"`` or ``"human"``.
        max_cycles: PettingZoo's cycle limit: each agent makes at most this many moves; the game
            is truncated as soon as the agent to move has made ``max_cycles`` moves (after
            ``2 * max_cycles`` moves when the agents alternate; Tantrix's consecutive moves by one
            agent count as that agent's). ``None``: no limit.
        max_moves: truncate the game after this many moves of both agents together (``None``: no
            limit). With both limits, the first one reached truncates.
        random_first_player: draw which agent holds the game's seat 0 at each reset (default
            ``False``: ``player_0`` always does).
        **game_kwargs: options of the game (see its game card).

    ``metadata["render_modes"]`` lists ``ansi`` and, when pygame (the ``render`` extra) is
    installed, ``rgb_array`` and ``human``. A picture mode is accepted without pygame (PettingZoo's
    ``render_test`` builds a ``human`` env to read the modes) and its first ``render()`` raises
    :class:`~mcts_envs.core.errors.OptionalDependencyError` naming the extra.

    Raises:
        InvalidOptionError: for an unknown game option (the message names the allowed ones), a bad
            ``render_mode``, ``max_cycles``, ``max_moves`` or ``random_first_player``.
    """

    def __init__(
        self,
        definition: _EnvDefinition,
        render_mode: str | None = None,
        max_cycles: int | None = None,
        max_moves: int | None = None,
        random_first_player: bool = False,
        **game_kwargs: Any,
    ):
        super().__init__()
        self._definition = definition
        self.game = definition.game_factory(**_check_game_options(definition, game_kwargs))
        self.metadata = {
            "name": definition.env_name,
            "render_modes": available_render_modes(RENDER_MODES),
            "is_parallelizable": False,
            "render_fps": definition.render_fps,
        }
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise InvalidOptionError(
                f"render_mode {render_mode!r} is not supported; "
                f"allowed: None, {', '.join(map(repr, RENDER_MODES))} (picture modes need pygame, "
                "the render extra)"
            )
        if not isinstance(random_first_player, (bool, np.bool_)):
            raise InvalidOptionError(
                f"random_first_player must be True or False, got {random_first_player!r}"
            )
        self.random_first_player = bool(random_first_player)
        for option, limit in (("max_cycles", max_cycles), ("max_moves", max_moves)):
            if limit is not None and (
                isinstance(limit, bool) or not isinstance(limit, (int, np.integer)) or limit < 1
            ):
                raise InvalidOptionError(
                    f"{option} must be None or a positive int, got {limit!r} (max_cycles: moves "
                    "of each agent, PettingZoo's cycles; max_moves: moves of both agents together)"
                )
        self.render_mode = render_mode
        self.max_cycles = None if max_cycles is None else int(max_cycles)
        self.max_moves = None if max_moves is None else int(max_moves)
        self.possible_agents = list(AGENTS)
        info = self.game.info
        own = _new_spaces(info)
        self.state_space = own.state
        self.action_spaces = dict.fromkeys(self.possible_agents, own.action)
        self.observation_spaces = dict.fromkeys(self.possible_agents, own.observation)
        self._zero_mask = np.zeros(info.num_actions, np.int8)
        self._legal_buffer = np.empty(info.max_legal_actions, np.int64)
        observation = observation_kernel(self.game)
        self._observation_planes = observation.kernel
        self._new_planes = np.empty if observation.writes_every_entry else np.zeros
        self._renderer = None
        self._np_random: np.random.Generator | None = None
        self._seed_to_use: int | None = None  # the generator is built from it on first use
        self.np_random_seed: int | None = None
        self.game_state: np.ndarray | None = None
        self.history: list[int] = []
        self.first_player = 0
        self.chance_outcomes: list[int] = []

    # -- the generator ----------------------------------------------------------------------
    @property
    def np_random(self) -> np.random.Generator:
        """The env's generator (chance outcomes, the random first player): Gymnasium's
        ``seeding.np_random`` of the last ``reset(seed)``, built on first use, so a game that
        never draws (Tic-Tac-Toe) does not pay for it at each reset."""
        if self._np_random is None:
            self._np_random, self.np_random_seed = seeding.np_random(self._seed_to_use)
        return self._np_random

    @np_random.setter
    def np_random(self, generator: np.random.Generator) -> None:
        self._np_random = generator

    # -- spaces -------------------------------------------------------------------------------
    def observation_space(self, agent: str) -> spaces.Space:
        """The observation space of ``agent`` (the same object on every call)."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        """The action space of ``agent`` (the same object on every call)."""
        return self.action_spaces[agent]

    def state(self) -> np.ndarray:
        """PettingZoo's global state: ``player_0``'s observation planes plus a side-to-move plane.

        The last channel is 1 everywhere while ``player_1`` is on move, else 0 (also at the end).

        Raises:
            EnvUsageError: before the first ``reset()``.
        """
        self._require_game("state()")
        planes = self._planes(self.first_player)  # player_0's seat
        side = np.full((*planes.shape[:-1], 1), 1 if self._player == 1 else 0, planes.dtype)
        return np.concatenate([planes, side], axis=-1)

    def _require_game(self, what: str) -> None:
        if self.game_state is None:
            raise ResetRequiredError(f"{self.metadata['name']}: call reset() before {what}")

    def _require_agents(self) -> None:
        """Raise ``EnvUsageError`` once every agent has been stepped out of a finished game."""
        if not self.agents:
            raise EnvUsageError(
                f"{self.metadata['name']}: the game is over and every agent has left; "
                "call reset() to start a new game"
            )

    # -- episode ------------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start a new game; ``seed`` re-creates ``np_random`` (same seed, same game).

        Raises:
            InvalidSeedError: if ``seed`` is not ``None`` or a non-negative int.
        """
        seed = check_seed(seed)
        if seed is not None:  # the generator of this seed, built on first use
            self._np_random, self._seed_to_use, self.np_random_seed = None, seed, seed
        elif self._np_random is None and self._seed_to_use is None:
            self.np_random  # noqa: B018  (no seed yet: fresh entropy now, named by np_random_seed)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {agent: {} for agent in self.agents}
        self._infos_filled = False
        self.history = []
        self._chance_indices: list[int] = []
        self.num_moves = 0
        self.agent_moves = [0, 0]
        self.chance_outcomes = []
        self.first_player = int(self.np_random.integers(2)) if self.random_first_player else 0
        self._initial_state = self.game.initial_state()
        self._set_state(self._initial_state.copy())
        self._update_infos()
        if self.render_mode == "human":
            self.render()

    def set_game_state(self, state: np.ndarray) -> None:
        """Put the env in position ``state`` (a state of ``env.game``, e.g. from ``game.from_text``).

        Rewards, terminations and infos follow the new position; the history restarts from it
        (``record()`` then starts at this position). A chance node is sampled through with
        ``np_random``. The env must have been reset (for its generator and agents), and not
        played out to the point where every agent has left.

        The state is validated by ``game.validate_state`` (a round trip through the game's record
        reader), so no position the kernels cannot handle gets in. On any error nothing changes.

        Raises:
            ResetRequiredError: (an ``EnvUsageError``) before the first ``reset()``.
            EnvUsageError: once every agent has left a finished game (call ``reset()``).
            StateTypeError: (a ``TypeError``) if ``state`` is not an int64 state array of this
                game's shape.
            InvalidStateError: (an ``InvalidRecordError``) if ``state`` is not a valid position.
        """
        self._require_game("set_game_state()")
        self._require_agents()
        state = self.game.validate_state(state)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.history = []
        self._chance_indices = []
        self.num_moves = 0
        self.agent_moves = [0, 0]
        self.chance_outcomes = []
        self._initial_state = state.copy()
        self._set_state(state.copy())
        self._update_infos()

    def snapshot(self) -> EnvSnapshot:
        """The game so far with ``np_random``'s state (:class:`EnvSnapshot`), for :meth:`restore`.

        ``set_game_state`` puts the env at a position with the generator where it is, so a game
        with chance (Tantrix) draws other tiles after it; a restored snapshot draws the same ones,
        and the same actions replay the same game, rewards and infos.

        Raises:
            ResetRequiredError: (an ``EnvUsageError``) before the first ``reset()``.
        """
        self._require_game("snapshot()")
        episode = {name: copy.deepcopy(getattr(self, name, None)) for name in _EPISODE_FIELDS}
        return EnvSnapshot(
            self.metadata["name"],
            self.game_state.copy(),
            copy.deepcopy(self.np_random.bit_generator.state),
            episode,
        )

    def restore(self, snapshot: EnvSnapshot) -> None:
        """Put the env back where :meth:`snapshot` saved it: game, episode and ``np_random``.

        The snapshot's state is validated by ``game.validate_state`` first; on any error nothing
        changes. The snapshot itself is not changed (restore it again for another branch).

        Raises:
            ResetRequiredError: (an ``EnvUsageError``) before the first ``reset()``.
            TypeError: if ``snapshot`` is not an :class:`EnvSnapshot`.
            InvalidOptionError: for a snapshot of another env.
            InvalidStateError: (or ``StateTypeError``) for a state that is not a valid position.
        """
        self._require_game("restore()")
        if not isinstance(snapshot, EnvSnapshot):
            raise TypeError(
                f"restore() takes an EnvSnapshot from env.unwrapped.snapshot(), got "
                f"{type(snapshot).__name__}"
            )
        if snapshot.env_name != self.metadata["name"]:
            raise InvalidOptionError(
                f"{self.metadata['name']}: cannot restore a snapshot of {snapshot.env_name}"
            )
        state = self.game.validate_state(snapshot.game_state)
        generator = np.random.Generator(type(self.np_random.bit_generator)())
        try:
            generator.bit_generator.state = copy.deepcopy(snapshot.rng_state)
        except (TypeError, ValueError, KeyError) as error:
            raise InvalidOptionError(
                f"{self.metadata['name']}: the snapshot's generator state does not fit "
                f"{type(self.np_random.bit_generator).__name__}: {error}"
            ) from None
        for name, value in snapshot.episode.items():
            setattr(self, name, copy.deepcopy(value))
        self.game_state = state.copy()
        self.np_random = generator
        self._mask = None

    def _set_state(self, state: np.ndarray) -> None:
        """Adopt ``state``, first sampling through any chance nodes with ``np_random``."""
        game = self.game
        player = int(game.kernels.current_player(state))
        while player == CHANCE:
            outcome = sample_chance_outcome(game, state, self.np_random)
            state = game.apply_unchecked(state, outcome)
            self._chance_indices.append(len(self.history))
            self.history.append(outcome)
            self.chance_outcomes.append(outcome)
            player = int(game.kernels.current_player(state))
        self.game_state = state
        self._mask = None
        if player == TERMINAL:
            self._player = TERMINAL
            returns = game.returns(state)
            for index, agent in enumerate(self.agents):
                self.rewards[agent] = float(returns[index ^ self.first_player])
                self.terminations[agent] = True
        else:
            self._player = player ^ self.first_player  # the seat's agent
            self.agent_selection = self.agents[self._player]

    def _legal_mask(self) -> np.ndarray:
        if self._mask is None:
            count = self.game.kernels.legal_actions(self.game_state, self._legal_buffer)
            mask = np.zeros(self.game.info.num_actions, np.int8)
            mask[self._legal_buffer[:count]] = 1
            self._mask = mask
        return self._mask

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """``{"observation", "action_mask"}`` from ``agent``'s view (mask zero when not on move).

        Raises:
            EnvUsageError: before the first ``reset()``.
            KeyError: for a name that is not one of ``possible_agents``.
        """
        self._require_game("observe()")
        if agent not in AGENTS:
            raise KeyError(f"unknown agent {agent!r}; agents: {', '.join(AGENTS)}")
        index = 0 if agent == AGENTS[0] else 1
        on_move = self._player == index
        return {
            "observation": self._planes(index ^ self.first_player),
            "action_mask": self._legal_mask().copy() if on_move else self._zero_mask.copy(),
        }

    def _planes(self, seat: int) -> np.ndarray:
        """A new observation of the current state from ``seat``'s view (the compiled kernel on a
        state the env checked when it took it in)."""
        info = self.game.info
        planes = self._new_planes(info.observation_shape, info.observation_dtype)
        self._observation_planes(self.game_state, seat, planes)
        return planes

    def step(self, action: int | None) -> None:
        """Play ``action`` for ``agent_selection``.

        Raises:
            ActionTypeError: if ``action`` is not an integer.
            IllegalActionError: if ``action`` is out of range or not legal; the env is unchanged.
            EnvUsageError: before the first ``reset()``, or once every agent has been stepped
                out of a finished game (call ``reset()`` to start a new one).
        """
        self._require_game("step()")
        self._require_agents()
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        action = self._check_in_action_space(action)
        if not self._legal_mask()[action]:
            raise IllegalActionError(self._illegal_message(action))
        self._play(action)

    def last(self, observe: bool = True) -> tuple:
        """PettingZoo's ``last()``, with a clear error before ``reset()`` or after the game.

        Raises:
            EnvUsageError: before the first ``reset()``, or once every agent has left.
        """
        self._require_game("last()")
        self._require_agents()
        return super().last(observe)

    def _check_in_action_space(self, action: object) -> int:
        """``action`` as an int in the action space (legal or not).

        Raises:
            ActionTypeError: if ``action`` is not an integer.
            IllegalActionError: if ``action`` is outside the action space.
        """
        action = check_action_type(action)
        if not 0 <= action < self.game.info.num_actions:
            raise IllegalActionError(self._illegal_message(action))
        return action

    def _play(self, action: int) -> None:
        """Play the legal ``action`` of ``agent_selection`` (checked by the caller)."""
        agent = self.agent_selection
        self._cumulative_rewards[agent] = 0.0
        for other in self.agents:
            self.rewards[other] = 0.0
        self.history.append(action)
        self.num_moves += 1
        mover = self._player
        self.agent_moves[mover] += 1
        self.chance_outcomes = []
        child = self.game_state.copy()
        self.game.kernels.apply_action(child, action)
        self._set_state(child)
        if self._player == TERMINAL:
            # PettingZoo classic: after the end, the other agent is selected to see its reward.
            self.agent_selection = self.agents[1 - mover]
        elif self._limit_reached():
            self.truncations = dict.fromkeys(self.agents, True)
        self._update_infos()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _limit_reached(self) -> bool:
        """Whether ``max_moves`` moves were made, or the agent to move made ``max_cycles``."""
        if self.max_moves is not None and self.num_moves >= self.max_moves:
            return True
        return self.max_cycles is not None and self.agent_moves[self._player] >= self.max_cycles

    def _illegal_message(self, action: int) -> str:
        legal = np.flatnonzero(self._legal_mask())
        name = self.game.info.name
        if not 0 <= action < self.game.info.num_actions:
            problem = (
                f"action {action} is outside the action space 0..{self.game.info.num_actions - 1}"
            )
        else:
            problem = f"action {action} is not legal for {self.agent_selection}"
        return f"{name}: {problem}; legal actions: {describe_actions(legal)}"

    def _update_infos(self) -> None:
        extras = self.game.step_info(self.game_state)
        if extras is None:
            if self._infos_filled:
                self.infos = {agent: {} for agent in self.agents}
                self._infos_filled = False
            return
        self._infos_filled = True
        for agent in self.agents:
            self.infos[agent] = dict(extras)

    # -- records ------------------------------------------------------------------------------
    def record(self) -> dict[str, Any]:
        """The game so far as a version-2 record (:mod:`mcts_envs.records`).

        ``players`` are the agent names in seat order (``player_1`` first when it held seat 0,
        ``random_first_player``); ``returns`` is ``None`` until the game ends; ``seed`` is
        the last ``reset`` seed. ``mcts-envs replay`` and :func:`mcts_envs.records.read_records`
        read it.
        """
        from mcts_envs.records import make_record

        self._require_game("record()")
        finished = self._player == TERMINAL
        return make_record(
            self.game.info.name,
            self.game.to_text(self._initial_state),
            self.history,
            self._chance_indices,
            [self.possible_agents[seat ^ self.first_player] for seat in (0, 1)],
            [float(r) for r in self.game.returns(self.game_state)] if finished else None,
            self.game.to_text(self.game_state),
            seed=getattr(self, "np_random_seed", None),
        )

    # -- rendering ----------------------------------------------------------------------------
    def render(self) -> str | np.ndarray | None:
        """Render per ``render_mode``: text (``ansi``), an HxWx3 uint8 array, or a window.

        Raises:
            ResetRequiredError: (an ``EnvUsageError``) before the first ``reset()``.
        """
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn("render() called without a render_mode; pass render_mode=...")
            return None
        self._require_game("render()")
        if self._renderer is None:
            from mcts_envs.envs.rendering import Renderer

            self._renderer = Renderer(
                self._definition.renderer_factory(self.game),
                self.render_mode,
                self.metadata["render_fps"],
                self._definition.env_name,
            )
        return self._renderer.render(self.game_state)

    def close(self) -> None:
        """Close the render window, if any."""
        if self._renderer is not None:
            self._renderer.close()
            self._renderer = None

    # -- copy and pickle keep the game in progress -------------------------------------------
    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_renderer"] = None
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        """Restore a pickled (or copied) env, validating its positions first.

        Raises:
            InvalidStateError: (or ``StateTypeError``) if the game state or the initial state in
                the pickle is not a valid position of the game (a tampered pickle); nothing is
                restored.
        """
        game = state.get("game")
        for key in ("game_state", "_initial_state"):
            if state.get(key) is not None and game is not None:
                try:
                    game.validate_state(state[key])
                except MctsEnvsError as error:
                    name = state.get("metadata", {}).get("name", "env")
                    raise type(error)(f"{name}: cannot restore the env: {error}") from None
        self.__dict__.update(state)

    def __str__(self) -> str:
        return self.metadata["name"]
