"""``VectorGame(game, n, device="cuda")``: the batched API with its games on a GPU.

One CUDA thread per env runs the CPU vector's own step (:func:`mcts_envs.vector._step_env`:
auto-reset, truncation, penalties, masks, observations) over the game's own kernels, all
compiled as device functions from the same Python functions
(:func:`mcts_envs.cuda.device.device_function`): no rule and no step logic is written here,
only the kernels that map threads to envs. Env ``i`` of a CUDA vector therefore plays exactly
the games env ``i`` of a CPU ``VectorGame`` with the same seed plays for the same actions
(tested under numba's CUDA simulator), and draws the same random actions.

What differs from the CPU vector:

* Every array of a batch is a numba-cuda device array: ``batch.observation`` and the others
  expose ``__cuda_array_interface__``, so ``torch.as_tensor(batch.observation,
  device="cuda")`` shares their memory (numba-cuda 0.30's device arrays offer no
  ``__dlpack__``). Actions may be a device array (a torch CUDA tensor, a numba device array, any
  object with ``__cuda_array_interface__``) or a host array (copied to the device).
* ``illegal_action="raise"`` checks the actions on the device and then reads one integer back
  (a synchronisation per step); ``"penalty"`` never reads anything back, so a training loop
  with masked actions stays on the device.
* ``copy=False`` returns the vector's own device buffers (writable; do not write into them).
* :meth:`CudaVectorGame.states`, :attr:`CudaVectorGame.step_count`, :meth:`observe` and
  :meth:`random_actions` return device arrays; indices, states and players given to
  :meth:`set_states`, :meth:`copy_states` and :meth:`observe` are host arrays (they are
  checked on the host, as on the CPU).
* No threads option (``threads=True`` is refused), and the compiled kernels are not cached on
  disk: they compile in each process on first use.

Tantrix stays on the CPU: its kernels allocate working arrays (``np.empty``), which device code
cannot do; ``device="cuda"`` refuses it by name (:data:`mcts_envs.cuda.CPU_ONLY_GAMES`).
"""

from __future__ import annotations

import functools
import warnings
from typing import Any, NamedTuple

import numpy as np
from numba import cuda

from mcts_envs import vector as cpu
from mcts_envs.core.errors import ActionTypeError, IllegalActionError, InvalidOptionError
from mcts_envs.core.game import describe_actions
from mcts_envs.core.seeding import check_seed
from mcts_envs.cuda import CPU_ONLY_GAMES
from mcts_envs.cuda.device import device_function, simulating
from mcts_envs.vector import VectorBatch, VectorStates

__all__ = ["THREADS_PER_BLOCK", "CudaVectorGame"]

#: CUDA threads per block (one env per thread).
THREADS_PER_BLOCK = 128


class _Kernels(NamedTuple):
    """The compiled CUDA kernels of one game and step configuration (``buf``: the vector's
    buffers, a :class:`mcts_envs.vector._Buffers` of device arrays, passed as one argument)."""

    check: Any  # (mask, active, actions, all_active, bad): bad[0] = min illegal env index
    step: Any  # (buf, actions, all_active, restart)
    random_actions: Any  # (buf, action_rngs, out)
    rollout: Any  # (buf, action_rngs, num_steps, finished)
    set_rows: Any  # (buf, rows, states, counts): rows[i] >= 0 puts env i at states[rows[i]]
    observe: Any  # (states, players, firsts, by_player, out)
    gather: Any  # (source, indices, out): out[j] = source[indices[j]] (2-D)
    scatter: Any  # (source, indices, out): out[indices[j]] = source[j] (2-D)


