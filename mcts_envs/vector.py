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
number of threads (drawn by the game's ``random_outcome`` kernel when it has one, see
:func:`random_outcome_kernel`, else by a weighted choice over ``chance_outcomes``). The outcomes
drawn in a step are reported in ``chance_outcomes[i,
:num_chance_outcomes[i]]`` (in the order applied, the new game's deal after the ended game's
draws) so a game record can be written.

**Step counts, positions and branches.** ``batch.step_count[i]`` counts the moves of env
``i``'s current game (pgx's ``_step_count``; 0 at its first position, what ``max_moves``
counts) and ``batch.final_step_count[i]`` the length of a game that ended in the step.
:meth:`VectorGame.set_states` puts chosen envs at chosen positions (validated by the game's
record reader; an evaluation from chosen positions, an opening suite, a batched search's
roots), :meth:`VectorGame.copy_states` branches env ``i``'s game into env ``j`` (gather, then
scatter), and :meth:`VectorGame.observe` gives any seat's observation of every env in one
compiled call (``vg.observe(1 - batch.current_player)``: the seat not on move).

**Saved states, copies and the first player.** :meth:`VectorGame.get_states` returns what decides
how envs go on (states, step counts, chance generators, first players: a :class:`VectorStates`)
and ``vg.set_states(indices, *saved)`` restores it, so a restored batch replays the same draws
for the same actions. ``copy.deepcopy`` and ``pickle`` give an independent vector in the same
games (options rebuilt, buffers copied in). With ``random_first_player=True`` each new game draws
with the env's chance generator which player holds the game's seat 0 (``batch.first_player``);
``current_player``, ``rewards`` and :meth:`VectorGame.observe` then name players, while states
stay in the game's seats.

**Illegal actions.** With ``illegal_action="raise"`` (default), a step whose actions include an
illegal one raises :class:`~mcts_envs.core.errors.IllegalActionError` naming the first such env
index, its player and its legal actions, and changes no game. With ``"penalty"``, that env's game
ends: its mover gets ``-penalty``, the other player 0, ``terminated`` and ``illegal`` are set, and
the env auto-resets.

**Threads.** ``threads=True`` splits the envs in contiguous chunks, at most one per thread
(``numba.get_num_threads()``), each a multiple of 64 envs but the last, none empty, and runs each
chunk by the same compiled function as one thread does (it releases the GIL): one chunk on the
calling thread, the others on a pool of Python threads, with identical results (per-env
generators). In the compiled loop
(:meth:`VectorGame.random_rollout`) each thread plays its envs through all the steps without
meeting the others; a :meth:`VectorGame.step` waits for the slowest chunk and costs a thread
hand-off (tens of microseconds), so threads pay off for large ``N`` or the compiled loop, and
not when the cores are shared with other processes. Nothing is compiled for threads beyond one
thread's code. See ``benchmarks/vector_throughput.py`` and the README for figures.

