"""PPO on the GPU, CleanRL style: ``VectorGame(device="cuda")`` handed to torch without copies.

Needs an NVIDIA GPU, the ``cuda`` extra and a CUDA build of torch::

    pip install "mcts-envs[cuda]" torch
    python examples/cuda_ppo.py --game tictactoe --envs 4096 --updates 200
    python examples/cuda_ppo.py --game connect_four --envs 8192 --updates 500

The network plays seat 0 against a uniformly random player (seat 1, drawn on the device by
:meth:`VectorGame.random_actions`). Each agent step is two vector steps: the agent's move in
every env, then the random reply in the envs whose game goes on (``active``); a game ended by
either move restarts at once (auto-reset), so every observation the agent sees is its own turn.

Nothing goes to the host inside the loop: the batch's arrays are numba-cuda device arrays that
torch wraps through ``__cuda_array_interface__`` (``torch.as_tensor(batch.observation,
device="cuda")`` shares their memory), torch's sampled actions go back to ``step`` as they are
(numba-cuda reads torch tensors the same way), the vector is built with ``copy=False`` (its own
buffers, overwritten by the next step: what is kept is copied on the device) and
``illegal_action="penalty"`` (a masked policy never plays an illegal move, and no check result is
read back). The only host reads are the figures printed after each update.

Under numba's CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``, no GPU: what the tests run, tiny
sizes) the "device" arrays are host arrays without a CUDA interface: :func:`as_tensor` copies
them into CPU tensors there, and the network runs on the CPU.
"""

from __future__ import annotations

import argparse
import os
import time
from typing import Any, NamedTuple

from mcts_envs.core.errors import require_optional
from mcts_envs.vector import VectorGame

torch = require_optional("torch", "train")
nn = torch.nn

#: numba's CUDA simulator stands in for the GPU (set before numba-cuda is imported).
SIMULATED = os.environ.get("NUMBA_ENABLE_CUDASIM") == "1"
DEVICE = "cpu" if SIMULATED else "cuda"


def as_tensor(array: Any) -> Any:
    """A torch tensor over a batch array: the same GPU memory (no copy); under the simulator a
    CPU tensor of its contents."""
    if SIMULATED:
        return torch.from_numpy(array.copy_to_host())
    return torch.as_tensor(array, device="cuda")


