"""PUCT speed with a learned evaluator: simulations/s of the MCTS agent with a small torch network.

For each game and leaf batch size (default 1, 8, 32), one decision of ``MCTSAgent(iterations=N,
evaluator=..., batch_size=B, reuse_tree=False, win_check=False, solver=False)`` from the initial
position is timed (a fresh agent and tree each time, seeds 0, 1, ...; the median of
``--repeats``). Side by side:

* ``torch``: :class:`mcts_envs.agents.learned.torch_evaluator.TorchEvaluator` over a small MLP (the observation
  flattened, two hidden layers of ``--hidden`` units, policy and tanh value heads), torch on one
  thread, CPU;
* ``uniform``: a numpy evaluator returning uniform priors and value 0 (the search and the
  Python leaf round trip alone, no network): the ceiling the network's cost is measured against;
* ``uct``: the compiled UCT search with random rollouts (no Python per leaf), for reference.

Also printed per row: evaluator calls, mean batch, and the share of the decision's time spent
inside the torch evaluator. Numba's cache is used as is (``--warm-cache`` implied: the figures
are steady-state speed; the first run compiles the PUCT search, up to a minute per game).

Usage: ``python benchmarks/puct_evaluator.py [--iterations 800] [--repeats 5]
[--games tictactoe ultimate_tictactoe] [--batches 1 8 32]``. Timings on a shared machine are
noisy: quote them with the load (``os.getloadavg()`` is printed).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np
import torch
from torch import nn

from mcts_envs.agents.learned.torch_evaluator import TorchEvaluator
from mcts_envs.agents.mcts import MCTSAgent
from mcts_envs.core.registry import make_game


class SmallNet(nn.Module):
    """Flattened observation, two hidden layers, policy logits and a tanh value."""

    def __init__(self, observation_size: int, num_actions: int, hidden: int) -> None:
        super().__init__()
        self.body = nn.Sequential(
            nn.Flatten(),
            nn.Linear(observation_size, hidden),
            nn.ReLU(),
            nn.Linear(hidden, hidden),
            nn.ReLU(),
        )
        self.policy = nn.Linear(hidden, num_actions)
        self.value = nn.Linear(hidden, 1)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = self.body(x)
        return self.policy(h), torch.tanh(self.value(h)).squeeze(-1)


def uniform(observations: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Uniform priors over the legal moves and value 0 (no network)."""
    return masks.astype(np.float64), np.zeros(len(masks))


def one_decision(game, make_agent, seed: int) -> tuple[float, int]:
    """``(seconds, simulations)`` of one search from the initial state."""
    agent = make_agent(seed)
    state = game.initial_state()
    start = time.perf_counter()
    result = agent.search(game, state)
    return time.perf_counter() - start, result.simulations


def rate(game, make_agent, repeats: int) -> float:
    """Median simulations/s over ``repeats`` decisions, after one untimed decision."""
    one_decision(game, make_agent, 10_000)
    rates = []
    for seed in range(repeats):
        seconds, simulations = one_decision(game, make_agent, seed)
        rates.append(simulations / seconds)
    return statistics.median(rates)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", nargs="+", default=["tictactoe", "ultimate_tictactoe"])
    parser.add_argument("--batches", nargs="+", type=int, default=[1, 8, 32])
    parser.add_argument("--iterations", type=int, default=800)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--warm-cache", action="store_true", help="accepted (always warm)")
    args = parser.parse_args()
    torch.manual_seed(0)
    torch.set_num_threads(1)
    print(
        f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; torch {torch.__version__}"
    )
    print(f"{args.iterations} simulations per decision, median of {args.repeats}\n")
    header = f"{'game':<20} {'batch':>5} {'torch sims/s':>13} {'uniform sims/s':>15} {'calls':>6} {'mean batch':>10} {'in net':>7}"
    print(header)
    settings = dict(iterations=args.iterations, reuse_tree=False, win_check=False, solver=False)
    for name in args.games:
        game = make_game(name)
        size = int(game.observation(game.initial_state(), 0).size)
        net = SmallNet(size, game.info.num_actions, args.hidden).eval()
        print(f"{name}: loading or compiling the PUCT search...", flush=True)
        for batch in args.batches:
            evaluator = TorchEvaluator(net)

            def with_torch(seed, batch=batch, evaluator=evaluator):
                evaluator.reset_stats()
                return MCTSAgent(seed=seed, evaluator=evaluator, batch_size=batch, **settings)

            def with_uniform(seed, batch=batch):
                return MCTSAgent(seed=seed, evaluator=uniform, batch_size=batch, **settings)

            torch_rate = rate(game, with_torch, args.repeats)
            stats = evaluator.stats()  # of the last timed decision
            seconds, _ = one_decision(game, with_torch, 0)
            share = evaluator.stats().seconds / seconds
            uniform_rate = rate(game, with_uniform, args.repeats)
            print(
                f"{name:<20} {batch:>5} {torch_rate:>13,.0f} {uniform_rate:>15,.0f} "
                f"{stats.calls:>6} {stats.mean_batch:>10.1f} {share:>7.0%}",
                flush=True,
            )
        uct_rate = rate(
            game,
            lambda seed: MCTSAgent(seed=seed, rollout="random", rollout_cutoff=None, **settings),
            args.repeats,
        )
        print(f"{name:<20} {'uct, random rollouts (no network)':>35}: {uct_rate:,.0f} sims/s\n")
    print(f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
