"""Ultimate Tic-Tac-Toe page, run again as a bot: our MCTS against OpenSpiel's C++ ``MCTSBot``
at measured equal time per move.

Both sides get the same wall-clock budget ``T`` per whole move, each measured by its own search:
our ``mcts:iterations=none,seconds=T`` (the clock covers the whole decision), and OpenSpiel's bot
through its own ``max_wall_clock_time`` (checked between simulations in C++), with a free move's
two decisions (board, then cell) sharing ``T`` (half for the board, the rest of the move for the
cell). The two sides move in turn in the same process, so a change of machine load hits both
alike over a game; the records keep every side's measured think time per move, shown in the table
next to the result, and a probe (``probe.json``) searches positions of the played games with
both sides at ``T`` and counts their simulations per move. OpenSpiel's bot runs with the options
of its own examples: ``uct_c=2``, one random rollout per leaf, solver on (``--openspiel`` adds
other settings); ours with the package defaults plus each ``--variants`` entry.

Time budgets on a shared, loaded machine are distorted (both sides lose CPU to other work; the
load is stated with the results). Writes ``results_*.jsonl``, ``table.md``, ``summary.json``,
``probe.json`` and ``winrate.png`` under ``experiments/results/uttt_openspiel/``.

Run: ``python -m experiments.uttt_openspiel`` (``--quick`` for the test run; needs the ``bench``
extra; ``--seconds 0.1 0.3 --variants "" c=0.7 --games 40``).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from dataclasses import replace
from typing import Any

import numpy as np

from experiments.common import (
    Series,
    play_and_summarise,
    plot_series,
    start_experiment,
    write_table,
)
from mcts_envs.core.game import TERMINAL
from mcts_envs.core.registry import make_game
from mcts_envs.records import replay_states

GAME = "ultimate_tictactoe"
#: OpenSpiel's bot as in its examples (``uct_c=2``, one rollout, solver on).
OPENSPIEL_OPTIONS = "uct_c=2,rollouts=1,solve=true"


def ours_spec(seconds: float, variant: str = "") -> str:
    """Our MCTS at ``seconds`` per move, package defaults plus ``variant`` options."""
    extra = f",{variant}" if variant else ""
    return f"mcts:iterations=none,seconds={seconds:g}{extra}"


def openspiel_spec(seconds: float, options: str = OPENSPIEL_OPTIONS) -> str:
    """OpenSpiel's bot at ``seconds`` per whole move (its own clock), ``options`` otherwise."""
    return f"openspiel_mcts:simulations=none,seconds={seconds:g},{options}"


def probe(
    records: list[dict[str, Any]], specs: tuple[str, str], positions: int, seed: int
) -> dict[str, Any]:
    """Simulations and seconds per move of both ``specs`` (ours, OpenSpiel's) from the same
    positions: up to ``positions`` decisions of the played ``records`` (every fourth ply of
    each game in turn), each side following the game from the start and searching each chosen
    position once, alternately (so load changes hit both)."""
    from mcts_envs.agents.spec import make_agent

    game = make_game(GAME)
    chosen = []
    for record in records:
        _, states = replay_states(record)
        chosen += [
            (record, states, ply)
            for ply in range(0, len(record["actions"]), 4)
            if game.current_player(states[ply]) != TERMINAL
        ]
    rng = np.random.default_rng(seed)
    picks = [chosen[i] for i in sorted(rng.choice(len(chosen), min(positions, len(chosen)), False))]
    stats: dict[str, dict[str, list[float]]] = {
        s: {"simulations": [], "seconds": []} for s in specs
    }
    for record, states, ply in picks:
        for spec in specs:
            agent = make_agent(spec, seed=seed)
            agent.prepare(game)
            agent.restart(states[0])
            for action in record["actions"][:ply]:
                agent.inform(action)
            started = time.perf_counter()
            agent.act_state(game, states[ply])
            stats[spec]["seconds"].append(time.perf_counter() - started)
            stats[spec]["simulations"].append(agent.last_search["simulations"])
    summary = {
        spec: {
            "positions": len(values["seconds"]),
            "median_simulations": statistics.median(values["simulations"]),
            "mean_seconds": round(statistics.fmean(values["seconds"]), 4),
        }
        for spec, values in stats.items()
        if values["seconds"]
    }
    if len(summary) == 2:
        ours, theirs = (summary[s]["median_simulations"] for s in specs)
        summary["simulations_ratio"] = round(ours / max(theirs, 1), 2)
    return summary


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--seconds", type=float, nargs="*", default=None, help="time per move")
    parser.add_argument(
        "--variants",
        nargs="*",
        default=None,
        help='our MCTS options added to the defaults, one series each ("" = defaults)',
    )
    parser.add_argument(
        "--openspiel", default=OPENSPIEL_OPTIONS, help="OpenSpiel bot options (besides time)"
    )
    parser.add_argument(
        "--probe-positions",
        type=int,
        default=None,
        help="positions of the speed probe (0: keep the probe.json of an earlier run)",
    )