class Agent(nn.Module):
    """Actor and critic MLPs over the flattened observation planes (CleanRL's sizes)."""

    def __init__(self, observation_size: int, num_actions: int, hidden: int = 128) -> None:
        super().__init__()

        def body() -> nn.Sequential:
            return nn.Sequential(
                nn.Linear(observation_size, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh()
            )

        self.actor = nn.Sequential(body(), nn.Linear(hidden, num_actions))
        self.critic = nn.Sequential(body(), nn.Linear(hidden, 1))

    def value(self, observation: Any) -> Any:
        return self.critic(observation).squeeze(-1)

    def act(self, observation: Any, mask: Any, action: Any = None) -> tuple[Any, Any, Any, Any]:
        """(action, its log-probability, the policy's entropy, the value): illegal actions get
        no probability (masked logits)."""
        logits = self.actor(observation).masked_fill(~mask, -1e9)
        distribution = torch.distributions.Categorical(logits=logits)
        if action is None:
            action = distribution.sample()
        return (
            action,
            distribution.log_prob(action),
            distribution.entropy(),
            self.value(observation),
        )


class Rollout(NamedTuple):
    """``steps`` agent steps of every env, kept on the device."""

    observations: Any  # float32[T, N, D]
    masks: Any  # bool[T, N, A]
    actions: Any  # int64[T, N]
    log_probs: Any  # float32[T, N]
    rewards: Any  # float32[T, N]: the agent's reward over its move and the reply
    dones: Any  # bool[T, N]: the game ended on this agent step
    values: Any  # float32[T, N]


def agent_step(vector: Any, action: Any) -> tuple[Any, Any, Any]:
    """The agent's move in every env, then the random reply where the game goes on; returns the
    batch to act on next, the agent's rewards and the games that ended (device tensors)."""
    batch = vector.step(action)
    reward = as_tensor(batch.rewards)[:, 0].clone()
    done = as_tensor(batch.terminated) | as_tensor(batch.truncated)
    reply = vector.random_actions()  # seat 1's move where the game goes on, on the device
    batch = vector.step(reply, active=~done)
    reward += as_tensor(batch.rewards)[:, 0]
    done = done | as_tensor(batch.terminated) | as_tensor(batch.truncated)
    return batch, reward, done


def collect(vector: Any, agent: Agent, batch: Any, steps: int, tally: Any) -> tuple[Rollout, Any]:
    """``steps`` agent steps of every env (no host copy); ``tally`` (wins, losses, draws) counts
    the games that end, on the device."""
    columns: dict[str, list[Any]] = {name: [] for name in Rollout._fields}
    for _ in range(steps):
        observation = as_tensor(batch.observation).flatten(1).float()
        mask = as_tensor(batch.legal_action_mask).clone()
        with torch.no_grad():
            action, log_prob, _, value = agent.act(observation, mask)
        batch, reward, done = agent_step(vector, action)
        tally += torch.stack([(done & (reward > 0)).sum(), (done & (reward < 0)).sum(),
                              (done & (reward == 0)).sum()])  # fmt: skip
        for name, value_ in zip(
            Rollout._fields, (observation, mask, action, log_prob, reward, done, value), strict=True
        ):
            columns[name].append(value_)
    return Rollout(*(torch.stack(columns[name]) for name in Rollout._fields)), batch


def advantages(rollout: Rollout, last_value: Any, gamma: float, lam: float) -> tuple[Any, Any]:
    """Generalised advantage estimates and returns (CleanRL's recursion)."""
    steps = rollout.rewards.shape[0]
    advantage = torch.zeros_like(rollout.rewards)
    running = torch.zeros_like(last_value)
    for t in reversed(range(steps)):
        next_value = last_value if t == steps - 1 else rollout.values[t + 1]
        alive = 1.0 - rollout.dones[t].float()
        delta = rollout.rewards[t] + gamma * next_value * alive - rollout.values[t]
        running = delta + gamma * lam * alive * running
        advantage[t] = running
    return advantage, advantage + rollout.values


def update(agent: Agent, optimizer: Any, rollout: Rollout, advantage: Any, returns: Any,
           args: argparse.Namespace) -> Any:  # fmt: skip
    """PPO's clipped update over minibatches (CleanRL's); returns the last loss (a tensor)."""
    flat = [x.flatten(0, 1) for x in (*rollout[:4], advantage, returns)]
    observations, masks, actions, old_log_probs, flat_advantage, flat_returns = flat
    size = observations.shape[0]
    minibatch = max(1, size // args.minibatches)
    loss = torch.zeros((), device=observations.device)
    for _ in range(args.epochs):
        order = torch.randperm(size, device=observations.device)
        for start in range(0, size, minibatch):
            rows = order[start : start + minibatch]
            _, log_prob, entropy, value = agent.act(observations[rows], masks[rows], actions[rows])
            ratio = (log_prob - old_log_probs[rows]).exp()
            adv = flat_advantage[rows]
            adv = (adv - adv.mean()) / (adv.std() + 1e-8) if adv.numel() > 1 else adv
            policy_loss = torch.max(
                -adv * ratio, -adv * ratio.clamp(1 - args.clip, 1 + args.clip)
            ).mean()
            value_loss = 0.5 * (value - flat_returns[rows]).pow(2).mean()
            loss = policy_loss + args.value_coef * value_loss - args.entropy_coef * entropy.mean()
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(agent.parameters(), 0.5)
            optimizer.step()
    return loss.detach()


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="tictactoe", choices=("tictactoe", "connect_four"))
    parser.add_argument("--envs", type=int, default=4096)
    parser.add_argument("--steps", type=int, default=16, help="agent steps per rollout")
    parser.add_argument("--updates", type=int, default=200)
    parser.add_argument("--lr", type=float, default=2.5e-4)
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--minibatches", type=int, default=4)
    parser.add_argument("--gamma", type=float, default=0.99)
    parser.add_argument("--gae-lambda", type=float, default=0.95)
    parser.add_argument("--clip", type=float, default=0.2)
    parser.add_argument("--value-coef", type=float, default=0.5)
    parser.add_argument("--entropy-coef", type=float, default=0.01)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quick", action="store_true", help="a tiny run (the tests' size)")
    args = parser.parse_args(argv)
    if args.quick:
        args.envs, args.steps, args.updates, args.minibatches = 8, 4, 2, 2
    return args


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Train; returns the last update's figures (games won, lost and drawn against the random
    player in it, the loss, env steps per second)."""
    args = parse(argv)
    torch.manual_seed(args.seed)
    vector = VectorGame(
        args.game, args.envs, args.seed, device="cuda", copy=False, illegal_action="penalty"
    )
    info = vector.info
    observation_size = 1
    for extent in info.observation_shape:
        observation_size *= extent
    agent = Agent(observation_size, info.num_actions).to(DEVICE)
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.lr, eps=1e-5)
    batch = vector.reset()
    figures: dict[str, Any] = {}
    start = time.perf_counter()
    for number in range(1, args.updates + 1):
        tally = torch.zeros(3, dtype=torch.int64, device=DEVICE)
        rollout, batch = collect(vector, agent, batch, args.steps, tally)
        with torch.no_grad():
            last = agent.value(as_tensor(batch.observation).flatten(1).float())
        advantage, returns = advantages(rollout, last, args.gamma, args.gae_lambda)
        loss = update(agent, optimizer, rollout, advantage, returns, args)
        wins, losses, draws = (int(x) for x in tally.tolist())  # the update's only host read
        elapsed = time.perf_counter() - start
        figures = {
            "update": number,
            "wins": wins,
            "losses": losses,
            "draws": draws,
            "loss": float(loss),
            "env_steps_per_second": 2 * number * args.steps * args.envs / elapsed,
        }
        games = max(wins + losses + draws, 1)
        print(
            f"update {number}: {wins + losses + draws} games against random, won "
            f"{wins / games:.1%}, lost {losses / games:.1%}; loss {float(loss):.3f}; "
            f"{figures['env_steps_per_second']:,.0f} env steps/s (training included)",
            flush=True,
        )
    return figures


if __name__ == "__main__":
    main()