**Outputs and speed.** Observation and mask rows are written only for envs that moved, and the
mask incrementally (the previous legal actions cleared, the new ones set), so a step costs
``O(legal actions)``, not ``O(num_actions)``; a game whose kernels define ``legal_mask`` (a whole
row at once from the position, cheaper for small dense action spaces, Tic-Tac-Toe and Pentago
Twist, and for Ataxx's bitboards) has its rows written by it; one whose kernels define
``observation_update`` (see :class:`ObservationKernel`: Tantrix) has its observation rows
rewritten by it within a game instead of zeroed, and one whose kernels define ``apply_and_list``
(see :func:`apply_and_list_kernel`: Tantrix) has its legal actions listed as its moves are
applied. ``copy=True`` (default, as Gymnasium's ``SyncVectorEnv``) returns fresh arrays;
``copy=False`` returns read-only views of the vector's buffers, overwritten by the next call. :meth:`VectorGame.random_actions` draws uniformly random
legal actions in compiled code from per-env generators: from the legal actions listed beside the
mask, or, for a game whose kernels also define ``random_action`` (Tic-Tac-Toe, Ataxx, Pentago
Twist), by that kernel from the position, and then no list is kept.
"""

from __future__ import annotations

import functools
import importlib
import os
from concurrent.futures import ThreadPoolExecutor
from typing import Any, NamedTuple

import numpy as np

from mcts_envs.core.compiling import compile_notice, print_to_stderr
from mcts_envs.core.errors import (
    ActionTypeError,
    IllegalActionError,
    InvalidOptionError,
    InvalidRecordError,
    StateTypeError,
)
from mcts_envs.core.game import CHANCE, TERMINAL, VectorKernels, describe_actions
from mcts_envs.core.jit import entry_point
from mcts_envs.core.numba_cache import njit
from mcts_envs.core.numba_compat import borrow
from mcts_envs.core.registry import make_game
from mcts_envs.core.seeding import check_seed, rng_below, rng_choice_weighted

__all__ = [
    "ILLEGAL_ACTION_MODES",
    "ObservationKernel",
    "VectorBatch",
    "VectorGame",
    "VectorStates",
    "apply_and_list_kernel",
    "observation_kernel",
    "random_outcome_kernel",
]

ILLEGAL_ACTION_MODES = ("raise", "penalty")
#: Room for the chance outcomes drawn in one step of one env (games with chance only).
MAX_CHANCE_PER_STEP = 128


class VectorBatch(NamedTuple):
    """What :meth:`VectorGame.reset` and :meth:`VectorGame.step` return: fresh arrays each call, or
    with ``copy=False`` the same read-only views every call, overwritten by the next one.

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
        step_count: ``int64[N]``, the moves played in env ``i``'s current game (pgx's
            ``_step_count``): 0 at a game's first position (also right after an auto-reset),
            the count :meth:`VectorGame.set_states` gave, plus one per step; what ``max_moves``
            counts. The move about to be played is move number ``step_count[i] + 1``.
        final_step_count: ``int64[N]``, the moves of games that ended in this step (their
            length; rows of other envs are unspecified).
        first_player: ``int64[N]``, the player who moves first in env ``i``'s current game (who
            holds the game's seat 0: X, white, the first colour); always 0 unless the vector
            was built with ``random_first_player=True``.
        final_first_player: ``int64[N]``, the same for the games that ended in this step
            (``final_state[i]``'s seat ``s`` was held by player ``s ^ final_first_player[i]``).
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
    step_count: np.ndarray
    final_step_count: np.ndarray
    first_player: np.ndarray
    final_first_player: np.ndarray


class VectorStates(NamedTuple):
    """What :meth:`VectorGame.get_states` returns and :meth:`VectorGame.set_states` takes back:
    everything that decides how ``M`` envs' games go on (``vg.set_states(indices, *saved)``).

    Attributes:
        states: ``int64[M, state_size]`` forward-model states (decision nodes).
        step_counts: ``int64[M]``, the moves played in each game (what ``max_moves`` counts).
        chance_rngs: ``uint64[M]``, each env's chance generator (Tantrix's draws, the random first
            player): restored, the same actions give the same draws again.
        first_players: ``int64[M]``, the player holding the game's seat 0 (0 unless
            ``random_first_player``).
    """

    states: np.ndarray
    step_counts: np.ndarray
    chance_rngs: np.ndarray
    first_players: np.ndarray


class _Buffers(NamedTuple):
    """The arrays the compiled step reads and writes (one row per env)."""

    states: np.ndarray  # int64[N, S]
    rngs: np.ndarray  # uint64[N] chance generators
    moves: np.ndarray  # int64[N] player moves in the current game
    initial: np.ndarray  # int64[S] the initial state (may be a chance node)
    observation: np.ndarray  # [N, *obs]
    mask: np.ndarray  # bool[N, A]
    legal: np.ndarray  # int64[N, max_legal]: the legal actions behind each mask row
    num_legal: np.ndarray  # int64[N] legal actions at the current position
    player: np.ndarray  # int64[N]
    rewards: np.ndarray  # float32[N, 2]
    terminated: np.ndarray  # bool[N]
    truncated: np.ndarray  # bool[N]
    final_states: np.ndarray  # int64[N, S]
    illegal: np.ndarray  # bool[N]
    chance_log: np.ndarray  # int64[N, MAX_CHANCE_PER_STEP or 0]
    chance_count: np.ndarray  # int64[N]
    active: np.ndarray  # bool[N] envs stepped by the next step call (when not all)
    scratch: np.ndarray  # int64[chunks, chance_size]: chance outcomes, one row per chunk
    probabilities: np.ndarray  # float64[chunks, chance_size]: their probabilities
    result: np.ndarray  # float64[chunks, 2]: returns of a finished game
    listed: np.ndarray  # int64[chunks, max_legal or 1]: legal actions listed by apply_and_list
    list_scratch: np.ndarray  # int64[chunks, the game's APPLY_AND_LIST_SCRATCH or 1]
    final_moves: np.ndarray  # int64[N] moves of the games that ended in the last step
    first: np.ndarray  # int64[N] the player who holds the game's seat 0 in env i's game
    final_first: np.ndarray  # int64[N] the same for the games that ended in the last step


class _Kernels(NamedTuple):
    """The compiled game kernels the step uses (numba dispatchers; one argument, not six)."""

    current_player: Any
    legal_actions: Any
    apply_action: Any
    chance_outcomes: Any
    returns: Any
    observation_planes: Any
    legal_mask: Any  # the game's ``legal_mask(state, mask_row)``, or a no-op (``whole_mask``)
    random_action: Any  # the game's ``random_action(state, rng)``, or a no-op (``list_legal``)
    observation_update: Any  # the game's ``observation_update`` or a no-op (update_observation)
    apply_and_list: Any  # the game's ``apply_and_list`` or a no-op (``apply_lists``)
    random_outcome: Any  # the game's ``random_outcome(state, rng)`` or a no-op (``draw_outcomes``)


class _Config(NamedTuple):
    """The step's settings (values, not types: one compilation serves all)."""

    max_moves: int  # truncate after this many player moves; 0: never
    penalty: float  # reward magnitude of an illegal action ("penalty" mode)
    chance_size: int  # room for chance outcomes and their probabilities
    zero_observation: bool  # zero an observation row before the kernel writes it
    check: bool  # "raise" mode: refuse a step with an illegal action before changing anything
    whole_mask: bool  # write mask rows with the game's legal_mask kernel, not incrementally
    list_legal: bool  # keep the legal actions listed beside the mask (random actions drawn from
    # the list); False when the game has legal_mask and random_action kernels
    update_observation: bool  # within a game, rewrite rows with the game's observation_update
    apply_lists: bool  # apply actions with the game's apply_and_list, which lists the legal
    # actions of the decision it reaches (instead of legal_actions listing them again)
    draw_outcomes: bool  # sample chance with the game's random_outcome, not from its outcome list
    random_first_player: bool  # each new game draws which player takes the game's seat 0


class _Work(NamedTuple):
    """Working buffers of one chunk of envs (borrowed rows of the buffers' work arrays)."""

    scratch: np.ndarray  # int64[chance_size]: chance outcomes
    probabilities: np.ndarray  # float64[chance_size]
    result: np.ndarray  # float64[2]: returns of a finished game
    listed: np.ndarray  # int64[max_legal or 1]: legal actions listed by apply_and_list
    list_scratch: np.ndarray  # int64[APPLY_AND_LIST_SCRATCH or 1]: apply_and_list's working memory


class ObservationKernel(NamedTuple):
    """A game's compiled ``observation_planes(state, player, out)`` and how it writes ``out``.

    Attributes:
        kernel: the numba dispatcher.
        writes_every_entry: True when the kernel writes every entry of ``out`` (the game's
            kernels module sets ``OBSERVATION_WRITES_EVERY_ENTRY``); otherwise ``out`` must be
            zeroed first.
        update: the module's optional ``observation_update(state, player, out)`` dispatcher, or
            None. Its contract: ``out`` holds an observation the module wrote for an earlier
            position of the same game (or zeros), and afterwards holds the full observation of
            ``state`` by ``player``; cheaper than zeroing a large, sparse ``out`` (Tantrix's 90 KB).
    """

    kernel: Any
    writes_every_entry: bool
    update: Any = None


def observation_kernel(game: Any) -> ObservationKernel:
    """The compiled ``observation_planes(state, player, out)`` kernel ``game`` declares.

    Every built-in game declares it (``vector_kernels``, :class:`~mcts_envs.core.game.VectorKernels`).

    Raises:
        InvalidOptionError: if the game declares no such kernel.
    """
    kernel = optional_kernel(game, "observation_planes")
    if kernel is None:
        raise InvalidOptionError(
            f"{game.info.name}: VectorGame needs a compiled observation_planes kernel, declared "
            "as vector_kernels = VectorKernels(observation_planes=...) on the game's class"
        )
    writes_all = bool(_vector_kernels(game).observation_writes_every_entry)
    return ObservationKernel(kernel, writes_all, optional_kernel(game, "observation_update"))


def mask_kernel(game: Any) -> Any:
    """The game's compiled ``legal_mask(state, mask_row)`` kernel, or None.

    A game may define it in its kernels module beside ``legal_actions`` when writing a whole
    mask row is cheaper than clearing and setting its legal entries one by one (small, dense
    action spaces, e.g. Pentago Twist's 288 actions with about 175 legal); it must write every
    entry of the row, True exactly at the actions ``legal_actions`` lists (tested per game).
    """
    return optional_kernel(game, "legal_mask")


def random_action_kernel(game: Any) -> Any:
    """The game's compiled ``random_action(state, rng)`` kernel, or None.

    A game may define it in its kernels module beside ``legal_mask``: a uniformly random legal
    action of a decision ``state``, drawn with the kernel generator ``rng`` (a ``uint64[1]``
    view, :mod:`mcts_envs.core.seeding`). With both kernels a vector keeps no list of legal
    actions (Ataxx: listing about 50 moves cost more than the mask and the draw together); the
    uniformity and legality of its draws are tested per game.
    """
    return optional_kernel(game, "random_action")


def apply_and_list_kernel(game: Any) -> Any:
    """The game's compiled ``apply_and_list(state, action, legal, scratch)`` kernel, or None.

    A game may define it in its kernels module when finding the next decision already generates
    its moves (Tantrix: the search for the next player with a legal move). It applies ``action``
    as ``apply_action`` does and, when the new position is a player decision, writes its legal
    actions into ``legal`` (room for ``max_legal_actions``), the list ``legal_actions`` would
    write, and returns their count; otherwise it returns -1. The vector then lists no move twice.
    ``scratch`` is working memory the vector keeps for it (``int64[APPLY_AND_LIST_SCRATCH]``,
    a constant of the kernels module; any contents), so that no step allocates.
    """
    return optional_kernel(game, "apply_and_list")


def random_outcome_kernel(game: Any) -> Any:
    """The game's compiled ``random_outcome(state, rng)`` kernel, or None.

    A game with chance nodes may define it: an outcome of the chance node ``state`` drawn with
    the probabilities ``chance_outcomes`` gives, using the kernel generator ``rng`` (Tantrix:
    a tile uniformly from the bag, without listing the bag). The vector's chance draws then
    come from it instead of a weighted choice over the listed outcomes.
    """
    return optional_kernel(game, "random_outcome")


def optional_kernel(game: Any, name: str) -> Any:
    """The compiled kernel ``name`` that ``game`` declares in its ``vector_kernels``, or None.
    (The compiled entry points pin the identities of the dispatchers they are given, so the
    step built on it loads from numba's disk cache.)"""
    return getattr(_vector_kernels(game), name, None)


def _vector_kernels(game: Any) -> VectorKernels:
    """What ``game`` declares for the batched API (nothing for a game that declares nothing)."""
    declared = getattr(game, "vector_kernels", None)
    return declared if isinstance(declared, VectorKernels) else VectorKernels()


@njit(cache=True)
def _no_mask_kernel(state, mask):  # pragma: no cover - never called (``whole_mask`` is False)
    """Stands in for a game without ``legal_mask`` (the step updates masks incrementally)."""
    return None


@njit(cache=True)
def _no_random_action(state, rng):  # pragma: no cover - never called (``list_legal`` is True)
    """Stands in for a game without ``random_action`` (actions are drawn from the list)."""
    return -1


@njit(cache=True)
def _no_observation_update(state, player, out):  # pragma: no cover - never called
    """Stands in for a game without ``observation_update`` (``update_observation`` is False)."""
    return None


@njit(cache=True)
def _no_apply_and_list(state, action, legal, scratch):  # pragma: no cover - never called
    """Stands in for a game without ``apply_and_list`` (``apply_lists`` is False)."""
    return -1


@njit(cache=True)
def _no_random_outcome(state, rng):  # pragma: no cover - never called
    """Stands in for a game without ``random_outcome`` (``draw_outcomes`` is False)."""
    return -1


# -- compiled per-env work -----------------------------------------------------------------------
# Every compiled entry point first takes borrowed views of the buffers (no reference counting:
# the arrays outlive the call), so the per-env views below cost nothing; with counted views the
# atomic increments took about nine tenths of a Tic-Tac-Toe step.


@njit(cache=True, inline="always")
def _borrowed(buf):
    """``buf`` as borrowed views (valid during the compiled call that holds ``buf``)."""
    return _Buffers(
        borrow(buf.states),
        borrow(buf.rngs),
        borrow(buf.moves),
        borrow(buf.initial),
        borrow(buf.observation),
        borrow(buf.mask),
        borrow(buf.legal),
        borrow(buf.num_legal),
        borrow(buf.player),
        borrow(buf.rewards),
        borrow(buf.terminated),
        borrow(buf.truncated),
        borrow(buf.final_states),
        borrow(buf.illegal),
        borrow(buf.chance_log),
        borrow(buf.chance_count),
        borrow(buf.active),
        borrow(buf.scratch),
        borrow(buf.probabilities),
        borrow(buf.result),
        borrow(buf.listed),
        borrow(buf.list_scratch),
        borrow(buf.final_moves),
        borrow(buf.first),
        borrow(buf.final_first),
    )


@njit(cache=True, inline="always")
def _apply(k, state, action, config, work):
    """Apply ``action`` to ``state``; returns how many legal actions of the new position the
    game's ``apply_and_list`` listed in ``work.listed``, or -1 when none were listed."""
    if config.apply_lists:
        return k.apply_and_list(state, action, work.listed, work.list_scratch)
    k.apply_action(state, action)
    return -1


@njit(cache=True, inline="always")
def _sample_chance(k, buf, i, work, config, num_listed):
    """Sample through chance nodes of env ``i`` with its own generator; returns the player and
    the number of legal actions in ``work.listed``: ``num_listed`` (as :func:`_apply` returned
    it for the move before) when there was no chance node, else the last outcome's."""
    state = buf.states[i]
    player = k.current_player(state)
    if player != CHANCE:
        return player, num_listed
    rng = buf.rngs[i : i + 1]
    log = buf.chance_log[i]
    while player == CHANCE:
        if config.draw_outcomes:
            outcome = k.random_outcome(state, rng)
        else:
            count = k.chance_outcomes(state, work.scratch, work.probabilities)
            outcome = work.scratch[rng_choice_weighted(rng, work.probabilities, count)]
        if buf.chance_count[i] < log.shape[0]:
            log[buf.chance_count[i]] = outcome
        buf.chance_count[i] += 1
        num_listed = _apply(k, state, outcome, config, work)
        player = k.current_player(state)
    return player, num_listed


@njit(cache=True, inline="always")
def _list_legal(k, state, legal, num_listed, work):
    """Env's legal actions into ``legal``: copied from ``work.listed`` when ``num_listed >= 0``
    (:func:`_apply` listed them), else listed by the game's ``legal_actions``; returns the count."""
    if num_listed < 0:
        return k.legal_actions(state, legal)
    for j in range(num_listed):
        legal[j] = work.listed[j]
    return num_listed


@njit(cache=True, inline="always")
def _observe(k, buf, i, player, config, same_game, num_listed, work):
    """Write env ``i``'s observation, mask, legal list and player (a decision node of ``player``).

    ``same_game``: the observation row holds one of this game's earlier positions, so a game with
    an ``observation_update`` kernel (``update_observation``) rewrites it with that instead of
    zeroing it first. ``num_listed``: as :func:`_apply` returns (legal actions in ``work.listed``).

    The mask row is updated incrementally: the previous legal actions (``legal[i,
    :num_legal[i]]``) are cleared and the new ones set, so a step touches ``O(legal actions)``
    mask entries, not ``num_actions``; or, for a game with a ``legal_mask`` kernel
    (``whole_mask``), written whole by it, and then listed only when ``list_legal``.
    """
    state = buf.states[i]
    buf.player[i] = player ^ buf.first[i]  # the game's seat -> the player who holds it
    obs = buf.observation[i]
    if same_game and config.update_observation:
        k.observation_update(state, player, obs)
    else:
        if config.zero_observation:
            obs[...] = 0
        k.observation_planes(state, player, obs)
    mask = buf.mask[i]
    legal = buf.legal[i]
    if config.whole_mask:
        k.legal_mask(state, mask)
        if config.list_legal:
            buf.num_legal[i] = _list_legal(k, state, legal, num_listed, work)
        return
    for j in range(buf.num_legal[i]):
        mask[legal[j]] = False
    count = _list_legal(k, state, legal, num_listed, work)
    for j in range(count):
        mask[legal[j]] = True
    buf.num_legal[i] = count


@njit(cache=True, inline="always")
def _copy_row(destination, source):
    """``destination[:] = source`` as a plain loop (numba's slice assignment compiles a
    shape-mismatch error message: dozens of string functions per compile)."""
    for j in range(source.shape[0]):
        destination[j] = source[j]


@njit(cache=True, inline="always")
def _new_game(k, buf, i, work, config):
    """Put env ``i`` at the start of a new game and sample its deal; returns the player to move
    and the legal actions listed in ``work.listed`` (as :func:`_sample_chance`)."""
    _copy_row(buf.states[i], buf.initial)
    buf.moves[i] = 0
    if config.random_first_player:
        buf.first[i] = rng_below(buf.rngs[i : i + 1], 2)
    return _sample_chance(k, buf, i, work, config, -1)


@njit(cache=True, inline="always")
def _restart(k, buf, i, work, config):
    """Put env ``i`` at the start of a new game (sampling the deal) and observe it."""
    player, num_listed = _new_game(k, buf, i, work, config)
    _observe(k, buf, i, player, config, False, num_listed, work)


@njit(cache=True, inline="always")
def _record_returns(k, buf, i, work):
    """Env ``i``'s game ended by the rules: its returns as the step's rewards."""
    k.returns(buf.states[i], work.result)
    first = buf.first[i]  # the game's seat s is held by player s ^ first
    buf.rewards[i, first] = work.result[0]
    buf.rewards[i, 1 - first] = work.result[1]
    buf.terminated[i] = True


@njit(cache=True, inline="always")
def _keep_final(buf, i):
    """Keep env ``i``'s final state and length (its game ended in this step)."""
    _copy_row(buf.final_states[i], buf.states[i])
    buf.final_moves[i] = buf.moves[i]
    buf.final_first[i] = buf.first[i]


@njit(cache=True, inline="always")
def _enter(k, buf, i, work, config):
    """Env ``i`` holds a new position (not terminal; maybe a chance node): sample through chance
    with its generator, then observe it, or, if a draw ended the game, end it as a step would."""
    player, num_listed = _sample_chance(k, buf, i, work, config, -1)
    if player == TERMINAL:
        _record_returns(k, buf, i, work)
        _keep_final(buf, i)
        _restart(k, buf, i, work, config)
    else:
        _observe(k, buf, i, player, config, False, num_listed, work)


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
def _step_env(k, buf, i, action, config, work, trusted, restart):
    """One step of env ``i``, auto-resetting. ``trusted``: ``action`` is known to be legal
    (checked before the step, or drawn from the legal actions); otherwise an illegal one ends
    the game with a penalty. ``restart``: no step; env ``i`` starts a new game (a reset).

    Written with one call of each piece (every way a game ends reaches the same restart, and
    every path the same observation): the pieces are inlined, so each call site would be
    compiled again."""
    _clear_flags(buf, i)
    ended = True
    if restart:
        player, num_listed = TERMINAL, -1
    elif not trusted and (action < 0 or action >= buf.mask.shape[1] or not buf.mask[i, action]):
        buf.rewards[i, buf.player[i]] = -config.penalty
        buf.terminated[i] = True
        buf.illegal[i] = True
        player, num_listed = TERMINAL, -1
    else:
        num_listed = _apply(k, buf.states[i], action, config, work)
        buf.moves[i] += 1
        player, num_listed = _sample_chance(k, buf, i, work, config, num_listed)
        if player == TERMINAL:
            _record_returns(k, buf, i, work)
        elif config.max_moves > 0 and buf.moves[i] >= config.max_moves:
            buf.truncated[i] = True
        else:
            ended = False
    if ended:
        if not restart:
            _keep_final(buf, i)
        player, num_listed = _new_game(k, buf, i, work, config)
    _observe(k, buf, i, player, config, not ended, num_listed, work)


@njit(cache=True, inline="always")
def _work(buf, chunk):
    """The working buffers of chunk ``chunk`` (rows of ``buf``'s; borrowed when ``buf`` is)."""
    return _Work(
        buf.scratch[chunk],
        buf.probabilities[chunk],
        buf.result[chunk, :2],
        buf.listed[chunk],
        buf.list_scratch[chunk],
    )


def _padded_rows(rows: int, width: int, dtype: Any) -> np.ndarray:
    """Zeros ``[rows, >= width]`` whose rows start :data:`_ROW_ALIGN` bytes apart or more.

    The per-chunk work rows are written by different threads (``result`` at every game end): in
    one cache line they would bounce between cores (false sharing). Rows are padded to a whole
    number of 128-byte blocks plus one, so two threads' entries never share a cache line (or the
    pair of lines a core's adjacent-line prefetcher fetches together).
    """
    itemsize = np.dtype(dtype).itemsize
    per_block = _ROW_ALIGN // itemsize
    padded = (width + per_block - 1) // per_block * per_block + per_block
    return np.zeros((rows, padded), dtype)


#: Bytes between the starts of two chunks' work rows at least (two 64-byte cache lines).
_ROW_ALIGN = 128


#: Envs per chunk are a multiple of this (64 one-byte flags fill a cache line), so two threads
#: never write the flags, rewards or counts of envs that share a line (but at one boundary).
_CHUNK_ENVS = 64


@njit(cache=True)
def _chunk_bounds(num_envs, chunks, c):
    size = (num_envs + chunks - 1) // chunks
    size = (size + _CHUNK_ENVS - 1) // _CHUNK_ENVS * _CHUNK_ENVS
    return min(num_envs, c * size), min(num_envs, (c + 1) * size)


@njit(cache=True)
def _set_rows(k, buf, indices, states, counts, config):
    """Env ``indices[j]`` at ``states[j]`` with ``counts[j]`` moves played, for every ``j``
    (distinct, checked states); every env's rewards and flags cleared."""
    buf = _borrowed(buf)
    indices, states, counts = borrow(indices), borrow(states), borrow(counts)
    work = _work(buf, 0)
    for i in range(buf.states.shape[0]):
        _clear_flags(buf, i)
    for j in range(indices.shape[0]):
        i = indices[j]
        _copy_row(buf.states[i], states[j])
        buf.moves[i] = counts[j]
        _enter(k, buf, i, work, config)


@njit(cache=True)
def _observe_rows(k, states, players, out, zero):
    """``out[j]``: the observation of ``states[j]`` by ``players[j]`` (the game's kernel)."""
    states, players, out = borrow(states), borrow(players), borrow(out)
    for j in range(states.shape[0]):
        row = out[j]
        if zero:
            row[...] = 0
        k.observation_planes(states[j], players[j], row)


@njit(cache=True, inline="always")
def _first_illegal(buf, actions, all_active):
    """Index of the first stepped env whose action is not legal, or -1."""
    num_actions = buf.mask.shape[1]
    for i in range(actions.shape[0]):
        if not all_active and not buf.active[i]:
            continue
        action = actions[i]
        if action < 0 or action >= num_actions or not buf.mask[i, action]:
            return i
    return -1


# The serial loops and the threads call the same compiled chunk functions with the same argument
# types (``int64`` chunk bounds, never literals), so each body is compiled once for both; the
# chunk functions release the GIL, and with ``threads`` each thread runs its chunk's envs through
# a whole call (a rollout: all its steps) without meeting the others.


@njit(cache=True, nogil=True)
def _step_chunk(k, buf, actions, chunk, lo, hi, config, all_active, restart):
    """One step of the (active) envs ``lo..hi`` with chunk ``chunk``'s work rows; with
    ``restart`` a new game in each of them instead (``actions`` unused)."""
    buf = _borrowed(buf)
    actions = borrow(actions)
    work = _work(buf, chunk)
    for i in range(lo, hi):
        if restart or all_active or buf.active[i]:
            _step_env(k, buf, i, actions[i], config, work, config.check, restart)
        else:
            _clear_flags(buf, i)


@njit(cache=True)
def _check_step(buf, actions, all_active):
    """Index of the first stepped env whose action is not legal, or -1 (before threads step)."""
    return _first_illegal(_borrowed(buf), borrow(actions), all_active)


@njit(cache=True)
def _step_serial(k, buf, actions, config, chunks, all_active, restart):
    """One step of every (active) env; returns -1, or (``check``) the first illegal env. With
    ``restart``: a new game in every env (the reset: one compiled body serves both)."""
    if config.check and not restart:
        bad = _first_illegal(_borrowed(buf), borrow(actions), all_active)
        if bad >= 0:
            return bad
    for c in range(chunks):
        lo, hi = _chunk_bounds(buf.states.shape[0], chunks, np.int64(c))
        _step_chunk(k, buf, actions, np.int64(c), lo, hi, config, all_active, restart)
    return -1


@njit(cache=True, nogil=True)
def _rollout_chunk(k, buf, action_rngs, num_steps, chunk, lo, hi, config):
    """``num_steps`` uniformly random legal steps of envs ``lo..hi``; returns games finished."""
    buf = _borrowed(buf)
    action_rngs = borrow(action_rngs)
    work = _work(buf, chunk)
    finished = 0
    for i in range(lo, hi):
        rng = action_rngs[i : i + 1]
        for _ in range(num_steps):
            action = _random_action(k, buf, i, rng, config)
            _step_env(k, buf, i, action, config, work, True, False)
            if buf.terminated[i] or buf.truncated[i]:
                finished += 1
    return finished


@njit(cache=True)
def _rollout_serial(k, buf, action_rngs, num_steps, config, chunks):
    finished = 0
    for c in range(chunks):
        lo, hi = _chunk_bounds(buf.states.shape[0], chunks, np.int64(c))
        finished += _rollout_chunk(k, buf, action_rngs, num_steps, np.int64(c), lo, hi, config)
    return finished


def _thread_pool(workers: int) -> ThreadPoolExecutor:
    """The process's pool of ``workers`` threads that run chunks beside the calling thread (a
    forked child gets its own: the parent's threads do not exist in it)."""
    return _pool_of_process(workers, os.getpid())


@functools.cache
def _pool_of_process(workers: int, pid: int) -> ThreadPoolExecutor:
    return ThreadPoolExecutor(max_workers=workers, thread_name_prefix="mcts-envs-vector")


@njit(cache=True, inline="always")
def _random_action(k, buf, i, rng, config):
    """A uniformly random legal action of env ``i`` drawn with ``rng``: an entry of its legal
    list, or (no list kept) drawn by the game's ``random_action`` kernel from its state."""
    if config.list_legal:
        return buf.legal[i, rng_below(rng, buf.num_legal[i])]
    return k.random_action(buf.states[i], rng)


@njit(cache=True)
def _random_actions(k, buf, rngs, out, config):
    """``out[i]``: a uniformly random legal action of env ``i`` drawn with ``rngs[i]``."""
    buf = _borrowed(buf)
    rngs = borrow(rngs)
    out = borrow(out)
    for i in range(out.shape[0]):
        out[i] = _random_action(k, buf, i, rngs[i : i + 1], config)


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


#: The vector classes of the other devices: ``VectorGame(..., device=name)`` builds
#: ``module.class_name(...)`` with the other arguments (a module built on this one, named here
#: rather than imported, so the CPU path never loads it: numba-cuda for ``"cuda"``).
DEVICE_BACKENDS = {"cuda": ("mcts_envs.cuda.vector", "CudaVectorGame")}

#: XOR-ed into the env generators' seeds to get the action generators (a stream apart).
_ACTION_STREAM = np.uint64(0xA5A5A5A5A5A5A5A5)


def _read_only(array: np.ndarray) -> np.ndarray:
    view = array.view()
    view.flags.writeable = False
    return view


class VectorGame:
    """``num_envs`` games of one kind stepped together by compiled code (see the module docstring).

    Args:
        game: a registered game name (``mcts_envs.list_games()``).
        num_envs: ``N``, the number of games (>= 1).
        seed: seed of the per-env chance generators and of :meth:`random_actions` (``None``:
            fresh entropy).
        max_moves: truncate a game after this many player moves (``None``: never).
        illegal_action: ``"raise"`` (default) or ``"penalty"`` (see the module docstring).
        penalty: the reward magnitude of an illegal action in ``"penalty"`` mode.
        threads: step chunks of the envs on threads (same results; see the module docstring).
        copy: ``True`` (default): :meth:`reset` and :meth:`step` return fresh arrays.
            ``False``: they return read-only views of the vector's own buffers, overwritten by
            the next :meth:`reset` or :meth:`step` (copy what you keep; faster for large ``N``).
        random_first_player: ``False`` (default): player 0 holds the game's seat 0 (moves first,
            plays X, white, the first colour) in every game. ``True``: each new game draws who
            does, a fair coin from the env's chance generator (so seeded as the chance draws are),
            as pgx does; ``current_player``, ``rewards`` and :meth:`observe` then name players,
            and ``batch.first_player`` says who holds seat 0.
        device: ``"cpu"`` (default) or ``"cuda"``: the envs on a GPU, one thread per env, the
            batch as device arrays (a :class:`mcts_envs.cuda.vector.CudaVectorGame`; needs the
            ``cuda`` extra).
        **game_kwargs: the game's options (e.g. Tantrix's ``colors``).

    Raises:
        UnknownGameError: for an unknown game.
        InvalidOptionError: for a bad ``num_envs``, ``max_moves``, ``illegal_action``, ``copy``,
            ``random_first_player``, ``device`` or option.
        InvalidSeedError: for a bad seed.

    ``copy.deepcopy`` gives an independent vector (the same games, generators and last batch, in
    buffers of its own) and ``pickle`` round-trips one mid-game; both rebuild the vector from its
    options and copy the buffers in, so the copy loads its compiled code from numba's cache.
    """

    device = "cpu"

    def __new__(cls, *args: Any, device: str = "cpu", **options: Any) -> Any:
        if device == "cpu":
            return super().__new__(cls)
        backend = DEVICE_BACKENDS.get(device)
        if backend is None:
            allowed = ", ".join(repr(name) for name in ("cpu", *DEVICE_BACKENDS))
            raise InvalidOptionError(f"device must be one of {allowed}, got {device!r}")
        module, name = backend  # imported when asked for: the CPU path never loads it
        return getattr(importlib.import_module(module), name)(*args, **options)

    def __init__(
        self,
        game: str,
        num_envs: int,
        seed: int | None = None,
        *,
        device: str = "cpu",
        max_moves: int | None = None,
        illegal_action: str = "raise",
        penalty: float = 1.0,
        threads: bool = False,
        copy: bool = True,
        random_first_player: bool = False,
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
        for option, value in (("copy", copy), ("random_first_player", random_first_player)):
            if not isinstance(value, (bool, np.bool_)):
                raise InvalidOptionError(f"{option} must be True or False, got {value!r}")
        self.game = make_game(game, **game_kwargs)
        self._game_kwargs = dict(game_kwargs)
        self.random_first_player = bool(random_first_player)
        self.num_envs = int(num_envs)
        self.max_moves = max_moves
        self.illegal_action = illegal_action
        self.penalty = float(penalty)
        self.threads = bool(threads)
        self.copy = bool(copy)
        info = self.game.info
        self.info = info
        n = self.num_envs
        kernels = self.game.kernels
        observation = observation_kernel(self.game)
        whole_mask = mask_kernel(self.game)
        random_action = random_action_kernel(self.game)
        list_legal = whole_mask is None or random_action is None
        apply_and_list = apply_and_list_kernel(self.game)
        list_scratch_size = 1
        if apply_and_list is not None:
            list_scratch_size = int(_vector_kernels(self.game).apply_and_list_scratch)
        random_outcome = random_outcome_kernel(self.game)
        self._kernels = _Kernels(
            kernels.current_player,
            kernels.legal_actions,
            kernels.apply_action,
            kernels.chance_outcomes,
            kernels.returns,
            observation.kernel,
            _no_mask_kernel if whole_mask is None else whole_mask,
            _no_random_action if list_legal else random_action,
            _no_observation_update if observation.update is None else observation.update,
            _no_apply_and_list if apply_and_list is None else apply_and_list,
            _no_random_outcome if random_outcome is None else random_outcome,
        )
        chance_room = MAX_CHANCE_PER_STEP if info.has_chance else 0
        seed = check_seed(seed)
        chunks = int(min(-(-n // _CHUNK_ENVS), _num_threads())) if threads else 1
        # rounding chunks up to whole lines can leave the last ones empty: fewer chunks instead
        self._chunks = chunks = -(-n // _chunk_bounds.py_func(n, chunks, 0)[1])
        self._bounds = [_chunk_bounds.py_func(n, chunks, c) for c in range(chunks)]
        chance_size = int(max(info.max_chance_outcomes, 1))
        self._buf = _Buffers(
            states=np.zeros((n, info.state_size), np.int64),
            rngs=env_rngs(seed, n),
            moves=np.zeros(n, np.int64),
            initial=self.game.initial_state(),
            observation=np.zeros((n, *info.observation_shape), info.observation_dtype),
            mask=np.zeros((n, info.num_actions), np.bool_),
            legal=np.zeros((n, max(info.max_legal_actions, 1)), np.int64),
            num_legal=np.zeros(n, np.int64),
            player=np.zeros(n, np.int64),
            rewards=np.zeros((n, 2), np.float32),
            terminated=np.zeros(n, np.bool_),
            truncated=np.zeros(n, np.bool_),
            final_states=np.zeros((n, info.state_size), np.int64),
            illegal=np.zeros(n, np.bool_),
            chance_log=np.zeros((n, chance_room), np.int64),
            chance_count=np.zeros(n, np.int64),
            active=np.ones(n, np.bool_),
            scratch=_padded_rows(chunks, chance_size, np.int64),
            probabilities=_padded_rows(chunks, chance_size, np.float64),
            result=_padded_rows(chunks, 2, np.float64),
            listed=_padded_rows(
                chunks,
                max(info.max_legal_actions, 1) if apply_and_list is not None else 1,
                np.int64,
            ),
            list_scratch=_padded_rows(chunks, list_scratch_size, np.int64),
            final_moves=np.zeros(n, np.int64),
            first=np.zeros(n, np.int64),
            final_first=np.zeros(n, np.int64),
        )
        self._action_rngs = self._buf.rngs ^ _ACTION_STREAM
        self._config = _Config(
            max_moves=int(max_moves or 0),
            penalty=self.penalty,
            chance_size=chance_size,
            zero_observation=not observation.writes_every_entry,
            check=illegal_action == "raise",
            whole_mask=whole_mask is not None,
            list_legal=list_legal,
            update_observation=observation.update is not None,
            apply_lists=apply_and_list is not None,
            draw_outcomes=random_outcome is not None,
            random_first_player=self.random_first_player,
        )
        buf = self._buf
        self._views = VectorBatch(
            observation=_read_only(buf.observation),
            legal_action_mask=_read_only(buf.mask),
            current_player=_read_only(buf.player),
            rewards=_read_only(buf.rewards),
            terminated=_read_only(buf.terminated),
            truncated=_read_only(buf.truncated),
            final_state=_read_only(buf.final_states),
            illegal=_read_only(buf.illegal),
            chance_outcomes=_read_only(buf.chance_log),
            num_chance_outcomes=_read_only(buf.chance_count),
            step_count=_read_only(buf.moves),
            final_step_count=_read_only(buf.final_moves),
            first_player=_read_only(buf.first),
            final_first_player=_read_only(buf.final_first),
        )
        self._states_view = _read_only(buf.states)
        self._compiled: dict[str, Any] = {}
        self._started = False

    # -- compiled entry points ----------------------------------------------------------------
    def _entry(self, name: str) -> Any:
        """The compiled entry point ``name`` for this game and buffer layout (compiled once).

        Compiles on first use, or loads from numba's disk cache (seconds per game the first
        time on a machine, well under a second afterwards). A real compile is announced on
        standard error with its duration (:func:`~mcts_envs.core.compiling.compile_notice`).
        """
        entry = self._compiled.get(name)
        if entry is None:
            k, buf, config = self._kernels, self._buf, self._config
            actions = np.zeros(self.num_envs, np.int64)
            rngs = np.zeros(self.num_envs, np.uint64)
            # (dispatcher, sample arguments, positions of our own long-lived objects: the
            # kernels, buffers, settings and action generators, each checked once)
            samples = {
                "step": (_step_serial, (k, buf, actions, config, 1, True, False), (0, 1, 3)),
                "check": (_check_step, (buf, actions, True), (0,)),
                "step_chunk": (
                    _step_chunk,
                    (k, buf, actions, 0, 0, 1, config, True, False),
                    (0, 1, 6),
                ),
                "rollout": (_rollout_serial, (k, buf, rngs, 1, config, 1), (0, 1, 2, 4)),
                "rollout_chunk": (_rollout_chunk, (k, buf, rngs, 1, 0, 0, 1, config), (0, 1, 2, 7)),
                "random_actions": (_random_actions, (k, buf, rngs, actions, config), (0, 1, 2, 4)),
                "set_rows": (_set_rows, (k, buf, actions, buf.states, actions, config), (0, 1, 5)),
                "observe": (_observe_rows, (k, buf.states, actions, buf.observation, True), (0,)),
            }
            dispatcher, sample, persistent = samples[name]
            with compile_notice(f"VectorGame.{name} for {self.info.name}", print_to_stderr):
                entry = self._compiled[name] = entry_point(dispatcher, sample, persistent)
        return entry

    def _call(self, name: str, *args: Any) -> Any:
        """Call entry ``name``; the kernels, buffers and config (ours, fixed) are checked once."""
        return self._entry(name)(*args)

    @property
    def _threaded(self) -> bool:
        return self.threads and self._chunks > 1

    def _call_chunks(self, name: str, arguments: Any) -> list[Any]:
        """Entry ``name`` on every chunk at once, with ``arguments(chunk, lo, hi)``: chunk 0 on
        this thread, the others on the thread pool (the entries release the GIL); returns the
        results in chunk order once every chunk is done."""
        entry = self._entry(name)
        pool = _thread_pool(self._chunks - 1)
        calls = [arguments(c, lo, hi) for c, (lo, hi) in enumerate(self._bounds)]
        futures = [pool.submit(entry, *call) for call in calls[1:]]
        try:
            first = entry(*calls[0])
        finally:
            results = [future.result() for future in futures]
        return [first, *results]

    def compile(self, rollout: bool = False) -> None:
        """Compile (or load) the step (and with ``rollout`` the compiled loop) before timing."""
        names = ("step", "check", "step_chunk") if self._threaded else ("step",)
        names += ("random_actions",)
        if rollout:
            names += ("rollout_chunk",) if self._threaded else ("rollout",)
        for name in names:
            self._entry(name)

    # -- API ----------------------------------------------------------------------------------
    def reset(self, seed: int | None = None) -> VectorBatch:
        """Start a new game in every env; ``seed`` re-seeds the per-env chance generators and
        those of :meth:`random_actions`.

        Returns:
            The first positions (rewards zero, no flags set); views overwritten by the next
            call when the vector was built with ``copy=False``.

        Raises:
            InvalidSeedError: for a bad seed.
        """
        seed = check_seed(seed)
        if seed is not None:
            self._buf.rngs[:] = env_rngs(seed, self.num_envs)
            self._action_rngs[:] = self._buf.rngs ^ _ACTION_STREAM
        buf = self._buf  # the step's entry with restart=True (buf.moves: unused actions)
        self._call("step", self._kernels, buf, buf.moves, self._config, 1, True, True)
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

        Returns:
            The batch after the step; with ``copy=False`` read-only views of the vector's
            buffers that the next :meth:`step` or :meth:`reset` overwrites.

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
        all_active = active is None
        if not all_active:
            active = np.asarray(active)
            if active.shape != (self.num_envs,) or active.dtype != np.bool_:
                raise InvalidOptionError(
                    f"active must be a bool array of shape ({self.num_envs},), got "
                    f"{active.dtype}{active.shape}"
                )
            self._buf.active[:] = active
        k, buf, config = self._kernels, self._buf, self._config
        if self._threaded:
            bad = self._call("check", buf, actions, all_active) if config.check else -1
            if bad < 0:
                self._call_chunks(
                    "step_chunk",
                    lambda c, lo, hi: (k, buf, actions, c, lo, hi, config, all_active, False),
                )
        else:
            bad = self._call("step", k, buf, actions, config, 1, all_active, False)
        if bad >= 0:
            raise IllegalActionError(self._illegal_message(bad, int(actions[bad])))
        return self._batch()

    def random_actions(self, out: np.ndarray | None = None) -> np.ndarray:
        """A uniformly random legal action for every env at its current position (compiled).

        Env ``i``'s choices come from its own generator, seeded from ``(seed, i)`` (the
        constructor's or the last :meth:`reset`'s seed, a stream apart from the chance
        generators), so they do not depend on ``N`` or threads. Draws from the legal actions
        kept beside the mask (``O(1)`` per env, no scan of the mask), or by the game's
        ``random_action`` kernel from the position where it has one (Tic-Tac-Toe, Ataxx,
        Pentago Twist).

        Args:
            out: optional ``int64[N]`` array to write into (returned).

        Raises:
            RuntimeError: before :meth:`reset`.
            InvalidOptionError: for an ``out`` that is not a writable ``int64[N]`` array.
        """
        if not self._started:
            raise RuntimeError("VectorGame: call reset() before random_actions()")
        if out is None:
            out = np.empty(self.num_envs, np.int64)
        elif (
            not isinstance(out, np.ndarray)
            or out.shape != (self.num_envs,)
            or out.dtype != np.int64
            or not out.flags.c_contiguous
            or not out.flags.writeable
        ):
            raise InvalidOptionError(
                f"out must be a writable contiguous int64 array of shape ({self.num_envs},)"
            )
        self._call("random_actions", self._kernels, self._buf, self._action_rngs, out, self._config)
        return out

    def random_rollout(self, num_steps: int, seed: int | None = None) -> int:
        """Play ``num_steps`` uniformly random legal steps in every env inside one compiled loop.

        The fully compiled loop of the benchmarks: each step computes the same observations,
        masks, rewards and auto-resets as :meth:`step` (the batch arrays hold the last step's).
        Returns the number of games finished. Actions come from the generators of
        :meth:`random_actions` (per env, so independent of ``N`` and threads), continued from
        where they are, or first re-seeded from ``seed`` when it is given.

        Raises:
            InvalidSeedError: for a bad seed.
        """
        seed = check_seed(seed)
        if not self._started:
            self.reset()
        if seed is not None:
            self._action_rngs[:] = env_rngs(seed, self.num_envs) ^ _ACTION_STREAM
        k, buf, rngs, config, steps = (
            self._kernels,
            self._buf,
            self._action_rngs,
            self._config,
            int(num_steps),
        )
        if self._threaded:
            finished = self._call_chunks(
                "rollout_chunk", lambda c, lo, hi: (k, buf, rngs, steps, c, lo, hi, config)
            )
            return int(sum(finished))
        return int(self._call("rollout", k, buf, rngs, steps, config, 1))

    @property
    def states(self) -> np.ndarray:
        """A copy of the ``int64[N, state_size]`` forward-model states (at decision nodes).

        Put positions in with :meth:`set_states`, branch one env into others with
        :meth:`copy_states`; :meth:`get_states` also gives what a restore needs.
        """
        return self._buf.states.copy()

    @property
    def states_view(self) -> np.ndarray:
        """A read-only view of the ``int64[N, state_size]`` states buffer itself (no copy: it
        changes with every call that moves a game; :attr:`states` is a copy)."""
        return self._states_view

    @property
    def step_count(self) -> np.ndarray:
        """A copy of ``int64[N]``: the moves played in each env's current game (as
        ``VectorBatch.step_count``)."""
        return self._buf.moves.copy()

    @property
    def batch(self) -> VectorBatch:
        """The batch the last :meth:`reset`, :meth:`step`, :meth:`set_states` or
        :meth:`copy_states` returned, as the vector returns batches (fresh copies, or with
        ``copy=False`` the read-only views that every call returns).

        Raises:
            RuntimeError: before :meth:`reset`.
        """
        self._require_started("batch")
        return self._batch()

    def legal_lists(self) -> tuple[np.ndarray, np.ndarray] | None:
        """Read-only views ``(legal int64[N, max_legal_actions], counts int64[N])`` of the legal
        actions kept beside the masks (env ``i``'s are ``legal[i, :counts[i]]``, in the order the
        game's kernel lists them), or ``None`` for a game whose vector keeps no list (its masks are
        written whole and random actions drawn from the position: Tic-Tac-Toe, Pentago Twist,
        Ataxx). Overwritten by the next call; a sampler over them costs ``O(1)`` per env where one
        over Tantrix's 121,104-wide mask rows costs ``O(num_actions)``.

        Raises:
            RuntimeError: before :meth:`reset`.
        """
        self._require_started("legal_lists()")
        if not self._config.list_legal:
            return None
        return _read_only(self._buf.legal), _read_only(self._buf.num_legal)

    def get_states(self, indices: Any = None) -> VectorStates:
        """Everything that decides how envs ``indices`` (default: all) go on, copied: their states,
        step counts, chance generators and first players (:class:`VectorStates`).

        ``vg.set_states(indices, *saved)`` puts them back: the same actions then give the same
        observations, rewards and chance draws as after the save (Tantrix included). The
        generators of :meth:`random_actions` are not part of it (they choose actions).

        Raises:
            RuntimeError: before :meth:`reset`.
            InvalidOptionError: for bad ``indices``.
        """
        self._require_started("get_states()")
        rows = self._rows(indices)
        buf = self._buf
        return VectorStates(buf.states[rows], buf.moves[rows], buf.rngs[rows], buf.first[rows])

    def set_states(
        self,
        indices: Any,
        states: Any,
        step_counts: Any = None,
        chance_rngs: Any = None,
        first_players: Any = None,
    ) -> VectorBatch:
        """Put env ``indices[j]`` at position ``states[j]`` (an evaluation from chosen positions, an
        opening suite, the root of a batched search, a saved batch); the other envs keep their
        games.

        Every state is checked first by ``game.validate_state`` (the game's record reader), so no
        position the kernels cannot handle gets in, and nothing changes when one is refused. A
        chance node is sampled through with the env's own generator (the outcomes are reported in
        ``chance_outcomes``, as after a step). ``vg.set_states(indices, *vg.get_states(indices))``
        restores what :meth:`get_states` saved, chance generators included.

        Args:
            indices: distinct env indices ``0..N-1`` (an integer array-like of length ``M``).
            states: ``int64[M, state_size]`` positions of this game, none of them finished.
            step_counts: optional ``M`` integers ``>= 0``: the moves already played in each game
                (its ``step_count``, counted against ``max_moves``); default 0.
            chance_rngs: optional ``uint64[M]`` chance generator states (from
                :meth:`get_states`); default: each env keeps its own generator where it is.
            first_players: optional ``M`` players (0 or 1) holding the game's seat 0; default:
                each env keeps its current game's.

        Returns:
            The batch: the new positions' observations, masks and players in rows ``indices``,
            the other rows unchanged; every env's rewards and flags zero (as for envs left out of
            a :meth:`step` by ``active``), except a game that a chance draw ended, reported as a
            step would (terminated, rewards, final state, a new game).

        Raises:
            RuntimeError: before :meth:`reset`.
            InvalidOptionError: for bad ``indices``, ``step_counts``, ``chance_rngs`` or
                ``first_players``, a ``states`` array of the wrong length, or a finished game.
            TypeError: if ``states`` is not an int64 array of shape ``[M, state_size]``.
            InvalidRecordError: if a state is not a valid position of this game (the message
                names its row).
        """
        self._require_started("set_states()")
        indices, states, counts, rngs, firsts = self._check_restore(
            indices, states, step_counts, chance_rngs, first_players
        )
        buf = self._buf
        if rngs is not None:
            buf.rngs[indices] = rngs
        if firsts is not None:
            buf.first[indices] = firsts
        self._call("set_rows", self._kernels, buf, indices, states, counts, self._config)
        return self._batch()

    def copy_states(self, sources: Any, destinations: Any) -> VectorBatch:
        """Branch env ``sources[j]``'s game into env ``destinations[j]``, for every ``j``.

        The destination takes the source's position, step count, first player, observation, mask
        and player as they were before the call (a source may be copied to several envs and may
        itself be overwritten by another copy). Chance generators are not copied: each env keeps
        its own, so branches of a game with chance draw different futures (give
        :meth:`set_states` the source's ``chance_rngs`` for the same future).

        Args:
            sources: env indices ``0..N-1`` (an integer array-like of length ``M``; repeats
                allowed).
            destinations: ``M`` distinct env indices.

        Returns:
            The batch (rows ``destinations`` now equal to the sources' rows; every env's rewards
            and flags zero, as for envs left out of a :meth:`step` by ``active``).

        Raises:
            RuntimeError: before :meth:`reset`.
            InvalidOptionError: for indices out of range, repeated destinations or lengths that
                differ.
        """
        self._require_started("copy_states()")
        sources, destinations = self._check_copies(sources, destinations)
        buf = self._buf
        for array in (buf.states, buf.moves, buf.observation, buf.mask, buf.legal):
            array[destinations] = array[sources]
        for array in (buf.num_legal, buf.player, buf.first):
            array[destinations] = array[sources]
        for array in (buf.rewards, buf.terminated, buf.truncated, buf.illegal, buf.chance_count):
            array[...] = 0
        return self._batch()

    def observe(self, players: Any, states: Any = None) -> np.ndarray:
        """Observations of the envs' positions from ``players``' views, by the compiled kernel.

        ``vg.observe(1 - batch.current_player)`` is the seat not on move (e.g. a critic's or an
        opponent's input); ``vg.observe(0)`` every position from ``player_0``'s view.

        Args:
            players: 0 or 1 for every row, or ``M`` of them (an integer array-like).
            states: optional ``int64[M, state_size]`` states to observe instead of the envs'
                current ones, each checked as ``game.observation`` checks its state
                (``game.check_state``: type, shape and the words' ranges, so no array can crash
                the kernel; not that the position can occur, ``game.validate_state``'s job);
                ``players`` are then the game's seats, as in ``game.observation`` (with
                ``random_first_player``, seat ``s`` of env ``i``'s game is held by player
                ``s ^ first_player[i]``).

        Returns:
            A fresh ``[M, *observation_shape]`` array (``M = N`` without ``states``).

        Raises:
            RuntimeError: before :meth:`reset` (without ``states``).
            InvalidOptionError: if a player is not 0 or 1, or there are not ``M`` of them.
            TypeError: if ``states`` is not an int64 array of shape ``[M, state_size]``.
            InvalidStateError: (an ``InvalidRecordError``) if a row has words out of range (the
                message names the row).
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
            states = self._buf.states
        else:
            states = self._check_states(states, None, validate=False)
        count = states.shape[0]
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
        players = np.ascontiguousarray(array, dtype=np.int64)
        if own and self.random_first_player:
            players = players ^ self._buf.first  # players -> the game's seats they hold
        info = self.info
        zero = self._config.zero_observation
        out = (np.zeros if zero else np.empty)(
            (count, *info.observation_shape), info.observation_dtype
        )
        self._call("observe", self._kernels, states, players, out, False)
        return out

    # -- helpers ------------------------------------------------------------------------------
    def _require_started(self, what: str) -> None:
        if not self._started:
            raise RuntimeError(f"VectorGame: call reset() before {what}")

    def _rows(self, indices: Any) -> np.ndarray:
        """The env rows ``indices`` names (every env for ``None``; repeats allowed)."""
        if indices is None:
            return np.arange(self.num_envs)
        return self._check_indices(indices, "indices", distinct=False)

    def _check_restore(
        self,
        indices: Any,
        states: Any,
        step_counts: Any,
        chance_rngs: Any,
        first_players: Any,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None, np.ndarray | None]:
        """:meth:`set_states`' arguments checked: ``(indices, states, step_counts, chance_rngs,
        first_players)``, the step counts 0 where not given, the other optional columns ``None``.

        Raises:
            InvalidOptionError, TypeError, InvalidRecordError: as :meth:`set_states` says.
        """
        indices = self._check_indices(indices, "indices")
        count = len(indices)
        states = self._check_states(states, count, validate=True)
        counts = _check_column(step_counts, count, "step_counts", "integers >= 0", "iu", 0, None)
        rngs = _check_column(chance_rngs, count, "chance_rngs", "uint64 generator states", "u")
        firsts = _check_column(first_players, count, "first_players", "players 0 or 1", "iu", 0, 1)
        if counts is None:
            counts = np.zeros(count, np.int64)
        return indices, states, counts, rngs, firsts

    def _check_copies(self, sources: Any, destinations: Any) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`copy_states`' arguments checked (repeated sources allowed, destinations
        distinct, as many of each).

        Raises:
            InvalidOptionError: as :meth:`copy_states` says.
        """
        sources = self._check_indices(sources, "sources", distinct=False)
        destinations = self._check_indices(destinations, "destinations")
        if len(sources) != len(destinations):
            raise InvalidOptionError(
                f"copy_states needs as many sources as destinations, got {len(sources)} and "
                f"{len(destinations)}"
            )
        return sources, destinations

    def _check_indices(self, indices: Any, name: str, distinct: bool = True) -> np.ndarray:
        """``indices`` as a contiguous int64 array of env indices (distinct unless told).

        Raises:
            InvalidOptionError: naming what was wrong and the allowed range.
        """
        array = np.asarray(indices)
        if array.ndim != 1 or (array.size and array.dtype.kind not in "iu"):
            raise InvalidOptionError(
                f"{name} must be a 1-D integer array of env indices, got {array.dtype}{array.shape}"
            )
        array = np.ascontiguousarray(array, dtype=np.int64)
        outside = array[(array < 0) | (array >= self.num_envs)]
        if outside.size:
            raise InvalidOptionError(
                f"{name}: env index {int(outside[0])} is outside 0..{self.num_envs - 1}"
            )
        if distinct and np.unique(array).size != array.size:
            values, counts = np.unique(array, return_counts=True)
            raise InvalidOptionError(
                f"{name}: env {int(values[counts > 1][0])} is given more than once"
            )
        return array

    def _check_states(self, states: Any, count: int | None, validate: bool) -> np.ndarray:
        """``states`` as a writable C-contiguous ``int64[count, state_size]`` array whose every
        row the kernels can run on (``game.check_state``: words in range); with ``validate``
        every row is also a valid, unfinished position (``game.validate_state``).

        Raises:
            StateTypeError: (a ``TypeError``) for another dtype or shape.
            InvalidOptionError: for a row count other than ``count``, or a finished game.
            InvalidRecordError: for an invalid position or (an ``InvalidStateError``) words out
                of range (naming the row).
        """
        size = self.info.state_size
        if (
            not isinstance(states, np.ndarray)
            or states.dtype != np.int64
            or states.ndim != 2
            or states.shape[1] != size
        ):
            got = (
                f"{states.dtype}{states.shape}"
                if isinstance(states, np.ndarray)
                else type(states).__name__
            )
            raise StateTypeError(f"states must be an int64 array of shape [M, {size}], got {got}")
        if count is not None and states.shape[0] != count:
            raise InvalidOptionError(
                f"states has {states.shape[0]} rows for {count} env indices (one state per index)"
            )
        states = np.array(states, dtype=np.int64, order="C")  # our own writable copy
        for j, state in enumerate(states):
            try:
                if validate:
                    self.game.validate_state(state)
                else:
                    self.game.check_state(state)  # the words' ranges: no kernel can crash
            except InvalidRecordError as error:  # InvalidStateError stays one
                raise type(error)(f"states[{j}]: {error}") from None
            if validate and self.game.kernels.current_player(state) == TERMINAL:
                raise InvalidOptionError(
                    f"states[{j}] is a finished game; an env holds a position where a player "
                    "(or chance) is to act"
                )
        return states

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
        if not self.copy:
            return self._views
        return VectorBatch(*(view.copy() for view in self._views))

    def __repr__(self) -> str:
        return f"VectorGame({self.info.name!r}, num_envs={self.num_envs})"

    # -- copy and pickle ----------------------------------------------------------------------
    def __getstate__(self) -> dict[str, Any]:
        """The vector's options and the buffers that hold its games (not its compiled code,
        work rows or views, which :meth:`__setstate__` rebuilds)."""
        options = dict(
            max_moves=self.max_moves,
            illegal_action=self.illegal_action,
            penalty=self.penalty,
            threads=self.threads,
            copy=self.copy,
            random_first_player=self.random_first_player,
        )
        return {
            "game": self.info.name,
            "num_envs": self.num_envs,
            "options": options,
            "game_kwargs": dict(self._game_kwargs),
            "buffers": {name: getattr(self._buf, name) for name in _CARRIED_BUFFERS},
            "action_rngs": self._action_rngs,
            "started": self._started,
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        """Rebuild the vector from its options, then copy the saved buffers in.

        Raises:
            InvalidOptionError: if a saved buffer does not have the shape and dtype this vector
                needs (a pickle from another version or a damaged one); nothing is built.
        """
        self.__init__(
            state["game"],
            state["num_envs"],
            0,  # the saved generators replace the seeded ones below
            **state["options"],
            **state["game_kwargs"],
        )
        saved = dict(state["buffers"], action_rngs=state["action_rngs"])
        targets = {name: getattr(self._buf, name) for name in _CARRIED_BUFFERS}
        targets["action_rngs"] = self._action_rngs
        for name, target in targets.items():
            value = saved.get(name)
            if (
                not isinstance(value, np.ndarray)
                or value.shape != target.shape
                or value.dtype != target.dtype
            ):
                got = f"{value.dtype}{value.shape}" if isinstance(value, np.ndarray) else value
                raise InvalidOptionError(
                    f"cannot restore VectorGame({state['game']!r}): its {name} buffer should be "
                    f"{target.dtype}{target.shape}, got {got}"
                )
        for name, target in targets.items():
            target[...] = saved[name]
        self._started = bool(state["started"])


#: The buffers that hold the envs' games and last batch (what a copy or a pickle carries).
_CARRIED_BUFFERS = (
    "states",
    "rngs",
    "moves",
    "observation",
    "mask",
    "legal",
    "num_legal",
    "player",
    "rewards",
    "terminated",
    "truncated",
    "final_states",
    "illegal",
    "chance_log",
    "chance_count",
    "active",
    "final_moves",
    "first",
    "final_first",
)


def _check_column(
    values: Any,
    count: int,
    name: str,
    what: str,
    kinds: str,
    low: int | None = None,
    high: int | None = None,
) -> np.ndarray | None:
    """``values`` as ``count`` contiguous integers of the buffers' dtype, or None for None.

    Raises:
        InvalidOptionError: naming ``name``, what it must hold and what it got.
    """
    if values is None:
        return None
    array = np.asarray(values)
    bad = array.shape != (count,) or (array.size and array.dtype.kind not in kinds)
    if not bad and array.size:
        bad = (low is not None and array.min() < low) or (high is not None and array.max() > high)
    if bad:
        raise InvalidOptionError(
            f"{name} must be {count} {what} (one per index), got {array.dtype}{array.shape}"
        )
    return np.ascontiguousarray(array, dtype=np.uint64 if kinds == "u" else np.int64)


def _num_threads() -> int:
    import numba

    return int(numba.get_num_threads())
