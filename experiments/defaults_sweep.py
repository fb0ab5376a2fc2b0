"""How the per-game MCTS defaults were chosen: a documented sweep against each game's reference.

For each game, a grid of ``mcts:`` options at one fixed budget plays a gauntlet against the
game's reference opponent (Ataxx and Ultimate Tic-Tac-Toe: ``minimax2``; Tic-Tac-Toe: the exact
``perfect``, where only losses can differ; Pentago Twist: ``alphabeta:depth=2``; Connect Four:
``alphabeta:depth=4``; both the plain search the sweep was played with, ``PLAIN_SEARCH``). The grid holds
the game's defaults when it was played, the generic values written out (what every game used
before per-game defaults, :data:`GENERIC_SPEC`) and the alternatives tried. Every entry states
each option that today's row of :data:`mcts_envs.agents.mcts.defaults.GAME_DEFAULTS` sets for its game, so
an entry names the same settings whatever the defaults become and the stored games keep their
meaning (a changed row means rewriting the stored records' specs to what they were played with).
The table ranks the settings by score with Wilson 95% intervals and marks the defaults of the
time; ``summary.json`` names, per game, the setting the evidence recommends (the best score),
today's row, and whether the recommendation's interval lies wholly above the defaults' of the
time (``beats_default``). Tantrix is swept by
``experiments/tantrix_report.py``.

Run: ``python -m experiments.defaults_sweep`` (``--quick`` for the test run; ``--game`` to pick;
``--games`` per setting, default 60; Tic-Tac-Toe plays ten times as many).
"""

from __future__ import annotations

import argparse
import json
import os
import time
from typing import NamedTuple

from experiments.common import (
    RESULTS,
    Series,
    add_common_arguments,
    machine,
    parse_arguments,
    run_series,
    settings_from,
    summarise,
)
from mcts_envs.agents.mcts.defaults import GENERIC_SPEC, defaults_for, spec_options
from mcts_envs.agents.players.alphabeta_options import plain_spec


class Grid(NamedTuple):
    """One gauntlet of the sweep: ``mcts:<budget>,<options>`` for each grid entry against
    ``opponent`` on ``game``; ``games_factor`` scales the games per setting.

    Every entry names each option that the game's row of today's defaults sets (a test checks
    it), so an entry means the same settings whatever the defaults become, and the stored games
    keep their meaning. ``then_default`` is the entry that was the game's defaults when the grid
    was played: the recommendation is compared with it.
    """

    game: str
    budget: str
    opponent: str
    options: tuple[str, ...]
    then_default: str
    games_factor: float = 1.0


