"""The improvement curve of AlphaZero-style learning on Ultimate Tic-Tac-Toe, rated in Elo.

Runs ``examples/alphazero.py`` (self-play with PUCT and a small torch network) for ``--minutes``
in a child process that saves a checkpoint every ``--checkpoint-minutes``; meanwhile this process
rates every checkpoint, as it appears, in a gauntlet against fixed ``mcts:iterations=k``
opponents (the anchors, which also play a round robin among themselves) on the package's
tournament tools (paired colours, seeded, resumable JSON-lines files). At the end all games go
into one Bradley-Terry fit (:func:`mcts_envs.agents.evaluation.ratings.rate`, bootstrap 95% intervals over game pairs,
the weakest anchor rated 0), and the curve (Elo of each checkpoint against the minutes of
training behind it, anchors as horizontal lines) is drawn.

Run from the repository root (torch from the ``train`` extra, matplotlib from ``plots``)::

    nohup python -m experiments.alphazero_uttt_curve > uttt_curve.log 2>&1 &
    python -m experiments.alphazero_uttt_curve --quick     # a smoke run (about a minute)

Writes to ``--out`` (default ``experiments/results/alphazero_uttt``): ``train.log``,
``games/*.jsonl`` (every game record), ``ratings.txt`` (the full rating report),
``curve.json`` (per checkpoint: minutes, self-play games, Elo and interval, W/D/L per anchor;
the machine and its load), ``curve.png``; checkpoints in ``checkpoints/`` (not committed).
Wall times depend on the machine's load; ``curve.json`` records it.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import torch

from experiments.common import machine, parse_arguments
from mcts_envs.agents.evaluation.plan import plan_tournament
from mcts_envs.agents.evaluation.ratings import rate, score_interval, tally
from mcts_envs.agents.evaluation.run import RunHooks, RunSettings, run_plan
from mcts_envs.agents.spec import register_agent

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "alphazero.py"
GAME = "ultimate_tictactoe"


def load_example() -> Any:
    """The example as a module (for its agent kind ``alphazero_net``)."""
    spec = importlib.util.spec_from_file_location("alphazero_example", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def play(path: Path, specs: list[str], games: int, seed: int, gauntlet: str | None) -> list:
    """Play (or resume) one tournament into ``path``; returns its records."""
    plan = plan_tournament(GAME, specs, games, seed=seed, gauntlet=gauntlet, openings="random:2")
    started = time.perf_counter()
    done = [0]
    total = len(plan.tasks)

    def report(record: dict) -> None:
        done[0] += 1
        if done[0] % 10 == 0 or done[0] == total:
            print(
                f"  {path.stem}: {done[0]}/{total} games ({time.perf_counter() - started:.0f} s, "
                f"load {os.getloadavg()[0]:.1f})",
                flush=True,
            )

    return run_plan(plan, RunSettings(out=path, resume=True), RunHooks(on_record=report)).records


def checkpoint_label(facts: dict) -> str:
    return f"net{facts['number']:02d}@{facts['minutes']:.1f}min"


def relabel(records: list[dict], labels: dict[str, str]) -> list[dict]:
    """Records with checkpoint specs (long paths) replaced by their labels."""
    out = []
    for record in records:
        record = dict(record)
        record["agents"] = [labels.get(a, a) for a in record["agents"]]
        out.append(record)
    return out


def summarise(records, checkpoints, anchors, bootstrap: int) -> tuple[dict, str]:
    """The Bradley-Terry fit of all games and the per-checkpoint figures."""
    table = rate(records, anchor=anchors[0], bootstrap=bootstrap, seed=0)
    index = {name: k for k, name in enumerate(table.agents)}
    stats = tally(records)
    rows = []
    for facts in checkpoints:
        label = checkpoint_label(facts)
        if label not in index:
            continue
        k = index[label]
        against = {}
        for anchor in anchors:
            pairing = stats.get((label, anchor))
            if pairing is None:
                continue
            low, high = score_interval(pairing.wins, pairing.draws, pairing.losses)
            against[anchor] = {
                "wins": pairing.wins,
                "draws": pairing.draws,
                "losses": pairing.losses,
                "score": round(pairing.score, 3),
                "score_95": [round(low, 3), round(high, 3)],
            }
        rows.append(
            {
                "label": label,
                "minutes": round(facts["minutes"], 2),
                "iterations": facts["iterations"],
                "self_play_games": facts["games"],
                "elo": float(table.elo[k]),
                "elo_95": [float(table.low[k]), float(table.high[k])],
                "against": against,
            }
        )
    anchor_rows = {
        a: {"elo": float(table.elo[index[a]]), "elo_95": [float(table.low[index[a]]),
                                                          float(table.high[index[a]])]}
        for a in anchors
        if a in index
    }  # fmt: skip
    return {"checkpoints": rows, "anchors": anchor_rows}, table.text()


def plot(curve: dict, path: Path, title: str) -> None:
    """Elo of the checkpoints over training minutes, anchors as horizontal lines."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot

    figure, axes = pyplot.subplots(figsize=(7.5, 4.5))
    rows = [r for r in curve["checkpoints"] if math.isfinite(r["elo"])]
    minutes = [r["minutes"] for r in rows]
    elo = [r["elo"] for r in rows]

    def clip(v: float, fallback: float) -> float:
        return v if math.isfinite(v) else fallback

    lower = [max(r["elo"] - clip(r["elo_95"][0], r["elo"] - 400), 0.0) for r in rows]
    upper = [max(clip(r["elo_95"][1], r["elo"] + 400) - r["elo"], 0.0) for r in rows]
    axes.errorbar(minutes, elo, yerr=[lower, upper], fmt="o-", capsize=4, label="AlphaZero net")
    for row in rows:
        axes.annotate(
            f"{row['self_play_games']} g", (row["minutes"], row["elo"]),
            textcoords="offset points", xytext=(5, -10), fontsize=7, color="tab:blue",
        )  # fmt: skip
    for name, anchor in curve["anchors"].items():
        if math.isfinite(anchor["elo"]):
            axes.axhline(anchor["elo"], color="grey", ls=":", lw=1)
            axes.annotate(
                name.replace("mcts:iterations=", "MCTS "),
                (0, anchor["elo"]), textcoords="offset points", xytext=(2, 3), fontsize=8,
                color="dimgrey",
            )  # fmt: skip
    axes.set_xlabel("minutes of self-play + training (wall clock, shared 2-core machine)")
    axes.set_ylabel(f"Elo ({next(iter(curve['anchors']))} = 0), 95% bootstrap")
    axes.set_title(title, fontsize=10)
    axes.grid(True, alpha=0.3)
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    pyplot.close(figure)


