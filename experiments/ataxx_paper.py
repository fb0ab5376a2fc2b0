"""Ataxx paper, figure 6, run again: MCTS win rate against random and minimax2 by iterations.

The paper reports MCTS winning about 80% against "minimax2" at 100 iterations. Its published code
(``leoribeiro/mcts-ataxx``) scores a depth-2 leaf for the opponent, so its minimax2 plays to lose
(:mod:`experiments.authors_minimax`). This script plays:

* the paper's four MCTS variants, mapped to ``mcts:`` options (see :data:`VARIANTS`), against
  ``random``, our (correct) ``minimax2`` and ``authors_minimax_as_published`` (depth 2), by
  iterations;
* the authors' UCT configuration against their minimax at depth 3 (a correct minimax there);
* our best known configuration, ``mcts:rollout_cutoff=0,c=0.15``, against ``minimax2`` and the
  authors' depth-2 player;
* our ``minimax2`` against the authors' depth-2 player;
* the package's per-game Ataxx defaults (``mcts:iterations=N`` alone) against ``minimax2``.

Writes ``results.jsonl`` (one record per game; resumed if present), ``table.md``,
``summary.json`` and ``figure6.png`` (and ``.svg``) under ``experiments/results/ataxx_paper/``.

Run: ``python -m experiments.ataxx_paper`` (``--quick`` for the test run).
"""

from __future__ import annotations

from experiments.common import (
    Series,
    play_and_summarise,
    plot_series,
    start_experiment,
    write_table,
)
from mcts_envs.agents.evaluation.games import Adjudication, GameRules

GAME = "ataxx_v0"
AUTHORS = "authors_minimax_as_published"
AUTHORS_3 = f"{AUTHORS}:depth=3"
#: The authors' UCT as their code has it (and as issue 14 describes it): c = 1.41, every child
#: expanded at once, one random playout each, final move by best mean; no solver, no immediate-win
#: check and no tree reuse (their MCTS has none of these).
#: Rollouts play to the end (``rollout_cutoff=none``; Ataxx's own defaults score the leaf with the
#: heuristic instead).
AUTHORS_UCT = (
    "c=1.41,expand=all,final=mean,solver=false,win_check=false,reuse_tree=false,rollout_cutoff=none"
)
#: The paper's four variants. The paper's formula ``2*Cp*sqrt(2 ln n / n_i)`` with Cp = 1 is
#: ``c = 2*sqrt(2) = 2.83`` in our ``c*sqrt(ln N / n)``; its code uses 1.41. The first three are the
#: paper's named variants (binary scores, fractional scores, minimax2 rollouts) on the authors'
#: UCT; the fourth is the binary variant with the constant of the paper's printed formula.
VARIANTS = {
    "UCB binary (c=1.41)": f"{AUTHORS_UCT},scores=binary",
    "UCB fractional (c=1.41)": f"{AUTHORS_UCT},scores=fractional",
    "UCB minimax2 rollouts (c=1.41)": f"{AUTHORS_UCT},rollout=minimax2",
    "UCB binary, formula c=2.83": AUTHORS_UCT.replace("c=1.41", "c=2.83") + ",scores=binary",
}
BEST = "rollout_cutoff=0,c=0.15"
#: the best Ataxx setting of experiments/defaults_sweep.py (15/0/5 against minimax2 at 1,000)
SWEEP_BEST = "rollout_cutoff=0,c=0.05"


def family(options: str, budgets: list[int]) -> dict[float, str]:
    return {float(b): f"mcts:iterations={b},{options}" for b in budgets}


def build_series(quick: bool) -> list[Series]:
    """The curves, with budgets sized for ~15 minutes on 2 loaded cores (or seconds if quick)."""
    budgets = [10, 30] if quick else [10, 30, 100, 300, 1000]
    minimax_rollout_budgets = [2] if quick else [3, 10]
    best_budgets = [100] if quick else [100, 300, 1000, 3000]
    opponents = ("random", "minimax2", AUTHORS)
    series = []
    for label, options in VARIANTS.items():
        chosen = minimax_rollout_budgets if "minimax2 rollouts" in label else budgets
        series.append(Series(label, family(options, chosen), opponents))
    if not quick:
        series.append(
            Series(
                "authors' UCT vs their depth 3",
                family(VARIANTS["UCB binary (c=1.41)"], [100, 1000]),
                (AUTHORS_3,),
            )
        )
    series.append(Series(f"ours: {BEST}", family(BEST, best_budgets), ("minimax2", AUTHORS)))
    if not quick:  # the defaults sweep's best Ataxx setting at 1,000 iterations
        series.append(
            Series(f"ours: {SWEEP_BEST}", family(SWEEP_BEST, [300, 1000, 3000]), ("minimax2",))
        )
    series.append(Series("our minimax2 (x = its depth, 2)", {2.0: "minimax2"}, (AUTHORS,)))
    if (
        not quick
    ):  # the package's per-game Ataxx defaults (mcts_envs.agents.mcts.defaults), as typed
        series.append(
            Series(
                "ours: the Ataxx defaults",
                {float(b): f"mcts:iterations={b}" for b in (100, 300, 1000, 3000)},
                ("minimax2",),
            )
        )
    return series


def main(argv: list[str] | None = None) -> None:
    experiment = start_experiment(
        "ataxx_paper",
        __doc__.split("\n")[0],
        argv,
        full_games=10,
        agent_modules=("experiments.authors_minimax",),  # registers the opponent
    )
    args, out, settings = experiment.args, experiment.out, experiment.settings
    series = build_series(args.quick)
    # the paper's game has no 100-ply draw; ours keeps its rules, with a generous move cap
    rules = GameRules(GAME, adjudication=Adjudication(max_moves=400 if not args.quick else 120))
    source = {
        "source": "Ataxx MCTS paper, figure 6 (code: github.com/leoribeiro/mcts-ataxx)",
        "game": GAME,
        "budget": "MCTS iterations per move (no time limit); minimax by depth",
        "adjudication": "draw after 400 decisions (120 with --quick); the game's own rules else",
    }
    _, points, meta = play_and_summarise(experiment, GAME, series, source, rules)
    header = (
        f"# Ataxx paper, figure 6, run again\n\n{settings.games} games per point (colours "
        f"swapped in pairs, master seed {settings.seed}), budget in MCTS iterations per move. "
        f"Machine: {meta['machine']['cores']} cores, load average "
        f"{meta['machine']['load_average_start'][0]} at the start, "
        f"{meta['machine']['load_average_end'][0]} at the end of the last run that played games; {meta['wall_seconds']} s wall for it (earlier resumed runs: see the README)."
    )
    write_table(points, out / "table.md", header, "iterations")
    plot_series(
        points,
        out / "figure6.png",
        f"Ataxx: MCTS by iterations ({settings.games} games/point; seed {settings.seed})",
        "MCTS iterations per move",
    )
    print((out / "table.md").read_text())


if __name__ == "__main__":
    main()
