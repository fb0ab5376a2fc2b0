"""The MCTS agent: its options, checked once into one :class:`~mcts_envs.agents.mcts.defaults.MCTSConfig`
(the game's row filling the options not given), following the game (tree reuse), and a decision
as one call of its engine (:meth:`mcts_envs.agents.mcts.driver.Engine.decide`)."""

from __future__ import annotations

import contextlib
import dataclasses
import threading
import time
from collections.abc import Callable
from typing import Any, Literal

import numpy as np

from mcts_envs.agents.base import (
    MAX_ITERATIONS,
    MAX_SECONDS,
    MIN_SECONDS,
    ForwardModelAgent,
    check_decision,
    check_number,
    game_and_state,
)
from mcts_envs.agents.mcts.defaults import GENERIC, PER_GAME, MCTSConfig, resolve
from mcts_envs.agents.mcts.defaults import describe as describe_defaults
from mcts_envs.agents.mcts.driver import Engine, engine, leaf_kind
from mcts_envs.agents.mcts.parallel import RootParallel
from mcts_envs.agents.mcts.reuse import KeptTree
from mcts_envs.agents.mcts.search import LEAF_EXTERNAL
from mcts_envs.agents.mcts.tree import ACTION, BYTES_PER_NODE, NO_NODE, PLAYER, ROOT, VISITS, Tree
from mcts_envs.agents.result import SearchResult
from mcts_envs.core.errors import InvalidOptionError
from mcts_envs.core.game import CHANCE, TERMINAL, Game, sample_chance_outcome
from mcts_envs.core.seeding import check_seed

#: Upper bounds of the numeric options (see :func:`mcts_envs.agents.base.check_number`).
MAX_WORKERS = 256
MAX_CUTOFF = 10**9
MAX_BATCH = 1 << 16
MAX_EXPLORATION = 1e6
MAX_MEMORY_MB = float(1 << 30)  # a petabyte: any finite memory bound a machine can honour

_EXPAND = ("one", "all")
_ROLLOUTS = ("random", "minimax2")
_SCORES = ("binary", "fractional")
_FINAL = ("visits", "mean")
_EXPAND_ORDER = ("random", "heuristic")


