"""Behaviour cloning from search: a small network imitates MCTS on Ultimate Tic-Tac-Toe.

1. Record an expert dataset with the package (:func:`mcts_envs.agents.evaluation.expert.generate_expert_data`):
   ``mcts:iterations=2000`` self-play, the first ``--temperature-moves`` decisions of each game
   drawn in proportion to the visits (so games differ), all 8 symmetry images of each decision.
2. Train a small convolutional network (torch, CPU) on it: cross-entropy to the visit
   distribution (illegal moves masked out) plus mean squared error of a value head to the final
   outcome. A tenth of the games is held out.
3. Play the network alone (its most probable legal move, no search) against ``random``,
   ``minimax2`` and ``mcts:iterations=100`` through the arena (seat-alternated, Wilson 95%
   intervals), and measure its mistake rate on the shipped deep alpha-beta label set.

Needs the ``train`` extra's torch: ``pip install torch==2.13.0`` (CPU build).

Usage::

    python examples/behaviour_cloning.py [--games 300] [--iterations 2000] [--epochs 8]
        [--eval-games 100] [--seed 0] [--workers 2] [--data expert.npz]

``--data`` reuses (or, if missing, writes) the expert dataset. ``--tiny`` runs everything at a toy
size (the test suite uses it).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

import numpy as np

from mcts_envs.agents.base import ForwardModelAgent
from mcts_envs.agents.evaluation.arena import play_match
from mcts_envs.agents.evaluation.expert import (
    ExpertConfig,
    generate_expert_data,
    load_expert_data,
    save_expert_data,
)
from mcts_envs.agents.evaluation.mistakes import load_shipped_labels, mistake_rate
from mcts_envs.agents.evaluation.plan import plan_match
from mcts_envs.agents.spec import register_agent
from mcts_envs.core.errors import require_optional
from mcts_envs.core.game import Game

GAME = "ultimate_tictactoe"
OPPONENTS = ("random", "minimax2", "mcts:iterations=100")


def build_network(channels: int = 32, blocks: int = 3) -> Any:
    """A small conv net: ``[B, 5, 9, 9]`` planes in, ``(policy logits [B, 81], value [B])`` out."""
    torch = require_optional("torch", "train")
    nn = torch.nn

    class PolicyValueNet(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            layers: list[Any] = [nn.Conv2d(5, channels, 3, padding=1), nn.ReLU()]
            for _ in range(blocks - 1):
                layers += [nn.Conv2d(channels, channels, 3, padding=1), nn.ReLU()]
            self.body = nn.Sequential(*layers)
            self.policy = nn.Conv2d(channels, 1, 1)  # one logit per grid cell
            self.value = nn.Sequential(nn.Flatten(), nn.Linear(channels * 81, 64), nn.ReLU(),
                                       nn.Linear(64, 1), nn.Tanh())  # fmt: skip

        def forward(self, planes):
            features = self.body(planes)
            return self.policy(features).flatten(1), self.value(features).squeeze(1)

    return PolicyValueNet()


# The network's logits are laid out on the 9x9 grid; actions are board * 9 + cell.
GRID_OF_ACTION = np.array(
    [((a // 9) // 3 * 3 + (a % 9) // 3) * 9 + (a // 9) % 3 * 3 + (a % 9) % 3 for a in range(81)]
)


def to_tensors(data: dict[str, np.ndarray], rows: np.ndarray) -> tuple[Any, ...]:
    """Planes ``[N, 5, 9, 9]``, masks and targets over the grid cells, outcomes."""
    torch = require_optional("torch", "train")
    planes = torch.from_numpy(data["observations"][rows].astype(np.float32)).permute(0, 3, 1, 2)
    masks = np.zeros((len(rows), 81), np.bool_)
    targets = np.zeros((len(rows), 81), np.float32)
    masks[:, GRID_OF_ACTION] = data["masks"][rows] > 0
    targets[:, GRID_OF_ACTION] = data["policies"][rows]
    outcomes = torch.from_numpy(data["outcomes"][rows].astype(np.float32))
    return planes.contiguous(), torch.from_numpy(masks), torch.from_numpy(targets), outcomes


def train(
    data: dict[str, np.ndarray], epochs: int, seed: int, batch: int = 256
) -> tuple[Any, dict]:
    """Train on 90% of the games; returns the network and held-out figures."""
    torch = require_optional("torch", "train")
    torch.manual_seed(seed)
    generator = np.random.default_rng(seed)
    games = np.unique(data["game_index"])
    held_out = set(generator.choice(games, size=max(1, len(games) // 10), replace=False).tolist())
    is_test = np.isin(data["game_index"], list(held_out))
    train_rows, test_rows = (
        np.flatnonzero(~is_test),
        np.flatnonzero(is_test & (data["symmetry"] == 0)),
    )
    network = build_network()
    optimiser = torch.optim.Adam(network.parameters(), lr=2e-3, weight_decay=1e-4)
    planes, masks, targets, outcomes = to_tensors(data, train_rows)
    for epoch in range(epochs):
        order = torch.from_numpy(generator.permutation(len(train_rows)))
        total = 0.0
        for start in range(0, len(order), batch):
            index = order[start : start + batch]
            logits, values = network(planes[index])
            logits = logits.masked_fill(~masks[index], -1e9)
            policy_loss = -(targets[index] * torch.log_softmax(logits, dim=1)).sum(1).mean()
            value_loss = torch.mean((values - outcomes[index]) ** 2)
            loss = policy_loss + value_loss
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            total += float(loss.detach()) * len(index)
        print(f"  epoch {epoch + 1}/{epochs}: loss {total / len(order):.3f}", flush=True)
    network.eval()
    with torch.no_grad():
        planes, masks, targets, _ = to_tensors(data, test_rows)
        logits, _ = network(planes)
        chosen = logits.masked_fill(~masks, -1e9).argmax(1)
        agreement = float((chosen == targets.argmax(1)).float().mean()) if len(test_rows) else 0.0
    return network, {"held_out_positions": len(test_rows), "top1_agreement": agreement}


class NetworkAgent(ForwardModelAgent):
    """Plays the network's most probable legal move (no search); ``path`` is a saved model."""

    name = "bc_network"

    def __init__(self, *, seed: int | None = None, path: str = "") -> None:
        torch = require_optional("torch", "train")
        self.network = build_network()
        self.network.load_state_dict(torch.load(path, weights_only=True))
        self.network.eval()

    def act_state(self, game: Game, state: np.ndarray) -> int:
        torch = require_optional("torch", "train")
        planes = game.observation(state, game.current_player(state)).astype(np.float32)
        with torch.no_grad():
            logits, _ = self.network(torch.from_numpy(planes).permute(2, 0, 1)[None])
        scores = logits[0].numpy()[GRID_OF_ACTION]  # per action
        legal = game.legal_actions(state)
        return int(legal[np.argmax(scores[legal])])


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--iterations", type=int, default=2000)
    parser.add_argument("--temperature-moves", type=int, default=10)
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--eval-games", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--data", help="expert dataset to reuse (written if missing)")
    parser.add_argument(
        "--model",
        default="runs/behaviour_cloning/network.pt",
        help="where to save the network (default %(default)s)",
    )
    parser.add_argument("--overwrite", action="store_true", help="replace --model if it exists")
    parser.add_argument("--tiny", action="store_true", help="toy sizes, for the test suite")
    args = parser.parse_args(argv)
    if Path(args.model).exists() and not args.overwrite:
        parser.error(
            f"--model {args.model} exists; pass --overwrite to replace it, or another path"
        )
    if args.tiny:
        args.games, args.iterations, args.epochs, args.eval_games = 4, 50, 1, 2
    torch = require_optional("torch", "train")
    torch.set_num_threads(max(1, args.workers))
    spec = f"mcts:iterations={args.iterations}"
    start = time.perf_counter()
    if args.data and Path(args.data).exists():
        data = load_expert_data(args.data)
        print(f"loaded {len(data['actions'])} rows from {args.data} ({data['spec']})")
    else:
        config = ExpertConfig(GAME, spec, args.games, seed=args.seed, symmetries=True,
                              temperature_moves=args.temperature_moves)  # fmt: skip
        data = generate_expert_data(config, workers=args.workers, progress=not args.tiny)
        if args.data:
            save_expert_data(args.data, data)
        print(f"expert data: {len(data['actions'])} rows ({args.games} games of {spec}, 8 "
              f"symmetries) in {time.perf_counter() - start:.0f} s")  # fmt: skip
    start = time.perf_counter()
    network, figures = train(data, args.epochs, args.seed)
    Path(args.model).parent.mkdir(parents=True, exist_ok=True)
    torch.save(network.state_dict(), args.model)
    print(f"trained in {time.perf_counter() - start:.0f} s; held-out top-1 agreement with the "
          f"expert {figures['top1_agreement']:.1%} on {figures['held_out_positions']} positions")  # fmt: skip
    register_agent("bc_network", NetworkAgent)
    network_spec = f"bc_network:path={args.model}"
    agent = NetworkAgent(path=args.model)
    report = mistake_rate(load_shipped_labels(GAME), agent.act_state)
    figures["mistakes"] = report
    print(f"network alone, on the shipped alpha-beta labels: {report.summary()}")
    for opponent in OPPONENTS:
        result = play_match(
            plan_match(GAME, network_spec, opponent, args.eval_games, seed=args.seed + 1)
        )
        figures[opponent] = result
        print(result.summary(), flush=True)
    return figures


if __name__ == "__main__":
    main()