@functools.cache
def _compile(kernels: cpu._Kernels, config: cpu._Config) -> _Kernels:
    """The CUDA kernels over ``kernels`` (the CPU vector's game kernels) with ``config`` frozen
    in (one set per game and configuration; numba-cuda compiles each on its first launch)."""
    k = cpu._Kernels(*(device_function(kernel) for kernel in kernels))
    step_env = device_function(cpu._step_env)
    clear_flags = device_function(cpu._clear_flags)
    random_action = device_function(cpu._random_action)
    enter = device_function(cpu._enter)
    copy_row = device_function(cpu._copy_row)
    work_of = device_function(cpu._work)

    @cuda.jit
    def check(mask, active, actions, all_active, bad):
        i = cuda.grid(1)
        if i < actions.shape[0] and (all_active or active[i]):
            action = actions[i]
            if action < 0 or action >= mask.shape[1] or not mask[i, action]:
                cuda.atomic.min(bad, 0, i)

    @cuda.jit
    def step(buf, actions, all_active, restart):
        i = cuda.grid(1)
        if i >= buf.states.shape[0]:
            return
        if restart or all_active or buf.active[i]:
            step_env(
                k, buf, i, np.int64(actions[i]), config, work_of(buf, i), config.check, restart
            )
        else:
            clear_flags(buf, i)

    @cuda.jit
    def random_actions(buf, action_rngs, out):
        i = cuda.grid(1)
        if i < buf.states.shape[0]:
            out[i] = random_action(k, buf, i, action_rngs[i : i + 1], config)

    @cuda.jit
    def rollout(buf, action_rngs, num_steps, finished):
        i = cuda.grid(1)
        if i >= buf.states.shape[0]:
            return
        work = work_of(buf, i)
        rng = action_rngs[i : i + 1]
        count = 0
        for _ in range(num_steps):
            action = random_action(k, buf, i, rng, config)
            step_env(k, buf, i, action, config, work, True, False)
            if buf.terminated[i] or buf.truncated[i]:
                count += 1
        cuda.atomic.add(finished, 0, count)

    @cuda.jit
    def set_rows(buf, rows, new_states, counts):
        i = cuda.grid(1)
        if i >= buf.states.shape[0]:
            return
        clear_flags(buf, i)
        row = rows[i]
        if row >= 0:
            copy_row(buf.states[i], new_states[row])
            buf.moves[i] = counts[row]
            enter(k, buf, i, work_of(buf, i), config)

    @cuda.jit
    def observe(states, players, firsts, by_player, out):
        j = cuda.grid(1)
        if j < states.shape[0]:
            row = out[j]
            if config.zero_observation:
                row[...] = 0
            seat = players[j] ^ firsts[j] if by_player else players[j]
            k.observation_planes(states[j], seat, row)

    @cuda.jit
    def gather(source, indices, out):
        j = cuda.grid(1)
        if j < indices.shape[0]:
            copy_row(out[j], source[indices[j]])

    @cuda.jit
    def scatter(source, indices, out):
        j = cuda.grid(1)
        if j < indices.shape[0]:
            copy_row(out[indices[j]], source[j])

    return _Kernels(check, step, random_actions, rollout, set_rows, observe, gather, scatter)


