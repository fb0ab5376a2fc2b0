"""The per-game MCTS defaults: each game's row of options, one
:class:`~mcts_envs.agents.mcts.config.MCTSConfig` each.

An option of :class:`~mcts_envs.agents.mcts.config.MCTSConfig` whose default is
:data:`~mcts_envs.agents.mcts.config.PER_GAME` takes the value of the game's row
(:data:`GAME_DEFAULTS`, :func:`resolve`) when it is not given; the search translates the resolved
config once, in :func:`mcts_envs.agents.mcts.driver.loop_plan`, into what the compiled loop needs.

Only the options whose default is :data:`~mcts_envs.agents.mcts.config.PER_GAME` vary by game
(``c``, ``expand``, ``rollout``, ``scores``, ``final``, ``solver``, ``rollout_cutoff``,
``minimax_weight``, ``first_play``, ``expand_order``); each row is :data:`GENERIC` with a few of
them replaced, and every other option has one default for every game. A game not in the table (a user's own :class:`~mcts_envs.core.game.Game`) gets
:data:`GENERIC`, the package's defaults before per-game defaults existed. An option given
explicitly (``mcts:c=1.4`` or ``MCTSAgent(c=1.4)``) always wins over the table; an agent learns
the game at its first search or :meth:`~mcts_envs.agents.mcts.MCTSAgent.prepare`, and one agent
may play several games. The rows were chosen by measurement (``experiments/defaults_sweep.py``);
the evidence for each is in ``experiments/README.md``, "Per-game MCTS defaults".
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
    # minimax backups stay off: stronger per simulation, not at equal time (experiments README)
    "ataxx": replace(GENERIC, c=0.005, rollout_cutoff=0),
    # the line-potential heuristic at the new leaf, every child scored at once: no loss to
    # perfect play at 400-3,200 iterations ("one" expansion lost 3% at 800; experiments README)
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
    # the line-weight heuristic at the new leaf (its values move by about a tenth per move):
    # far ahead of random playouts against alpha-beta at equal iterations (experiments README)
    "connect_four": replace(GENERIC, c=0.2, rollout_cutoff=0),
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
