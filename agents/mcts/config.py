"""The options of one MCTS agent: :class:`MCTSConfig`, each option written once (name, type,
default, allowed range, meaning) and checked when a config is made.

The ``mcts:`` spec (:func:`mcts_envs.agents.spec.make_agent`), the
:class:`~mcts_envs.agents.mcts.MCTSAgent` constructor, ``mcts-envs list`` and the option table of
the docs (``docs/_scripts/mcts_options.py``) all read the fields of :class:`MCTSConfig`. An option
whose default is :data:`PER_GAME` takes the value of the game's row
(:data:`mcts_envs.agents.mcts.defaults.GAME_DEFAULTS`) when it is not given.

Importing this module imports no numba (``mcts-envs list`` and the docs build read it).
"""

from __future__ import annotations

import functools
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import Any, Literal

from mcts_envs.agents.base import MAX_ITERATIONS, MAX_SECONDS, MIN_SECONDS, check_number
from mcts_envs.core.errors import InvalidOptionError
from mcts_envs.core.quoting import quote

__all__ = ["PER_GAME", "MCTSConfig", "PerGame", "python_leaves"]

#: Upper bounds of the numeric options (see :func:`mcts_envs.agents.base.check_number`).
MAX_WORKERS = 256
MAX_CUTOFF = 10**9
MAX_BATCH = 1 << 16
MAX_EXPLORATION = 1e6
MAX_MEMORY_MB = float(1 << 30)  # a petabyte: any finite memory bound a machine can honour


class PerGame:
    """The default of an option that depends on the game (shown as ``per game`` in
    ``mcts-envs list``); :data:`PER_GAME` is its one instance."""

    def __repr__(self) -> str:
        return "per game"

    def __reduce__(self) -> str:
        return "PER_GAME"  # pickles as the module-level instance


#: The default of the per-game options (``value is PER_GAME``: not given, the game's row decides).
PER_GAME = PerGame()


def _about(help: str, low: float | None = None, high: float | None = None) -> dict[str, Any]:
    """The metadata of a field of :class:`MCTSConfig`: its meaning (``help``) and, for a number,
    its range ``[low, high]``."""
    return {"help": help, "range": (low, high)}