def main(argv: list[str] | None = None) -> None:
    experiment = start_experiment(
        "uttt_openspiel",
        __doc__.split("\n")[0],
        argv,
        full_games=40,
        quick_games=2,
        agent_modules=("experiments.openspiel_agent",),
        add_arguments=_add_arguments,
    )
    args, out, settings = experiment.args, experiment.out, experiment.settings
    seconds = args.seconds or ([0.05] if args.quick else [0.1, 0.3])
    variants = args.variants if args.variants is not None else [""]
    series = [
        Series(
            f"mcts ({variant or 'defaults'}), {t:g} s/move",
            {t: ours_spec(t, variant)},
            (openspiel_spec(t, args.openspiel),),
        )
        for t in seconds
        for variant in variants
    ]
    source = {
        "source": "Ultimate Tic-Tac-Toe MCTS page; peer: OpenSpiel C++ MCTSBot "
        f"({args.openspiel}), both at the same wall-clock seconds per whole move",
        "game": GAME,
        "budget": "seconds per whole move, each side's own clock",
        "open_spiel": _version(),
    }
    records, points, meta = play_and_summarise(experiment, GAME, series, source)
    positions = args.probe_positions
    if positions is None:
        positions = 2 if args.quick else 24
    saved = out / "probe.json"
    if positions == 0 and saved.exists():  # keep the probe of the run that played the games
        probes = json.loads(saved.read_text())
        positions = probes[0][probes[0]["ours"]]["positions"]
    else:
        probes = []
        for entry in series:
            (t, spec), opponent = next(iter(entry.specs.items())), entry.opponents[0]
            played = [r for r in records if spec in r["agents"] and opponent in r["agents"]]
            found = probe(played, (spec, opponent), max(positions, 1), settings.seed)
            probes.append({"series": entry.label, "seconds": t, "ours": spec, **found})
        saved.write_text(json.dumps(probes, indent=1) + "\n")
    probe_text = "; ".join(
        f"{p['series']}: {p[p['ours']]['median_simulations']:,.0f} simulations per move (ours) "
        f"against {p[opponent]['median_simulations']:,.0f} (OpenSpiel), {p['simulations_ratio']}x"
        for p, opponent in zip(probes, (entry.opponents[0] for entry in series), strict=True)
    )
    header = (
        f"# Ultimate Tic-Tac-Toe: our MCTS against OpenSpiel's MCTSBot at equal time\n\n"
        f"{settings.games} games per point (colours swapped in pairs, master seed "
        f"{settings.seed}, {settings.workers} worker process(es)); OpenSpiel {meta['open_spiel']} "
        f"`MCTSBot` ({args.openspiel}) on its own wall clock, a free move's two decisions sharing "
        f"the time. Machine: {meta['machine']['cores']} cores shared with other jobs, load "
        f"average {meta['machine']['load_average_start'][0]} at the start, "
        f"{meta['machine']['load_average_end'][0]} at the end; {meta['wall_seconds']} s wall. "
        f"Last column: measured mean think seconds per whole move, ours / OpenSpiel's. Speed "
        f"probe (median over {positions} positions of the games, `probe.json`): {probe_text}."
    )
    write_table(points, out / "table.md", header, "seconds/move")
    plot_series(
        [  # one curve per variant of ours over the times
            replace(
                p, label=p.label.rsplit(", ", 1)[0], opponent="OpenSpiel MCTSBot, same seconds/move"
            )
            for p in points
        ],
        out / "winrate.png",
        f"UTTT: MCTS vs OpenSpiel MCTSBot at equal time ({settings.games} games/point)",
        "seconds per move (both sides)",
    )
    print((out / "table.md").read_text())


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("open_spiel")
    except PackageNotFoundError:
        return "unknown"


if __name__ == "__main__":
    main()
