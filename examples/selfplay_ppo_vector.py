"""Self-play PPO on the batched ``VectorGame``: one network plays both seats (CleanRL style).

Needs torch (the ``train`` extra; the CPU build first, see the README)::

    pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu
    python examples/selfplay_ppo_vector.py --game tictactoe --seed 0          # until it cannot lose
    python examples/selfplay_ppo_vector.py --game ultimate_tictactoe --minutes 10 --eval-games 200

One network, one rollout buffer: at every step each of the ``--envs`` games has a player to move,
the network acts for it from that player's view (``batch.observation``), and the step is kept as a
decision of that player. Two traps of turn-based self-play on a batch, and how this loop avoids
them (:class:`SeatChains`):

1. **The loser's reward arrives on the winner's step.** ``batch.rewards[i]`` holds both players'
   rewards on the step that ends game ``i``, but the loser's last decision was an earlier step.
   When a game ends, each player's reward is added to *that player's* last decision in the game.
2. **Turns need not alternate** (in Tantrix the same player moves again on most steps; forced
   plays). A decision's successor is the *same player's* next decision in the same game, found
   through ``batch.current_player``, never "the step after next". GAE runs along these
   per-player chains. A decision still open when the rollout ends is bootstrapped with the value
   of the current position: the network's value when that player is on move, minus it otherwise
   (the games are zero-sum).

``--random-share``: in that share of the games one seat plays a uniformly random legal move
with probability ``--random-epsilon``, else the network's move (the seat
swaps after each game), and its moves are not trained on. It widens the positions the network
meets (an exact check against random counts every position random play can reach) while the
network's own moves still punish mistakes there. ``--loss-reward -2`` makes a loss cost twice
what a win pays. No move cap is set, so games only end by the rules.

On Tic-Tac-Toe the run stops when the greedy policy's *exact* loss probability against a random
player is 0 from both seats (:func:`mcts_envs.rl.outcome_against_random`, checked every
``--eval-every`` updates); on the other games it runs for ``--minutes`` / ``--updates``. At the
end the greedy policy plays ``--eval-games`` games against ``--eval-opponent`` through the arena
(seats alternating, seeded; score with a Wilson 95% interval), and ``results.json`` and
``model.pt`` go to ``--out``.

**Same seed, same run.** On one machine a seed gives the same updates every time (one torch
thread, seeded torch and NumPy, games seeded by ``VectorGame``). Across machines the run length
changes: torch's CPU kernels use the widest vector instructions the processor has (AVX-512,
AVX2, ...) and MKL picks its matrix code by processor, so sums round differently in their last
bits, and PPO amplifies the difference until the policies part. ``--portable-math`` sets
``ATEN_CPU_CAPABILITY=default`` and ``MKL_CBWR=COMPATIBLE`` before torch loads (plain C++ kernels
and MKL's processor-independent code), so a seed gives the same run on any x86-64 processor, for
some speed; ``results.json`` records the math used.
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

#: What ``--portable-math`` sets before torch loads: the same floats on any x86-64 processor.
PORTABLE_MATH = {"ATEN_CPU_CAPABILITY": "default", "MKL_CBWR": "COMPATIBLE"}
if "--portable-math" in sys.argv[1:]:  # torch reads them once, when it is first imported below
    os.environ.update(PORTABLE_MATH)

import numpy as np  # noqa: E402

from mcts_envs.agents.base import ForwardModelAgent  # noqa: E402
from mcts_envs.agents.evaluation.arena import play_match  # noqa: E402
from mcts_envs.agents.evaluation.plan import plan_match  # noqa: E402
from mcts_envs.agents.frontends.output import refuse_used_folder  # noqa: E402
from mcts_envs.agents.spec import register_agent  # noqa: E402
from mcts_envs.core.errors import require_optional  # noqa: E402
from mcts_envs.core.game import Game  # noqa: E402
from mcts_envs.core.registry import make_game  # noqa: E402
from mcts_envs.rl import outcome_against_random  # noqa: E402
from mcts_envs.vector import VectorGame  # noqa: E402

torch = require_optional("torch", "train")
nn = torch.nn

#: ``SeatChains.successor`` of a decision whose game ended (no bootstrap).
GAME_OVER = -1
#: ``SeatChains.successor`` of a decision still open at the end of the rollout (bootstrapped).
OPEN = -2
#: The agent kind under which a saved network plays in the arena.
AGENT_KIND = "selfplay_ppo"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="tictactoe", help="any game of mcts_envs.list_games()")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--envs", type=int, default=128, help="games stepped together")
    parser.add_argument("--n-steps", type=int, default=16, help="rollout steps per update")
    parser.add_argument("--hidden", default="256,256", help="hidden layer sizes of the MLP")
    parser.add_argument("--learning-rate", type=float, default=5e-4)
    parser.add_argument(
        "--lr-final", type=float, default=None, help="learning rate at the end (default: constant)"
    )
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--minibatches", type=int, default=4)
    parser.add_argument("--gamma", type=float, default=1.0)
    parser.add_argument("--gae-lambda", type=float, default=0.95)
    parser.add_argument("--clip", type=float, default=0.2)
    parser.add_argument("--ent-coef", type=float, default=0.05)
    parser.add_argument(
        "--ent-final", type=float, default=None, help="entropy coef. at the end (default: constant)"
    )
    parser.add_argument("--vf-coef", type=float, default=0.5)
    parser.add_argument("--max-grad-norm", type=float, default=0.5)
    parser.add_argument("--random-share", type=float, default=0.5)
    parser.add_argument(
        "--random-epsilon",
        type=float,
        default=1.0,
        help="the random seat's chance of a uniformly random move (else the network's)",
    )
    parser.add_argument(
        "--loss-reward", type=float, default=-2.0, help="a lost game's reward (wins +1, draws 0)"
    )
    parser.add_argument("--minutes", type=float, default=30.0, help="wall-clock budget")
    parser.add_argument("--updates", type=int, default=100_000, help="PPO updates at most")
    parser.add_argument(
        "--eval-every", type=int, default=2, help="updates between exact checks (tictactoe)"
    )
    parser.add_argument("--eval-opponent", default="mcts:iterations=50")
    parser.add_argument("--eval-games", type=int, default=200)
    parser.add_argument("--torch-threads", type=int, default=1)
    parser.add_argument(
        "--portable-math",
        action="store_true",
        help="the same floats on any x86-64 processor (ATEN_CPU_CAPABILITY=default, "
        "MKL_CBWR=COMPATIBLE; needs a fresh process)",
    )
    parser.add_argument(
        "--out", default="runs/selfplay_ppo", help="folder for the results (default %(default)s)"
    )
    parser.add_argument(
        "--overwrite", action="store_true", help="write into an --out folder that holds files"
    )
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args(argv)
    refuse_used_folder(parser, args.out, args.overwrite)
    return args


class Network(nn.Module):
    """MLP over the flattened planes: masked policy logits and the mover's value."""

    def __init__(self, observation_shape: tuple[int, ...], num_actions: int, hidden: list[int]):
        super().__init__()
        self.observation_shape = tuple(observation_shape)
        layers: list[nn.Module] = [nn.Flatten()]
        width = int(np.prod(observation_shape))
        for size in hidden:
            layers += [nn.Linear(width, size), nn.ReLU()]
            width = size
        self.trunk = nn.Sequential(*layers)
        self.policy = nn.Linear(width, num_actions)
        self.value = nn.Linear(width, 1)

    def forward(self, observation: Any, mask: Any) -> tuple[Any, Any]:
        """``(logits [B, A] with illegal actions at -1e9, value [B])`` for ``int8`` planes."""
        features = self.trunk(observation.float())
        logits = self.policy(features).masked_fill(~mask, -1e9)
        return logits, self.value(features).squeeze(-1)


