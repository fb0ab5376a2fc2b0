"""One search from a root state: the compiled loop (:func:`agents.mcts.search.run_chunk`) run in
chunks under an iteration or time budget, with one budget, tree-growth and stop logic for every
kind of leaf evaluation.

An :class:`Engine` holds what every search of one game under one set of options reuses: the
compiled entry points, the loop settings and the work buffers, built (and their types checked)
once, so a decision calls the compiled code directly; :func:`engine` keeps the engines of recent
games and settings, one set per thread (as numba keeps compiled code). Between chunks the
engine grows the tree (only if copying it fits in the time left), completes leaves evaluated in
Python (a learned evaluator or a Python rollout, in batches) and checks the clock; chunk lengths
adapt to the measured speed (about 5 ms each), so a time budget is kept to within milliseconds.
"""

from __future__ import annotations

import contextlib
import functools
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
from numba.core.dispatcher import Dispatcher

from agents.base import search_buffer_size
from agents.mcts.final import RootSummary, summarise_root
from agents.mcts.puct import RootNoise, external_values
from agents.mcts.search import (
    LEAF_EXTERNAL,
    LEAF_MINIMAX2,
    LEAF_PLAYOUT,
    SELECT_PUCT,
    SELECT_UCT,
    LoopSettings,
    finish_pending,
    make_pending,
    make_scratch,
    run_chunk,
)
from agents.mcts.threats import immediate_checks
from agents.mcts.tree import (
    BYTES_PER_NODE,
    FIRST_CHILD,
    MEMORY_PER_NODE,
    NO_NODE,
    PROVEN,
    ROOT,
    UNPROVEN,
    Tree,
)
from mcts_envs.core.errors import SearchError
from mcts_envs.core.numba_compat import entry_point, pin_identity
from mcts_envs.core.seeding import make_rng

#: Seconds one chunk of the compiled loop aims to last when a time budget is set. Chunks are
#: sized by the fastest pace seen in the search (preemption on a loaded machine only slows a
#: chunk down, so the fastest chunk is the truest measure) and last at most a third of the time
#: left: a chunk interrupted near the deadline then has little left to run when it resumes.
CHUNK_SECONDS = 0.005
#: Estimated seconds per node in use to grow the tree (copying at 0.3 GB/s, below the 0.5-0.8
#: GB/s measured with fresh pages on the development machine).
GROWTH_SECONDS_PER_NODE = BYTES_PER_NODE / 0.3e9
#: Node slots of a new tree under a time budget only (160 MB if all were used).
TIME_BUDGET_CAPACITY = 1 << 22
#: Share of the machine's memory (physical, or the container's limit if lower) a search tree
#: may take by default, and the cap of that default in MB (see :func:`default_max_memory_mb`).
DEFAULT_MEMORY_SHARE = 0.25
DEFAULT_MEMORY_CAP_MB = 4096
#: The default when the machine's memory cannot be read.
FALLBACK_MEMORY_MB = 1024


@dataclass(frozen=True)
class SearchSettings:
    """The parameters of one search (see :class:`agents.mcts.MCTSAgent` for their meaning)."""

    iterations: int | None
    seconds: float | None
    c: float
    expand_all: bool
    rollout: Any
    fractional: bool
    solver: bool
    evaluator: Callable[..., Any] | None
    c_puct: float
    dirichlet_alpha: float
    dirichlet_fraction: float
    batch_size: int
    rollout_cutoff: int = -1
    max_memory_mb: float | None = None  # per tree; None: default_max_memory_mb()


class Compiled(NamedTuple):
    """The compiled functions of one game and leaf kernel, as checked direct entry points."""

    run: Any  # agents.mcts.search.run_chunk
    finish: Any  # agents.mcts.search.finish_pending
    checks: Any  # agents.mcts.threats.immediate_checks


@functools.cache
def compiled(kernels: Any, playout: Any) -> Compiled:
    """The compiled search for ``kernels`` (a :class:`~mcts_envs.core.game.GameKernels`) with the
    leaf kernel ``playout`` (compiled, or loaded from numba's disk cache, on first use: what
    :meth:`MCTSAgent.prepare` triggers)."""
    for dispatcher in (*kernels, playout):
        pin_identity(dispatcher)
    cfg = LoopSettings(1.0, SELECT_UCT, False, LEAF_PLAYOUT, False, False, -1, 1)
    state, rng, mask = np.zeros(1, np.int64), make_rng(0), np.zeros(0, np.int8)
    tree, scratch, pending = Tree(16).arrays(), make_scratch(1, 1, 1), make_pending(1, 1, 1)
    return Compiled(
        entry_point(
            run_chunk, (kernels, playout, tree, scratch, cfg, state, rng, mask, pending, 1)
        ),
        entry_point(finish_pending, (kernels, tree, pending, np.zeros(1), np.zeros((1, 1)), True)),
        entry_point(immediate_checks, (kernels, state, np.zeros(1, np.int64), mask)),
    )


