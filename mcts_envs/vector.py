"""A batch of N games of one kind, stepped by one compiled call: the API for batched self-play RL.

:class:`VectorGame` keeps ``N`` forward-model states (``int64[N, state_size]``) and steps all of
them with one call into compiled code built on the game's own kernels (``legal_actions``,
``apply_action``, ``chance_outcomes``, ``returns``, ``current_player`` and the game's
``observation_planes``): no rule is written here.

Contract (leading dimension ``N`` everywhere)::

    vg = VectorGame("ultimate_tictactoe", num_envs=1024, seed=0)
    batch = vg.reset()
    batch.observation         # [N, *observation_shape] int8, from the view of the player to move
    batch.legal_action_mask   # [N, num_actions] bool
    batch.current_player      # [N] int64 (0 or 1)
    batch = vg.step(actions)  # actions: [N] integers
    batch.rewards             # [N, 2] float32: both players' rewards (+1 / -1 / 0 at the end)
    batch.terminated, batch.truncated   # [N] bool

**Auto-reset (same step).** Like Gymnasium's ``SAME_STEP`` autoreset mode: the call to
:meth:`VectorGame.step` that ends game ``i`` returns that game's final ``rewards[i]`` with
``terminated[i]`` (or ``truncated[i]``) set, and *already* the first position of a new game in
``observation[i]``, ``legal_action_mask[i]`` and ``current_player[i]``; the final position is in
``final_state[i]`` (a forward-model state: ``game.observation(final_state[i], p)`` gives any
player's view). So every returned observation is a position where someone must act.

**Chance.** Chance outcomes (Tantrix's deal and draws) are sampled inside the compiled step from a
generator owned by each env, seeded from ``SeedSequence(seed).spawn``-style children: env ``i``'s
games depend only on ``(seed, i)`` and the actions given to it, whatever ``N`` and whatever the
number of threads. The outcomes drawn in a step are reported in ``chance_outcomes[i,
:num_chance_outcomes[i]]`` (in the order applied, the new game's deal after the ended game's
draws) so a game record can be written.

**Illegal actions.** With ``illegal_action="raise"`` (default), a step whose actions include an
illegal one raises :class:`~mcts_envs.core.errors.IllegalActionError` naming the first such env
index, its player and its legal actions, and changes no game. With ``"penalty"``, that env's game
ends: its mover gets ``-penalty``, the other player 0, ``terminated`` and ``illegal`` are set, and
the env auto-resets.

**Threads.** ``threads=True`` steps the envs in numba ``prange`` chunks, one per thread, with
identical results (per-env generators). Measured on 2 cores (``benchmarks/vector_throughput.py``):
it pays off in the compiled loop (:meth:`VectorGame.random_rollout`) of the four board games at
N = 64 and 1024 (1.3-3.5x), not for Tantrix (its per-env observation and mask, 90 kB and 121 kB,
do not fit the cache).
"""

from __future__ import annotations

import importlib
from typing import Any, NamedTuple

import numpy as np
from numba import njit, prange

from mcts_envs.core.errors import ActionTypeError, IllegalActionError, InvalidOptionError
from mcts_envs.core.game import CHANCE, TERMINAL, describe_actions
from mcts_envs.core.jit import entry_point, pin_identity
from mcts_envs.core.registry import make_game
from mcts_envs.core.seeding import check_seed, rng_below, rng_choice_weighted

__all__ = ["ILLEGAL_ACTION_MODES", "VectorBatch", "VectorGame", "observation_kernel"]

ILLEGAL_ACTION_MODES = ("raise", "penalty")
#: Room for the chance outcomes drawn in one step of one env (games with chance only).
MAX_CHANCE_PER_STEP = 128