def curve_title(curve: dict) -> str:
    settings = curve["settings"]
    net = "conv net" if settings.get("net") == "conv" else "MLP"
    return (
        f"Ultimate Tic-Tac-Toe, AlphaZero-style ({net}): PUCT {settings['simulations']} sims, seed "
        f"{settings['seed']}\nvs MCTS anchors, {settings['games_per_pair']} games per pairing "
        "(g: self-play games behind the checkpoint)"
    )


def training_command(args: argparse.Namespace, out: Path) -> list[str]:
    """The trainer's command line (``examples/alphazero.py``) for this script's options: self-play
    at ``--selfplay-simulations`` (default ``--simulations``), checkpoints into ``out``."""
    command = [
        sys.executable, str(EXAMPLE), "--game", GAME, "--minutes", str(args.minutes),
        "--simulations", str(args.selfplay_simulations or args.simulations),
        "--seed", str(args.seed), "--eval-games", "0",
        "--checkpoint-dir", str(out / "checkpoints"),
        "--checkpoint-minutes", str(args.checkpoint_minutes),
    ]  # fmt: skip
    if args.net != "mlp":
        command += ["--net", args.net]
    if args.full_fraction < 1.0:
        command += ["--full-fraction", str(args.full_fraction)]
        command += ["--cheap-simulations", str(args.cheap_simulations)]
    if args.value_mix:
        command += ["--value-mix", str(args.value_mix)]
    for flag, value in (("--train-steps", args.train_steps), ("--buffer-size", args.buffer_size)):
        if value is not None:
            command += [flag, str(value)]
    if args.quick:
        command += ["--quick"]
    return command


