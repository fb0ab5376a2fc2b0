"""How the per-game MCTS defaults were chosen: a documented sweep against each game's reference.

For each game, a grid of ``mcts:`` options at one fixed iteration budget plays a gauntlet against
the game's reference opponent (Ataxx and Ultimate Tic-Tac-Toe: ``minimax2``; Tic-Tac-Toe: the exact
``perfect``, where only losses can differ; Pentago Twist: ``alphabeta:depth=2``). The grid holds
the package's per-game defaults (``mcts:iterations=N`` alone, the game's row of
:data:`agents.mcts.defaults.GAME_DEFAULTS`), the generic values written out (what every game used
before per-game defaults, :data:`GENERIC_SPEC`) and the alternatives tried. The table ranks the
settings by score with Wilson 95% intervals and marks the defaults; ``summary.json`` names, per
game, the setting the evidence recommends (the best score), the table's row, and whether the
recommendation's interval lies wholly above the defaults' (``beats_default``: only then does the
evidence say the table should change). Options in the grid are given on top of the game's
defaults, so a grid entry states every option that differs from them (``rollout_cutoff=none`` for
random playouts on a game whose defaults score the leaf). Tantrix is swept by
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

from agents.mcts.defaults import GENERIC_SPEC, defaults_for, spec_options
from experiments.common import (
    RESULTS,
    Series,
    add_common_arguments,
    machine,
    run_series,
    settings_from,
    summarise,
)


class Grid(NamedTuple):
    """One gauntlet of the sweep: ``mcts:<budget>,<options>`` for each grid entry against
    ``opponent`` on ``game``; ``games_factor`` scales the games per setting."""

    game: str
    budget: str
    opponent: str
    options: tuple[str, ...]
    games_factor: float = 1.0


#: run name (the results folder) -> its grid; "" in a grid is the package's per-game defaults
GRIDS: dict[str, Grid] = {
    "ataxx": Grid(
        "ataxx",
        "iterations=1000",
        "minimax2",
        (
            "",
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
    ),
    # Tic-Tac-Toe games are cheap and its losses rare: ten times the games there
    "tictactoe": Grid(
        "tictactoe",
        "iterations=200",
        "perfect",
        (
            "",
            GENERIC_SPEC,
            "c=0.5,rollout_cutoff=none",
            "rollout_cutoff=0,c=0.5",
            "rollout_cutoff=0,c=0.5,final=mean",
            "rollout_cutoff=0,c=1.4",
        ),
        10.0,
    ),
    "ultimate_tictactoe": Grid(
        "ultimate_tictactoe",
        "iterations=1000",
        "minimax2",
        # the defaults (c=0.5) sit where the sweep first played c=0.5 and the generic values
        # where it played the defaults of that time, so the stored games keep their seeds
        (GENERIC_SPEC, "", "c=2.0", "rollout_cutoff=0,c=0.5", "scores=fractional"),
    ),
    "pentago_twist": Grid(
        "pentago_twist",
        "iterations=300",
        "alphabeta:depth=2",
        (
            GENERIC_SPEC,
            "c=0.5,rollout_cutoff=none",
            "c=1.0,rollout_cutoff=none",
            "rollout_cutoff=0,c=0.5",
            "rollout_cutoff=0,c=0.1",
            "",  # the defaults chosen from the five above (the explicit row, other seeds)
        ),
    ),
    # checks of the Pentago Twist choice at a larger budget and at a time budget
    "pentago_twist_1000": Grid(
        "pentago_twist",
        "iterations=1000",
        "alphabeta:depth=2",
        (
            GENERIC_SPEC,
            "rollout_cutoff=0,c=0.1",
            "rollout_cutoff=0,c=0.05",
            "rollout_cutoff=0,c=0.25",
        ),
        2 / 3,
    ),
    "pentago_twist_0.5s": Grid(
        "pentago_twist",
        "iterations=none,seconds=0.5",
        "alphabeta:depth=2",
        (GENERIC_SPEC, "rollout_cutoff=0,c=0.1"),
        1 / 3,
    ),
}
QUICK_GRID = {"tictactoe": Grid("tictactoe", "iterations=50", "perfect", ("", "c=0.5"))}


def spec_of(budget: str, options: str) -> str:
    return f"mcts:{budget}" + (f",{options}" if options else "")


def _row_text(game: str) -> str:
    """The game's defaults as spec options (only those that differ from the generic values)."""
    return spec_options(defaults_for(game), only_changed=True) or "the generic values"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_common_arguments(parser, RESULTS / "defaults_sweep")
    parser.add_argument("--game", nargs="*", default=None, help=f"runs ({', '.join(GRIDS)})")
    args = parser.parse_args(argv)
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
        "(defaults) marks the package's per-game defaults, `generic` the values every game used "
        "before them.",
    ]
    summary: dict[str, object] = {}
    for name, grid in grids.items():
        game, budget, opponent = grid.game, grid.budget, grid.opponent
        specs = {float(i): spec_of(budget, options) for i, options in enumerate(grid.options)}
        series = [Series(game, specs, (opponent,))]
        games = 2 * max(1, round(settings.games * grid.games_factor / 2))
        if args.quick:
            games = settings.games
        path = out / name / "results.jsonl"
        records = run_series(game, series, settings._replace(games=games), path).records
        points = sorted(summarise(records, series), key=lambda p: (-p.score, p.losses))
        default = next((p for p in points if p.spec == spec_of(budget, "")), None)
        lines += [
            "",
            f"## {game}: `mcts:{budget},...` against `{opponent}` ({games} games each)",
            "",
            f"Defaults (the table's row): `{_row_text(game)}`.",
            "",
            "| options | W/D/L | score [Wilson 95%] |",
            "| --- | --- | --- |",
        ]
        for p in points:
            low, high = p.score_interval()
            options = p.spec[len(spec_of(budget, "")) + 1 :] or "(defaults)"
            options = "generic" if options == GENERIC_SPEC else options
            lines.append(
                f"| `{options}` | {p.wins}/{p.draws}/{p.losses} | {p.score:.2f} "
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
        if default is not None:  # checks without the defaults as typed have no comparison
            summary[name] |= {
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