#: run name (the results folder) -> its grid
GRIDS: dict[str, Grid] = {
    "ataxx": Grid(
        "ataxx",
        "iterations=1000",
        "minimax2",
        (
            "c=0.005,rollout_cutoff=0",  # the defaults (the c=0.005 row again, other seeds)
            GENERIC_SPEC,
            "rollout_cutoff=0,c=0",
            "rollout_cutoff=0,c=0.005",
            "rollout_cutoff=0,c=0.02",
            "rollout_cutoff=0,c=0.05",
            "rollout_cutoff=0,c=0.15",
            "rollout_cutoff=0,c=0.01,expand=all",
            "rollout_cutoff=0,c=0.01,scores=fractional",
            "rollout_cutoff=0,c=0.01,final=mean",
            "rollout_cutoff=2,c=0.01",
            "rollout_cutoff=0,c=0.01",  # the first choice of the table, before this sweep
        ),
        "c=0.005,rollout_cutoff=0",
    ),
    # Tic-Tac-Toe games are cheap and its losses rare: ten times the games there
    "tictactoe": Grid(
        "tictactoe",
        "iterations=200",
        "perfect",
        (
            "c=0.5,rollout_cutoff=0,expand=one",  # the defaults then (other seeds)
            GENERIC_SPEC,
            "c=0.5,rollout_cutoff=none,expand=one",
            "rollout_cutoff=0,c=0.5,expand=one",
            "rollout_cutoff=0,c=0.5,final=mean,expand=one",
            "rollout_cutoff=0,c=1.4,expand=one",
        ),
        "c=0.5,rollout_cutoff=0,expand=one",
        10.0,
    ),
    "ultimate_tictactoe": Grid(
        "ultimate_tictactoe",
        "iterations=1000",
        "minimax2",
        # c=0.5 sits where the sweep first played it and the generic values where it played
        # the defaults of that time, so the stored games keep their seeds
        (
            GENERIC_SPEC,
            "c=0.5,first_play=none,expand_order=random",
            "c=2.0,first_play=none,expand_order=random",
            "rollout_cutoff=0,c=0.5,first_play=none,expand_order=random",
            "scores=fractional,c=1.4,first_play=none,expand_order=random",
        ),
        "c=0.5,first_play=none,expand_order=random",
    ),
    "pentago_twist": Grid(
        "pentago_twist",
        "iterations=300",
        plain_spec(2),
        (
            GENERIC_SPEC,
            "c=0.5,rollout_cutoff=none",
            "c=1.0,rollout_cutoff=none",
            "rollout_cutoff=0,c=0.5",
            "rollout_cutoff=0,c=0.1",
            "c=0.1,rollout_cutoff=0",  # the defaults chosen then (the row above, other seeds)
        ),
        "c=0.1,rollout_cutoff=0",
    ),
    # Connect Four, its first sweep (no row yet: the generic values were its defaults), against
    # depth-4 alpha-beta over the line-weight heuristic
    "connect_four": Grid(
        "connect_four",
        "iterations=1000",
        plain_spec(4),
        (
            GENERIC_SPEC,
            "c=0.5,rollout_cutoff=none,first_play=none,expand_order=random",
            "c=1.0,rollout_cutoff=none,first_play=none,expand_order=random",
            "c=0.5,rollout_cutoff=none,first_play=1.0,expand_order=heuristic",
            "c=1.0,rollout_cutoff=none,first_play=1.0,expand_order=heuristic",
            "c=0.2,rollout_cutoff=0,first_play=none,expand_order=random",
            "c=0.05,rollout_cutoff=0,first_play=none,expand_order=random",
        ),
        GENERIC_SPEC,
    ),
    # around the first sweep's best (heuristic leaves; ``then_default`` here is that pick, the
    # generic values are not in this grid), then the pick against the generic values at a time
    # budget
    "connect_four_leaves": Grid(
        "connect_four",
        "iterations=1000",
        plain_spec(4),
        (
            "c=0.1,rollout_cutoff=0,first_play=none,expand_order=random",
            "c=0.2,rollout_cutoff=0,first_play=none,expand_order=random",
            "c=0.35,rollout_cutoff=0,first_play=none,expand_order=random",
            "c=0.2,rollout_cutoff=0,first_play=none,expand_order=random,expand=all",
            "c=0.2,rollout_cutoff=0,first_play=1.0,expand_order=heuristic",
        ),
        "c=0.2,rollout_cutoff=0,first_play=none,expand_order=random",
    ),
    "connect_four_0.05s": Grid(
        "connect_four",
        "iterations=none,seconds=0.05",
        plain_spec(4),
        (GENERIC_SPEC, "c=0.2,rollout_cutoff=0,first_play=none,expand_order=random"),
        GENERIC_SPEC,
    ),
    # checks of the Pentago Twist choice at a larger budget and at a time budget
    "pentago_twist_1000": Grid(
        "pentago_twist",
        "iterations=1000",
        plain_spec(2),
        (
            GENERIC_SPEC,
            "rollout_cutoff=0,c=0.1",
            "rollout_cutoff=0,c=0.05",
            "rollout_cutoff=0,c=0.25",
        ),
        "rollout_cutoff=0,c=0.1",
        2 / 3,
    ),
    "pentago_twist_0.5s": Grid(
        "pentago_twist",
        "iterations=none,seconds=0.5",
        plain_spec(2),
        (GENERIC_SPEC, "rollout_cutoff=0,c=0.1"),
        "rollout_cutoff=0,c=0.1",
        1 / 3,
    ),
}
_TICTACTOE_TODAY = spec_options(defaults_for("tictactoe"), only_changed=True)
QUICK_GRID = {
    "tictactoe": Grid(
        "tictactoe", "iterations=50", "perfect", (_TICTACTOE_TODAY, "c=0.5"), _TICTACTOE_TODAY
    )
}