def build_parser() -> argparse.ArgumentParser:
    """The command line of :func:`main`."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=40.0, help="self-play + training time")
    parser.add_argument("--checkpoint-minutes", type=float, default=5.0)
    parser.add_argument("--simulations", type=int, default=100, help="PUCT sims (self-play, eval)")
    parser.add_argument(
        "--net", choices=["mlp", "conv"], default="mlp", help="the example's network (--net)"
    )
    parser.add_argument(
        "--selfplay-simulations", type=int, default=None,
        help="PUCT sims of self-play's recorded (full) searches (default: --simulations)",
    )  # fmt: skip
    parser.add_argument(
        "--full-fraction", type=float, default=1.0,
        help="playout cap randomisation: share of self-play decisions searched in full",
    )  # fmt: skip
    parser.add_argument("--cheap-simulations", type=int, default=25, help="the other decisions")
    parser.add_argument("--value-mix", type=float, default=0.0, help="root value share of z")
    parser.add_argument("--train-steps", type=int, default=None, help="Adam steps per iteration")
    parser.add_argument("--buffer-size", type=int, default=None, help="replay buffer rows")
    parser.add_argument("--anchors", default="10,50,250,1250", help="mcts iteration budgets")
    parser.add_argument("--games-per-pair", type=int, default=20)
    parser.add_argument(
        "--anchor-c",
        type=float,
        default=1.4,
        help="the anchors' UCT constant, pinned (the measured run used 1.4; the package's "
        "per-game default may change)",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--bootstrap", type=int, default=500)
    parser.add_argument("--out", type=Path, default=ROOT / "experiments/results/alphazero_uttt")
    parser.add_argument("--quick", action="store_true", help="a smoke run")
    parser.add_argument("--plot-only", action="store_true", help="redraw curve.png from curve.json")
    return parser


def main(argv: list[str] | None = None) -> dict:
    args = parse_arguments(build_parser(), argv)
    if args.plot_only:
        curve = json.loads((args.out / "curve.json").read_text())
        plot(curve, args.out / "curve.png", curve_title(curve))
        return curve
    if args.quick:
        args.minutes, args.checkpoint_minutes, args.simulations = 0.3, 0.15, 8
        args.anchors, args.games_per_pair, args.bootstrap = "4,16", 2, 20
    anchors = [f"mcts:iterations={int(k)},c={args.anchor_c}" for k in args.anchors.split(",")]
    out = args.out
    (out / "games").mkdir(parents=True, exist_ok=True)
    (out / "checkpoints").mkdir(parents=True, exist_ok=True)
    start_load = os.getloadavg()
    started = time.perf_counter()
    command = training_command(args, out)
    print("training:", " ".join(command[1:]), flush=True)
    with open(out / "train.log", "w") as log:
        # The child imports the package from this checkout, as this process does.
        path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
        trainer = subprocess.Popen(
            command,
            stdout=log,
            stderr=subprocess.STDOUT,
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": path},
        )
    try:
        example = load_example()
        register_agent("alphazero_net", example.AlphaZeroAgent)
        torch.set_num_threads(1)
        print(f"anchors round robin: {', '.join(anchors)}", flush=True)
        records = play(
            out / "games" / "anchors.jsonl", anchors, args.games_per_pair, args.seed, None
        )
        checkpoints: list[dict] = []
        labels: dict[str, str] = {}
        number = 0
        while True:
            path = out / "checkpoints" / f"checkpoint_{number:02d}.pt"
            while not path.exists() and trainer.poll() is None:
                time.sleep(5)
            if not path.exists():
                break
            facts = torch.load(path, weights_only=True)
            facts = {key: facts[key] for key in ("minutes", "iterations", "games")}
            facts["number"] = number
            checkpoints.append(facts)
            weights = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
            spec = f"alphazero_net:weights={weights},iterations={args.simulations}"
            labels[spec] = checkpoint_label(facts)
            print(
                f"[{(time.perf_counter() - started) / 60:.1f} min] rating {path.name} "
                f"({labels[spec]}, {facts['games']} self-play games)",
                flush=True,
            )
            records += play(
                out / "games" / f"checkpoint_{number:02d}.jsonl",
                anchors, args.games_per_pair, args.seed + 1 + number, spec,
            )  # fmt: skip
            number += 1
    except BaseException:  # rating failed or was interrupted: do not wait out the trainer
        trainer.terminate()
        trainer.wait()
        raise
    if trainer.wait() != 0:
        raise SystemExit(
            f"the trainer exited with code {trainer.returncode}; see {out / 'train.log'} "
            f"(the {len(checkpoints)} checkpoint(s) rated are in {out / 'games'})"
        )
    curve, text = summarise(relabel(records, labels), checkpoints, anchors, args.bootstrap)
    curve["settings"] = {
        "minutes": args.minutes,
        "checkpoint_minutes": args.checkpoint_minutes,
        "simulations": args.simulations,
        "net": args.net,
        "selfplay_simulations": args.selfplay_simulations or args.simulations,
        "full_fraction": args.full_fraction,
        "cheap_simulations": args.cheap_simulations if args.full_fraction < 1.0 else None,
        "value_mix": args.value_mix,
        "anchors": anchors,
        "games_per_pair": args.games_per_pair,
        "seed": args.seed,
        "openings": "random:2",
        "training_command": " ".join(command[1:]),
        "wall_minutes": round((time.perf_counter() - started) / 60, 1),
    }
    curve["machine"] = machine(start_load)
    (out / "ratings.txt").write_text(text + "\n")
    (out / "curve.json").write_text(json.dumps(curve, indent=1) + "\n")
    plot(curve, out / "curve.png", curve_title(curve))
    print(text, flush=True)
    for row in curve["checkpoints"]:
        low, high = row["elo_95"]
        print(f"{row['label']}: {row['self_play_games']} games, Elo {row['elo']:.0f} "
              f"[{low:.0f}, {high:.0f}]")  # fmt: skip
    return curve


if __name__ == "__main__":
    main()
