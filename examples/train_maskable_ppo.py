"""Train MaskablePPO by self-play on Tic-Tac-Toe (or Ultimate Tic-Tac-Toe), then evaluate it in the arena.

Needs the ``train`` extra (torch CPU build first, see the README)::

    pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu
    pip install -e ".[train]"
    python examples/train_maskable_ppo.py --game tictactoe --steps 300000 --out runs/ttt

What it does:

1. ``LearnerVectorEnv`` (N games stepped by the compiled ``VectorGame``, learner seats
   alternating, the learner gets -1 when the opponent's move wins) wrapped as an SB3 ``VecEnv``;
2. the opponent is an ``OpponentPool``: frozen snapshots of the learner (one every
   ``--snapshot-every`` steps; the latest with probability 1/2, else an older one), plus a share
   of games against a uniformly random player (``--random-share``) and, optionally, a search
   agents (``--teachers alphabeta:0.25,minimax2:0.15``);
3. every ``--eval-every`` steps a quick batched evaluation (deterministic policy, seats
   alternating) against random and ``--eval-opponent``; the learning curve is saved as
   ``curve.png`` and ``curve.json``;
4. at the end the model is saved (``model.zip``) and played through the arena
   (``agents.arena.play_match``, seat-alternated, seeded) against random, minimax2, alpha-beta and
   ``mcts:iterations=K``; results with Wilson 95% intervals go to ``results.json``.

Torch runs on one thread (``--torch-threads``): on a small shared CPU more threads only spin.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path
from typing import Any

import numpy as np


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="tictactoe", choices=["tictactoe", "ultimate_tictactoe"])
    parser.add_argument("--steps", type=int, default=300_000, help="learner env steps in all")
    parser.add_argument("--envs", type=int, default=32, help="games stepped together")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="runs/maskable_ppo")
    parser.add_argument("--n-steps", type=int, default=128, help="PPO rollout length per env")
    parser.add_argument("--batch-size", type=int, default=512)
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--learning-rate", type=float, default=5e-4)
    parser.add_argument("--ent-coef", type=float, default=0.01)
    parser.add_argument("--net", default="256,256", help="hidden layer sizes")
    parser.add_argument("--snapshot-every", type=int, default=20_000)
    parser.add_argument("--pool-size", type=int, default=20)
    parser.add_argument("--random-share", type=float, default=0.2)
    parser.add_argument(
        "--teachers",
        default="",
        help="agents that also play a share of the games: spec:share,... (e.g. alphabeta:0.25)",
    )
    parser.add_argument("--eval-every", type=int, default=25_000)
    parser.add_argument("--eval-games", type=int, default=200)
    parser.add_argument("--eval-opponent", default="alphabeta", help="agent spec (curve)")
    parser.add_argument(
        "--final",
        default="random:1000,minimax2:200,alphabeta:200,mcts:iterations=200:200",
        help="arena opponents and game counts: spec:games,...",
    )
    parser.add_argument(
        "--minutes", type=float, default=None, help="stop training after this wall time"
    )
    parser.add_argument("--torch-threads", type=int, default=1)
    parser.add_argument("--no-progress", action="store_true")
    return parser.parse_args(argv)


def final_opponents(text: str) -> list[tuple[str, int]]:
    """``"random:1000,mcts:iterations=200:200"`` -> ``[("random", 1000), ("mcts:...", 200)]``."""
    return [(spec, int(games)) for spec, games in _pairs(text)]


def spec_shares(text: str) -> list[tuple[str, float]]:
    """``"alphabeta:0.25,minimax2:0.1"`` -> ``[("alphabeta", 0.25), ("minimax2", 0.1)]``."""
    return [(spec, float(share)) for spec, share in _pairs(text)]


def _pairs(text: str) -> list[tuple[str, str]]:
    pairs = []
    for item in text.split(","):
        if item.strip():
            spec, _, value = item.strip().rpartition(":")
            pairs.append((spec, value))
    return pairs


def batched_evaluation(model: Any, game: str, opponent: Any, games: int, seed: int) -> dict:
    """W/D/L of the deterministic policy in ``games`` games (one per env, seats alternating)."""
    from mcts_envs.rl import LearnerVectorEnv

    env = LearnerVectorEnv(game, games, opponent=opponent, seed=seed)
    obs, infos = env.reset(seed=seed)
    result = np.zeros(games, np.float64)
    done = np.zeros(games, np.bool_)
    while not done.all():
        actions, _ = model.predict(obs, action_masks=infos["action_mask"], deterministic=True)
        obs, reward, terminated, truncated, infos = env.step(actions)
        ended = (terminated | truncated) & ~done
        result[ended] = reward[ended]
        done |= ended
    return {
        "games": games,
        "wins": int((result > 0).sum()),
        "draws": int((result == 0).sum()),
        "losses": int((result < 0).sum()),
    }


def plot_curve(curve: list[dict], path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    steps = [point["steps"] for point in curve]
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    for axis, key in zip(axes, ("random", "eval"), strict=True):
        label = curve[0][key]["opponent"] if curve else key
        for outcome, colour in (
            ("wins", "tab:green"),
            ("draws", "tab:blue"),
            ("losses", "tab:red"),
        ):
            axis.plot(
                steps,
                [p[key][outcome] / p[key]["games"] for p in curve],
                marker="o",
                color=colour,
                label=outcome,
            )
        axis.set_title(f"vs {label}")
        axis.set_xlabel("learner env steps")
        axis.set_ylabel("fraction of games")
        axis.set_ylim(-0.02, 1.02)
        axis.grid(alpha=0.3)
        axis.legend()
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main(argv: list[str] | None = None) -> dict:
    args = parse_args(argv)
    import torch

    torch.set_num_threads(args.torch_threads)
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback
    from tqdm import tqdm

    from agents.arena import play_match, wilson_interval
    from agents.rl import agent_opponent
    from mcts_envs.rl import LearnerVectorEnv, OpponentPool, random_opponent
    from mcts_envs.rl.sb3 import SB3VecEnv, SelfPlayCallback

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    fixed = [(random_opponent(args.seed + 1), args.random_share)]
    for index, (spec, share) in enumerate(spec_shares(args.teachers)):
        fixed.append((agent_opponent(spec, seed=args.seed + 10 + index), share))
    pool = OpponentPool(max_size=args.pool_size, seed=args.seed, fixed=fixed)
    print("compiling the batched game (numba, cached after the first run)...", flush=True)
    learner_env = LearnerVectorEnv(args.game, args.envs, opponent=pool, seed=args.seed)
    learner_env.vector.compile()
    env = SB3VecEnv(learner_env)
    net = [int(x) for x in args.net.split(",")]
    model = MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=args.n_steps,
        batch_size=args.batch_size,
        n_epochs=args.epochs,
        learning_rate=args.learning_rate,
        ent_coef=args.ent_coef,
        gamma=0.99,
        policy_kwargs={"net_arch": net},
        seed=args.seed,
        device="cpu",
        verbose=0,
    )
    eval_opponent = agent_opponent(args.eval_opponent, seed=args.seed + 3)
    curve: list[dict] = []
    start = time.perf_counter()

    def evaluate(steps: int) -> None:
        point = {"steps": steps, "seconds": round(time.perf_counter() - start, 1)}
        for key, opponent, name in (
            ("random", random_opponent(args.seed + 4), "random"),
            ("eval", eval_opponent, args.eval_opponent),
        ):
            point[key] = batched_evaluation(
                model, args.game, opponent, args.eval_games, args.seed + 5
            ) | {"opponent": name}
        curve.append(point)

    class Progress(BaseCallback):
        """tqdm bar over env steps and the periodic evaluations."""

        def __init__(self) -> None:
            super().__init__()
            self.bar = tqdm(total=args.steps, unit="step", disable=args.no_progress)
            self.next_eval = args.eval_every

        def _on_step(self) -> bool:
            self.bar.update(self.training_env.num_envs)
            if self.num_timesteps >= self.next_eval:
                self.next_eval += args.eval_every
                evaluate(self.num_timesteps)
                point = curve[-1]
                self.bar.set_postfix(
                    rnd_loss=point["random"]["losses"], ev_draw=point["eval"]["draws"]
                )
            # returning False stops SB3's training: the time budget is spent
            return args.minutes is None or time.perf_counter() - start <= 60 * args.minutes

        def _on_training_end(self) -> None:
            self.bar.close()

    evaluate(0)
    progress = Progress()
    model.learn(args.steps, callback=[SelfPlayCallback(pool, args.snapshot_every), progress])
    train_seconds = time.perf_counter() - start
    evaluate(model.num_timesteps)
    model_path = out / "model.zip"
    model.save(model_path)
    (out / "curve.json").write_text(json.dumps(curve, indent=1))
    plot_curve(
        curve,
        out / "curve.png",
        f"MaskablePPO self-play on {args.game}: deterministic policy, {args.eval_games} games",
    )

    results = {
        "game": args.game,
        "steps": int(model.num_timesteps),
        "train_seconds": round(train_seconds, 1),
        "steps_per_second": round(model.num_timesteps / train_seconds, 1),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores (shared)",
        "seed": args.seed,
        "arena": [],
    }
    print(f"trained {model.num_timesteps} steps in {train_seconds:.0f} s; arena:", flush=True)
    for spec, games in final_opponents(args.final):
        match = play_match(
            args.game,
            f"ppo:path={model_path}",
            spec,
            games,
            seed=args.seed + 7,
            progress=not args.no_progress,
        )
        a = match.a
        entry = {"opponent": spec, "games": a.games, "wins": a.wins, "draws": a.draws}
        entry["losses"] = a.losses
        # deterministic players repeat games: say how many different games were played
        entry["distinct_games"] = len({tuple(record["actions"]) for record in match.records})
        for outcome in ("wins", "draws", "losses"):
            low, high = wilson_interval(entry[outcome], a.games)
            entry[f"{outcome}_ci95"] = [round(low, 4), round(high, 4)]
        results["arena"].append(entry)
        print(match.summary(), flush=True)
    (out / "results.json").write_text(json.dumps(results, indent=1))
    return results


if __name__ == "__main__":
    main()