def machine_memory_bytes() -> int | None:
    """The memory this process can use: physical memory, or the cgroup (container) limit if
    lower; None if neither can be read (e.g. on Windows)."""
    sizes = []
    with contextlib.suppress(AttributeError, ValueError, OSError):  # no sysconf on Windows
        sizes.append(os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    for path in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        try:
            with open(path) as file:
                sizes.append(int(file.read(64).strip()))  # "max" (no limit) fails here
        except (OSError, ValueError):
            continue
    sizes = [size for size in sizes if size > 0]
    return min(sizes) if sizes else None


@functools.cache
def default_max_memory_mb() -> float:
    """The default memory bound of one search tree in MB: :data:`DEFAULT_MEMORY_SHARE` (a
    quarter) of :func:`machine_memory_bytes`, at most :data:`DEFAULT_MEMORY_CAP_MB` (4 GB), or
    :data:`FALLBACK_MEMORY_MB` (1 GB) if the memory cannot be read.

    A quarter leaves room for the rest of the process, for the other agent of a match and for
    a few parallel workers; 4 GB (about 50 million node slots) is minutes of growth at the
    fastest rates measured (Tantrix: 8.5 MB/s), more than any time budget a game uses."""
    total = machine_memory_bytes()
    if total is None:
        return float(FALLBACK_MEMORY_MB)
    return float(min(DEFAULT_MEMORY_CAP_MB, DEFAULT_MEMORY_SHARE * total / 2**20))


def leaf_batch(game, settings: SearchSettings) -> int:
    """Leaves a chunk of the loop may leave for Python to evaluate: the evaluator's
    ``batch_size``, 1 for a Python rollout, 0 for compiled leaf evaluations."""
    if settings.evaluator is not None:
        return settings.batch_size
    return 1 if rollout_kind(settings.rollout, game)[0] == LEAF_EXTERNAL else 0


def growth_room(game, settings: SearchSettings) -> int:
    """Free node slots a chunk of the loop needs to start: two child blocks (of the game's
    largest size) for each leaf it may leave to Python, and two more."""
    return 2 * search_buffer_size(game) * (leaf_batch(game, settings) + 1)


def node_limit(game, settings: SearchSettings) -> int:
    """The most node slots one tree of this search may allocate: ``settings.max_memory_mb``
    (or :func:`default_max_memory_mb`) over :data:`~agents.mcts.tree.MEMORY_PER_NODE`, but
    never fewer than the root's first expansion needs (so a search can always answer)."""
    megabytes = settings.max_memory_mb
    if megabytes is None:
        megabytes = default_max_memory_mb()
    return max(int(megabytes * 2**20) // MEMORY_PER_NODE, growth_room(game, settings) + 1)


def initial_capacity(game, settings: SearchSettings) -> int:
    """Node slots for a new tree: about four per iteration, or :data:`TIME_BUDGET_CAPACITY`
    under a time budget alone, within :func:`node_limit`. Untouched slots cost no memory (NumPy
    leaves fresh pages unmapped until written), while growing a large tree means copying it,
    which a search near its deadline cannot afford."""
    if settings.iterations is None:
        wanted = TIME_BUDGET_CAPACITY
    else:
        wanted = min(settings.iterations * 4 + search_buffer_size(game), 1 << 20)
    return min(wanted, node_limit(game, settings))


def max_depth(game) -> int:
    """Bound on the tree depth (decisions plus chance nodes, with room for forced plays)."""
    return 4 * game.info.max_game_length + 16


def rollout_kind(rollout: Any, game) -> tuple[int, Any]:
    """``(leaf kind, compiled playout kernel or Python policy)`` for a rollout option."""
    if rollout == "random":
        return LEAF_PLAYOUT, game.kernels.random_playout
    if rollout == "minimax2":
        return LEAF_MINIMAX2, game.kernels.random_playout
    if isinstance(rollout, Dispatcher):
        return LEAF_PLAYOUT, pin_identity(rollout)
    return LEAF_EXTERNAL, rollout


def _time_left(deadline: float | None) -> float:
    return np.inf if deadline is None else deadline - time.perf_counter()


def _grow_in_time(tree: Tree, free: int, deadline: float | None, limit: int | None = None) -> bool:
    """Make ``free`` node slots available within ``limit`` slots in all, unless a time budget
    is set and growing the arrays would likely outlast it: then return False (the search
    stops). Growing copies the tree into fresh memory (80 ms at a million nodes here), which a
    search near its deadline cannot afford."""
    if tree.num_nodes + free <= tree.capacity:
        return True
    if deadline is not None and _time_left(deadline) < tree.num_nodes * GROWTH_SECONDS_PER_NODE:
        return False
    return tree.ensure(free, limit)


class Engine:
    """The search of one game under one :class:`SearchSettings`, reused across decisions.

    Holds the compiled entry points, the loop settings and the work buffers (the root state,
    the threat checks' buffers, the root mask, the batch of leaves evaluated in Python), all
    allocated here with the types the compiled code expects, so searches call it directly.
    One search at a time: get engines through :func:`engine` (one per thread).
    """

    def __init__(self, game, settings: SearchSettings) -> None:
        self.game, self.settings = game, settings
        external = settings.evaluator is not None
        leaf, playout = (LEAF_EXTERNAL, None) if external else rollout_kind(settings.rollout, game)
        if leaf == LEAF_EXTERNAL:
            for dispatcher in game.kernels:
                pin_identity(dispatcher)
            playout = game.kernels.random_playout  # not called: keeps one compiled loop
        self.playout, self.external = playout, external
        self.compiled = compiled(game.kernels, playout)
        self.block = search_buffer_size(game)
        self.cfg = LoopSettings(
            float(settings.c_puct if external else settings.c),
            SELECT_PUCT if external else SELECT_UCT,
            bool(settings.expand_all) and not external,
            int(leaf),
            bool(settings.fractional),
            bool(settings.solver),
            int(settings.rollout_cutoff),
            int(self.block),
        )
        self.batch = leaf_batch(game, settings)
        #: Free slots a chunk needs to start, and the most slots a tree may have.
        self.room, self.max_nodes = growth_room(game, settings), node_limit(game, settings)
        state_size = game.info.state_size
        self.scratch = make_scratch(state_size, max_depth(game), self.block)
        self.pending = make_pending(self.batch, state_size, max_depth(game))
        self.root_state = np.zeros(state_size, np.int64)
        self.actions = np.zeros(self.block, np.int64)
        self.safe = np.zeros(self.block, np.int8)
        self.no_mask = np.zeros(0, np.int8)
        self._mask: np.ndarray | None = None  # int8[num_actions], allocated when first needed
        args = (game.kernels, playout, Tree(16).arrays(), self.scratch, self.cfg)
        self.compiled.run.check(
            (*args, self.root_state, make_rng(0), self.no_mask, self.pending, 1)
        )

    def threats(self, state: np.ndarray) -> tuple[int, np.ndarray | None]:
        """:func:`~agents.mcts.threats.immediate_checks` of ``state`` (a checked state of the
        game): ``(winning action or -1, the safe moves if only some moves are safe, else
        None)``."""
        self.root_state[:] = state
        checks = self.compiled.checks.compiled
        win, count, num_safe = checks(self.game.kernels, self.root_state, self.actions, self.safe)
        if win >= 0 or not 0 < num_safe < count:
            return int(win), None
        return -1, self.actions[:count][self.safe[:count] == 1]

    def root_mask(self, allowed: np.ndarray | None) -> np.ndarray:
        """``int8[num_actions]`` with 1 at the ``allowed`` root moves, or an empty array (all)."""
        if allowed is None:
            return self.no_mask
        if self._mask is None:
            self._mask = np.zeros(self.game.info.num_actions, np.int8)
        self._mask[:] = 0
        self._mask[np.asarray(allowed, np.int64)] = 1
        return self._mask

    def search(
        self,
        tree: Tree,
        root_state: np.ndarray,
        seed: int,
        allowed: np.ndarray | None = None,
        deadline: float | None = None,
    ) -> RootSummary:
        """Search from ``root_state`` into ``tree`` (fresh or reused; its root must stand for
        ``root_state``) and summarise the root. Always runs at least one chunk of at least one
        simulation, so a search with any positive budget has root children to choose from.
        Stops early, with ``tree_full`` set in the summary, when the tree would need more than
        :func:`node_limit` slots to go on (``settings.max_memory_mb``).

        Args:
            seed: seeds the search's one generator (and the Dirichlet noise).
            allowed: if given, the only root moves to consider (the block-loss check); other
                root children stay in the tree, untouched.
            deadline: ``time.perf_counter()`` value at which to stop (default:
                ``settings.seconds`` from now); the agent passes the decision's deadline.

        Raises:
            SearchError: if selection finds no child (NaN values) or an evaluator misbehaves.
        """
        settings, kernels, cfg, run = self.settings, self.game.kernels, self.cfg, self.compiled.run
        if deadline is None and settings.seconds is not None:
            deadline = time.perf_counter() + settings.seconds
        budget = settings.iterations if settings.iterations is not None else np.iinfo(np.int64).max
        self.root_state[:] = self.game.check_state(root_state)
        mask, rng = self.root_mask(allowed), make_rng(seed)
        alpha, fraction = settings.dirichlet_alpha, settings.dirichlet_fraction
        noise = RootNoise(alpha, fraction, seed, True) if self.external else None
        self.pending.size[0] = 0  # a search that raised may have left leaves of another tree
        total = 0
        rate = 1e-9  # the fastest simulations per second seen in this search
        chunk = min(budget, 4) if deadline is not None else budget  # then sized by the pace
        room, limit = self.room, self.max_nodes
        tree_full = False
        while not (settings.solver and tree.flags[ROOT, PROVEN] != UNPROVEN):
            if tree.num_nodes + room > limit and tree.links[ROOT, FIRST_CHILD] != NO_NODE:
                tree_full = True  # answer with what the tree holds
                break
            if not _grow_in_time(tree, room, deadline, limit):
                if tree.links[ROOT, FIRST_CHILD] != NO_NODE:
                    break
                tree.ensure(room)  # never leave without root children to choose from
            if noise is not None:
                noise.apply(tree)
            start = time.perf_counter()
            # The buffers are this engine's and the tree's arrays keep their types: no checks.
            done = run.compiled(
                kernels, self.playout, tree.arrays(), self.scratch, cfg, self.root_state, rng,
                mask, self.pending, int(min(chunk, budget - total)),
            )  # fmt: skip
            if done < 0:
                raise SearchError(
                    f"the search found no child to select (exploration constants c={settings.c}, "
                    f"c_puct={settings.c_puct}; leaf values must be finite numbers): the search "
                    "stopped before reading outside its tree"
                )
            if waiting := int(self.pending.size[0]):
                results, priors = external_values(self.game, settings, self.pending, rng)
                # finish_pending leaves a leaf unexpanded if its children do not fit
                tree_full |= not tree.ensure(waiting * self.block + self.block, limit)
                self.compiled.finish(
                    kernels, tree.arrays(), self.pending, results, priors, cfg.solver
                )
                done += waiting
            total += done
            if total >= budget:
                break
            if deadline is not None:
                rate = max(rate, done / max(time.perf_counter() - start, 1e-7))
                # Stop when even one more simulation at that pace would likely end late.
                if _time_left(deadline) <= 1.0 / rate:
                    break
                seconds = min(CHUNK_SECONDS, max(_time_left(deadline), 0.0) / 3)
                chunk = int(max(1, min(budget - total, rate * seconds)))
        if noise is not None:
            noise.restore(tree)
        player = int(kernels.current_player(self.root_state))
        return summarise_root(tree, player, mask, total, tree_full)


@functools.lru_cache(maxsize=32)
def _cached_engine(game, settings: SearchSettings, thread: int) -> Engine:
    return Engine(game, settings)


def engine(game, settings: SearchSettings) -> Engine:
    """The :class:`Engine` of ``game`` and ``settings`` for the calling thread: kept for the
    32 most recent, so a new agent (or a worker's search) does not build and check it again.
    Searches in one thread run one at a time, so they can share its buffers. Not kept with an
    evaluator (it may hold a large model; its searches are slow enough to build their own)."""
    if settings.evaluator is not None:
        return Engine(game, settings)
    try:
        return _cached_engine(game, settings, threading.get_ident())
    except TypeError:  # an unhashable game, rollout or evaluator: an engine of its own
        return Engine(game, settings)


def run_search(
    game,
    tree: Tree,
    root_state: np.ndarray,
    settings: SearchSettings,
    seed: int,
    allowed: np.ndarray | None = None,
    deadline: float | None = None,
) -> RootSummary:
    """:meth:`Engine.search` with the :func:`engine` of ``game`` (a
    :class:`~mcts_envs.core.game.KernelGame`) and ``settings``."""
    return engine(game, settings).search(tree, root_state, seed, allowed, deadline)