class VectorBatch(NamedTuple):
    """What :meth:`VectorGame.reset` and :meth:`VectorGame.step` return (fresh arrays each call).

    Attributes:
        observation: ``[N, *observation_shape]`` from the view of ``current_player``.
        legal_action_mask: ``bool[N, num_actions]``, the legal actions of ``current_player``.
        current_player: ``int64[N]``, the player to act (0 or 1).
        rewards: ``float32[N, 2]``, both players' rewards for this step (non-zero only at the end).
        terminated: ``bool[N]``, the game ended by the rules (or an illegal action with penalty).
        truncated: ``bool[N]``, the game was cut by ``max_moves``.
        final_state: ``int64[N, state_size]``, the last state of games that ended in this step
            (rows of other envs are unspecified).
        illegal: ``bool[N]``, the game ended because of an illegal action (``"penalty"`` mode).
        chance_outcomes: ``int64[N, k]``, chance outcomes drawn in this step, in order
            (``k = MAX_CHANCE_PER_STEP`` for games with chance, 0 otherwise).
        num_chance_outcomes: ``int64[N]``, how many each env drew (only the first ``k`` are
            kept if more were drawn in one step; a Tantrix deal is 12 draws).
    """

    observation: np.ndarray
    legal_action_mask: np.ndarray
    current_player: np.ndarray
    rewards: np.ndarray
    terminated: np.ndarray
    truncated: np.ndarray
    final_state: np.ndarray
    illegal: np.ndarray
    chance_outcomes: np.ndarray
    num_chance_outcomes: np.ndarray


class _Buffers(NamedTuple):
    """The arrays the compiled step reads and writes (one row per env)."""

    states: np.ndarray  # int64[N, S]
    rngs: np.ndarray  # uint64[N] chance generators
    moves: np.ndarray  # int64[N] player moves in the current game
    initial: np.ndarray  # int64[S] the initial state (may be a chance node)
    observation: np.ndarray  # [N, *obs]
    mask: np.ndarray  # bool[N, A]
    player: np.ndarray  # int64[N]
    rewards: np.ndarray  # float32[N, 2]
    terminated: np.ndarray  # bool[N]
    truncated: np.ndarray  # bool[N]
    final_states: np.ndarray  # int64[N, S]
    illegal: np.ndarray  # bool[N]
    chance_log: np.ndarray  # int64[N, MAX_CHANCE_PER_STEP or 0]
    chance_count: np.ndarray  # int64[N]
    active: np.ndarray  # bool[N] envs stepped by the next step call
    num_legal: np.ndarray  # int64[N] legal actions at the current position


class _Kernels(NamedTuple):
    """The compiled game kernels the step uses (numba dispatchers; one argument, not six)."""

    current_player: Any
    legal_actions: Any
    apply_action: Any
    chance_outcomes: Any
    returns: Any
    observation_planes: Any


class _Config(NamedTuple):
    """The step's settings (values, not types: one compilation serves all)."""

    max_moves: int  # truncate after this many player moves; 0: never
    penalty: float  # reward magnitude of an illegal action ("penalty" mode)
    scratch_size: int  # room for legal actions or chance outcomes
    chance_size: int  # room for chance probabilities


class _Work(NamedTuple):
    """Working buffers of one chunk of envs (allocated once per compiled call and chunk)."""

    scratch: np.ndarray  # int64[scratch_size]: legal actions / chance outcomes
    probabilities: np.ndarray  # float64[chance_size]
    result: np.ndarray  # float64[2]: returns of a finished game


def observation_kernel(game: Any) -> Any:
    """The compiled ``observation_planes(state, player, out)`` kernel of ``game``'s module.

    Every built-in game defines it in ``mcts_envs/games/<game>/kernels.py`` beside its rules.

    Raises:
        InvalidOptionError: if the game's package has no such kernel.
    """
    package = type(game).__module__.rsplit(".", 1)[0]
    try:
        kernel = importlib.import_module(f"{package}.kernels").observation_planes
    except (ImportError, AttributeError):
        raise InvalidOptionError(
            f"{game.info.name}: VectorGame needs a compiled observation_planes kernel in "
            f"{package}.kernels"
        ) from None
    return pin_identity(kernel)


# -- compiled per-env work -----------------------------------------------------------------------


@njit(cache=True, inline="always")
def _sample_chance(k, buf, i, work):
    """Sample through chance nodes of env ``i`` with its own generator; returns the player."""
    state = buf.states[i]
    rng = buf.rngs[i : i + 1]
    player = k.current_player(state)
    log = buf.chance_log[i]
    while player == CHANCE:
        count = k.chance_outcomes(state, work.scratch, work.probabilities)
        outcome = work.scratch[rng_choice_weighted(rng, work.probabilities, count)]
        if buf.chance_count[i] < log.shape[0]:
            log[buf.chance_count[i]] = outcome
        buf.chance_count[i] += 1
        k.apply_action(state, outcome)
        player = k.current_player(state)
    return player


