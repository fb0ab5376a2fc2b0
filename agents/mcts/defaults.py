"""Per-game MCTS defaults: the options an ``mcts`` agent uses on a game when its spec leaves them out.

One global setting is not strong on every game: random playouts are hopeless in Ataxx (0 of 20
games against ``minimax2`` at 1,000 iterations) but the best leaf evaluation in Ultimate
Tic-Tac-Toe, and the heuristic's values span a much narrower range than win/loss results, so the
exploration constant that suits one evaluation is far too large for the other. Each game
therefore has its own defaults, chosen by the documented sweep in ``experiments/defaults_sweep.py``
(README, "Per-game MCTS defaults"). An option given explicitly (``mcts:c=1.4`` or
``MCTSAgent(c=1.4)``) always wins over the table; an agent learns the game at its first search
or :meth:`~agents.mcts.MCTSAgent.prepare`, and one agent may play several games.

The table (evidence against each game's reference opponent; Wilson intervals in the README):

* ``ataxx``: ``c=0.005, rollout_cutoff=0`` (the stone share scores the new leaf). Against
  ``minimax2`` at 1,000 iterations: 110 wins of 120 (generic: 0 of 60).
* ``tictactoe``: ``c=0.5, rollout_cutoff=0`` (the line-potential heuristic). Against ``perfect``:
  fewer losses than generic at every budget, none in 1,000 games at 200 and at 1,600-6,400.
* ``ultimate_tictactoe``: ``c=0.5`` (random playouts). Against OpenSpiel's ``MCTSBot`` at equal
  time per move (40 games each): 0.96 at 0.1 s and 0.94 at 0.3 s, generic ``c=1.4`` 0.88 and 0.80;
  against ``minimax2`` at 1,000 iterations 0.96 (generic 0.91).
* ``pentago_twist``: ``c=0.1, rollout_cutoff=0`` (the line-potential heuristic). Against
  ``alphabeta:depth=2``: 0.57 score at 300 iterations (generic 0.31), 20/0/0 at 0.5 s per move.
* ``tantrix``: ``c=0.75`` (random playouts). Against ``oliver`` at measured equal time, 0.3 s per
  move: 0.725 win rate over 120 games (c=0.5: 0.50 over 40); chosen after a first sweep, and never
  separated from c=0.5 by the intervals.

Every other option keeps its generic value (:data:`GENERIC`): ``expand="one"``,
``rollout="random"``, ``scores="binary"``, ``final="visits"``, ``solver=True``. Games not in the
table (a user's own :class:`~mcts_envs.core.game.Game`) get :data:`GENERIC`, the package's
defaults before per-game defaults existed.
"""

from __future__ import annotations

from typing import Any, Literal, NamedTuple


class PerGame:
    """The default value of an :class:`~agents.mcts.MCTSAgent` option that depends on the game
    (shown as ``per game`` in ``mcts-envs list``); :data:`PER_GAME` is its one instance."""

    def __repr__(self) -> str:
        return "per game"

    def __reduce__(self) -> str:
        return "PER_GAME"  # pickles as the module-level instance


#: The marker default of the per-game options (``option is PER_GAME``: not given explicitly).
PER_GAME = PerGame()


class MCTSDefaults(NamedTuple):
    """The game-dependent options of :class:`~agents.mcts.MCTSAgent` (see its docstring for
    their meaning). ``rollout_cutoff=None`` plays rollouts to the end."""

    c: float = 1.4
    expand: Literal["one", "all"] = "one"
    rollout: Literal["random", "minimax2"] = "random"
    scores: Literal["binary", "fractional"] = "binary"
    final: Literal["visits", "mean"] = "visits"
    solver: bool = True
    rollout_cutoff: int | None = None


#: The options of games without an entry (and the package's single defaults before this table).
GENERIC = MCTSDefaults()

#: Game name (``game.info.name``) -> its defaults.
GAME_DEFAULTS: dict[str, MCTSDefaults] = {
    # heuristic (stone share) at the new leaf, no playout; the share moves by a few hundredths
    # per move, so the exploration constant is about a hundredth of the generic one
    "ataxx": MCTSDefaults(c=0.005, rollout_cutoff=0),
    # the line-potential heuristic at the new leaf: far fewer losses to perfect play than random
    # playouts at every budget measured (none from 1,600 iterations up; see the README)
    "tictactoe": MCTSDefaults(c=0.5, rollout_cutoff=0),
    # random playouts with a smaller constant: clearly stronger against OpenSpiel at equal time
    "ultimate_tictactoe": MCTSDefaults(c=0.5),
    # the line-potential heuristic at the new leaf (its values move by about a tenth per move)
    "pentago_twist": MCTSDefaults(c=0.1, rollout_cutoff=0),
    # best of c = 0.35-1 against oliver at equal time (the report's own value is 0.5)
    "tantrix": MCTSDefaults(c=0.75),
}

#: The option names the table sets.
OPTIONS: tuple[str, ...] = MCTSDefaults._fields


def defaults_for(game_name: str) -> MCTSDefaults:
    """The per-game defaults of ``game_name`` (:data:`GENERIC` for a game not in the table)."""
    return GAME_DEFAULTS.get(game_name, GENERIC)


def resolve(explicit: dict[str, Any], game_name: str) -> MCTSDefaults:
    """The options for ``game_name``: each value of ``explicit`` that is not :data:`PER_GAME`
    wins; the others come from the game's row of the table."""
    given = {k: v for k, v in explicit.items() if v is not PER_GAME}
    return defaults_for(game_name)._replace(**given)


def spec_options(row: MCTSDefaults, only_changed: bool = False) -> str:
    """``row`` as ``mcts:`` spec options (``"c=0.5,rollout_cutoff=0"``; ``None`` as ``none``),
    all of them or only those that differ from :data:`GENERIC`; parsed back by
    :func:`agents.spec.make_agent` to the same options."""
    return ",".join(
        f"{k}={'none' if v is None else v}"
        for k, v in row._asdict().items()
        if not only_changed or v != getattr(GENERIC, k)
    )


#: The generic values written out as spec options (explicit options win over the table).
GENERIC_SPEC = spec_options(GENERIC)


def describe() -> str:
    """The table as text, one line per game (for ``mcts-envs list``)."""
    lines = ["  per-game defaults (options not given in the spec):"]
    for name, row in sorted(GAME_DEFAULTS.items()):
        changed = spec_options(row, only_changed=True).replace(",", ", ")
        lines.append(f"    {name}: " + (changed or "the generic values"))
    generic = GENERIC_SPEC.replace(",", ", ")
    lines.append(f"    generic (other games): {generic}")
    return "\n".join(lines)


__all__ = [
    "GAME_DEFAULTS",
    "GENERIC",
    "GENERIC_SPEC",
    "OPTIONS",
    "PER_GAME",
    "MCTSDefaults",
    "PerGame",
    "defaults_for",
    "describe",
    "resolve",
    "spec_options",
]
