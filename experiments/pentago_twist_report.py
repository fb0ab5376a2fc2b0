"""Pentago Twist report, run again: our MCTS at 2 s per move (and less) against alpha-beta.

The report plays MCTS at 2 s per move with immediate win and block checks but publishes no
opponent or numbers. This script plays ``mcts:seconds=T`` with the generic values (random
playouts, c = 1.4) and with the package's Pentago Twist defaults when it was played (the heuristic
scores the leaf, c = 0.1; both include the win and block check ``win_check``; ``--quick`` plays
today's defaults) for T = 0.25, 0.5, 1 and 2 s against the
package's ``alphabeta`` at fixed depths 2 and 3 (no time limit for alpha-beta), the plain search
the report was played with (``PLAIN_SEARCH``: every part added to alpha-beta since is off).

Time budgets on a shared, loaded machine are distorted: the load averages are stated with the
results. Writes ``results_*.jsonl``, ``table.md``, ``summary.json`` and ``winrate.png`` under
``experiments/results/pentago_twist_report/``.

Run: ``python -m experiments.pentago_twist_report`` (``--quick`` for the test run).
"""

from __future__ import annotations

from experiments.common import (
    Series,
    play_and_summarise,
    plot_series,
    start_experiment,
    write_table,
)
from mcts_envs.agents.mcts.defaults import GENERIC_SPEC
from mcts_envs.agents.players.alphabeta_options import plain_spec

GAME = "pentago_twist"
#: The package's Pentago Twist defaults when the stored games were played.
PLAYED_DEFAULTS = "c=0.1,rollout_cutoff=0"
SECONDS = (0.25, 0.5, 1.0, 2.0)


def build_series(quick: bool) -> list[Series]:
    seconds = (0.1, 0.2) if quick else SECONDS
    opponents = (plain_spec(2),) if quick else (plain_spec(2), plain_spec(3))
    if quick:
        specs = {t: f"mcts:iterations=None,seconds={t:g}" for t in seconds}
        return [Series("mcts (defaults)", specs, opponents)]
    # the order of series fixes each game's seed: append, never reorder; each series states
    # every option the Pentago Twist defaults set, so the stored games keep their meaning
    generic = {t: f"mcts:iterations=None,seconds={t:g},{GENERIC_SPEC}" for t in seconds}
    heuristic = {t: f"mcts:iterations=None,seconds={t:g},{PLAYED_DEFAULTS}" for t in seconds}
    return [
        Series("mcts (generic values)", generic, opponents),
        Series(f"mcts ({PLAYED_DEFAULTS})", heuristic, opponents),
    ]


def main(argv: list[str] | None = None) -> None:
    experiment = start_experiment(
        "pentago_twist_report",
        __doc__.split("\n")[0],
        argv,
        full_games=6,
        quick_games=2,
    )
    out, settings = experiment.out, experiment.settings
    series = build_series(experiment.args.quick)
    source = {
        "source": "Pentago Twist MCTS report (2 s per move, immediate win/block checks)",
        "game": GAME,
        "budget": "seconds per move (MCTS); fixed depth (alpha-beta)",
    }
    _, points, meta = play_and_summarise(experiment, GAME, series, source)
    header = (
        f"# Pentago Twist report, run again\n\n{settings.games} games per point (colours "
        f"swapped in pairs, master seed {settings.seed}); MCTS budget in seconds per move, "
        f"alpha-beta at a fixed depth. Machine: {meta['machine']['cores']} cores, load average "
        f"{meta['machine']['load_average_start'][0]} at the start, "
        f"{meta['machine']['load_average_end'][0]} at the end (time budgets are distorted by "
        f"load), for the last run that played games; {meta['wall_seconds']} s wall for it."
    )
    write_table(points, out / "table.md", header, "seconds/move")
    plot_series(
        points,
        out / "winrate.png",
        f"Pentago Twist: MCTS by time per move vs alpha-beta ({settings.games} games/point)",
        "MCTS seconds per move",
    )
    print((out / "table.md").read_text())


if __name__ == "__main__":
    main()