@njit(cache=True, inline="always")
def _observe(k, buf, i, player, scratch):
    """Write env ``i``'s observation, mask and player (a decision node of ``player``)."""
    state = buf.states[i]
    buf.player[i] = player
    obs = buf.observation[i]
    obs[...] = 0
    k.observation_planes(state, player, obs)
    mask = buf.mask[i]
    mask[:] = False
    count = k.legal_actions(state, scratch)
    for j in range(count):
        mask[scratch[j]] = True
    buf.num_legal[i] = count  # scratch[:count] keeps the legal actions until its next use


@njit(cache=True, inline="always")
def _restart(k, buf, i, work):
    """Put env ``i`` at the start of a new game (sampling the deal) and observe it."""
    buf.states[i, :] = buf.initial
    buf.moves[i] = 0
    player = _sample_chance(k, buf, i, work)
    _observe(k, buf, i, player, work.scratch)


@njit(cache=True, inline="always")
def _clear_flags(buf, i):
    """Zero env ``i``'s rewards, flags and chance count (before a step, or when not stepped)."""
    buf.rewards[i, 0] = 0.0
    buf.rewards[i, 1] = 0.0
    buf.terminated[i] = False
    buf.truncated[i] = False
    buf.illegal[i] = False
    buf.chance_count[i] = 0


@njit(cache=True, inline="always")
def _step_env(k, buf, i, action, config, work):
    """One step of env ``i`` (``action`` legal, or illegal in penalty mode), auto-resetting."""
    state = buf.states[i]
    _clear_flags(buf, i)
    mover = buf.player[i]
    if action < 0 or action >= buf.mask.shape[1] or not buf.mask[i, action]:
        buf.rewards[i, mover] = -config.penalty
        buf.terminated[i] = True
        buf.illegal[i] = True
        buf.final_states[i, :] = state
    else:
        k.apply_action(state, action)
        buf.moves[i] += 1
        player = _sample_chance(k, buf, i, work)
        if player == TERMINAL:
            k.returns(state, work.result)
            buf.rewards[i, 0] = work.result[0]
            buf.rewards[i, 1] = work.result[1]
            buf.terminated[i] = True
            buf.final_states[i, :] = state
        elif config.max_moves > 0 and buf.moves[i] >= config.max_moves:
            buf.truncated[i] = True
            buf.final_states[i, :] = state
        else:
            _observe(k, buf, i, player, work.scratch)
            return
    _restart(k, buf, i, work)


@njit(cache=True, inline="always")
def _make_work(config):
    """Fresh working buffers for one chunk of envs."""
    return _Work(
        np.empty(config.scratch_size, np.int64),
        np.empty(config.chance_size, np.float64),
        np.zeros(2, np.float64),
    )


@njit(cache=True)
def _chunk_bounds(num_envs, chunks, c):
    size = (num_envs + chunks - 1) // chunks
    return min(num_envs, c * size), min(num_envs, (c + 1) * size)


@njit(cache=True)
def _reset_all(k, buf, config):
    work = _make_work(config)
    for i in range(buf.states.shape[0]):
        _clear_flags(buf, i)
        _restart(k, buf, i, work)


@njit(cache=True)
def _step_chunk(k, buf, actions, lo, hi, config):
    work = _make_work(config)
    for i in range(lo, hi):
        if buf.active[i]:
            _step_env(k, buf, i, actions[i], config, work)
        else:
            _clear_flags(buf, i)


@njit(cache=True)
def _step_serial(k, buf, actions, config, chunks):
    _step_chunk(k, buf, actions, 0, buf.states.shape[0], config)


@njit(cache=True, parallel=True)
def _step_parallel(k, buf, actions, config, chunks):
    for c in prange(chunks):
        lo, hi = _chunk_bounds(buf.states.shape[0], chunks, c)
        _step_chunk(k, buf, actions, lo, hi, config)