class SeatChains:
    """Links each decision to the same player's next one in its game, and books end rewards.

    Decisions are indexed ``(t, i)``: rollout step ``t``, env ``i``. ``successor[t, i]`` is the
    step of the same player's next decision in the same game, :data:`GAME_OVER` once the game
    ended (its reward booked in ``rewards[t, i]``) or :data:`OPEN` at the end of the rollout.
    """

    def __init__(self, num_steps: int, num_envs: int) -> None:
        self.successor = np.full((num_steps, num_envs), OPEN, np.int64)
        self.rewards = np.zeros((num_steps, num_envs), np.float32)
        self.last = np.full((num_envs, 2), -1, np.int64)  # latest decision per player, this game
        self._envs = np.arange(num_envs)

    def decide(self, t: int, players: np.ndarray) -> None:
        """Record that ``players[i]`` decides at step ``t`` in env ``i``."""
        previous = self.last[self._envs, players]
        linked = previous >= 0
        self.successor[previous[linked], self._envs[linked]] = t
        self.last[self._envs, players] = t

    def finish(self, ended: np.ndarray, rewards: np.ndarray) -> None:
        """Games ``ended`` (bool[N]) are over with ``rewards [N, 2]``: each player's reward goes
        to its own last decision in the game (the loser's -1 to the loser's move)."""
        for env in np.flatnonzero(ended):
            for player in (0, 1):
                step = self.last[env, player]
                if step >= 0:  # else that player's decisions were in an earlier rollout
                    self.rewards[step, env] += rewards[env, player]
                    self.successor[step, env] = GAME_OVER
            self.last[env] = -1


