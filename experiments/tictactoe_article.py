"""Tic-Tac-Toe article, run again: MCTS losses against perfect play by iterations, both seats.

The article claims no loss in 1,000 games after 4,000 playouts per move and calls 200 playouts
"comparable". This script plays ``mcts:iterations=N`` with the generic values (what every game
used before per-game defaults), with the heuristic leaf and one child per simulation (the first
Tic-Tac-Toe row, written out), with that row as the package defaults when it was the row, and
with today's per-game defaults (the heuristic leaf, every child of a new leaf scored at once:
``expand="all"``), against the exact ``perfect`` agent (random choice among the best moves),
half the games as X and half as O, and counts losses with Wilson 95% intervals.

Writes ``results_perfect.jsonl`` (resumed if present), ``table.md``, ``summary.json`` and
``losses.png`` (and ``.svg``) under ``experiments/results/tictactoe_article/``.

Run: ``python -m experiments.tictactoe_article`` (``--quick`` for the test run).
"""

from __future__ import annotations

from experiments.common import (
    Series,
    play_and_summarise,
    plot_series,
    start_experiment,
    write_table,
)
from mcts_envs.agents.evaluation.ratings import score_interval
from mcts_envs.agents.mcts.defaults import GENERIC_SPEC

GAME = "tictactoe_v0"
BUDGETS = (50, 100, 200, 400, 1000, 4000)
#: The first per-game Tic-Tac-Toe row written out (the sweep's choice): the heuristic scores the
#: new leaf, c = 0.5, one child per simulation. Budgets from 800 up were added with the per-game
#: defaults. (Its records were played before ``expand`` was in the row, and relabelled with it.)
HEURISTIC = "rollout_cutoff=0,c=0.5,expand=one"
HEURISTIC_BUDGETS = (25, 50, 100, 200, 400, 800, 1600, 3200, 6400)
#: The package defaults while ``HEURISTIC`` was the row (the same games up to the seeds; records
#: relabelled with ``expand=one`` when the row changed).
DEFAULT_BUDGETS = (50, 200, 1600, 3200)
#: Today's package defaults as a user writes them (``mcts:iterations=N``): the row is
#: ``HEURISTIC`` with ``expand="all"`` (mcts_envs.agents.mcts.defaults).
TODAY_BUDGETS = (25, 50, 100, 200, 400, 800, 1600, 3200)


def build_series(quick: bool) -> list[Series]:
    if quick:
        return [
            Series(
                "mcts (defaults)",
                {float(b): f"mcts:iterations={b}" for b in (50, 400)},
                ("perfect",),
            )
        ]
    # the order of series and budgets fixes each game's seed: append, never reorder
    return [
        Series(
            "mcts (generic values)",
            {float(b): f"mcts:iterations={b},{GENERIC_SPEC}" for b in BUDGETS},
            ("perfect",),
        ),
        Series(
            f"mcts:{HEURISTIC}",
            {float(b): f"mcts:iterations={b},{HEURISTIC}" for b in HEURISTIC_BUDGETS},
            ("perfect",),
        ),
        Series(
            "mcts (defaults until expand=all)",
            {float(b): f"mcts:iterations={b},expand=one" for b in DEFAULT_BUDGETS},
            ("perfect",),
        ),
        Series(
            "mcts (defaults)",
            {float(b): f"mcts:iterations={b}" for b in TODAY_BUDGETS},
            ("perfect",),
        ),
    ]


def main(argv: list[str] | None = None) -> None:
    experiment = start_experiment(
        "tictactoe_article", __doc__.split("\n")[0], argv, full_games=1000, quick_games=10
    )
    out, settings = experiment.out, experiment.settings
    series = build_series(experiment.args.quick)
    source = {
        "source": "Tic-Tac-Toe MCTS article (4,000 playouts: no loss in 1,000 games)",
        "game": GAME,
        "budget": "MCTS iterations per move (no time limit); perfect = exact solver",
    }
    records, points, meta = play_and_summarise(experiment, GAME, series, source)
    lines = [
        f"# Tic-Tac-Toe article, run again\n\n{settings.games} games per point against "
        f"`perfect` (half as X, half as O; master seed {settings.seed}), budget in MCTS "
        f"iterations per move, options as listed (the package defaults otherwise). Machine: "
        f"{meta['machine']['cores']} cores, load average {meta['machine']['load_average_start'][0]}"
        f" at the start of the last run that played games; {meta['wall_seconds']} s wall for it.\n",
        "| MCTS | iterations | games | losses | loss rate [Wilson 95%] | losses as X | losses as O "
        "| draws |",
        "| --- | ---: | ---: | ---: | --- | ---: | ---: | ---: |",
    ]
    seat_losses = _losses_by_seat(records)
    for p in points:
        low, high = score_interval(p.losses, 0, p.wins + p.draws)
        x, o = seat_losses.get(p.spec, (0, 0))
        lines.append(
            f"| {p.label} | {p.budget:g} | {p.games} | {p.losses} | {p.losses / p.games:.3f} "
            f"[{low:.3f}, {high:.3f}] | {x} | {o} | {p.draws} |"
        )
    text = "\n".join(lines) + "\n"
    write_table(points, out / "table_wdl.md", "# W/D/L (ours first)", "iterations")
    (out / "table.md").write_text(text)
    plot_series(
        points,
        out / "losses.png",
        f"Tic-Tac-Toe: MCTS losses against perfect play ({settings.games} games/point, both "
        f"seats; seed {settings.seed})",
        "MCTS iterations per move",
        ylabel="loss rate (band: Wilson 95%)",
        value="loss_rate",
    )
    print(text)


def _losses_by_seat(records: list[dict]) -> dict[str, tuple[int, int]]:
    """``spec -> (losses as X, losses as O)`` of the MCTS side."""
    counts: dict[str, list[int]] = {}
    for record in records:
        a, b = record["agents"]
        ours, seat = (b, 1 - record["seat_a"]) if a == "perfect" else (a, record["seat_a"])
        lost = record["result"] == ("a" if a == "perfect" else "b")
        counts.setdefault(ours, [0, 0])[seat] += int(lost)
    return {k: (v[0], v[1]) for k, v in counts.items()}


if __name__ == "__main__":
    main()