@njit(cache=True)
def _rollout_chunk(k, buf, action_rngs, num_steps, lo, hi, config):
    """``num_steps`` uniformly random legal steps of envs ``lo..hi``; returns games finished."""
    work = _make_work(config)
    scratch = work.scratch
    finished = 0
    for i in range(lo, hi):
        rng = action_rngs[i : i + 1]
        # _step_env ends with _observe, which leaves the legal actions in scratch[:num_legal[i]]
        k.legal_actions(buf.states[i], scratch)
        for _ in range(num_steps):
            action = scratch[rng_below(rng, buf.num_legal[i])]
            _step_env(k, buf, i, action, config, work)
            if buf.terminated[i] or buf.truncated[i]:
                finished += 1
    return finished


@njit(cache=True)
def _rollout_serial(k, buf, action_rngs, num_steps, config, chunks):
    return _rollout_chunk(k, buf, action_rngs, num_steps, 0, buf.states.shape[0], config)


@njit(cache=True, parallel=True)
def _rollout_parallel(k, buf, action_rngs, num_steps, config, chunks):
    finished = np.zeros(chunks, np.int64)
    for c in prange(chunks):
        lo, hi = _chunk_bounds(buf.states.shape[0], chunks, c)
        finished[c] = _rollout_chunk(k, buf, action_rngs, num_steps, lo, hi, config)
    return finished.sum()


@njit(cache=True)
def _first_illegal(mask, actions, active):
    """Index of the first active env whose action is not legal, or -1."""
    num_actions = mask.shape[1]
    for i in range(actions.shape[0]):
        if not active[i]:
            continue
        action = actions[i]
        if action < 0 or action >= num_actions or not mask[i, action]:
            return i
    return -1


def env_rngs(seed: int | None, num_envs: int) -> np.ndarray:
    """Per-env kernel generator states: env ``i``'s is ``SeedSequence(seed, spawn_key=(i,))``'s.

    That is the ``i``-th child of ``SeedSequence(seed).spawn(...)``, so it does not depend on
    ``num_envs``. ``seed=None`` draws fresh entropy.
    """
    entropy = np.random.SeedSequence(seed).entropy
    return np.array(
        [
            np.random.SeedSequence(entropy, spawn_key=(i,)).generate_state(1, np.uint64)[0]
            for i in range(num_envs)
        ],
        dtype=np.uint64,
    )


