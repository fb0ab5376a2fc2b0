"""The MCTS agent: its options as one :class:`~mcts_envs.agents.mcts.config.MCTSConfig` (the
game's row filling the options not given), following the game (tree reuse), and a decision as one
call of its engine (:meth:`mcts_envs.agents.mcts.driver.Engine.decide`)."""

from __future__ import annotations

import contextlib
import dataclasses
import threading
import time
from typing import Any

import numpy as np

from mcts_envs.agents.base import ForwardModelAgent, check_decision, game_and_state
from mcts_envs.agents.mcts.config import MCTSConfig
from mcts_envs.agents.mcts.defaults import describe as describe_defaults
from mcts_envs.agents.mcts.defaults import resolve
from mcts_envs.agents.mcts.driver import Engine, engine
from mcts_envs.agents.mcts.parallel import RootParallel
from mcts_envs.agents.mcts.reuse import KeptTree
from mcts_envs.agents.mcts.tree import ACTION, BYTES_PER_NODE, NO_NODE, PLAYER, ROOT, VISITS, Tree
from mcts_envs.agents.result import SearchResult
from mcts_envs.core.errors import InvalidOptionError
from mcts_envs.core.game import CHANCE, TERMINAL, Game, sample_chance_outcome
from mcts_envs.core.quoting import quote
from mcts_envs.core.seeding import check_seed


class MCTSAgent(ForwardModelAgent):
    """Monte Carlo tree search over a game's forward model (compiled for the built-in games).

    UCT selection ``Q + c * sqrt(ln N / n)`` with ``Q`` the mean result for the player to move
    at the parent (win 1, draw 0.5, loss 0); backup adds every result to all nodes of the path
    from player 0's view, so turns need not alternate. Chance nodes sample an outcome by its
    probability and keep a child per outcome seen (slots for all outcomes are allocated at once;
    an outcome joins the tree when first sampled). The module docstrings of
    :mod:`mcts_envs.agents.mcts` describe the tree layout and the compiled loop.

    The options are one frozen :class:`~mcts_envs.agents.mcts.config.MCTSConfig` (its fields
    give each option's type, default, range and meaning). Those left at ``per game`` take the
    game's row of :data:`mcts_envs.agents.mcts.defaults.GAME_DEFAULTS` at the agent's first search
    or :meth:`prepare` on that game; an option given explicitly always wins.

    The first decision on a game in a process loads the compiled search from numba's disk cache
    (well under a second; the very first run compiles it, 5-15 s); time budgets count from the
    start of the search itself, so warm up once before timing (the arena does).

    Args:
        config: the options (default: ``MCTSConfig()``, every per-game option from the game).
        seed: seeds every search (each decision draws a fresh seed from it); ``None`` for OS
            entropy. The same seed gives the same decisions under an ``iterations`` budget.
        **options: options by name, replacing those of ``config``
            (``MCTSAgent(iterations=200, c=0.5)``).

    Raises:
        InvalidOptionError: for an unknown option or a value the config refuses.
    """

    #: The options' dataclass: the spec parser and ``mcts-envs list`` read its fields.
    config_class = MCTSConfig

    def __init__(
        self, config: MCTSConfig | None = None, *, seed: int | None = None, **options: Any
    ) -> None:
        if config is None:
            config = MCTSConfig()
        elif not isinstance(config, MCTSConfig):
            raise InvalidOptionError(f"mcts: config must be an MCTSConfig, got {quote(config)}")
        unknown = sorted(set(options) - {option.name for option in dataclasses.fields(config)})
        if unknown:
            allowed = ", ".join(option.name for option in dataclasses.fields(config))
            raise InvalidOptionError(
                f"mcts: unknown option(s) {', '.join(unknown)}; options: {allowed}"
            )
        self.seed = check_seed(seed)
        #: The options as given (``per game`` where left to the game's row).
        self.given = dataclasses.replace(config, **options) if options else config
        #: The options of the game last searched (before any: the generic row), resolved. A
        #: caller may replace it between decisions (a tournament sets ``seconds``); learning a
        #: new game only changes the options left to the game's row.
        self.config = resolve(self.given, "")
        self._game_name: str | None = None
        budget = (
            [f"iterations={self.config.iterations}"] if self.config.iterations is not None else []
        )
        budget += [f"seconds={self.config.seconds}"] if self.config.seconds is not None else []
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

    def resolved_options(self, game: Game) -> dict[str, Any]:
        """Every option as this agent plays ``game``: the options given, the game's row of
        per-game defaults for the others, and the budget in use (a tournament may have set
        ``seconds``); what game records keep (:mod:`mcts_envs.agents.resolved`)."""
        row = resolve(self.given, game.info.name)
        config = dataclasses.replace(
            row, iterations=self.config.iterations, seconds=self.config.seconds
        )
        return {option.name: getattr(config, option.name) for option in dataclasses.fields(config)}

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
        probe = MCTSAgent(config, seed=0)
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
            row = resolve(self.given, name)
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


__all__ = ["MCTSAgent"]