class MCTSAgent(ForwardModelAgent):
    """Monte Carlo tree search over a game's forward model (compiled for the built-in games).

    UCT selection ``Q + c * sqrt(ln N / n)`` with ``Q`` the mean result for the player to move
    at the parent (win 1, draw 0.5, loss 0); backup adds every result to all nodes of the path
    from player 0's view, so turns need not alternate. Chance nodes sample an outcome by its
    probability and keep a child per outcome seen (slots for all outcomes are allocated at once;
    an outcome joins the tree when first sampled). The module docstrings of :mod:`mcts_envs.agents.mcts`
    describe the tree layout and the compiled loop.

    The options marked *per game* below take their value from the game's row of
    :data:`mcts_envs.agents.mcts.defaults.GAME_DEFAULTS` when not given (the agent learns the game at its
    first search or :meth:`prepare`); an option given explicitly always wins. The table today:
    Ataxx ``c=0.005, rollout_cutoff=0`` (the stone share scores the new leaf: random playouts
    lose every game to ``minimax2``), Tic-Tac-Toe ``c=0.5, rollout_cutoff=0, expand="all"`` (its
    line-potential heuristic at the leaf, every child of a new leaf scored at once), Pentago
    Twist ``c=0.2, rollout_cutoff=0`` (likewise), Ultimate Tic-Tac-Toe ``c=0.5,
    first_play=1.0, expand_order="heuristic"`` (random playouts), Tantrix ``c=0.75``; games not
    in the table the generic values given below for each option.

    The options, checked, make up one frozen :class:`~mcts_envs.agents.mcts.defaults.MCTSConfig` with the
    same names and values (:attr:`config`, the game's row filled in);
    :meth:`from_config` builds an agent from one.

    The first decision on a game in a process loads the compiled search from numba's disk cache
    (well under a second; the very first run compiles it, 5-15 s); time budgets count from the
    start of the search itself, so warm up once before timing (the arena does).

    Args:
        seed: seeds every search (each decision draws a fresh seed from it); ``None`` for OS
            entropy. The same seed gives the same decisions under an ``iterations`` budget.
        iterations: simulations per decision (default 1000); ``None`` for time only.
        seconds: wall-clock budget per decision (default ``None``); with both set, the first
            reached ends the search. Compile time is not counted once the kernels are cached.
            The search also ends early if its tree is full and copying it into larger arrays
            would outlast the budget (a tree reused over many searches of one position).
        c: UCT exploration constant (per game; generic ``1.4``, about ``sqrt(2)``; results are
            in [0, 1]).
        expand: per game; ``"one"`` (generic) adds one child per simulation, in random order;
            ``"all"`` adds every child of a leaf at once and simulates each of them once.
        rollout: per game; ``"random"`` (generic; the game's compiled random playout), ``"minimax2"``
            (depth-2 minimax moves over the game's heuristic), a numba ``@njit`` function
            ``(state, rng) -> None`` playing to the end in place (runs compiled), or any Python
            callable ``fn(game, state) -> action`` (runs in Python, slow).
        scores: per game; ``"binary"`` (generic; win 1, draw 0.5, loss 0) or ``"fractional"`` (the
            game's graded ``score``, e.g. Ataxx piece share).
        final: per game; ``"visits"`` (generic; most visited root child) or ``"mean"`` (best
            mean).
        win_check: play an immediately winning move without searching, and search only moves
            after which the opponent cannot win at once when such moves exist (default True).
        reuse_tree: keep the subtree of the position reached since the last decision (default
            True). The agent follows the game through :meth:`inform` (each move and chance
            outcome played, as the arena and env loops report them) or :meth:`restart`; a
            position reached otherwise gets a new tree.
        solver: MCTS-Solver: back up proven wins, losses and draws, never pick a proven loss
            while something else is left, stop once the root is proven (per game; generic
            True).
        workers: root parallelism: independent searches in this many processes, root visit
            counts merged (default 1; trees are not reused when above 1).
        evaluator: ``evaluator(observations, masks) -> (priors, values)`` batched over leaves;
            when set, selection is PUCT and leaf values replace rollouts (default ``None``).
        c_puct: PUCT exploration constant in ``Q + c_puct * P * sqrt(N) / (1 + n)``
            (default 1.25).
        dirichlet_alpha: concentration of the root Dirichlet noise (default 0.3).
        dirichlet_fraction: weight of that noise in the root priors, once per search (default
            0.25; set 0 for evaluation games). Used only with an evaluator.
        batch_size: leaves per evaluator call (default 8).
        rollout_cutoff: stop compiled rollouts after this many moves and score an unfinished
            game with the game's ``heuristic`` (early playout termination; 0 scores the new leaf
            itself; ``None``: play to the end; per game, generic ``None``).
        max_memory_mb: memory bound of the search tree in MB (at least 1), shared equally by
            the trees of several ``workers``. ``None`` (default): a quarter of the machine's
            memory (physical, or the container's limit if lower), at most 4096 MB; 1024 MB if
            it cannot be read (see :func:`mcts_envs.agents.mcts.driver.default_max_memory_mb`). The bound
            covers the node arrays, the copy kept for re-rooting and a copy in progress, so a
            tree holds about ``max_memory_mb * 2**20 / 84`` nodes (never fewer than the root's
            first expansion needs). When the tree is full the search stops and answers with
            what it has: :attr:`SearchResult.tree_full <mcts_envs.agents.result.SearchResult>` and
            ``last_search["tree_full"]`` say so.
        minimax_weight: implicit minimax backups (Lanctot et al., CIG 2014), a number in
            [0, 1]: every node also keeps the minimax value of the game's ``heuristic`` over
            its subtree (a leaf: its heuristic; above: the best visited child for the player to
            move), and UCT selection ranks a child by ``(1 - w) * Q + w * V`` instead of ``Q``.
            0 (generic) is the plain search, move for move; per game. Needs compiled leaves: not
            with an ``evaluator`` or a Python ``rollout`` (a per-game value is then ignored).
            A tree that keeps the values takes 4 more bytes per node.
        first_play: first-play urgency (Gelly and Wang 2006) for UCT with ``expand="one"``: a
            number >= 0, the UCT score ``Q + c * sqrt(ln N / n)`` (results in [0, 1]) an
            untried child counts as. A node tries a new child only when none of its tried
            children scores at least this, so a good reply is followed up before every
            alternative has been tried once (a wide node's mean then reflects its best replies
            sooner). ``None`` (generic): off, every child is tried once before any is tried
            again, the plain search move for move; per game. Not used by ``expand="all"`` or
            an ``evaluator`` (PUCT).
        expand_order: per game; the order in which ``expand="one"`` tries a node's children:
            ``"random"`` (generic) or ``"heuristic"``: best first by the game's ``heuristic``
            of the position each leads to, for the player to move (ties in random order; one
            move and one heuristic per child when the node gets its children). Matters most
            with ``first_play``, where a node may never try its last children.
    """

    def __init__(
        self,
        *,
        seed: int | None = None,
        iterations: int | None = GENERIC.iterations,
        seconds: float | None = GENERIC.seconds,
        c: float = PER_GAME,
        expand: Literal["one", "all"] = PER_GAME,
        rollout: Literal["random", "minimax2"] | Callable[..., Any] = PER_GAME,
        scores: Literal["binary", "fractional"] = PER_GAME,
        final: Literal["visits", "mean"] = PER_GAME,
        win_check: bool = GENERIC.win_check,
        reuse_tree: bool = GENERIC.reuse_tree,
        solver: bool = PER_GAME,
        workers: int = GENERIC.workers,
        evaluator: Callable[..., Any] | None = GENERIC.evaluator,
        c_puct: float = GENERIC.c_puct,
        dirichlet_alpha: float = GENERIC.dirichlet_alpha,
        dirichlet_fraction: float = GENERIC.dirichlet_fraction,
        batch_size: int = GENERIC.batch_size,
        rollout_cutoff: int | None = PER_GAME,
        max_memory_mb: float | None = GENERIC.max_memory_mb,
        minimax_weight: float = PER_GAME,
        first_play: float | None = PER_GAME,
        expand_order: Literal["random", "heuristic"] = PER_GAME,
    ) -> None:
        for name, value, allowed in (
            ("expand", expand, _EXPAND),
            ("scores", scores, _SCORES),
            ("final", final, _FINAL),
            ("expand_order", expand_order, _EXPAND_ORDER),
        ):
            if value is not PER_GAME:
                _check_choice(name, value, allowed)
        if isinstance(rollout, str):
            _check_choice("rollout", rollout, _ROLLOUTS)
        elif rollout is not PER_GAME and not callable(rollout):
            raise InvalidOptionError(
                f"mcts: rollout must be one of {_ROLLOUTS} or a callable, got {rollout!r}"
            )
        if iterations is None and seconds is None:
            raise InvalidOptionError("mcts: give a budget: iterations, seconds or both")
        if evaluator is not None and not callable(evaluator):
            raise InvalidOptionError(
                f"mcts: evaluator must be a callable (observations, masks) -> (priors, values), "
                f"got {evaluator!r}"
            )
        iterations = check_number(
            "mcts", "iterations", iterations, 1, MAX_ITERATIONS, integer=True, optional=True
        )
        seconds = check_number(
            "mcts", "seconds", seconds, MIN_SECONDS, MAX_SECONDS, integer=False, optional=True
        )
        workers = check_number("mcts", "workers", workers, 1, MAX_WORKERS, integer=True)
        max_memory_mb = check_number(
            "mcts", "max_memory_mb", max_memory_mb, 1.0, MAX_MEMORY_MB, integer=False, optional=True
        )
        if rollout_cutoff is not PER_GAME:
            rollout_cutoff = check_number(
                "mcts", "rollout_cutoff", rollout_cutoff, 0, MAX_CUTOFF, integer=True, optional=True
            )
            rollout_cutoff = None if rollout_cutoff is None else int(rollout_cutoff)
        batch_size = check_number("mcts", "batch_size", batch_size, 1, MAX_BATCH, integer=True)
        if c is not PER_GAME:
            c = float(check_number("mcts", "c", c, 0.0, MAX_EXPLORATION, integer=False))
        if solver is not PER_GAME:
            solver = bool(solver)
        if minimax_weight is not PER_GAME:
            minimax_weight = float(
                check_number("mcts", "minimax_weight", minimax_weight, 0.0, 1.0, integer=False)
            )
            given_rollout = "random" if rollout is PER_GAME else rollout  # rows name compiled ones
            if minimax_weight > 0 and leaf_kind(given_rollout, evaluator) == LEAF_EXTERNAL:
                raise InvalidOptionError(
                    "mcts: minimax_weight needs compiled leaf evaluations (a random, minimax2 "
                    "or @njit rollout, or a rollout_cutoff): not with an evaluator or a Python "
                    f"rollout, got minimax_weight={minimax_weight}"
                )
        if first_play is not PER_GAME:
            first_play = check_number(
                "mcts", "first_play", first_play, 0.0, MAX_EXPLORATION, integer=False, optional=True
            )
            first_play = None if first_play is None else float(first_play)
        c_puct = check_number("mcts", "c_puct", c_puct, 0.0, MAX_EXPLORATION, integer=False)
        dirichlet_alpha = check_number(
            "mcts", "dirichlet_alpha", dirichlet_alpha, 0.0, MAX_EXPLORATION, integer=False
        )
        dirichlet_fraction = check_number(
            "mcts", "dirichlet_fraction", dirichlet_fraction, 0.0, 1.0, integer=False
        )
        self.seed = check_seed(seed)
        #: The game-dependent options as given (``PER_GAME`` where left to the game's row).
        self.options = {
            "c": c,
            "expand": expand,
            "rollout": rollout,
            "scores": scores,
            "final": final,
            "solver": solver,
            "rollout_cutoff": rollout_cutoff,
            "minimax_weight": minimax_weight,
            "first_play": first_play,
            "expand_order": expand_order,
        }
        #: The options of the game last searched (before any: the generic row), as one frozen
        #: :class:`~mcts_envs.agents.mcts.defaults.MCTSConfig`. A caller may replace it between decisions
        #: (a tournament sets ``seconds``); learning a new game only changes the options left
        #: to the game's row.
        self.config = dataclasses.replace(
            resolve(self.options, ""),
            iterations=None if iterations is None else int(iterations),
            seconds=None if seconds is None else float(seconds),
            win_check=bool(win_check),
            reuse_tree=bool(reuse_tree),
            workers=int(workers),
            evaluator=evaluator,
            c_puct=float(c_puct),
            dirichlet_alpha=float(dirichlet_alpha),
            dirichlet_fraction=float(dirichlet_fraction),
            batch_size=int(batch_size),
            max_memory_mb=None if max_memory_mb is None else float(max_memory_mb),
        )
        self._game_name: str | None = None
        budget = [f"iterations={iterations}"] if iterations is not None else []
        budget += [f"seconds={seconds}"] if seconds is not None else []
        self.name = "mcts:" + ",".join(budget)
        self._generator = np.random.default_rng(self.seed)
        self._parallel = RootParallel(self.workers) if self.workers > 1 else None
        self._engine: Engine | None = None
        self._engine_thread = 0
        self._kept = KeptTree(self.reuse_tree)
        #: Facts about the last search: simulations, seconds, nodes, bytes, reused, immediate,
        #: tree_full.
        self.last_search: dict[str, Any] = {}
        #: The last :class:`~mcts_envs.agents.result.SearchResult`.
        self.last_result: SearchResult | None = None
        self._last_num_actions = 0

    @classmethod
    def from_config(cls, config: MCTSConfig, seed: int | None = None) -> MCTSAgent:
        """An agent with every option of ``config`` given explicitly (checked as the
        constructor checks them; no option is left to the game's row).

        Raises:
            InvalidOptionError: if an option of ``config`` is out of its range.
        """
        return cls(seed=seed, **config.keywords())

    @property
    def settings(self) -> MCTSConfig:
        """Kept one release: :attr:`config` (assigning it assigns :attr:`config`)."""
        return self.config

    @settings.setter
    def settings(self, config: MCTSConfig) -> None:
        self.config = config

    @property
    def final(self) -> str:
        """The final-move rule in use (``"visits"`` or ``"mean"``)."""
        return self.config.final

    @property
    def win_check(self) -> bool:
        """Whether decisions start with the immediate-win / block-loss check."""
        return self.config.win_check

    @property
    def workers(self) -> int:
        """Root-parallel worker processes (1: none)."""
        return self.config.workers

    @property
    def reuse_tree(self) -> bool:
        """Whether the tree is kept between decisions (never with several workers)."""
        return self.config.reuse_tree and self.config.workers == 1

    @property
    def _tree(self) -> Tree | None:
        """The tree of the last decision (None before one, or after an immediate win)."""
        return self._kept.tree

    @staticmethod
    def describe_defaults() -> str:
        """The per-game defaults table as text (shown by ``mcts-envs list agents``)."""
        return describe_defaults()

    # -- Agent protocol ---------------------------------------------------------------------
    def act_state(self, game: Game, state: np.ndarray) -> int:
        """The chosen action for the player to move in ``state``.

        Raises:
            IllegalActionError: if ``state`` is terminal or a chance node.
        """
        return self.search(game, state).action

    @property
    def last_policy(self) -> tuple[np.ndarray, float] | None:
        """``(root visit distribution float64[num_actions], root value for the mover)`` of the
        last decision (made dense on request from :attr:`last_result`), or None before one."""
        if self.last_result is None:
            return None
        return self.last_result.policy(self._last_num_actions), self.last_result.value

    def policy(self, env_or_game: Any, state: np.ndarray | None = None) -> tuple[np.ndarray, float]:
        """``(root visit distribution float64[num_actions], root value in [-1, 1])``.

        The value is from the view of the player to move; a proven win gives a distribution
        over the winning moves and value 1. Runs a full search (same budget as ``act``).
        """
        game, state = game_and_state(env_or_game, state)
        result = self.search(game, state)
        return result.policy(game.info.num_actions), result.value

    def search(self, env_or_game: Any, state: np.ndarray | None = None) -> SearchResult:
        """Search the position (an env, or a game and a state) within the budget.

        Returns the :class:`~mcts_envs.agents.result.SearchResult`: the chosen action, the root's
        children (sparse) with their visits, probabilities, mean values and proofs, the root
        value for the player to move, simulations and seconds. The clock of a time budget
        covers the whole decision: the immediate-win check, re-rooting a reused tree, the
        search and the final choice.

        Raises:
            IllegalActionError: if no player is to move (terminal state or chance node).
            SearchError: if the search fails (NaN values, an evaluator misbehaving).
        """
        start = time.perf_counter()
        game, state = game_and_state(env_or_game, state)
        state, player = check_decision("MCTS", game, state)
        search_engine = self._engine_for(game)
        seconds = self.config.seconds
        deadline = None if seconds is None else start + seconds
        seed = int(self._generator.integers(0, 2**63 - 1))
        result = search_engine.decide(state, player, seed, deadline, self._kept, self._parallel)
        result.seconds = time.perf_counter() - start
        self._last_num_actions = game.info.num_actions
        self.last_search = {
            "simulations": result.simulations,
            "seconds": result.seconds,
            "nodes": result.nodes,
            "bytes": result.nodes * BYTES_PER_NODE,
            "reused": result.reused,
            "immediate": result.immediate,
            # one legal move under a time budget: played at once, tree kept (Engine.forced)
            "forced": result.simulations == 0 and not result.immediate and len(result.actions) == 1,
            "tree_full": result.tree_full,
        }
        self.last_result = result
        return result

    def reset(self) -> None:
        """Forget the reused tree (a new game starts); the seed sequence continues."""
        self._kept.forget()

    def prepare(self, game: Game) -> None:
        """Compile (or load from numba's disk cache) every code path a decision on ``game`` can
        take: the search loop with this agent's leaf evaluation (fresh and reused trees, chance
        nodes, solver and PUCT batches are branches of the one loop), the win check, the final
        choice and re-rooting; root-parallel workers prepare too. Prints nothing (callers
        announce it); does not touch this agent's seed sequence or tree. Sets the game's
        defaults (:mod:`mcts_envs.agents.mcts.defaults`) for the options not given explicitly."""
        self._engine_for(game)
        config = dataclasses.replace(
            self.config,
            iterations=16,
            seconds=None,
            workers=1,
            batch_size=min(self.config.batch_size, 4),
        )
        probe = MCTSAgent.from_config(config, seed=0)
        state = game.initial_state()
        generator = np.random.default_rng(0)
        searched = 0
        while searched < 2 and game.current_player(state) != TERMINAL:
            if game.current_player(state) == CHANCE:
                action = sample_chance_outcome(game, state, generator)
            else:
                action = probe.act_state(game, state)
                searched += 1
            probe.inform(action)
            state = game.apply(state, action)
        if self._parallel is not None:
            self._parallel.prepare(game, probe.config)

    def inform(self, action: int) -> None:
        """Follow the game: ``action`` (a move or chance outcome) was played from the position
        last searched or informed. The next search re-roots the kept tree at the position
        reached, without looking for it."""
        self._kept.inform(action)

    def restart(self, state: np.ndarray) -> None:
        """Follow the game: the next decision starts from ``state``, not reached by
        :meth:`inform`. The kept tree is dropped unless ``state`` is its root."""
        self._kept.restart(state)

    def close(self) -> None:
        """Stop root-parallel worker processes, if any."""
        if self._parallel is not None:
            self._parallel.close()

    def __del__(self) -> None:
        with contextlib.suppress(Exception):  # interpreter shutdown
            self.close()

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["_parallel"] = RootParallel(self.workers) if self.workers > 1 else None
        state["_engine"] = None  # rebuilt on the next decision
        return state

    # -- internals --------------------------------------------------------------------------
    def _engine_for(self, game: Game) -> Engine:
        """The search engine of ``game`` under :attr:`config` in this thread (kept across
        decisions: engines share buffers between the searches of one thread). A game not
        searched before gets its row's defaults for the options not given explicitly (the
        budget in :attr:`config`, which a tournament may change between moves, is kept) and a
        new tree."""
        kept, thread = self._engine, threading.get_ident()
        fresh = kept is not None and kept.game is game and kept.config is self.config
        if fresh and self._engine_thread == thread:
            return kept
        name = game.info.name
        if name != self._game_name:
            row = resolve(self.options, name)
            self.config = dataclasses.replace(self.config, **row.per_game_options())
            self._game_name = name
            self._kept.forget()
        kept = self._engine = engine(game, self.config)
        self._engine_thread = thread
        return kept

    def principal_variation(self, max_length: int) -> list[int]:
        """The line the last search expects: its chosen action, then from each node reached
        the most visited child (ties: the first), while that child has been visited and the
        node is a decision (the line stops at chance nodes and the end of the game); at most
        ``max_length`` actions. Just the chosen action when the search kept no tree (several
        workers, an immediate win); empty before any search."""
        if self.last_result is None or max_length < 1:
            return []
        line = [int(self.last_result.action)]
        tree = self._kept.tree
        node = NO_NODE if tree is None else tree.child(ROOT, line[0])
        while node != NO_NODE and len(line) < max_length:
            children = tree.children(node)
            if len(children) == 0 or tree.flags[node, PLAYER] < 0:
                break
            visits = tree.links[children, VISITS]
            best = int(np.argmax(visits))
            if visits[best] == 0:
                break
            node = int(children[best])
            line.append(int(tree.links[node, ACTION]))
        return line


def _check_choice(name: str, value: object, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise InvalidOptionError(
            f"mcts: {name} must be one of {', '.join(map(repr, allowed))}, got {value!r}"
        )


__all__ = ["MCTSAgent"]