@dataclass(frozen=True)
class MCTSConfig:
    """Every option of one MCTS agent, checked when the config is made.

    Each field is an option of the ``mcts:`` spec and of the
    :class:`~mcts_envs.agents.mcts.MCTSAgent` constructor, with the same name and value; its
    meaning is the field's ``help`` (``dataclasses.fields(MCTSConfig)``, listed by ``mcts-envs
    list agents`` and in the docs). A field left at :data:`PER_GAME` takes the game's row
    (:func:`mcts_envs.agents.mcts.defaults.resolve`). Frozen: derive a variant with
    :func:`dataclasses.replace` (checked again).

    Raises:
        InvalidOptionError: naming the option and what is allowed, for a value of the wrong
            type or out of its range, no budget at all, or ``minimax_weight`` above 0 with
            leaves evaluated in Python. The ``mcts:`` spec raises the same error for the same
            value.
    """

    iterations: int | None = field(
        default=1000,
        metadata=_about("simulations per decision; none: time only", 1, MAX_ITERATIONS),
    )
    seconds: float | None = field(
        default=None,
        metadata=_about(
            "wall-clock budget per decision; with iterations, the first reached ends the search. "
            "It covers the whole decision (win check, re-rooting a reused tree, search, final "
            "choice); a full tree that would take longer to copy than the time left ends it early",
            MIN_SECONDS,
            MAX_SECONDS,
        ),
    )
    c: float = field(
        default=PER_GAME,
        metadata=_about(
            "UCT exploration constant in Q + c * sqrt(ln N / n), results in [0, 1]",
            0.0,
            MAX_EXPLORATION,
        ),
    )
    expand: Literal["one", "all"] = field(
        default=PER_GAME,
        metadata=_about(
            "one: one new child per simulation, in random order; all: every child of a leaf at "
            "once, each simulated once"
        ),
    )
    rollout: Literal["random", "minimax2"] | Callable[..., Any] = field(
        default=PER_GAME,
        metadata=_about(
            "random: the game's compiled playout; minimax2: depth-2 minimax moves over the game's "
            "heuristic; a numba @njit function (state, rng) -> None playing to the end in place "
            "(compiled); or a Python callable fn(game, state) -> action (slow)"
        ),
    )
    scores: Literal["binary", "fractional"] = field(
        default=PER_GAME,
        metadata=_about(
            "binary: win 1, draw 0.5, loss 0; fractional: the game's graded score (e.g. Ataxx "
            "stone share)"
        ),
    )
    final: Literal["visits", "mean"] = field(
        default=PER_GAME,
        metadata=_about("the move played: the most visited root child, or the best mean"),
    )
    win_check: bool = field(
        default=True,
        metadata=_about(
            "play an immediately winning move without searching; otherwise search only moves "
            "after which the opponent cannot win at once, when there are such moves"
        ),
    )
    reuse_tree: bool = field(
        default=True,
        metadata=_about(
            "keep the subtree of the position reached since the last decision, followed through "
            "inform (each move and chance outcome) or restart; never with several workers"
        ),
    )
    solver: bool = field(
        default=PER_GAME,
        metadata=_about(
            "MCTS-Solver: back up proven wins, losses and draws, never pick a proven loss while "
            "something else is left, stop once the root is proven"
        ),
    )
    workers: int = field(
        default=1,
        metadata=_about(
            "root parallelism: independent searches in this many processes, root visits merged "
            "(deterministic with a seed and iterations)",
            1,
            MAX_WORKERS,
        ),
    )
    evaluator: Callable[..., Any] | None = field(
        default=None,
        metadata=_about(
            "evaluator(observations, masks) -> (priors, values), batched over leaves; when set, "
            "selection is PUCT and its values replace rollouts"
        ),
    )
    c_puct: float = field(
        default=1.25,
        metadata=_about(
            "PUCT exploration constant in Q + c_puct * P * sqrt(N) / (1 + n)", 0.0, MAX_EXPLORATION
        ),
    )
    dirichlet_alpha: float = field(
        default=0.3,
        metadata=_about(
            "concentration of the root Dirichlet noise (with an evaluator)", 0.0, MAX_EXPLORATION
        ),
    )
    dirichlet_fraction: float = field(
        default=0.25,
        metadata=_about(
            "weight of the Dirichlet noise in the root priors, once per search (0 for evaluation "
            "games; with an evaluator)",
            0.0,
            1.0,
        ),
    )
    batch_size: int = field(default=8, metadata=_about("leaves per evaluator call", 1, MAX_BATCH))
    rollout_cutoff: int | None = field(
        default=PER_GAME,
        metadata=_about(
            "stop compiled rollouts after this many moves and score the unfinished game with its "
            "heuristic (0 scores the new leaf itself); none: play to the end",
            0,
            MAX_CUTOFF,
        ),
    )
    max_memory_mb: float | None = field(
        default=None,
        metadata=_about(
            "memory bound of the search tree in MB, shared by the trees of several workers (node "
            "arrays, the copy kept for re-rooting, a copy in progress: about "
            "max_memory_mb * 2**20 / 84 nodes); a full tree ends the search with what it holds "
            "(SearchResult.tree_full); none: a quarter of the machine's memory, at most 4096 MB "
            "(1024 MB if unknown)",
            1.0,
            MAX_MEMORY_MB,
        ),
    )
    minimax_weight: float = field(
        default=PER_GAME,
        metadata=_about(
            "implicit minimax backups (Lanctot et al., CIG 2014), a weight w in [0, 1]: each "
            "node also keeps the minimax value of the game's heuristic over its subtree (a new "
            "leaf: its heuristic; above: the best visited child for the player to move, the "
            "probability-weighted mean at a chance node), and UCT ranks a child by "
            "(1 - w) * Q + w * V; 0 is the plain search, move for move. Needs "
            "compiled leaves (not with an evaluator or a Python rollout, where a per-game value "
            "is ignored); 4 more bytes per node when above 0",
            0.0,
            1.0,
        ),
    )
    first_play: float | None = field(
        default=PER_GAME,
        metadata=_about(
            "first-play urgency (Gelly and Wang 2006) for UCT with expand=one: the UCT score an "
            "untried child counts as, so a node tries a new child only while none of its tried "
            "children scores that much; none: every child is tried once before any again. Not "
            "used by expand=all or an evaluator",
            0.0,
            MAX_EXPLORATION,
        ),
    )
    expand_order: Literal["random", "heuristic"] = field(
        default=PER_GAME,
        metadata=_about(
            "the order in which expand=one tries a node's children: random, or heuristic: best "
            "first by the game's heuristic of the position each leads to, for the player to move "
            "(ties in random order)"
        ),
    )

    def __post_init__(self) -> None:
        hints = _field_types()
        for option in fields(self):
            value = getattr(self, option.name)
            if value is PER_GAME and option.default is PER_GAME:
                continue
            low, high = option.metadata["range"]
            checked = _checked(option.name, hints[option.name], value, low, high)
            object.__setattr__(self, option.name, checked)
        if self.iterations is None and self.seconds is None:
            raise InvalidOptionError("mcts: give a budget: iterations, seconds or both")
        weight = self.minimax_weight
        rollout = "random" if self.rollout is PER_GAME else self.rollout  # rows name compiled ones
        if weight is not PER_GAME and weight > 0 and python_leaves(rollout, self.evaluator):
            raise InvalidOptionError(
                "mcts: minimax_weight needs compiled leaf evaluations (a random, minimax2 or "
                "@njit rollout, or a rollout_cutoff): not with an evaluator or a Python rollout, "
                f"got minimax_weight={weight}"
            )

    def per_game_options(self) -> dict[str, Any]:
        """The options whose default is :data:`PER_GAME`, by name (what a game's row sets)."""
        return {name: getattr(self, name) for name in PER_GAME_OPTIONS}


