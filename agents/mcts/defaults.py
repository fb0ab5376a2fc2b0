"""The per-game MCTS defaults: each game's row of options, an :class:`~mcts_envs.agents.mcts.config.MCTSConfig`.

An option of :class:`~mcts_envs.agents.mcts.config.MCTSConfig` whose default is
:data:`~mcts_envs.agents.mcts.config.PER_GAME` takes the value of the game's row
(:data:`GAME_DEFAULTS`, :func:`resolve`) when it is not given; the search translates the resolved
config once, in :func:`mcts_envs.agents.mcts.driver.loop_plan`, into what the compiled loop needs.

One global setting is not strong on every game: random playouts are hopeless in Ataxx (0 of 20
games against ``minimax2`` at 1,000 iterations) but the best leaf evaluation in Ultimate
Tic-Tac-Toe, and the heuristic's values span a much narrower range than win/loss results, so the
exploration constant that suits one evaluation is far too large for the other. Each game
therefore has its own defaults, chosen by the documented sweep in ``experiments/defaults_sweep.py``
(README, "Per-game MCTS defaults"). An option given explicitly (``mcts:c=1.4`` or
``MCTSAgent(c=1.4)``) always wins over the table; an agent learns the game at its first search
or :meth:`~mcts_envs.agents.mcts.MCTSAgent.prepare`, and one agent may play several games.

The table (evidence against each game's reference opponent; Wilson intervals in the README):

* ``ataxx``: ``c=0.005, rollout_cutoff=0`` (the stone share scores the new leaf). Against
  ``minimax2`` at 1,000 iterations: 110 wins of 120 (generic: 0 of 60).
* ``tictactoe``: ``c=0.5, rollout_cutoff=0, expand="all"`` (the line-potential heuristic scores
  every child of a new leaf at once). Against ``perfect``: no loss in 1,000 games at each of 400,
  800, 1,600 and 3,200 iterations. The row without ``expand="all"`` lost 30 of 1,000 at 800, all
  as O by its first reply to a corner: one child per simulation, in random order, makes a
  node's mean a sample of whichever children came first, and at 400-800 iterations that noise
  is as large as what separates the centre (the only drawing reply) from the corners (the
  centre's visit lead over the next reply at 800: 23 +- 14 over 50 seeds, below zero in some);
  no reply is proven at that budget either way. Scoring every child removes the order noise
  (the lead: 21 +- 3, never below 15) and shows a mover's immediate wins at once
  (``experiments/tictactoe_replies.py`` counts the losing replies by budget). The price is at
  the smallest budgets: 147 of 1,000 lost at 50 iterations (the earlier row 90).
* ``ultimate_tictactoe``: ``c=0.5, first_play=1.0, expand_order="heuristic"`` (random
  playouts; a node tries a new child only while none of its tried children scores 1.0 in UCT,
  and tries them best first by the heuristic, so winning a local board comes first). ``c=0.5``:
  against OpenSpiel's ``MCTSBot`` at equal time per move (40 games each) 0.96 at 0.1 s and
  0.94 at 0.3 s, generic ``c=1.4`` 0.88 and 0.80; against ``minimax2`` at 1,000 iterations 0.96
  (generic 0.91). The urgency and the order: against the same ``MCTSBot`` at equal
  simulations (1,000 a move, 200 games, new seeds) 0.68 score where ``c=0.5`` alone scored
  0.53-0.56, and 0.63 with ``c=1`` (OpenSpiel's constant) where it scored 0.41-0.49; either
  alone helps less (self-play screens, 200 games each against the ``c=0.5`` row: urgency alone,
  ``first_play=1.2``, 0.48; the order alone 0.53; both 0.615). README, "Equal simulations".
* ``pentago_twist``: ``c=0.2, rollout_cutoff=0`` (the line-potential heuristic). The heuristic
  leaf was chosen against ``alphabeta:depth=2`` (0.57 score at 300 iterations with ``c=0.1``,
  generic 0.31); ``c`` at equal time against ``alphabeta``: at 1 s a move ``c=0.2`` scored 0.78
  [0.69, 0.85] over 100 games (0.725 in a 40-game screen) where ``c=0.1`` scored 0.56 [0.46,
  0.65] (screens with ``c=0.1``: ``minimax_weight=0.3`` 0.43, heuristic child order with
  first-play urgency 0.16); at 0.03, 0.1 and 0.3 s ``c=0.2`` scored 0.56, 0.56 and 0.61, ``c=0.1``
  0.49, 0.62 and 0.57 (40-100 games, intervals overlapping).
* ``tantrix``: ``c=0.75`` (random playouts). Against ``oliver`` at measured equal time, 0.3 s per
  move: 0.725 win rate over 120 games (c=0.5: 0.50 over 40); chosen after a first sweep, and never
  separated from c=0.5 by the intervals. Again on today's engine (forced placements played at
  once, a median of about 5,000 simulations a move), 100 games each: c=0.75 0.93, c=0.5 0.90,
  c=1 0.85.

``minimax_weight`` (implicit minimax backups, Lanctot et al. 2014: each node also keeps the minimax
value of the heuristic over its subtree, and UCT ranks a child by ``(1 - w) * Q + w * V``) is 0, the
plain search, on every game. Measured on Ataxx (the game whose heuristic it was built for; 2 cores,
load 11-20, seat-alternated, Wilson 95% intervals): against the plain default at equal iterations
(1,000 a move, 40 games each) ``w=0.1`` scores 0.55 [0.40, 0.69] and ``w=0.3`` 0.65 [0.50, 0.78]
(``w=0.1`` at 3,000: 0.63 [0.46, 0.78] over 30), but it costs 13-15% of the simulations per second,
and at equal time (0.1 s a move, 40 games each, seed 2917) it does not win: ``w=0.1`` 0.51 [0.36,
0.66], ``w=0.3`` 0.43 [0.29, 0.58]. Against ``alphabeta`` at equal time it added nothing measurable
under the same load (0.1 s: ``w=0.1`` 0.825 [0.74, 0.89] over 100 games, seed 2912; the default 0.85
[0.71, 0.93] over 40, seed 2911; records not kept), nor at load about 2 (0.3 s, 40 games each, seed
413000: ``w=0.3`` 0.36 [0.23, 0.52], the default 0.35 [0.22, 0.50]). At load 11-20 on 2 cores each
side gets a small share of a core, so "0.1 s" buys far less search, which would put these scores at
the low-budget end of the equal-time curve, where MCTS leads (at load about 2: 0.59 at 0.03 s, 0.47
at 0.1 s, alpha-beta better from 0.3 s; README, "Equal time against alpha-beta").

Only the options of :data:`PER_GAME_OPTIONS` vary by game, and a row sets only those named above;
the others keep their generic values (:data:`GENERIC`): ``expand="one"`` (all but Tic-Tac-Toe),
``rollout="random"``, ``scores="binary"``, ``final="visits"``, ``solver=True``,
``first_play=None`` and ``expand_order="random"`` (all but Ultimate Tic-Tac-Toe). Games not in the
table (a user's own :class:`~mcts_envs.core.game.Game`) get :data:`GENERIC`, the package's defaults
before per-game defaults existed.
"""