class VectorGame:
    """``num_envs`` games of one kind stepped together by compiled code (see the module docstring).

    Args:
        game: a registered game name (``mcts_envs.list_games()``).
        num_envs: ``N``, the number of games (>= 1).
        seed: seed of the per-env chance generators (``None``: fresh entropy).
        max_moves: truncate a game after this many player moves (``None``: never).
        illegal_action: ``"raise"`` (default) or ``"penalty"`` (see the module docstring).
        penalty: the reward magnitude of an illegal action in ``"penalty"`` mode.
        threads: step the envs on numba's thread pool (same results; see the module docstring).
        **game_kwargs: the game's options (e.g. Tantrix's ``colors``).

    Raises:
        UnknownGameError: for an unknown game.
        InvalidOptionError: for a bad ``num_envs``, ``max_moves``, ``illegal_action`` or option.
        InvalidSeedError: for a bad seed.
    """

    def __init__(
        self,
        game: str,
        num_envs: int,
        seed: int | None = None,
        *,
        max_moves: int | None = None,
        illegal_action: str = "raise",
        penalty: float = 1.0,
        threads: bool = False,
        **game_kwargs: Any,
    ) -> None:
        if (
            isinstance(num_envs, bool)
            or not isinstance(num_envs, (int, np.integer))
            or num_envs < 1
        ):
            raise InvalidOptionError(f"num_envs must be an int >= 1, got {num_envs!r}")
        if max_moves is not None and (
            isinstance(max_moves, bool) or not isinstance(max_moves, int) or max_moves < 1
        ):
            raise InvalidOptionError(f"max_moves must be None or an int >= 1, got {max_moves!r}")
        if illegal_action not in ILLEGAL_ACTION_MODES:
            raise InvalidOptionError(
                f"illegal_action must be one of {ILLEGAL_ACTION_MODES}, got {illegal_action!r}"
            )
        self.game = make_game(game, **game_kwargs)
        self.num_envs = int(num_envs)
        self.max_moves = max_moves
        self.illegal_action = illegal_action
        self.penalty = float(penalty)
        self.threads = bool(threads)
        info = self.game.info
        self.info = info
        n = self.num_envs
        kernels = self.game.kernels
        self._kernels = _Kernels(
            kernels.current_player,
            kernels.legal_actions,
            kernels.apply_action,
            kernels.chance_outcomes,
            kernels.returns,
            observation_kernel(self.game),
        )
        chance_room = MAX_CHANCE_PER_STEP if info.has_chance else 0
        self._buf = _Buffers(
            states=np.zeros((n, info.state_size), np.int64),
            rngs=env_rngs(check_seed(seed), n),
            moves=np.zeros(n, np.int64),
            initial=self.game.initial_state(),
            observation=np.zeros((n, *info.observation_shape), info.observation_dtype),
            mask=np.zeros((n, info.num_actions), np.bool_),
            player=np.zeros(n, np.int64),
            rewards=np.zeros((n, 2), np.float32),
            terminated=np.zeros(n, np.bool_),
            truncated=np.zeros(n, np.bool_),
            final_states=np.zeros((n, info.state_size), np.int64),
            illegal=np.zeros(n, np.bool_),
            chance_log=np.zeros((n, chance_room), np.int64),
            chance_count=np.zeros(n, np.int64),
            active=np.ones(n, np.bool_),
            num_legal=np.zeros(n, np.int64),
        )
        self._config = _Config(
            max_moves=int(max_moves or 0),
            penalty=self.penalty,
            scratch_size=int(max(info.max_legal_actions, info.max_chance_outcomes, 1)),
            chance_size=int(max(info.max_chance_outcomes, 1)),
        )
        self._chunks = int(min(n, _num_threads())) if threads else 1
        self._compiled: dict[str, Any] = {}
        self._started = False

    # -- compiled entry points ----------------------------------------------------------------
    def _entry(self, name: str) -> Any:
        """The compiled entry point ``name`` for this game and buffer layout (compiled once).

        Compiles on first use, or loads from numba's disk cache (seconds per game the first
        time on a machine, well under a second afterwards).
        """
        entry = self._compiled.get(name)
        if entry is None:
            k, buf, config = self._kernels, self._buf, self._config
            actions = np.zeros(self.num_envs, np.int64)
            rngs = np.zeros(self.num_envs, np.uint64)
            samples = {
                "reset": (_reset_all, (k, buf, config)),
                "step": (_step_serial, (k, buf, actions, config, 1)),
                "step_parallel": (_step_parallel, (k, buf, actions, config, 1)),
                "rollout": (_rollout_serial, (k, buf, rngs, 1, config, 1)),
                "rollout_parallel": (_rollout_parallel, (k, buf, rngs, 1, config, 1)),
            }
            dispatcher, sample = samples[name]
            entry = self._compiled[name] = entry_point(dispatcher, sample)
        return entry

    def compile(self, rollout: bool = False) -> None:
        """Compile (or load) the step (and with ``rollout`` the compiled loop) before timing."""
        suffix = "_parallel" if self.threads else ""
        for name in ("reset", "step" + suffix) + (("rollout" + suffix,) if rollout else ()):
            self._entry(name)

    # -- API ----------------------------------------------------------------------------------
    def reset(self, seed: int | None = None) -> VectorBatch:
        """Start a new game in every env; ``seed`` re-seeds the per-env chance generators.

        Returns:
            The first positions (rewards zero, no flags set).

        Raises:
            InvalidSeedError: for a bad seed.
        """
        seed = check_seed(seed)
        if seed is not None:
            self._buf.rngs[:] = env_rngs(seed, self.num_envs)
        self._entry("reset")(self._kernels, self._buf, self._config)
        self._started = True
        return self._batch()

    def step(self, actions: Any, active: Any = None) -> VectorBatch:
        """Play ``actions[i]`` in env ``i`` for every env (auto-resetting ended games).

        Args:
            actions: ``N`` integers (any integer array-like of shape ``[N]``).
            active: optional ``bool[N]``: only envs where it is True are stepped; the others
                keep their game and position (their actions are ignored, their rewards and flags
                are zero and their observation, mask and player unchanged in the returned
                batch). Lets a caller step only the envs where one seat
                is on move (e.g. an opponent's moves).

        Raises:
            RuntimeError: before :meth:`reset`.
            IllegalActionError: (``"raise"`` mode) if an action is illegal or outside the action
                space; the message names the env index, its player and legal actions; no env
                changed.
            ActionTypeError: if ``actions`` is not an integer array of shape ``[N]``.
        """
        if not self._started:
            raise RuntimeError("VectorGame: call reset() before step()")
        actions = self._check_actions(actions)
        if active is None:
            self._buf.active[:] = True
        else:
            active = np.asarray(active)
            if active.shape != (self.num_envs,) or active.dtype != np.bool_:
                raise InvalidOptionError(
                    f"active must be a bool array of shape ({self.num_envs},), got "
                    f"{active.dtype}{active.shape}"
                )
            self._buf.active[:] = active
        if self.illegal_action == "raise":
            bad = int(_first_illegal(self._buf.mask, actions, self._buf.active))
            if bad >= 0:
                raise IllegalActionError(self._illegal_message(bad, int(actions[bad])))
        if self.threads and self._chunks > 1:
            self._entry("step_parallel")(
                self._kernels, self._buf, actions, self._config, self._chunks
            )
        else:
            self._entry("step")(self._kernels, self._buf, actions, self._config, 1)
        return self._batch()

    def random_rollout(self, num_steps: int, seed: int | None = 0) -> int:
        """Play ``num_steps`` uniformly random legal steps in every env inside one compiled loop.

        The fully compiled loop of the benchmarks: each step computes the same observations,
        masks, rewards and auto-resets as :meth:`step`. Returns the number of games finished.
        Action choices come from per-env generators seeded by ``seed`` (independent of threads).
        """
        if not self._started:
            self.reset()
        rngs = env_rngs(check_seed(seed), self.num_envs)
        rngs ^= np.uint64(0xA5A5A5A5A5A5A5A5)  # a stream apart from the chance generators
        if self.threads and self._chunks > 1:
            return int(
                self._entry("rollout_parallel")(
                    self._kernels, self._buf, rngs, int(num_steps), self._config, self._chunks
                )
            )
        return int(
            self._entry("rollout")(self._kernels, self._buf, rngs, int(num_steps), self._config, 1)
        )

    @property
    def states(self) -> np.ndarray:
        """A copy of the ``int64[N, state_size]`` forward-model states (at decision nodes)."""
        return self._buf.states.copy()

    def observe(self, states: np.ndarray, players: np.ndarray) -> np.ndarray:
        """Observations ``[len(states), *observation_shape]`` of ``states[j]`` by ``players[j]``."""
        return np.stack(
            [self.game.observation(s, int(p)) for s, p in zip(states, players, strict=True)]
        )

    # -- helpers ------------------------------------------------------------------------------
    def _check_actions(self, actions: Any) -> np.ndarray:
        array = np.asarray(actions)
        if array.shape != (self.num_envs,) or array.dtype.kind not in "iu":
            raise ActionTypeError(
                f"actions must be an integer array of shape ({self.num_envs},), got "
                f"{array.dtype}{array.shape}"
            )
        return np.ascontiguousarray(array, dtype=np.int64)

    def _illegal_message(self, index: int, action: int) -> str:
        player = int(self._buf.player[index])
        legal = np.flatnonzero(self._buf.mask[index])
        name = self.info.name
        if not 0 <= action < self.info.num_actions:
            problem = f"action {action} is outside the action space 0..{self.info.num_actions - 1}"
        else:
            problem = f"action {action} is not legal for player_{player}"
        return (
            f"{name} env {index}: {problem}; legal actions: {describe_actions(legal)}; no env "
            f"was changed (illegal_action='penalty' ends that game with a -{self.penalty:g} "
            f"reward instead)"
        )

    def _batch(self) -> VectorBatch:
        buf = self._buf
        return VectorBatch(
            observation=buf.observation.copy(),
            legal_action_mask=buf.mask.copy(),
            current_player=buf.player.copy(),
            rewards=buf.rewards.copy(),
            terminated=buf.terminated.copy(),
            truncated=buf.truncated.copy(),
            final_state=buf.final_states.copy(),
            illegal=buf.illegal.copy(),
            chance_outcomes=buf.chance_log.copy(),
            num_chance_outcomes=buf.chance_count.copy(),
        )

    def __repr__(self) -> str:
        return f"VectorGame({self.info.name!r}, num_envs={self.num_envs})"


def _num_threads() -> int:
    import numba

    return int(numba.get_num_threads())