#: The options whose default is :data:`PER_GAME` (a game's row sets them).
PER_GAME_OPTIONS: tuple[str, ...] = tuple(
    option.name for option in fields(MCTSConfig) if option.default is PER_GAME
)


def python_leaves(rollout: Any, evaluator: Any) -> bool:
    """Whether a search with this ``rollout`` and ``evaluator`` evaluates its leaves in Python:
    with an evaluator, or a rollout that is a plain Python callable (not ``"random"``,
    ``"minimax2"`` or a numba ``@njit`` function)."""
    if evaluator is not None:
        return True
    if isinstance(rollout, str):
        return False
    from numba.core.dispatcher import Dispatcher  # only for a callable rollout: numba is in use

    return not isinstance(rollout, Dispatcher)


@functools.cache
def _field_types() -> dict[str, Any]:
    """The fields' type hints (resolved once)."""
    return typing.get_type_hints(MCTSConfig)


def _members(hint: Any) -> tuple[Any, ...]:
    """The members of a union type hint (the hint itself if it is not a union)."""
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        return typing.get_args(hint)
    return (hint,)


def _checked(name: str, hint: Any, value: Any, low: float | None, high: float | None) -> Any:
    """``value`` as the option ``name`` of type ``hint`` keeps it (numbers as ``int`` or
    ``float``), or :class:`InvalidOptionError` naming what is allowed."""
    members = _members(hint)
    optional = type(None) in members
    if value is None and optional:
        return None
    choices = [c for m in members if typing.get_origin(m) is Literal for c in typing.get_args(m)]
    takes_callable = any(typing.get_origin(m) is Callable for m in members)
    if isinstance(value, str) and value in choices:
        return value
    if bool in members and isinstance(value, bool):
        return value
    if takes_callable and callable(value) and not isinstance(value, str):
        return value
    numeric = [m for m in members if m in (int, float)]
    if numeric:
        integer = numeric == [int]
        return check_number("mcts", name, value, low, high, integer=integer, optional=optional)
    allowed = []
    if choices:
        allowed.append("one of " + ", ".join(map(repr, choices)))
    if bool in members:
        allowed.append("true or false")
    if takes_callable:
        allowed.append("a callable")
    if optional:
        allowed.append("None")
    raise InvalidOptionError(f"mcts: {name} must be {' or '.join(allowed)}, got {quote(value)}")