def _blocks(count: int) -> tuple[int, int]:
    """Launch configuration for ``count`` threads: (blocks, threads per block)."""
    threads = min(THREADS_PER_BLOCK, max(count, 1))
    return -(-max(count, 1) // threads), threads


def _is_device_array(value: Any) -> bool:
    """Whether ``value`` lives on the device (a numba device array or anything with
    ``__cuda_array_interface__``, e.g. a torch CUDA tensor)."""
    return bool(getattr(value, "__cuda_ndarray__", False)) or hasattr(
        value, "__cuda_array_interface__"
    )


def _device_buffers(plan: cpu.VectorGame, num_envs: int, rngs: np.ndarray) -> cpu._Buffers:
    """The device buffers of ``num_envs`` envs laid out as ``plan``'s (a CPU vector of one env):
    every per-env array with ``num_envs`` rows of zeros, the initial state as it is, the chance
    generators ``rngs``, every env active, and one work row per env (one thread each: the
    CPU's rows are per chunk of envs, padded apart for threads)."""
    config, template = plan._config, plan._buf
    list_scratch = 1
    if config.apply_lists:
        list_scratch = int(cpu._vector_kernels(plan.game).apply_and_list_scratch)
    max_legal = max(plan.info.max_legal_actions, 1)
    work_widths = {
        "scratch": config.chance_size,
        "probabilities": config.chance_size,
        "result": 2,
        "listed": max_legal if config.apply_lists else 1,
        "list_scratch": list_scratch,
    }
    arrays = {}
    for name, array in template._asdict().items():
        if name == "initial":
            arrays[name] = cuda.to_device(array)
        elif name == "rngs":
            arrays[name] = cuda.to_device(rngs)
        elif name == "active":
            arrays[name] = cuda.to_device(np.ones(num_envs, np.bool_))
        elif name in work_widths:
            arrays[name] = cuda.to_device(np.zeros((num_envs, work_widths[name]), array.dtype))
        elif name == "legal" and config.whole_mask and not config.list_legal:
            arrays[name] = cuda.to_device(np.zeros((num_envs, 1), array.dtype))  # never read
        else:
            arrays[name] = cuda.to_device(np.zeros((num_envs, *array.shape[1:]), array.dtype))
    return cpu._Buffers(**arrays)


class CudaVectorGame:
    """``num_envs`` games of one kind stepped together on a GPU; see the module docstring and
    :class:`mcts_envs.vector.VectorGame` (same arguments, same games, device arrays).

    Built by ``VectorGame(game, num_envs, seed, device="cuda", ...)``.

    Raises:
        UnknownGameError: for an unknown game.
        InvalidOptionError: for a game that stays on the CPU (:data:`mcts_envs.cuda.CPU_ONLY_GAMES`),
            ``threads=True``, or the options ``VectorGame`` refuses.
        InvalidSeedError: for a bad seed.
    """

    device = "cuda"

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
        copy: bool = True,
        random_first_player: bool = False,
        **game_kwargs: Any,
    ) -> None:
        if game in CPU_ONLY_GAMES:
            raise InvalidOptionError(
                f"{game} runs on the CPU only (device='cpu'): {CPU_ONLY_GAMES[game]}"
            )
        if threads:
            raise InvalidOptionError(
                "threads=True is an option of device='cpu'; a CUDA vector runs one GPU thread "
                "per env"
            )
        if (
            isinstance(num_envs, bool)
            or not isinstance(num_envs, (int, np.integer))
            or num_envs < 1
        ):
            raise InvalidOptionError(f"num_envs must be an int >= 1, got {num_envs!r}")
        seed = check_seed(seed)
        # A CPU vector of one env holds the plan: the kernels, the settings and the buffers its
        # step uses (and checks every option as the CPU vector does).
        plan = cpu.VectorGame(
            game,
            1,
            0,
            max_moves=max_moves,
            illegal_action=illegal_action,
            penalty=penalty,
            copy=copy,
            random_first_player=random_first_player,
            **game_kwargs,
        )
        self.game = plan.game
        self.info = plan.info
        self.num_envs = n = int(num_envs)
        self.max_moves = max_moves
        self.illegal_action = illegal_action
        self.penalty = plan.penalty
        self.threads = False
        self.copy = plan.copy
        self.random_first_player = plan.random_first_player
        self._config = config = plan._config
        self._kernels = _compile(plan._kernels, config)
        rngs = cpu.env_rngs(seed, n)
        self._buf = _device_buffers(plan, n, rngs)
        self._action_rngs = cuda.to_device(rngs ^ cpu._ACTION_STREAM)
        self._actions = cuda.to_device(np.zeros(n, np.int64))  # host actions are copied here
        self._bad = cuda.to_device(np.array([n], np.int64))
        self._finished = cuda.to_device(np.zeros(1, np.int64))
        # each field of a batch is the device buffer standing where the plan's view stands
        names = {id(array): name for name, array in plan._buf._asdict().items()}
        self._views = VectorBatch(
            *(
                getattr(self._buf, names[id(getattr(plan._views, field).base)])
                for field in VectorBatch._fields
            )
        )
        self._started = False

    # -- API (as VectorGame's) ----------------------------------------------------------------
    def compile(self, rollout: bool = False) -> None:
        """Compile the step, the random actions (and with ``rollout`` the device loop) for the
        arguments this vector passes, before timing; changes no game (nothing runs). Under
        the simulator there is nothing to compile."""
        if simulating():
            return
        buf, k, rngs, actions = self._buf, self._kernels, self._action_rngs, self._actions
        calls = [
            (k.step, (buf, actions, True, True)),
            (k.random_actions, (buf, rngs, actions)),
        ]
        if self._config.check:
            calls.append((k.check, (buf.mask, buf.active, actions, True, self._bad)))
        if rollout:
            calls.append((k.rollout, (buf, rngs, 1, self._finished)))
        for kernel, arguments in calls:  # the types a launch with these arguments compiles for
            kernel.compile(tuple(kernel.typeof_pyval(argument) for argument in arguments))

    def reset(self, seed: int | None = None) -> VectorBatch:
        """Start a new game in every env (as :meth:`VectorGame.reset`); device arrays.

        Raises:
            InvalidSeedError: for a bad seed.
        """
        seed = check_seed(seed)
        if seed is not None:
            rngs = cpu.env_rngs(seed, self.num_envs)
            self._buf.rngs.copy_to_device(rngs)
            self._action_rngs.copy_to_device(rngs ^ cpu._ACTION_STREAM)
        self._launch(self._kernels.step, self.num_envs, self._buf, self._actions, True, True)
        self._started = True
        return self._batch()

    def step(self, actions: Any, active: Any = None) -> VectorBatch:
        """Play ``actions[i]`` in env ``i`` (as :meth:`VectorGame.step`).

        Args:
            actions: ``N`` integers: a device array (e.g. a torch CUDA tensor, used in place) or
                a host array (copied to the device).
            active: optional ``bool[N]`` (device or host array): only these envs are stepped.

        Raises:
            RuntimeError: before :meth:`reset`.
            IllegalActionError: (``"raise"`` mode) if an action is illegal; no env changed.
            ActionTypeError: if ``actions`` is not an integer array of shape ``[N]``.
            InvalidOptionError: for an ``active`` that is not ``bool[N]``.
        """
        self._require_started("step()")
        actions = self._device_actions(actions)
        all_active = active is None
        if not all_active:
            self._set_active(active)
        buf = self._buf
        if self._config.check:
            self._bad.copy_to_device(np.array([self.num_envs], np.int64))
            self._launch(
                self._kernels.check, self.num_envs, buf.mask, buf.active, actions, all_active,
                self._bad,
            )  # fmt: skip
            bad = int(self._bad.copy_to_host()[0])
            if bad < self.num_envs:
                raise IllegalActionError(self._illegal_message(bad, actions))
        self._launch(self._kernels.step, self.num_envs, buf, actions, all_active, False)
        return self._batch()

    def random_actions(self, out: Any = None) -> Any:
        """A uniformly random legal action for every env (as :meth:`VectorGame.random_actions`:
        the same per-env generators, so the same draws), as an ``int64[N]`` device array.

        Args:
            out: optional ``int64[N]`` device array to write into (returned).

        Raises:
            RuntimeError: before :meth:`reset`.
            InvalidOptionError: for an ``out`` that is not an ``int64[N]`` device array.
        """
        self._require_started("random_actions()")
        if out is None:
            out = cuda.device_array(self.num_envs, np.int64)
        elif not _is_device_array(out):
            raise InvalidOptionError(
                f"out must be an int64 device array of shape ({self.num_envs},), got "
                f"{type(out).__name__}"
            )
        target = out if getattr(out, "__cuda_ndarray__", False) else cuda.as_cuda_array(out)
        if target.shape != (self.num_envs,) or target.dtype != np.int64:
            raise InvalidOptionError(
                f"out must be an int64 device array of shape ({self.num_envs},), got "
                f"{target.dtype}{tuple(target.shape)}"
            )
        self._launch(
            self._kernels.random_actions, self.num_envs, self._buf, self._action_rngs, target
        )
        return out

    def random_rollout(self, num_steps: int, seed: int | None = None) -> int:
        """Play ``num_steps`` uniformly random legal steps in every env, each env's steps in
        one GPU thread (as :meth:`VectorGame.random_rollout`); returns the games finished
        (waits for the GPU).

        Raises:
            InvalidSeedError: for a bad seed.
        """
        seed = check_seed(seed)
        if not self._started:
            self.reset()
        if seed is not None:
            self._action_rngs.copy_to_device(cpu.env_rngs(seed, self.num_envs) ^ cpu._ACTION_STREAM)
        self._finished.copy_to_device(np.zeros(1, np.int64))
        self._launch(
            self._kernels.rollout, self.num_envs, self._buf, self._action_rngs,
            int(num_steps), self._finished,
        )  # fmt: skip
        return int(self._finished.copy_to_host()[0])

    @property
    def states(self) -> Any:
        """A device copy of the ``int64[N, state_size]`` forward-model states."""
        return _device_copy(self._buf.states)

    @property
    def step_count(self) -> Any:
        """A device copy of ``int64[N]``: the moves played in each env's current game."""
        return _device_copy(self._buf.moves)

    @property
    def states_view(self) -> Any:
        """The ``int64[N, state_size]`` states buffer itself, on the device (no copy)."""
        return self._buf.states

    @property
    def batch(self) -> VectorBatch:
        """The batch the last call returned, as the vector returns batches (device copies, or
        with ``copy=False`` the device buffers).

        Raises:
            RuntimeError: before :meth:`reset`.
        """
        self._require_started("batch")
        return self._batch()

    def legal_lists(self) -> tuple[Any, Any] | None:
        """The device buffers ``(legal int64[N, max_legal_actions], counts int64[N])`` of the
        legal actions kept beside the masks, or ``None`` for a game that keeps none (as
        :meth:`VectorGame.legal_lists`).

        Raises:
            RuntimeError: before :meth:`reset`.
        """
        self._require_started("legal_lists()")
        if not self._config.list_legal:
            return None
        return self._buf.legal, self._buf.num_legal

    def get_states(self, indices: Any = None) -> VectorStates:
        """What decides how envs ``indices`` (default: all) go on, copied to the host (as
        :meth:`VectorGame.get_states`; ``vg.set_states(indices, *saved)`` restores it, on this
        vector or on a CPU one).

        Raises:
            RuntimeError: before :meth:`reset`.
            InvalidOptionError: for bad ``indices``.
        """
        self._require_started("get_states()")
        rows = self._rows(indices)
        buf = self._buf
        return VectorStates(
            *(array.copy_to_host()[rows] for array in (buf.states, buf.moves, buf.rngs, buf.first))
        )

    def set_states(
        self,
        indices: Any,
        states: Any,
        step_counts: Any = None,
        chance_rngs: Any = None,
        first_players: Any = None,
    ) -> VectorBatch:
        """Put env ``indices[j]`` at position ``states[j]`` (host arrays, checked on the host by
        the game's record reader, as :meth:`VectorGame.set_states` does with the same
        arguments).

        Raises:
            RuntimeError: before :meth:`reset`.
            InvalidOptionError, TypeError, InvalidRecordError: as :meth:`VectorGame.set_states`.
        """
        self._require_started("set_states()")
        indices, states, counts, rngs, firsts = self._check_restore(
            indices, states, step_counts, chance_rngs, first_players
        )
        count = len(indices)
        if count == 0:  # the kernel's arguments keep a row
            states, counts = np.zeros((1, self.info.state_size), np.int64), np.zeros(1, np.int64)
        buf = self._buf
        for values, target in ((rngs, buf.rngs), (firsts, buf.first)):
            if values is not None and count:
                self._scatter(cuda.to_device(values), cuda.to_device(indices), target)
        rows = np.full(self.num_envs, -1, np.int64)
        rows[indices] = np.arange(count)
        self._launch(
            self._kernels.set_rows, self.num_envs, buf, cuda.to_device(rows),
            cuda.to_device(states), cuda.to_device(counts),
        )  # fmt: skip
        return self._batch()

    def copy_states(self, sources: Any, destinations: Any) -> VectorBatch:
        """Branch env ``sources[j]``'s game into env ``destinations[j]`` (host index arrays; as
        :meth:`VectorGame.copy_states`: gathered first, then scattered).

        Raises:
            RuntimeError: before :meth:`reset`.
            InvalidOptionError: as :meth:`VectorGame.copy_states`.
        """
        self._require_started("copy_states()")
        sources, destinations = self._check_copies(sources, destinations)
        buf, count = self._buf, len(sources)
        if count:
            source_rows, destination_rows = cuda.to_device(sources), cuda.to_device(destinations)
            for array in (
                buf.states, buf.moves, buf.observation, buf.mask, buf.legal, buf.num_legal,
                buf.player, buf.first,
            ):  # fmt: skip
                table = _rows(array)
                rows = cuda.device_array((count, table.shape[1]), table.dtype)
                self._launch(self._kernels.gather, count, table, source_rows, rows)
                self._launch(self._kernels.scatter, count, rows, destination_rows, table)
        no_rows = cuda.to_device(np.full(self.num_envs, -1, np.int64))
        no_states = cuda.to_device(np.zeros((1, self.info.state_size), np.int64))
        no_counts = cuda.to_device(np.zeros(1, np.int64))
        # rows all -1: every env's rewards and flags cleared, nothing else
        self._launch(self._kernels.set_rows, self.num_envs, buf, no_rows, no_states, no_counts)
        return self._batch()

    def observe(self, players: Any, states: Any = None) -> Any:
        """Observations of the envs' positions from ``players``' views (host ``players`` and
        optional host ``states``, as :meth:`VectorGame.observe`), as a device array.

        Raises:
            RuntimeError: before :meth:`reset` (without ``states``).
            InvalidOptionError, TypeError: as :meth:`VectorGame.observe`.
        """
        array = np.asarray(players)
        if array.ndim > 1:
            raise InvalidOptionError(
                f"players must be 0, 1 or one per row, got an array of shape {array.shape} (the "
                "players come first: observe(players, states=None))"
            )
        own = states is None
        if own:
            self._require_started("observe()")
            device_states = self._buf.states
        else:
            device_states = cuda.to_device(self._check_states(states, None, validate=False))
        count = device_states.shape[0]
        if array.ndim == 0:
            array = np.full(count, array)
        if (
            array.shape != (count,)
            or array.dtype.kind not in "iu"
            or not np.isin(array, (0, 1)).all()
        ):
            raise InvalidOptionError(
                f"players must be 0, 1 or {count} of them (observe(players, states=None)), got "
                f"{array.dtype}{array.shape}"
            )
        out = cuda.device_array((count, *self.info.observation_shape), self.info.observation_dtype)
        if count:
            players_on_device = cuda.to_device(np.ascontiguousarray(array, dtype=np.int64))
            by_player = own and self.random_first_player  # players -> the seats they hold
            firsts = self._buf.first if by_player else players_on_device
            self._launch(
                self._kernels.observe, count, device_states, players_on_device, firsts,
                by_player, out,
            )  # fmt: skip
        return out

    def __getstate__(self) -> None:
        raise TypeError(
            "a CUDA VectorGame is not copied or pickled (its games live on the GPU): save "
            "vg.get_states() and restore them with set_states(indices, *saved)"
        )

    # -- helpers ------------------------------------------------------------------------------
    _check_indices = cpu.VectorGame._check_indices
    _check_states = cpu.VectorGame._check_states
    _rows = cpu.VectorGame._rows
    _check_restore = cpu.VectorGame._check_restore
    _check_copies = cpu.VectorGame._check_copies
    _check_actions = cpu.VectorGame._check_actions
    _require_started = cpu.VectorGame._require_started

    def _launch(self, kernel: Any, count: int, *args: Any) -> None:
        blocks, threads = _blocks(count)
        if not simulating():
            kernel[blocks, threads](*args)
            return
        # Python's integers in NumPy scalars wrap as compiled code's do, but warn while doing so
        # (the generators' arithmetic wraps by design); the simulator runs the launch to its end
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", "overflow encountered", RuntimeWarning)
            kernel[blocks, threads](*args)

    def _device_actions(self, actions: Any) -> Any:
        """``actions`` on the device: a device array as it is (checked for shape and integer
        dtype), a host array checked and copied into the vector's action buffer."""
        if not _is_device_array(actions):
            self._actions.copy_to_device(self._check_actions(actions))
            return self._actions
        array = (
            actions if getattr(actions, "__cuda_ndarray__", False) else cuda.as_cuda_array(actions)
        )
        if tuple(array.shape) != (self.num_envs,) or np.dtype(array.dtype).kind not in "iu":
            raise ActionTypeError(
                f"actions must be an integer array of shape ({self.num_envs},), got "
                f"{np.dtype(array.dtype)}{tuple(array.shape)}"
            )
        return array

    def _set_active(self, active: Any) -> None:
        if _is_device_array(active):
            array = (
                active if getattr(active, "__cuda_ndarray__", False) else cuda.as_cuda_array(active)
            )
            if tuple(array.shape) != (self.num_envs,) or np.dtype(array.dtype) != np.bool_:
                raise InvalidOptionError(
                    f"active must be a bool array of shape ({self.num_envs},), got "
                    f"{np.dtype(array.dtype)}{tuple(array.shape)}"
                )
            self._buf.active.copy_to_device(array)
            return
        host = np.asarray(active)
        if host.shape != (self.num_envs,) or host.dtype != np.bool_:
            raise InvalidOptionError(
                f"active must be a bool array of shape ({self.num_envs},), got "
                f"{host.dtype}{host.shape}"
            )
        self._buf.active.copy_to_device(np.ascontiguousarray(host))

    def _scatter(self, values: Any, indices: Any, target: Any) -> None:
        """``target[indices[j]] = values[j]`` on the device (1-D device arrays)."""
        self._launch(self._kernels.scatter, len(indices), _rows(values), indices, _rows(target))

    def _illegal_message(self, index: int, actions: Any) -> str:
        action = int(actions[index : index + 1].copy_to_host()[0])
        player = int(self._buf.player[index : index + 1].copy_to_host()[0])
        legal = np.flatnonzero(self._buf.mask[index].copy_to_host())
        name, num_actions = self.info.name, self.info.num_actions
        if not 0 <= action < num_actions:
            problem = f"action {action} is outside the action space 0..{num_actions - 1}"
        else:
            problem = f"action {action} is not legal for player_{player}"
        return (
            f"{name} env {index}: {problem}; legal actions: {describe_actions(legal)}; no env "
            f"was changed (illegal_action='penalty' ends that game with a -{self.penalty:g} "
            f"reward instead)"
        )

    def _batch(self) -> VectorBatch:
        if not self.copy:
            return self._views
        return VectorBatch(*(_device_copy(view) for view in self._views))

    def __repr__(self) -> str:
        return f"VectorGame({self.info.name!r}, num_envs={self.num_envs}, device='cuda')"


def _rows(array: Any) -> Any:
    """``array`` (a C-contiguous device array) as a 2-D view: one row per leading index."""
    return array.reshape(array.shape[0], int(np.prod(array.shape[1:])))


def _device_copy(array: Any) -> Any:
    """A new device array equal to ``array`` (copied on the device)."""
    copy = cuda.device_array(array.shape, array.dtype)
    if array.size:
        copy.copy_to_device(array)
    return copy
