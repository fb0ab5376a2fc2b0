"""One decision from a root state: the compiled loop (:func:`mcts_envs.agents.mcts.search.run_chunk`) run in
chunks under an iteration or time budget, with one budget, tree-growth and stop logic for every
kind of leaf evaluation.

A decision goes agent -> engine -> compiled loop and back once: the agent checks the state and
calls :meth:`Engine.decide`, which runs the threat check, takes the tree (sized once, by the
plan), runs the loop and makes the final choice. The user's options
(:class:`~mcts_envs.agents.mcts.defaults.MCTSConfig`) are translated in one place, :func:`loop_plan`, into
what the loop needs. An :class:`Engine` holds what every search of one game under one config
reuses: that plan, the compiled entry points and the work buffers, built (and their types
checked) once, so a decision calls the compiled code directly; :func:`engine` keeps the engines
of recent games and configs, one set per thread (as numba keeps compiled code). Between chunks the
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
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
from numba.core.dispatcher import Dispatcher

from mcts_envs.agents.base import search_buffer_size
from mcts_envs.agents.mcts.config import MCTSConfig, python_leaves
from mcts_envs.agents.mcts.counting import CountingEvaluator, counts_of
from mcts_envs.agents.mcts.defaults import resolve
from mcts_envs.agents.mcts.final import RootSummary, choose, mover_value, summarise_root
from mcts_envs.agents.mcts.puct import RootNoise, external_values
from mcts_envs.agents.mcts.reuse import KeptTree
from mcts_envs.agents.mcts.search import (
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
from mcts_envs.agents.mcts.solver import RANK_DRAW, proven_rank
from mcts_envs.agents.mcts.threats import immediate_checks
from mcts_envs.agents.mcts.tree import (
    FIRST_CHILD,
    GROWTH_SECONDS_PER_NODE,
    MEMORY_PER_NODE,
    MINIMAX_BYTES_PER_NODE,
    NO_NODE,
    PROVEN,
    ROOT,
    UNPROVEN,
    VISITS,
    Tree,
)
from mcts_envs.agents.result import SearchResult
from mcts_envs.core.errors import SearchError
from mcts_envs.core.numba_compat import entry_point, pin_identity
from mcts_envs.core.seeding import make_rng

if TYPE_CHECKING:
    from mcts_envs.agents.mcts.parallel import RootParallel

__all__ = [
    "GROWTH_SECONDS_PER_NODE",  # kept one release: defined in mcts_envs.agents.mcts.tree
    "Engine",
    "LoopPlan",
    "default_max_memory_mb",
    "engine",
    "leaf_kind",
    "loop_plan",
    "run_search",
]

#: Seconds one chunk of the compiled loop aims to last when a time budget is set. Each chunk is
#: sized by the pace of the last one (simulations slow down as the tree deepens: on Ataxx a chunk
#: of 9,000 ran 10 ms early in a search and 33 ms late in it, so neither the fastest nor the
#: first pace holds) and lasts at most a third of the time left: a chunk interrupted near the
#: deadline then has little left to run when it resumes.
CHUNK_SECONDS = 0.005
#: Seconds a chunk must last for its pace alone to size the next. Shorter ones are bursts (a few
#: hundred simulations through proven or shallow lines of a reused tree ran at 4.5 million a
#: second on Ataxx, and a chunk sized by that pace then ran 25-70 ms instead of 5 ms): after one,
#: the next chunk is at most :data:`CHUNK_GROWTH` times as long.
MEASURED_CHUNK_SECONDS = 0.001
CHUNK_GROWTH = 4
#: Node slots of a new tree under a time budget only (1.3 GB if all were used, within
#: ``max_nodes``). Slots are mapped only when a search first writes them, so a tree this size
#: costs the memory of the nodes it holds, and a timed search fills it without the copy that
#: growing needs: at 4 million nodes a copy takes a quarter of a second, and a search with less
#: than :func:`_grow_in_time`'s estimate left stops instead of growing.
TIME_BUDGET_CAPACITY = 1 << 25
#: Share of the machine's memory (physical, or the container's limit if lower) a search tree
#: may take by default, and the cap of that default in MB (see :func:`default_max_memory_mb`).
DEFAULT_MEMORY_SHARE = 0.25
DEFAULT_MEMORY_CAP_MB = 4096
#: The default when the machine's memory cannot be read.
FALLBACK_MEMORY_MB = 1024


class Compiled(NamedTuple):
    """The compiled functions of one game and leaf kernel, as checked direct entry points."""

    run: Any  # mcts_envs.agents.mcts.search.run_chunk
    finish: Any  # mcts_envs.agents.mcts.search.finish_pending
    checks: Any  # mcts_envs.agents.mcts.threats.immediate_checks


@functools.cache
def compiled(kernels: Any, playout: Any) -> Compiled:
    """The compiled search for ``kernels`` (a :class:`~mcts_envs.core.game.GameKernels`) with the
    leaf kernel ``playout`` (compiled, or loaded from numba's disk cache, on first use: what
    :meth:`MCTSAgent.prepare` triggers)."""
    for dispatcher in (*kernels, playout):
        pin_identity(dispatcher)
    cfg = LoopSettings(1.0, SELECT_UCT, False, LEAF_PLAYOUT, False, False, -1, 1, 0.0)
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


def max_depth(game) -> int:
    """Bound on the tree depth (decisions plus chance nodes, with room for forced plays)."""
    return 4 * game.info.max_game_length + 16


def leaf_kind(rollout: Any, evaluator: Any = None) -> int:
    """How a search with these options evaluates its leaves: ``LEAF_EXTERNAL`` in Python (an
    ``evaluator``, or a Python rollout policy), else compiled: ``LEAF_MINIMAX2`` for
    ``"minimax2"``, ``LEAF_PLAYOUT`` for ``"random"`` or an ``@njit`` rollout."""
    if python_leaves(rollout, evaluator):
        return LEAF_EXTERNAL
    return LEAF_MINIMAX2 if rollout == "minimax2" else LEAF_PLAYOUT


class LoopPlan(NamedTuple):
    """An :class:`~mcts_envs.agents.mcts.defaults.MCTSConfig` translated for one game: what the compiled
    loop and its driver need, as ints, floats and kernels (see :func:`loop_plan`).

    Attributes:
        loop: the compiled loop's :class:`~mcts_envs.agents.mcts.search.LoopSettings`.
        playout: the compiled leaf kernel (the game's random playout when leaves go to Python:
            not called, it keeps one compiled loop).
        python_leaves: whether leaves are evaluated in Python (an evaluator or a Python
            rollout, in batches).
        batch: leaves a chunk may leave for Python (``batch_size``, 1 for a Python rollout, 0
            for compiled leaves).
        block: the largest child block (legal actions or chance outcomes).
        depth: the bound of a path from the root (:func:`max_depth`).
        room: free node slots a chunk needs to start (two child blocks per leaf it may leave to
            Python, and two more).
        max_nodes: the most node slots one tree may allocate: ``max_memory_mb / workers`` (or
            :func:`default_max_memory_mb`) over :data:`~mcts_envs.agents.mcts.tree.MEMORY_PER_NODE` (plus
            twice :data:`~mcts_envs.agents.mcts.tree.MINIMAX_BYTES_PER_NODE` with implicit minimax
            backups), never fewer than ``room + 1`` (so a search can always answer).
        capacity: node slots of a new tree: about four per iteration (at most 2**20), or
            :data:`TIME_BUDGET_CAPACITY` under a time budget alone, within ``max_nodes``.
            Untouched slots cost no memory (fresh pages stay unmapped until written), while
            growing a large tree means copying it, which a search near its deadline cannot
            afford.
        budget: simulations per search (``iterations``, or the largest ``int64``).
        by_mean: the final choice takes the best mean (``final="mean"``).
        minimax: the tree keeps implicit minimax values (``minimax_weight > 0``).
    """

    loop: LoopSettings
    playout: Any
    python_leaves: bool
    batch: int
    block: int
    depth: int
    room: int
    max_nodes: int
    capacity: int
    budget: int
    by_mean: bool
    minimax: bool


def loop_plan(game, config: MCTSConfig) -> LoopPlan:
    """The one translation of ``config`` (the user's options) into what the search of ``game``
    (a :class:`~mcts_envs.core.game.KernelGame`) runs on: selection, leaf kind and kernel,
    buffer and tree sizes, the budget; options left at ``per game`` take the game's row. Called
    once per :class:`Engine`."""
    config = resolve(config, game.info.name)
    external = config.evaluator is not None
    rollout, playout = config.rollout, game.kernels.random_playout
    leaf = leaf_kind(rollout, config.evaluator)
    if leaf == LEAF_PLAYOUT and isinstance(rollout, Dispatcher):
        playout = pin_identity(rollout)
    block = search_buffer_size(game)
    batch = config.batch_size if external else (1 if leaf == LEAF_EXTERNAL else 0)
    room = 2 * block * (batch + 1)
    if config.max_memory_mb is None:
        tree_mb = default_max_memory_mb()
    else:
        tree_mb = config.max_memory_mb / config.workers  # the workers' trees share the bound
    minimax = config.minimax_weight > 0 and leaf != LEAF_EXTERNAL  # needs compiled leaves
    per_node = MEMORY_PER_NODE + (2 * MINIMAX_BYTES_PER_NODE if minimax else 0)
    max_nodes = max(int(tree_mb * 2**20) // per_node, room + 1)
    if config.iterations is None:
        wanted = TIME_BUDGET_CAPACITY
    else:
        wanted = min(config.iterations * 4 + block, 1 << 20)
    return LoopPlan(
        loop=LoopSettings(
            float(config.c_puct if external else config.c),
            SELECT_PUCT if external else SELECT_UCT,
            config.expand == "all" and not external,
            int(leaf),
            config.scores == "fractional",
            bool(config.solver),
            -1 if config.rollout_cutoff is None else int(config.rollout_cutoff),
            int(block),
            float(config.minimax_weight) if minimax else 0.0,
            np.inf if config.first_play is None else float(config.first_play),
            config.expand_order == "heuristic",
        ),
        playout=playout,
        python_leaves=leaf == LEAF_EXTERNAL,
        batch=int(batch),
        block=int(block),
        depth=max_depth(game),
        room=int(room),
        max_nodes=int(max_nodes),
        capacity=int(min(wanted, max_nodes)),
        budget=np.iinfo(np.int64).max if config.iterations is None else int(config.iterations),
        by_mean=config.final == "mean",
        minimax=minimax,
    )


def node_limit(game, config: MCTSConfig) -> int:
    """Kept one release: ``loop_plan(game, config).max_nodes``."""
    return loop_plan(game, config).max_nodes


def initial_capacity(game, config: MCTSConfig) -> int:
    """Kept one release: ``loop_plan(game, config).capacity``."""
    return loop_plan(game, config).capacity


def growth_room(game, config: MCTSConfig) -> int:
    """Kept one release: ``loop_plan(game, config).room``."""
    return loop_plan(game, config).room


def leaf_batch(game, config: MCTSConfig) -> int:
    """Kept one release: ``loop_plan(game, config).batch``."""
    return loop_plan(game, config).batch


def _time_left(deadline: float | None) -> float:
    return np.inf if deadline is None else deadline - time.perf_counter()


#: Most of a decision's time that is held back for the overrun its last decisions showed.
MAX_HOLD_BACK = 0.25
#: Per decision, the time held back shrinks by this factor unless a larger overrun is seen.
HOLD_BACK_DECAY = 0.8
#: Growing the tree is allowed while its estimated cost is at most this share of the time left
#: (the copy can take twice the estimate, as on a loaded machine, and still end in time).
GROWTH_SHARE = 0.5


def _grow_in_time(tree: Tree, free: int, deadline: float | None, limit: int | None = None) -> bool:
    """Make ``free`` node slots available within ``limit`` slots in all, unless a time budget
    is set and growing the arrays would take more than :data:`GROWTH_SHARE` of the time left
    (estimated): then return False (the search stops). Growing copies the tree into fresh
    memory (80 ms at a million nodes here), which a search near its deadline cannot afford."""
    if tree.num_nodes + free <= tree.capacity:
        return True
    cost = tree.num_nodes * GROWTH_SECONDS_PER_NODE
    if deadline is not None and GROWTH_SHARE * _time_left(deadline) < cost:
        return False
    return tree.ensure(free, limit)


class Engine:
    """The search of one game under one :class:`~mcts_envs.agents.mcts.defaults.MCTSConfig`, reused
    across decisions.

    Holds the config's :class:`LoopPlan`, the compiled entry points and the work buffers (the
    root state, the threat checks' buffers, the root mask, the batch of leaves evaluated in
    Python), all allocated here with the types the compiled code expects, so a decision calls
    it directly. One search at a time: get engines through :func:`engine` (one per thread).

    Attributes:
        evaluator: the config's evaluator wrapped in a
            :class:`~mcts_envs.agents.mcts.counting.CountingEvaluator` (None without one).
    """

    def __init__(self, game, config: MCTSConfig) -> None:
        config = resolve(config, game.info.name)  # options left to the game take its row
        self.game, self.config = game, config
        self.plan = plan = loop_plan(game, config)
        if plan.python_leaves:
            for dispatcher in game.kernels:
                pin_identity(dispatcher)
        self.compiled = compiled(game.kernels, plan.playout)
        self.evaluator = None if config.evaluator is None else CountingEvaluator(config.evaluator)
        state_size = game.info.state_size
        self.scratch = make_scratch(state_size, plan.depth, plan.block)
        self.pending = make_pending(plan.batch, state_size, plan.depth)
        self.root_state = np.zeros(state_size, np.int64)
        self.actions = np.zeros(plan.block, np.int64)
        self.safe = np.zeros(plan.block, np.int8)
        self.no_mask = np.zeros(0, np.int8)
        self._mask: np.ndarray | None = None  # int8[num_actions], allocated when first needed
        #: Seconds a timed decision aims to end before its deadline: how far the last ones ran
        #: past the point they aimed at (the last chunk, the final choice, a slow copy),
        #: shrinking by :data:`HOLD_BACK_DECAY` a decision, at most :data:`MAX_HOLD_BACK` of
        #: the decision's time.
        self.hold_back = 0.0
        args = (game.kernels, plan.playout, Tree(16).arrays(), self.scratch, plan.loop)
        self.compiled.run.check(
            (*args, self.root_state, make_rng(0), self.no_mask, self.pending, 1)
        )

    def threats(self, state: np.ndarray) -> tuple[int, np.ndarray | None]:
        """:func:`~mcts_envs.agents.mcts.threats.immediate_checks` of ``state`` (a checked state of the
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

    def forced_action(self, state: np.ndarray, allowed: np.ndarray | None = None) -> int:
        """The one move of ``state`` (a checked state of the game) if it has exactly one legal
        action, or exactly one ``allowed`` one (the block-loss check's safe moves); else -1."""
        if allowed is not None:
            return int(allowed[0]) if len(allowed) == 1 else -1
        self.root_state[:] = state
        count = self.game.kernels.legal_actions(self.root_state, self.actions)
        return int(self.actions[0]) if count == 1 else -1

    def forced(
        self, state: np.ndarray, player: int, action: int, deadline: float, kept: KeptTree
    ) -> SearchResult:
        """The decision at ``state`` with one move, ``action``, under a time budget: no search.

        The tree is still taken (``kept`` re-rooted at ``state`` if it holds it, so the next
        decision reuses it). The value reported is the re-rooted subtree's (the solver's proof
        if it has one, else its mean), or, without visits there, the estimate of this player's
        last search (its sign flipped if the other player made it), or 0 without either."""
        tree, reused = kept.take(self.game, state, self.plan.capacity, deadline)
        # the compiled helpers' Python functions: nothing is compiled in this timed decision
        rank, value_for = proven_rank.py_func, mover_value.py_func
        visits = int(tree.links[ROOT, VISITS])
        proven = int(tree.flags[ROOT, PROVEN])
        solved = self.config.solver and proven != UNPROVEN
        if solved:
            value = float(rank(proven, player) - RANK_DRAW)
        elif visits > 0:
            value = value_for(float(tree.value_sum[ROOT]) / visits, player)
        elif kept.estimate is not None:
            last_player, last_value = kept.estimate
            value = last_value if last_player == player else -last_value
        else:
            value = 0.0
        child = tree.child(ROOT, action)
        child_visits = 0.0 if child == NO_NODE else float(tree.links[child, VISITS])
        child_mean = np.nan
        if child_visits > 0:
            child_mean = value_for(float(tree.value_sum[child]) / child_visits, player)
        kept.estimate = (player, value)
        return SearchResult(
            action=action,
            value=value,
            player=player,
            actions=np.array([action], np.int64),
            visits=np.array([child_visits]),
            probabilities=np.ones(1),
            action_values=np.array([child_mean]),
            proven=np.array([UNPROVEN if child == NO_NODE else tree.flags[child, PROVEN]], np.int8),
            nodes=tree.num_nodes,
            solved=bool(solved),
            reused=reused,
        )

    def decide(
        self,
        state: np.ndarray,
        player: int,
        seed: int,
        deadline: float | None,
        kept: KeptTree,
        parallel: RootParallel | None = None,
    ) -> SearchResult:
        """One decision at ``state`` (checked by the caller; ``player`` to move): the
        immediate-win / block-loss check (``win_check``), the tree (``kept`` re-rooted, or a new
        one of the plan's capacity) or the ``parallel`` workers, the search and the final
        choice. ``result.seconds`` is left for the caller (its clock started first). A timed
        search aims :attr:`hold_back` seconds before ``deadline``, so that what a decision
        runs past the point it aims at (measured on the last ones) still ends it in time.

        Raises:
            SearchError: if the search fails (NaN values, an evaluator misbehaving).
        """
        allowed = None
        if self.config.win_check:
            win, allowed = self.threats(state)
            if win >= 0:
                kept.forget()
                return SearchResult(
                    action=win,
                    value=1.0,
                    player=player,
                    actions=np.array([win], np.int64),
                    visits=np.zeros(1),
                    probabilities=np.ones(1),
                    action_values=np.ones(1),
                    proven=np.zeros(1, np.int8),
                    solved=True,
                    immediate=True,
                )
        if deadline is not None and parallel is None:
            forced = self.forced_action(state, allowed)
            if forced >= 0:
                return self.forced(state, player, forced, deadline, kept)
        if parallel is not None:
            summary = parallel.search(self.game, state, self.config, seed, allowed)
            (calls, leaves), reused = parallel.evaluator_counts, False
        else:
            target = deadline
            if deadline is not None:
                span = max(deadline - time.perf_counter(), 0.0)
                target = deadline - min(self.hold_back, MAX_HOLD_BACK * span)
            tree, reused = kept.take(self.game, state, self.plan.capacity, target)
            before = counts_of(self.evaluator)
            summary = self.run(tree, state, seed, allowed, target)
            after = counts_of(self.evaluator)
            calls, leaves = after[0] - before[0], after[1] - before[1]
        index, probs, means, value = choose(summary, self.plan.by_mean, self.config.solver)
        if parallel is None and deadline is not None:
            overrun = time.perf_counter() - target
            self.hold_back = max(overrun, HOLD_BACK_DECAY * self.hold_back, 0.0)
        children = summary.children
        kept.estimate = (player, float(value))
        return SearchResult(
            action=int(children.actions[index]),
            value=value,
            player=player,
            actions=children.actions,
            visits=children.visits,
            probabilities=probs,
            action_values=means,
            proven=children.proven,
            simulations=summary.simulations,
            nodes=summary.nodes,
            solved=summary.root_proven != UNPROVEN,
            reused=reused,
            tree_full=summary.tree_full,
            evaluator_calls=calls,
            evaluated_leaves=leaves,
        )

    def search(
        self,
        tree: Tree,
        root_state: np.ndarray,
        seed: int,
        allowed: np.ndarray | None = None,
        deadline: float | None = None,
    ) -> RootSummary:
        """:meth:`run` after checking that ``root_state`` is a state array of the game.

        Raises:
            TypeError: if ``root_state`` is not a state array of the game.
            SearchError: as :meth:`run`.
        """
        return self.run(tree, self.game.check_state(root_state), seed, allowed, deadline)

    def run(
        self,
        tree: Tree,
        root_state: np.ndarray,
        seed: int,
        allowed: np.ndarray | None = None,
        deadline: float | None = None,
    ) -> RootSummary:
        """Search from ``root_state`` (a state array of the game, not checked again) into
        ``tree`` (fresh or reused; its root must stand for ``root_state``) and summarise the
        root. Always runs at least one chunk of at least one simulation, so a search with any
        positive budget has root children to choose from. Stops early, with ``tree_full`` set
        in the summary, when the tree would need more than the plan's ``max_nodes`` slots to go
        on (``max_memory_mb``).

        Args:
            seed: seeds the search's one generator (and the Dirichlet noise).
            allowed: if given, the only root moves to consider (the block-loss check); other
                root children stay in the tree, untouched.
            deadline: ``time.perf_counter()`` value at which to stop (default: ``seconds``
                from now); the agent passes the decision's deadline.

        Raises:
            SearchError: if selection finds no child (NaN values) or an evaluator misbehaves.
        """
        config, plan, kernels = self.config, self.plan, self.game.kernels
        cfg, run = plan.loop, self.compiled.run
        if deadline is None and config.seconds is not None:
            deadline = time.perf_counter() + config.seconds
        budget = plan.budget
        if plan.minimax:
            tree.track_minimax()  # the loop then writes and reads tree.minimax
        self.root_state[:] = root_state
        mask, rng = self.root_mask(allowed), make_rng(seed)
        alpha, fraction = config.dirichlet_alpha, config.dirichlet_fraction
        noise = RootNoise(alpha, fraction, seed, True) if self.evaluator is not None else None
        self.pending.size[0] = 0  # a search that raised may have left leaves of another tree
        total = 0
        pace = 1e-9  # simulations per second of the last chunk: what sizes the next
        chunk = min(budget, 4) if deadline is not None else budget  # then sized by the pace
        room, limit = plan.room, plan.max_nodes
        tree_full = False
        while not (cfg.solver and tree.flags[ROOT, PROVEN] != UNPROVEN):
            if tree.num_nodes + room > limit and tree.links[ROOT, FIRST_CHILD] != NO_NODE:
                tree_full = True  # answer with what the tree holds
                break
            capacity = tree.capacity
            if not _grow_in_time(tree, room, deadline, limit):
                if tree.links[ROOT, FIRST_CHILD] != NO_NODE:
                    break
                tree.ensure(room)  # never leave without root children to choose from
            if deadline is not None and tree.capacity != capacity and total > 0:
                # growing took time: size the next chunk by the time left now
                if _time_left(deadline) <= 1.0 / pace:
                    break
                seconds = min(CHUNK_SECONDS, max(_time_left(deadline), 0.0) / 3)
                chunk = int(max(1, min(budget - total, pace * seconds)))
            if noise is not None:
                noise.apply(tree)
            start = time.perf_counter()
            # The buffers are this engine's and the tree's arrays keep their types: no checks.
            done = run.compiled(
                kernels, plan.playout, tree.arrays(), self.scratch, cfg, self.root_state, rng,
                mask, self.pending, int(min(chunk, budget - total)),
            )  # fmt: skip
            if done < 0:
                raise SearchError(
                    f"the search found no child to select (exploration constants c={config.c}, "
                    f"c_puct={config.c_puct}; leaf values must be finite numbers): the search "
                    "stopped before reading outside its tree"
                )
            if waiting := int(self.pending.size[0]):
                results, priors = external_values(
                    self.game, self.evaluator, config.rollout, cfg.fractional, self.pending, rng
                )
                # finish_pending leaves a leaf unexpanded if its children do not fit
                tree_full |= not tree.ensure(waiting * plan.block + plan.block, limit)
                self.compiled.finish(
                    kernels, tree.arrays(), self.pending, results, priors, cfg.solver
                )
                done += waiting
            total += done
            if total >= budget:
                break
            if deadline is not None:
                elapsed = time.perf_counter() - start
                pace = done / max(elapsed, 1e-7)
                # Stop when even one more simulation at that pace would likely end late.
                if _time_left(deadline) <= 1.0 / pace:
                    break
                seconds = min(CHUNK_SECONDS, max(_time_left(deadline), 0.0) / 3)
                longest = CHUNK_GROWTH * done if elapsed < MEASURED_CHUNK_SECONDS else budget
                chunk = int(max(1, min(budget - total, pace * seconds, longest)))
        if noise is not None:
            noise.restore(tree)
        player = int(kernels.current_player(self.root_state))
        return summarise_root(tree, player, mask, total, tree_full)


@functools.lru_cache(maxsize=32)
def _cached_engine(game, config: MCTSConfig, thread: int) -> Engine:
    return Engine(game, config)


def engine(game, config: MCTSConfig) -> Engine:
    """The :class:`Engine` of ``game`` and ``config`` for the calling thread: kept for the 32
    most recent, so a new agent (or a worker's search) does not build and check it again.
    Searches in one thread run one at a time, so they can share its buffers. Not kept with an
    evaluator (it may hold a large model; its searches are slow enough to build their own)."""
    if config.evaluator is not None:
        return Engine(game, config)
    try:
        return _cached_engine(game, config, threading.get_ident())
    except TypeError:  # an unhashable game or rollout: an engine of its own
        return Engine(game, config)


def run_search(
    game,
    tree: Tree,
    root_state: np.ndarray,
    config: MCTSConfig,
    seed: int,
    allowed: np.ndarray | None = None,
    deadline: float | None = None,
) -> RootSummary:
    """:meth:`Engine.search` (state checked) with the :func:`engine` of ``game`` (a
    :class:`~mcts_envs.core.game.KernelGame`) and ``config``."""
    return engine(game, config).search(tree, root_state, seed, allowed, deadline)
