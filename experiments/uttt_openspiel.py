"""Ultimate Tic-Tac-Toe page, run again as a bot: our MCTS against OpenSpiel's C++ ``MCTSBot``
at measured equal time per move.

OpenSpiel's bot takes a number of simulations, not a time; it is calibrated first: from a few
positions (random openings), its seconds per *whole* move (a free move is two decisions, board
then cell, both timed) with a probe number of simulations give its simulations per second, and it
then gets the number of simulations that fills the target time. Our ``mcts`` gets the target time
itself (``seconds=T``, package defaults otherwise). The records keep every side's think time, so
the table shows the measured seconds per move of both sides next to the result.

Time budgets on a shared, loaded machine are distorted (both sides lose CPU to other work; the
load is stated with the results). Writes ``results_*.jsonl``, ``table.md``, ``summary.json`` and
``winrate.png`` under ``experiments/results/uttt_openspiel/``.

Run: ``python -m experiments.uttt_openspiel`` (``--quick`` for the test run; needs the ``bench``
extra).
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from experiments.common import (
    Series,
    play_and_summarise,
    plot_series,
    start_experiment,
    write_table,
)
from mcts_envs.core.registry import make_game

GAME = "ultimate_tictactoe"


def calibrate(target_seconds: float, probe_simulations: int, positions: int, seed: int) -> dict:
    """OpenSpiel simulations per whole move that take ``target_seconds`` here, now.

    Times the bot's whole moves (both decisions of a free move) from ``positions`` positions
    reached by 0..5 random plies (seeded), each followed by the bot's OpenSpiel state.
    """
    from experiments.openspiel_agent import OpenSpielMCTS

    game = make_game(GAME)
    rng = np.random.default_rng(seed)
    times = []
    for _ in range(positions):
        bot = OpenSpielMCTS(seed=seed, simulations=probe_simulations)
        state = game.initial_state()
        bot.restart(state)
        for _ in range(int(rng.integers(0, 6))):
            action = int(rng.choice(game.legal_actions(state)))
            state = game.apply(state, action)
            bot.inform(action)
        started = time.perf_counter()
        bot.act_state(game, state)
        times.append(time.perf_counter() - started)
    per_move = float(np.mean(times))
    simulations = max(1, round(probe_simulations * target_seconds / per_move))
    return {
        "target_seconds": target_seconds,
        "probe_simulations": probe_simulations,
        "probe_seconds_per_move": round(per_move, 4),
        "simulations": simulations,
    }


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--seconds", type=float, nargs="*", default=None, help="targets")
    parser.add_argument(
        "--recalibrate", action="store_true", help="measure OpenSpiel's speed again (new games)"
    )


def main(argv: list[str] | None = None) -> None:
    experiment = start_experiment(
        "uttt_openspiel",
        __doc__.split("\n")[0],
        argv,
        full_games=20,
        quick_games=2,
        agent_modules=("experiments.openspiel_agent",),
        add_arguments=_add_arguments,
    )
    args, out, settings = experiment.args, experiment.out, experiment.settings
    seconds = args.seconds or ([0.1] if args.quick else [0.1, 0.3])
    saved = out / "calibration.json"
    if saved.exists() and not args.recalibrate:  # resume with the calibration of the first run
        calibrations = [c for c in json.loads(saved.read_text()) if c["target_seconds"] in seconds]
    else:
        calibrations = []
    if [c["target_seconds"] for c in calibrations] != seconds:
        calibrations = []
        for t in seconds:  # a probe, then a second probe at the first estimate (noisy timing)
            first = calibrate(t, 200 if args.quick else 1000, 3 if args.quick else 8, args.seed)
            calibrations.append(
                calibrate(t, first["simulations"], 3 if args.quick else 8, args.seed + 1)
            )
        saved.write_text(json.dumps(calibrations, indent=1) + "\n")
    series = []
    for t, calibration in zip(seconds, calibrations, strict=True):
        opponent = f"openspiel_mcts:simulations={calibration['simulations']}"
        series.append(
            Series(
                f"mcts (defaults), {t:g} s/move",
                {t: f"mcts:iterations=1000000,seconds={t:g}"},
                (opponent,),
            )
        )
    source = {
        "source": "Ultimate Tic-Tac-Toe MCTS page; peer: OpenSpiel C++ MCTSBot (uct_c=2, 1 "
        "random rollout, solver on)",
        "game": GAME,
        "budget": "seconds per move (ours); calibrated simulations (OpenSpiel)",
        "calibration": calibrations,
        "open_spiel": _version(),
    }
    _, points, meta = play_and_summarise(experiment, GAME, series, source)
    calibration_text = "; ".join(
        f"{c['target_seconds']:g} s -> {c['simulations']} simulations "
        f"(probe {c['probe_simulations']} took {c['probe_seconds_per_move']} s/move)"
        for c in calibrations
    )
    header = (
        f"# Ultimate Tic-Tac-Toe: our MCTS against OpenSpiel's MCTSBot at equal time\n\n"
        f"{settings.games} games per point (colours swapped in pairs, master seed "
        f"{settings.seed}); OpenSpiel {meta['open_spiel']}. Calibration: {calibration_text}. "
        f"Machine: {meta['machine']['cores']} cores, load average "
        f"{meta['machine']['load_average_start'][0]} at the start, "
        f"{meta['machine']['load_average_end'][0]} at the end (time budgets are distorted by "
        f"load); {meta['wall_seconds']} s wall. The calibration is kept in `calibration.json` "
        "(a rerun resumes with it; `--recalibrate` measures again and plays new games). Last "
        "column: measured mean think seconds per whole move, ours / OpenSpiel's (both decisions "
        "of a free move)."
    )
    write_table(points, out / "table.md", header, "seconds/move")
    plot_series(
        [
            p._replace(label="mcts (defaults)", opponent="OpenSpiel MCTSBot at equal time")
            for p in points
        ],
        out / "winrate.png",
        f"UTTT: MCTS vs OpenSpiel MCTSBot at equal time ({settings.games} games/point)",
        "seconds per move (target)",
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