from __future__ import annotations

from dataclasses import replace

from mcts_envs.agents.mcts.config import PER_GAME, PER_GAME_OPTIONS, MCTSConfig

#: The options of games without an entry (and the package's single defaults before this table).
GENERIC = MCTSConfig(
    c=1.4,
    expand="one",
    rollout="random",
    scores="binary",
    final="visits",
    solver=True,
    rollout_cutoff=None,
    minimax_weight=0.0,
    first_play=None,
    expand_order="random",
)

#: Game name (``game.info.name``) -> its defaults.
GAME_DEFAULTS: dict[str, MCTSConfig] = {
    # heuristic (stone share) at the new leaf, no playout; the share moves by a few hundredths
    # per move, so the exploration constant is about a hundredth of the generic one; implicit
    # minimax backups stay off: stronger per simulation, not at equal time (module docstring)
    "ataxx": replace(GENERIC, c=0.005, rollout_cutoff=0),
    # the line-potential heuristic at the new leaf, every child scored at once: no loss to
    # perfect play at 400-3,200 iterations ("one" expansion lost 3% at 800; see the docstring)
    "tictactoe": replace(GENERIC, c=0.5, rollout_cutoff=0, expand="all"),
    # random playouts with a smaller constant (clearly stronger against OpenSpiel at equal
    # time); first-play urgency with children tried best first by the heuristic: stronger per
    # simulation against OpenSpiel's MCTSBot (README, "Equal simulations")
    "ultimate_tictactoe": replace(GENERIC, c=0.5, first_play=1.0, expand_order="heuristic"),
    # the line-potential heuristic at the new leaf (its values move by about a tenth per move);
    # c from the equal-time screens against alpha-beta
    "pentago_twist": replace(GENERIC, c=0.2, rollout_cutoff=0),
    # best of c = 0.35-1 against oliver at equal time (the report's own value is 0.5)
    "tantrix": replace(GENERIC, c=0.75),
}


def defaults_for(game_name: str) -> MCTSConfig:
    """The per-game defaults of ``game_name`` (:data:`GENERIC` for a game not in the table)."""
    return GAME_DEFAULTS.get(game_name, GENERIC)


def resolve(config: MCTSConfig, game_name: str) -> MCTSConfig:
    """``config`` with each option left at :data:`PER_GAME` taken from ``game_name``'s row (the
    same object when none is left): an option given explicitly always wins over the table."""
    row = defaults_for(game_name)
    missing = {k: getattr(row, k) for k in PER_GAME_OPTIONS if getattr(config, k) is PER_GAME}
    return replace(config, **missing) if missing else config


def spec_options(row: MCTSConfig, only_changed: bool = False) -> str:
    """The per-game options of ``row`` as ``mcts:`` spec options (``"c=0.5,rollout_cutoff=0"``;
    ``None`` as ``none``), all of them or only those that differ from :data:`GENERIC`; parsed
    back by :func:`mcts_envs.agents.spec.make_agent` to the same options."""
    return ",".join(
        f"{k}={'none' if v is None else v}"
        for k, v in row.per_game_options().items()
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
    "defaults_for",
    "describe",
    "resolve",
    "spec_options",
]