def advantages(
    chains: SeatChains,
    values: np.ndarray,
    players: np.ndarray,
    bootstrap: np.ndarray,
    gamma: float,
    lam: float,
) -> np.ndarray:
    """GAE along each player's chain of decisions.

    Args:
        chains: the rollout's links and rewards.
        values: ``[T, N]`` the network's value of each decision, from the mover's view.
        players: ``[T, N]`` who decided.
        bootstrap: ``[N, 2]`` each player's value of the position after the rollout.
        gamma, lam: discount and GAE lambda (per own decision).
    """
    num_steps, num_envs = values.shape
    envs = np.arange(num_envs)
    result = np.zeros_like(values)
    for t in range(num_steps - 1, -1, -1):
        successor = chains.successor[t]
        linked = successor >= 0
        safe = np.where(linked, successor, 0)
        open_value = np.where(successor == OPEN, bootstrap[envs, players[t]], 0.0)
        next_value = np.where(linked, values[safe, envs], open_value)
        next_advantage = np.where(linked, result[safe, envs], 0.0)
        delta = chains.rewards[t] + gamma * next_value - values[t]
        result[t] = delta + gamma * lam * next_advantage
    return result


def greedy(network: Network):
    """The network's most probable legal action, as ``fn(observations, masks) -> actions``."""

    def act(observation: np.ndarray, mask: np.ndarray) -> np.ndarray:
        obs = torch.as_tensor(np.asarray(observation)).reshape(-1, *network.observation_shape)
        legal = torch.as_tensor(np.asarray(mask, dtype=np.bool_)).reshape(len(obs), -1)
        with torch.no_grad():
            logits, _ = network(obs, legal)
        return logits.argmax(dim=1).numpy()

    return act


def build_network(game: Game, hidden: list[int]) -> Network:
    info = game.info
    return Network(tuple(info.observation_shape), info.num_actions, hidden)


def save_network(network: Network, path: Path, game: str, hidden: list[int]) -> None:
    torch.save({"game": game, "hidden": hidden, "state_dict": network.state_dict()}, path)


def load_network(path: str) -> Network:
    saved = torch.load(path, weights_only=True)
    network = build_network(make_game(saved["game"]), list(saved["hidden"]))
    network.load_state_dict(saved["state_dict"])
    return network.eval()


class SavedNetworkAgent(ForwardModelAgent):
    """Plays a saved network's most probable legal move (agent spec ``selfplay_ppo:path=...``)."""

    name = AGENT_KIND

    def __init__(self, *, seed: int | None = None, path: str = "") -> None:
        self.choose = greedy(load_network(path))

    def act_state(self, game: Game, state: np.ndarray) -> int:
        player = game.current_player(state)
        observation = game.observation(state, player)[None]
        return int(self.choose(observation, game.action_mask(state)[None])[0])