def spec_of(budget: str, options: str) -> str:
    return f"mcts:{budget}" + (f",{options}" if options else "")


def grid_series(grid: Grid) -> list[Series]:
    """The grid as the one series :func:`~experiments.common.run_series` plays."""
    specs = {float(i): spec_of(grid.budget, options) for i, options in enumerate(grid.options)}
    return [Series(grid.game, specs, (grid.opponent,))]


def grid_games(grid: Grid, games: int) -> int:
    """Games per setting of ``grid`` when a run asks for ``games`` (even, scaled by its factor)."""
    return 2 * max(1, round(games * grid.games_factor / 2))


def _row_text(game: str) -> str:
    """The game's defaults as spec options (only those that differ from the generic values)."""
    return spec_options(defaults_for(game), only_changed=True) or "the generic values"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_common_arguments(parser, RESULTS / "defaults_sweep")
    parser.add_argument("--game", nargs="*", default=None, help=f"runs ({', '.join(GRIDS)})")
    args = parse_arguments(parser, argv)
    out, settings = settings_from(args, full_games=60, quick_games=2)
    out = out or RESULTS / ("defaults_sweep" + ("_quick" if args.quick else ""))
    grids = QUICK_GRID if args.quick else {name: GRIDS[name] for name in (args.game or GRIDS)}
    start_load = os.getloadavg()
    started = time.time()
    lines = [
        "# Per-game MCTS options against a reference opponent",
        "",
        f"{settings.games} games per setting unless stated (colours swapped in pairs, master seed "
        f"{settings.seed}); iteration budgets but one, so the load (average "
        f"{start_load[0]:.1f} at the start, 2 cores) changes speed, not results. Sorted by score; "
        "(defaults then) marks the game's defaults when the grid was played, `generic` the values "
        "every game used before per-game defaults.",
    ]
    summary: dict[str, object] = {}
    for name, grid in grids.items():
        game, budget, opponent = grid.game, grid.budget, grid.opponent
        series = grid_series(grid)
        games = settings.games if args.quick else grid_games(grid, settings.games)
        path = out / name / "results.jsonl"
        records = run_series(game, series, settings._replace(games=games), path).records
        points = sorted(summarise(records, series), key=lambda p: (-p.score, p.losses))
        default = next(p for p in points if p.spec == spec_of(budget, grid.then_default))
        lines += [
            "",
            f"## {game}: `mcts:{budget},...` against `{opponent}` ({games} games each)",
            "",
            f"Defaults when played: `{grid.then_default}`; today's: `{_row_text(game)}`.",
            "",
            "| options | W/D/L | score [Wilson 95%] |",
            "| --- | --- | --- |",
        ]
        for p in points:
            low, high = p.score_interval()
            options = p.spec[len(spec_of(budget, "")) + 1 :]
            label = "`generic`" if options == GENERIC_SPEC else f"`{options}`"
            if options == grid.then_default:
                label += " (defaults then)"
            lines.append(
                f"| {label} | {p.wins}/{p.draws}/{p.losses} | {p.score:.2f} "
                f"[{low:.2f}, {high:.2f}] |"
            )
        best = points[0]
        summary[name] = {
            "game": game,
            "budget": budget,
            "opponent": opponent,
            "recommended": best.spec,
            "table_row": _row_text(game),
            "score": best.score,
            "interval": best.score_interval(),
            "games": best.games,
        }
        summary[name] |= {
            "default_then": grid.then_default,
            "default_score": default.score,
            "default_interval": default.score_interval(),
            "beats_default": best.score_interval()[0] > default.score_interval()[1],
            "default_games": default.games,
        }
    meta = {"wall_seconds": round(time.time() - started, 1), "machine": machine(start_load)}
    lines += ["", f"{meta['wall_seconds']} s wall.", ""]
    out.mkdir(parents=True, exist_ok=True)
    (out / "table.md").write_text("\n".join(lines))
    (out / "summary.json").write_text(
        json.dumps(
            {**meta, "games_per_setting": settings.games, "seed": settings.seed, "games": summary},
            indent=1,
        )
        + "\n"
    )
    print("\n".join(lines))


if __name__ == "__main__":
    main()
