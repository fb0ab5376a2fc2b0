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
   of games against a uniformly random player (``--random-share``) and, optionally, search
   agents (``--teachers perfect:0.2,perfect~0.5:0.25``: ``spec~eps`` plays a uniformly random
   move with probability ``eps`` instead of the agent's, so it reaches the positions random play
   creates and still punishes mistakes there);
3. learning rate and entropy coefficient fall linearly to ``--lr-final`` / ``--ent-final`` over
   the budget (steps or ``--minutes``, whichever runs out first);
4. every ``--eval-every`` steps a quick batched evaluation (deterministic policy, seats
   alternating) against random and ``--eval-opponent``, and on Tic-Tac-Toe the *exact*
   probability that the deterministic policy loses to a random player
   (``mcts_envs.rl.outcome_against_random``, both seats); the learning curve is saved as
   ``curve.png`` and ``curve.json``;
5. at the end the model is saved (``model.zip``) and played through the arena
   (``mcts_envs.agents.evaluation.arena.play_match``, seat-alternated, seeded) against random, minimax2, alpha-beta and
   ``mcts:iterations=K``; results with Wilson 95% intervals go to ``results.json``.

Torch runs on one thread (``--torch-threads``): on a small shared CPU more threads only spin.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from mcts_envs.agents.frontends.output import refuse_used_folder


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="tictactoe", choices=["tictactoe", "ultimate_tictactoe"])
    parser.add_argument("--steps", type=int, default=300_000, help="learner env steps in all")
    parser.add_argument("--envs", type=int, default=32, help="games stepped together")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--out", default="runs/maskable_ppo", help="folder for the results (default %(default)s)"
    )
    parser.add_argument(
        "--overwrite", action="store_true", help="write into an --out folder that holds files"
    )
    parser.add_argument("--n-steps", type=int, default=128, help="PPO rollout length per env")
    parser.add_argument("--batch-size", type=int, default=512)
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--learning-rate", type=float, default=5e-4)
    parser.add_argument(
        "--lr-final", type=float, default=None, help="learning rate at the end (default: constant)"
    )
    parser.add_argument("--ent-coef", type=float, default=0.01)
    parser.add_argument(
        "--loss-reward",
        type=float,
        default=-1.0,
        help="the learner's reward for a lost game (wins +1, draws 0); below -1 makes risky "
        "play that beats weak opponents but can lose cost more",
    )
    parser.add_argument(
        "--ent-final", type=float, default=None, help="entropy coef. at the end (default: constant)"
    )
    parser.add_argument("--net", default="256,256", help="hidden layer sizes")
    parser.add_argument("--snapshot-every", type=int, default=20_000)
    parser.add_argument("--pool-size", type=int, default=20)
    parser.add_argument("--random-share", type=float, default=0.2)
    parser.add_argument(
        "--teachers",
        default="",
        help="agents that also play a share of the games: spec[~eps]:share,... "
        "(e.g. alphabeta:0.25,perfect~0.5:0.2; ~eps: a random move with probability eps)",
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
    args = parser.parse_args(argv)
    refuse_used_folder(parser, args.out, args.overwrite)
    return args


def final_opponents(text: str) -> list[tuple[str, int]]:
    """``"random:1000,mcts:iterations=200:200"`` -> ``[("random", 1000), ("mcts:...", 200)]``."""
    return [(spec, int(games)) for spec, games in _pairs(text)]


def spec_shares(text: str) -> list[tuple[str, float, float]]:
    """``"alphabeta:0.25,perfect~0.5:0.1"`` -> ``[("alphabeta", 0.0, 0.25), ("perfect", 0.5, 0.1)]``.

    The middle number is the teacher's epsilon (chance of a uniformly random move instead).
    """
    teachers = []
    for spec, share in _pairs(text):
        name, tilde, epsilon = spec.rpartition("~")
        teachers.append(
            (name, float(epsilon), float(share)) if tilde else (spec, 0.0, float(share))
        )
    return teachers


def loss_reward_wrapper():
    """SB3 ``VecEnvWrapper`` class that pays ``loss_reward`` instead of -1 for a lost game."""
    from stable_baselines3.common.vec_env import VecEnvWrapper

    class LossReward(VecEnvWrapper):
        def __init__(self, venv: Any, loss_reward: float) -> None:
            super().__init__(venv)
            self.loss_reward = float(loss_reward)

        def reset(self) -> np.ndarray:
            return self.venv.reset()

        def step_wait(self):
            observation, reward, dones, infos = self.venv.step_wait()
            reward = np.where(reward < 0, np.float32(-self.loss_reward) * reward, reward)
            return observation, reward.astype(np.float32), dones, infos

    return LossReward


class Budget:
    """The share of the training budget spent: steps or wall time, whichever is further along."""

    def __init__(self, steps: int, minutes: float | None) -> None:
        self.steps = steps
        self.seconds = None if minutes is None else 60.0 * minutes
        self.start = time.perf_counter()
        self.done_steps = 0

    def fraction(self) -> float:
        spent = self.done_steps / self.steps
        if self.seconds:
            spent = max(spent, (time.perf_counter() - self.start) / self.seconds)
        return min(1.0, spent)

    def time_left(self) -> bool:
        """Whether the wall-clock budget (if any) is not spent yet."""
        return self.seconds is None or time.perf_counter() - self.start <= self.seconds

    def linear(self, first: float, last: float | None) -> float:
        """``first`` moved linearly towards ``last`` (``None``: stays ``first``)."""
        return first if last is None else first + (last - first) * self.fraction()


def exact_against_random(model: Any, game_name: str) -> dict:
    """Exact win / draw / loss probabilities of the deterministic policy against random.

    Averaged over the two seats (as a seat-alternating match plays them); ``losing_lines`` counts
    the distinct lost final positions in both trees (0: the policy can never lose to random).
    """
    from mcts_envs import make_game
    from mcts_envs.rl import outcome_against_random

    game = make_game(game_name)

    def policy(observation: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return model.predict(observation, action_masks=mask, deterministic=True)[0]

    seats = [outcome_against_random(game, policy, seat) for seat in (0, 1)]
    entry = {key: sum(getattr(o, key) for o in seats) / 2 for key in ("win", "draw", "loss")}
    entry["loss_by_seat"] = [o.loss for o in seats]
    entry["losing_lines"] = sum(o.losing_lines for o in seats)
    entry["decisions"] = sum(o.decisions for o in seats)
    return entry


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
    exact = bool(curve) and "exact_random" in curve[0]
    fig, axes = plt.subplots(1, 3 if exact else 2, figsize=(16 if exact else 11, 4))
    for axis, key in zip(axes[:2], ("random", "eval"), strict=True):
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
    if exact:
        axis = axes[2]
        losses = [p["exact_random"]["loss"] for p in curve]
        axis.plot(steps, losses, marker="o", color="tab:red", label="loss (both seats)")
        axis.set_yscale("symlog", linthresh=1e-4)
        axis.set_ylim(0, 1)
        axis.set_title("exact loss probability vs random")
        axis.set_xlabel("learner env steps")
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

    from mcts_envs.agents.evaluation.arena import play_match
    from mcts_envs.agents.evaluation.plan import plan_match
    from mcts_envs.agents.evaluation.run import RunHooks
    from mcts_envs.agents.evaluation.stats import wilson_interval
    from mcts_envs.agents.learned.rl import agent_opponent
    from mcts_envs.rl import LearnerVectorEnv, OpponentPool, epsilon_opponent, random_opponent
    from mcts_envs.rl.sb3 import SB3VecEnv, SelfPlayCallback

    LossReward = loss_reward_wrapper()

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    fixed = [(random_opponent(args.seed + 1), args.random_share)]
    for index, (spec, epsilon, share) in enumerate(spec_shares(args.teachers)):
        teacher = agent_opponent(spec, seed=args.seed + 10 + index)
        if epsilon > 0:
            teacher = epsilon_opponent(teacher, epsilon, seed=args.seed + 30 + index)
        fixed.append((teacher, share))
    pool = OpponentPool(max_size=args.pool_size, seed=args.seed, fixed=fixed)
    print("compiling the batched game (numba, cached after the first run)...", flush=True)
    learner_env = LearnerVectorEnv(args.game, args.envs, opponent=pool, seed=args.seed)
    learner_env.vector.compile()
    env = SB3VecEnv(learner_env)
    if args.loss_reward != -1.0:
        env = LossReward(env, args.loss_reward)
    net = [int(x) for x in args.net.split(",")]
    budget = Budget(args.steps, args.minutes)
    model = MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=args.n_steps,
        batch_size=args.batch_size,
        n_epochs=args.epochs,
        # SB3 asks for the rate before each update; the budget says how far training is
        learning_rate=lambda _remaining: budget.linear(args.learning_rate, args.lr_final),
        ent_coef=args.ent_coef,
        gamma=0.99,
        policy_kwargs={"net_arch": net},
        seed=args.seed,
        device="cpu",
        verbose=0,
    )
    eval_opponent = agent_opponent(args.eval_opponent, seed=args.seed + 3)
    curve: list[dict] = []
    exact = args.game == "tictactoe"  # small enough to evaluate exactly against random
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
        if exact:
            point["exact_random"] = exact_against_random(model, args.game)
        curve.append(point)
        (out / "curve.json").write_text(json.dumps(curve, indent=1))
        if args.no_progress:  # a line per evaluation for logs
            line = f"{steps} steps, {point['seconds']} s: " + ", ".join(
                f"{point[k]['opponent']} W/D/L {point[k]['wins']}/{point[k]['draws']}/"
                f"{point[k]['losses']}"
                for k in ("random", "eval")
            )
            if exact:
                line += f", exact loss vs random {point['exact_random']['loss']:.3g}"
            print(line, flush=True)

    class Progress(BaseCallback):
        """tqdm bar over env steps and the periodic evaluations."""

        def __init__(self) -> None:
            super().__init__()
            self.bar = tqdm(total=args.steps, unit="step", disable=args.no_progress)
            self.next_eval = args.eval_every

        def _on_step(self) -> bool:
            self.bar.update(self.training_env.num_envs)
            budget.done_steps = self.num_timesteps
            self.model.ent_coef = budget.linear(args.ent_coef, args.ent_final)
            if self.num_timesteps >= self.next_eval:
                self.next_eval += args.eval_every
                evaluate(self.num_timesteps)
                point = curve[-1]
                postfix = {"rnd_loss": point["random"]["losses"], "ev_draw": point["eval"]["draws"]}
                if exact:
                    postfix["exact_loss"] = f"{point['exact_random']['loss']:.2e}"
                self.bar.set_postfix(postfix)
            # returning False stops SB3's training: the time budget is spent
            return budget.time_left()

        def _on_training_end(self) -> None:
            self.bar.close()

    evaluate(0)
    budget.start = start = time.perf_counter()  # the first evaluation is not training time
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
        "command": "python examples/train_maskable_ppo.py " + " ".join(argv or sys.argv[1:]),
        "arena": [],
    }
    if exact:
        results["exact_random"] = curve[-1]["exact_random"]
    print(f"trained {model.num_timesteps} steps in {train_seconds:.0f} s", flush=True)
    if exact:
        print(f"exact against random (both seats): {results['exact_random']}", flush=True)
    print("arena:", flush=True)
    for spec, games in final_opponents(args.final):
        match = play_match(
            plan_match(args.game, f"ppo:path={model_path}", spec, games, seed=args.seed + 7),
            hooks=RunHooks(progress=not args.no_progress),
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