def random_legal(masks: np.ndarray, generator: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action for each row of ``masks`` (bool[M, A])."""
    picks = (generator.random(len(masks)) * masks.sum(axis=1)).astype(np.int64)
    return np.array([np.flatnonzero(row)[k] for row, k in zip(masks, picks, strict=True)], np.int64)


def collect(
    vg: VectorGame,
    batch: Any,
    network: Network,
    num_steps: int,
    seats: np.ndarray,
    args: argparse.Namespace,
    generator: np.random.Generator,
):
    """One rollout of ``num_steps`` steps in every env; ``seats[i]`` is env i's random seat
    (-1: none; swapped after each game). Returns the rollout arrays, the decision chains, the
    bootstrap values, the next batch and the network's results (+1 / 0 / -1) in the games
    against the random seat that ended."""
    n = vg.num_envs
    info = vg.game.info
    observations = np.empty((num_steps, n, *info.observation_shape), np.int8)
    masks = np.empty((num_steps, n, info.num_actions), np.bool_)
    actions = np.empty((num_steps, n), np.int64)
    log_probs = np.empty((num_steps, n), np.float32)
    values = np.empty((num_steps, n), np.float32)
    players = np.empty((num_steps, n), np.int64)
    learn = np.empty((num_steps, n), np.bool_)
    chains = SeatChains(num_steps, n)
    results: list[float] = []
    for t in range(num_steps):
        observations[t] = batch.observation
        masks[t] = batch.legal_action_mask
        players[t] = batch.current_player
        with torch.no_grad():
            logits, value = network(torch.from_numpy(observations[t]), torch.from_numpy(masks[t]))
            distribution = torch.distributions.Categorical(logits=logits)
            action = distribution.sample()
        action = action.numpy()
        random_mover = seats == players[t]
        if random_mover.any():
            uniform = np.flatnonzero(random_mover & (generator.random(n) < args.random_epsilon))
            action[uniform] = random_legal(masks[t, uniform], generator)
        actions[t] = action
        log_probs[t] = distribution.log_prob(torch.from_numpy(action)).numpy()
        values[t] = value.numpy()
        learn[t] = ~random_mover
        chains.decide(t, players[t])
        batch = vg.step(action)
        ended = batch.terminated | batch.truncated
        chains.finish(ended, np.where(batch.rewards < 0, -args.loss_reward, 1.0) * batch.rewards)
        against_random = ended & (seats >= 0)
        for env in np.flatnonzero(against_random):
            results.append(float(batch.rewards[env, 1 - seats[env]]))
        seats[against_random] = 1 - seats[against_random]
    with torch.no_grad():
        _, value = network(
            torch.from_numpy(np.ascontiguousarray(batch.observation)),
            torch.from_numpy(np.ascontiguousarray(batch.legal_action_mask)),
        )
    value = value.numpy()
    bootstrap = np.empty((n, 2), np.float32)
    mover = batch.current_player
    bootstrap[np.arange(n), mover] = value
    bootstrap[np.arange(n), 1 - mover] = -value
    rollout = {
        "observations": observations,
        "masks": masks,
        "actions": actions,
        "log_probs": log_probs,
        "values": values,
        "players": players,
        "learn": learn,
    }
    return rollout, chains, bootstrap, batch, results


def linear(start: float, end: float | None, fraction: float) -> float:
    """``start`` moved linearly towards ``end`` by ``fraction`` of the budget (``end=None``:
    constant)."""
    return start if end is None else start + (end - start) * min(1.0, fraction)


def ppo_update(network, optimizer, rollout, advantage, args, ent_coef) -> dict[str, float]:
    """CleanRL's clipped PPO update over the learned decisions of one rollout; mean losses."""
    keep = rollout["learn"].reshape(-1)
    flat = {k: v.reshape(-1, *v.shape[2:])[keep] for k, v in rollout.items() if k != "learn"}
    adv = advantage.reshape(-1)[keep]
    returns = adv + flat["values"]
    tensors = {k: torch.from_numpy(np.ascontiguousarray(v)) for k, v in flat.items()}
    adv_t, returns_t = torch.from_numpy(adv), torch.from_numpy(returns)
    size = len(adv)
    minibatch = max(1, size // args.minibatches)
    totals: dict[str, float] = {}
    count = 0
    for _ in range(args.epochs):
        order = torch.randperm(size)
        for start in range(0, size, minibatch):
            index = order[start : start + minibatch]
            logits, value = network(tensors["observations"][index], tensors["masks"][index])
            distribution = torch.distributions.Categorical(logits=logits)
            log_prob = distribution.log_prob(tensors["actions"][index])
            ratio = (log_prob - tensors["log_probs"][index]).exp()
            a = adv_t[index]
            a = (a - a.mean()) / (a.std() + 1e-8) if len(a) > 1 else a
            policy_loss = torch.max(
                -a * ratio, -a * ratio.clamp(1 - args.clip, 1 + args.clip)
            ).mean()
            value_loss = 0.5 * ((value - returns_t[index]) ** 2).mean()
            entropy = masked_entropy(logits, tensors["masks"][index]).mean()
            loss = policy_loss + args.vf_coef * value_loss - ent_coef * entropy
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(network.parameters(), args.max_grad_norm)
            optimizer.step()
            for key, term in (("policy_loss", policy_loss), ("value_loss", value_loss),
                              ("entropy", entropy)):  # fmt: skip
                totals[key] = totals.get(key, 0.0) + float(term.detach())
            count += 1
    return {key: total / count for key, total in totals.items()}


def masked_entropy(logits: Any, mask: Any) -> Any:
    """Entropy over the legal actions only (illegal ones have probability 0, contribute 0)."""
    log_p = torch.log_softmax(logits, dim=1)
    return -(log_p.exp() * log_p).masked_fill(~mask, 0.0).sum(dim=1)


def exact_losses(game: Game, network: Network) -> list[Any]:
    """:func:`outcome_against_random` of the greedy policy from each seat."""
    network.eval()
    outcomes = [outcome_against_random(game, greedy(network), seat) for seat in (0, 1)]
    network.train()
    return outcomes


def math_settings() -> dict[str, str | None]:
    """The math torch runs with: ATen's kernel level and MKL's reproducibility mode."""
    return {
        "cpu_capability": torch.backends.cpu.get_cpu_capability(),
        "MKL_CBWR": os.environ.get("MKL_CBWR"),
    }


def main(argv: list[str] | None = None) -> dict[str, Any]:
    args = parse_args(argv)
    math = math_settings()
    if args.portable_math and (math["cpu_capability"] != "DEFAULT" or math["MKL_CBWR"] is None):
        raise SystemExit(
            f"--portable-math: torch was loaded before the settings could apply ({math}); run "
            "the example as a script, or set ATEN_CPU_CAPABILITY=default MKL_CBWR=COMPATIBLE "
            "before Python starts"
        )
    torch.set_num_threads(args.torch_threads)
    torch.manual_seed(args.seed)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    hidden = [int(size) for size in args.hidden.split(",") if size]
    say = (lambda *a, **k: None) if args.quiet else print
    vg = VectorGame(args.game, args.envs, seed=args.seed)
    game = vg.game
    network = build_network(game, hidden)
    optimizer = torch.optim.Adam(network.parameters(), lr=args.learning_rate, eps=1e-5)
    generator = np.random.default_rng(args.seed)
    with_random = generator.random(args.envs) < args.random_share
    seats = np.where(with_random, np.arange(args.envs) % 2, -1)
    start = time.perf_counter()
    batch = vg.reset(seed=args.seed)
    say(f"{args.game}: {args.envs} envs x {args.n_steps} steps per update (compiled in "
        f"{time.perf_counter() - start:.1f} s)")  # fmt: skip
    start = time.perf_counter()
    figures: dict[str, Any] = {"checks": []}
    window: list[float] = []
    update = steps = 0
    solved = False
    while update < args.updates and time.perf_counter() - start < 60 * args.minutes:
        rollout, chains, bootstrap, batch, results = collect(
            vg, batch, network, args.n_steps, seats, args, generator
        )
        advantage = advantages(
            chains,
            rollout["values"],
            rollout["players"],
            bootstrap,
            args.gamma,
            args.gae_lambda,
        )
        spent = max(update / args.updates, (time.perf_counter() - start) / (60 * args.minutes))
        for group in optimizer.param_groups:
            group["lr"] = linear(args.learning_rate, args.lr_final, spent)
        ent_coef = linear(args.ent_coef, args.ent_final, spent)
        stats = ppo_update(
            network, optimizer, rollout, advantage.astype(np.float32), args, ent_coef
        )
        update += 1
        steps += args.envs * args.n_steps
        window = (window + results)[-500:]
        if args.game == "tictactoe" and update % args.eval_every == 0:
            outcomes = exact_losses(game, network)
            check = {
                "update": update,
                "steps": steps,
                "seconds": round(time.perf_counter() - start, 1),
                "loss": [o.loss for o in outcomes],
                "losing_lines": [o.losing_lines for o in outcomes],
            }
            figures["checks"].append(check)
            say(f"update {update} ({steps} steps, {check['seconds']} s): exact loss against "
                f"random as player_0 {outcomes[0].loss:.5f}, as player_1 {outcomes[1].loss:.5f}; "
                f"entropy {stats['entropy']:.3f}")  # fmt: skip
            if all(o.losing_lines == 0 for o in outcomes):
                solved = True
                break
        elif update % args.eval_every == 0 and window:
            w = np.asarray(window)
            say(f"update {update} ({steps} steps, {time.perf_counter() - start:.0f} s): against "
                f"the random seat W {np.mean(w > 0):.2f} D {np.mean(w == 0):.2f} "
                f"L {np.mean(w < 0):.2f}; entropy {stats['entropy']:.3f}")  # fmt: skip
    seconds = time.perf_counter() - start
    network.eval()
    model = out / "model.pt"
    save_network(network, model, args.game, hidden)
    figures.update(updates=update, steps=steps, train_seconds=round(seconds, 1), solved=solved)
    if args.game == "tictactoe":
        outcomes = exact_losses(game, network)
        figures["exact"] = [o._asdict() for o in outcomes]
        say(f"exact loss against random: player_0 {outcomes[0].loss:.5f}, player_1 "
            f"{outcomes[1].loss:.5f} ({'cannot lose' if solved else 'not solved'})")  # fmt: skip
    if args.eval_games > 0:
        register_agent(AGENT_KIND, SavedNetworkAgent)
        match = play_match(plan_match(
            args.game, f"{AGENT_KIND}:path={model}", args.eval_opponent, args.eval_games,
            seed=args.seed + 1,
        ))  # fmt: skip
        low, high = match.a.score_interval()
        figures["match"] = match
        figures["score"] = {"score": match.a.score, "low": low, "high": high}
        say(match.summary())
        say(f"score against {args.eval_opponent}: {match.a.score:.3f} [{low:.3f}, {high:.3f}] "
            f"(Wilson 95%, draws half)")  # fmt: skip
    results_file = {
        "command": [sys.executable, *sys.argv] if argv is None else ["selfplay_ppo_vector", *argv],
        "args": vars(args),
        "load_average": os.getloadavg(),
        "math": math,
        "cpus": os.cpu_count(),
        "platform": platform.platform(),
        **{k: v for k, v in figures.items() if k != "match"},
    }
    if "match" in figures:
        m = figures["match"].a
        results_file["match"] = {"opponent": args.eval_opponent, "wins": m.wins,
                                 "draws": m.draws, "losses": m.losses}  # fmt: skip
    (out / "results.json").write_text(json.dumps(results_file, indent=2, default=str) + "\n")
    return figures


if __name__ == "__main__":
    main()
