"""The MCTS agent: parameters, tree reuse, immediate-win / block-loss checks, final choice."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from typing import Any, Literal

import numpy as np

from agents.base import ForwardModelAgent, game_and_state, search_buffer_size
from agents.mcts.driver import (
    RootStatistics,
    SearchSettings,
    checks_entry,
    decide,
    initial_capacity,
    pin_game,
    rollout_kind,
    run_search,
)
from agents.mcts.parallel import RootParallel
from agents.mcts.search import find_descendant
from agents.mcts.tree import BYTES_PER_NODE, NO_NODE, ROOT, Tree
from mcts_envs.core.game import Game
from mcts_envs.core.seeding import check_seed

#: How many plies below the old root tree reuse looks for the new root.
REUSE_DEPTH = 4

_EXPAND = ("one", "all")
_ROLLOUTS = ("random", "minimax2")
_SCORES = ("binary", "fractional")
_FINAL = ("visits", "mean")


class MCTSAgent(ForwardModelAgent):
    """Monte Carlo tree search over a game's forward model (compiled for the built-in games).

    UCT selection ``Q + c * sqrt(ln N / n)`` with ``Q`` the mean result for the player to move
    at the parent (win 1, draw 0.5, loss 0); backup adds every result to all nodes of the path
    from player 0's view, so turns need not alternate. Chance nodes sample an outcome by its
    probability and keep a child per outcome seen (slots for all outcomes are allocated at once;
    an outcome joins the tree when first sampled). The module docstrings of :mod:`agents.mcts`
    describe the tree layout and the compiled loop.

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
        c: UCT exploration constant (default ``1.4``, about ``sqrt(2)``; results are in [0, 1]).
        expand: ``"one"`` (default) adds one child per simulation, in random order;
            ``"all"`` adds every child of a leaf at once and simulates each of them once.
        rollout: ``"random"`` (default; the game's compiled random playout), ``"minimax2"``
            (depth-2 minimax moves over the game's heuristic), a numba ``@njit`` function
            ``(state, rng) -> None`` playing to the end in place (runs compiled), or any Python
            callable ``fn(game, state) -> action`` (runs in Python, slow).
        scores: ``"binary"`` (default; win 1, draw 0.5, loss 0) or ``"fractional"`` (the
            game's graded ``score``, e.g. Ataxx piece share).
        final: ``"visits"`` (default; most visited root child) or ``"mean"`` (best mean).
        win_check: play an immediately winning move without searching, and search only moves
            after which the opponent cannot win at once when such moves exist (default True).
        reuse_tree: keep the subtree of the position reached since the last decision (found
            within 4 plies of the old root by replaying; rebuilt otherwise) (default True).
        solver: MCTS-Solver: back up proven wins, losses and draws, never pick a proven loss
            while something else is left, stop once the root is proven (default True).
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
            itself; default ``None``: play to the end).
    """

    def __init__(
        self,
        *,
        seed: int | None = None,
        iterations: int | None = 1000,
        seconds: float | None = None,
        c: float = 1.4,
        expand: Literal["one", "all"] = "one",
        rollout: Literal["random", "minimax2"] | Callable[..., Any] = "random",
        scores: Literal["binary", "fractional"] = "binary",
        final: Literal["visits", "mean"] = "visits",
        win_check: bool = True,
        reuse_tree: bool = True,
        solver: bool = True,
        workers: int = 1,
        evaluator: Callable[..., Any] | None = None,
        c_puct: float = 1.25,
        dirichlet_alpha: float = 0.3,
        dirichlet_fraction: float = 0.25,
        batch_size: int = 8,
        rollout_cutoff: int | None = None,
    ) -> None:
        _check_choice("expand", expand, _EXPAND)
        _check_choice("scores", scores, _SCORES)
        _check_choice("final", final, _FINAL)
        if isinstance(rollout, str):
            _check_choice("rollout", rollout, _ROLLOUTS)
        elif not callable(rollout):
            raise ValueError(f"rollout must be one of {_ROLLOUTS} or a callable, got {rollout!r}")
        if iterations is None and seconds is None:
            raise ValueError("give a budget: iterations, seconds or both")
        if iterations is not None and (isinstance(iterations, bool) or int(iterations) < 1):
            raise ValueError(f"iterations must be a positive int or None, got {iterations!r}")
        if seconds is not None and not float(seconds) > 0:
            raise ValueError(f"seconds must be a positive number or None, got {seconds!r}")
        if int(workers) < 1:
            raise ValueError(f"workers must be >= 1, got {workers!r}")
        if rollout_cutoff is not None and int(rollout_cutoff) < 0:
            raise ValueError(f"rollout_cutoff must be an int >= 0 or None, got {rollout_cutoff!r}")
        if int(batch_size) < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size!r}")
        if c < 0 or c_puct < 0:
            raise ValueError("the exploration constants c and c_puct must be >= 0")
        self.seed = check_seed(seed)
        self.settings = SearchSettings(
            iterations=None if iterations is None else int(iterations),
            seconds=None if seconds is None else float(seconds),
            c=float(c),
            expand_all=expand == "all",
            rollout=rollout,
            fractional=scores == "fractional",
            solver=bool(solver),
            evaluator=evaluator,
            c_puct=float(c_puct),
            dirichlet_alpha=float(dirichlet_alpha),
            dirichlet_fraction=float(dirichlet_fraction),
            batch_size=int(batch_size),
            rollout_cutoff=-1 if rollout_cutoff is None else int(rollout_cutoff),
        )
        self.final = final
        self.win_check = bool(win_check)
        self.reuse_tree = bool(reuse_tree) and int(workers) == 1
        self.workers = int(workers)
        budget = [f"iterations={iterations}"] if iterations is not None else []
        budget += [f"seconds={seconds}"] if seconds is not None else []
        self.name = "mcts:" + ",".join(budget)
        self._generator = np.random.default_rng(self.seed)
        self._parallel = RootParallel(self.workers) if self.workers > 1 else None
        self._tree: Tree | None = None
        self._tree_game: type | None = None
        self._root_state: np.ndarray | None = None
        #: Facts about the last search: simulations, seconds, nodes, bytes, reused.
        self.last_search: dict[str, Any] = {}
        #: ``(root visit distribution, root value for the mover)`` of the last decision.
        self.last_policy: tuple[np.ndarray, float] | None = None

    # -- Agent protocol ---------------------------------------------------------------------
    def act_state(self, game: Game, state: np.ndarray) -> int:
        """The chosen action for the player to move in ``state``.

        Raises:
            ValueError: if ``state`` is terminal or a chance node.
        """
        action, probs, value = self._decide(game, state)
        self.last_policy = (probs, value)
        return action

    def policy(self, env_or_game: Any, state: np.ndarray | None = None) -> tuple[np.ndarray, float]:
        """``(root visit distribution float64[num_actions], root value in [-1, 1])``.

        The value is from the view of the player to move; a proven win gives a distribution
        over the winning moves and value 1. Runs a full search (same budget as ``act``).
        """
        game, state = game_and_state(env_or_game, state)
        _, probs, value = self._decide(game, state)
        return probs, value

    def reset(self) -> None:
        """Forget the reused tree (a new game starts); the seed sequence continues."""
        self._tree = None
        self._tree_game = None
        self._root_state = None

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
        return state

    # -- search -----------------------------------------------------------------------------
    def _decide(self, game: Game, state: np.ndarray) -> tuple[int, np.ndarray, float]:
        state = game.check_state(state) if hasattr(game, "check_state") else state
        player = game.current_player(state)
        if player not in (0, 1):
            raise ValueError(
                f"{game.info.name}: MCTS needs a state with a player to move, got player {player}"
            )
        start = time.perf_counter()
        seed = int(self._generator.integers(0, 2**63 - 1))
        allowed = None
        if self.win_check:
            actions = np.empty(search_buffer_size(game), np.int64)
            safe = np.zeros(len(actions), np.int8)
            win, count = checks_entry(game.kernels)(
                np.array(state, dtype=np.int64, order="C"), actions, safe
            )
            if win >= 0:
                probs = np.zeros(game.info.num_actions, np.float64)
                probs[win] = 1.0
                self.last_search = {
                    "simulations": 0,
                    "seconds": time.perf_counter() - start,
                    "nodes": 0,
                    "bytes": 0,
                    "reused": False,
                    "immediate": True,
                }
                return int(win), probs, 1.0
            if 0 < int(safe[:count].sum()) < count:
                allowed = actions[:count][safe[:count] == 1].copy()
        if self._parallel is not None:
            stats = self._parallel.search(game, state, self.settings, seed, allowed)
            reused = False
        else:
            tree, reused = self._prepare_tree(game, state, allowed is not None)
            stats = run_search(game, tree, state, self.settings, seed, allowed)
        action, probs, value = decide(stats, self.final, self.settings.solver)
        self.last_search = {
            "simulations": stats.simulations,
            "seconds": time.perf_counter() - start,
            "nodes": stats.nodes,
            "bytes": stats.nodes * BYTES_PER_NODE,
            "reused": reused,
            "immediate": False,
        }
        return action, probs, value

    def _prepare_tree(self, game: Game, state: np.ndarray, fresh: bool) -> tuple[Tree, bool]:
        """The tree to search ``state`` with: the reused subtree if found, else a new one."""
        tree = self._tree
        node = NO_NODE
        if (
            self.reuse_tree
            and not fresh
            and tree is not None
            and self._tree_game is type(game)
            and self._root_state is not None
            and self._root_state.shape == state.shape
        ):
            if np.array_equal(self._root_state, state):
                node = ROOT
            else:
                pin_game(game)
                node = int(
                    find_descendant(
                        game.kernels.apply_action, tree.links, self._root_state, state, REUSE_DEPTH
                    )
                )
        if node == NO_NODE:
            tree = Tree(initial_capacity(game, self.settings))
        else:
            tree.reroot(node)
        self._tree = tree if self.reuse_tree else None
        self._tree_game = type(game)
        self._root_state = state.copy()
        return tree, node != NO_NODE


def _check_choice(name: str, value: object, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, allowed))}, got {value!r}")


__all__ = ["MCTSAgent", "RootStatistics", "rollout_kind"]
