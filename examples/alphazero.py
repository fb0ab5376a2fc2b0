"""AlphaZero-style learning on a CPU: self-play with PUCT and a small torch network.

Uses only the package's public API and torch (``pip install 'mcts-envs[train]'``):

* self-play: :class:`mcts_envs.agents.mcts.MCTSAgent` with a :class:`mcts_envs.agents.learned.torch_evaluator.TorchEvaluator`
  (PUCT, root Dirichlet noise once per search), moves drawn from the visit distribution with
  AlphaZero's temperature schedule (:mod:`mcts_envs.agents.temperature`);
* every decision stored with its 8 board symmetries (:func:`mcts_envs.core.symmetry.game_symmetries`)
  in a fixed-size replay buffer;
* training: cross-entropy to the visit distribution plus squared error to the value target (the
  game's outcome, or with ``--value-mix m`` ``(1 - m) * outcome + m * root value``); the log
  gives the policy and value losses apart, with their floors (the targets' entropy and
  variance) and the same losses on each new batch of games before training on it (held out);
* options for Ultimate Tic-Tac-Toe: ``--net conv`` (residual convolutions over the 9x9 planes
  instead of the MLP), playout cap randomisation (``--full-fraction f --cheap-simulations n``:
  a full search on a share ``f`` of the moves, recorded; a cheap one without noise on the rest,
  played but not recorded), ``--buffer-size``, ``--games-per-iteration``;
* evaluation through the arena (:func:`mcts_envs.agents.evaluation.arena.play_match`) against ``alphabeta`` (perfect
  play on Tic-Tac-Toe), with the network wrapped as a registered agent kind, and on Tic-Tac-Toe
  the mistake rate against the exact solver (:mod:`mcts_envs.agents.evaluation.mistakes`), of the network alone and
  of the search.

Run::

    python examples/alphazero.py --minutes 10 --check-seconds 20 --stop-when-perfect
    python examples/alphazero.py --game ultimate_tictactoe --minutes 30 --simulations 160 \
        --full-fraction 0.25 --cheap-simulations 32 --value-mix 0.5 --train-steps 20 \
        --checkpoint-dir ckpt --checkpoint-minutes 5    # rated by experiments/alphazero_uttt_curve
    python examples/alphazero.py --quick                 # a smoke run of a few seconds

``--check-seconds`` counts the network's own mistakes against the exact Tic-Tac-Toe solver
during training (cheap: one batched forward pass); ``--stop-when-perfect`` stops at the first
check without one. The report states wall time, CPU time and load (on a shared machine the wall
time says little by itself).

Training time (``--minutes``) counts self-play and training, not the final evaluation. Runs
with the same seed and the same number of iterations are identical (torch on one thread).
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

import numpy as np
import torch
from torch import nn
from tqdm import tqdm

from mcts_envs.agents.base import ForwardModelAgent
from mcts_envs.agents.evaluation.arena import play_match
from mcts_envs.agents.evaluation.mistakes import exact_labels, mistake_rate
from mcts_envs.agents.evaluation.plan import plan_match
from mcts_envs.agents.evaluation.run import RunHooks
from mcts_envs.agents.evaluation.stats import wilson_interval
from mcts_envs.agents.frontends.output import refuse_used_folder
from mcts_envs.agents.learned.torch_evaluator import TorchEvaluator
from mcts_envs.agents.mcts import MCTSAgent
from mcts_envs.agents.players.solver import shipped_solution
from mcts_envs.agents.spec import register_agent
from mcts_envs.agents.temperature import alphazero_temperature, sample_action
from mcts_envs.core.game import TERMINAL
from mcts_envs.core.registry import make_game
from mcts_envs.core.symmetry import game_symmetries
from mcts_envs.games.ultimate_tictactoe.game import grid_position


class Config(NamedTuple):
    """The run's settings (see ``--help``)."""

    game: str
    minutes: float
    seed: int
    simulations: int
    games_per_iteration: int
    train_steps: int
    batch_size: int
    buffer_size: int
    temperature_moves: int
    hidden: int
    eval_games: int
    eval_simulations: int
    mistake_positions: int | None
    max_iterations: int | None
    checkpoint_dir: str | None = None
    checkpoint_minutes: float = 5.0
    learning_rate: float = 1e-3
    leaf_batch: int = 8
    check_seconds: float | None = None
    stop_when_perfect: bool = False
    net: str = "mlp"
    channels: int = 32
    blocks: int = 3
    value_mix: float = 0.0
    full_fraction: float = 1.0
    cheap_simulations: int = 0
    torch_threads: int = 1
    report_seconds: float = 0.0


# -- the network ------------------------------------------------------------------------------


class Net(nn.Module):
    """A small residual MLP over the flattened observation: policy logits and a tanh value."""

    def __init__(self, observation_size: int, num_actions: int, hidden: int) -> None:
        super().__init__()
        self.stem = nn.Sequential(nn.Flatten(), nn.Linear(observation_size, hidden), nn.ReLU())
        self.block = nn.Sequential(nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, hidden))
        self.policy = nn.Linear(hidden, num_actions)
        self.value = nn.Sequential(
            nn.Linear(hidden, hidden // 2), nn.ReLU(), nn.Linear(hidden // 2, 1)
        )

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = self.stem(x)
        h = torch.relu(h + self.block(h))
        return self.policy(h), torch.tanh(self.value(h)).squeeze(-1)


class ConvNet(nn.Module):
    """A small residual convolutional network over the 9x9 planes of Ultimate Tic-Tac-Toe.

    The observation ``[B, 9, 9, 5]`` (channels last) is read as ``[B, 5, 9, 9]``; ``blocks``
    residual blocks of two 3x3 convolutions with ``channels`` channels (batch norm); the policy
    head is a 1x1 convolution giving one logit per grid square, reordered into the action order
    (the game's ``grid_position(board, cell)`` of ``action = board * 9 + cell``); the value head is a 1x1 convolution, a hidden layer and
    ``tanh``, from the view of the player to move (as the observation is)."""

    def __init__(self, channels: int, blocks: int) -> None:
        super().__init__()

        def conv(inputs: int) -> list[nn.Module]:
            return [nn.Conv2d(inputs, channels, 3, padding=1, bias=False), nn.BatchNorm2d(channels)]

        self.stem = nn.Sequential(*conv(5), nn.ReLU())
        self.blocks = nn.ModuleList(
            nn.Sequential(*conv(channels), nn.ReLU(), *conv(channels)) for _ in range(blocks)
        )
        self.policy = nn.Conv2d(channels, 1, 1)
        self.value_conv = nn.Sequential(
            nn.Conv2d(channels, 2, 1, bias=False), nn.BatchNorm2d(2), nn.ReLU(), nn.Flatten()
        )
        self.value = nn.Sequential(nn.Linear(2 * 81, 64), nn.ReLU(), nn.Linear(64, 1))
        cells = [grid_position(*divmod(action, 9)) for action in range(81)]  # action = board*9+cell
        order = [row * 9 + col for row, col in cells]
        self.register_buffer("grid_of_action", torch.tensor(order, dtype=torch.long))

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = self.stem(x.permute(0, 3, 1, 2))
        for block in self.blocks:
            h = torch.relu(h + block(h))
        logits = self.policy(h).flatten(1)[:, self.grid_of_action]
        value = self.value(self.value_conv(h))
        return logits, torch.tanh(value).squeeze(-1)


class NetShape(NamedTuple):
    """What builds a network: ``kind`` ``"mlp"`` (``hidden`` units) or ``"conv"`` (Ultimate
    Tic-Tac-Toe only: ``channels``, ``blocks``)."""

    kind: str = "mlp"
    hidden: int = 128
    channels: int = 32
    blocks: int = 3


def net_shape(config: Config) -> NetShape:
    return NetShape(config.net, config.hidden, config.channels, config.blocks)


def build_net(game_name: str, shape: NetShape | int) -> nn.Module:
    """A fresh network for ``game_name`` (an int ``shape`` is the MLP's hidden units)."""
    if isinstance(shape, int):
        shape = NetShape(hidden=shape)
    game = make_game(game_name)
    if shape.kind == "conv":
        if game_name != "ultimate_tictactoe":
            raise ValueError("the convolutional network is for ultimate_tictactoe only")
        return ConvNet(shape.channels, shape.blocks)
    observation = game.observation(game.initial_state(), 0)
    return Net(int(np.prod(observation.shape)), game.info.num_actions, shape.hidden)


def save_net(net: nn.Module, game_name: str, shape: NetShape | int, path: Path, **facts) -> None:
    """Write the weights with what :func:`load_net` needs (and ``facts``, e.g. the minutes and
    games of training behind a checkpoint)."""
    if isinstance(shape, int):
        shape = NetShape(hidden=shape)
    torch.save(
        {"game": game_name, "hidden": shape.hidden, "shape": list(shape), "state": net.state_dict(),
         **facts},
        path,
    )  # fmt: skip


def load_net(path: str) -> nn.Module:
    saved = torch.load(path, weights_only=True)
    shape = NetShape(*saved["shape"]) if "shape" in saved else NetShape(hidden=saved["hidden"])
    net = build_net(saved["game"], shape)
    net.load_state_dict(saved["state"])
    return net.eval()


class AlphaZeroAgent(MCTSAgent):
    """A saved network inside the PUCT search, without noise: an agent kind for the arena
    (``alphazero_net:weights=PATH,iterations=N``)."""

    def __init__(self, *, weights: str, iterations: int = 50, seed: int | None = None) -> None:
        evaluator = TorchEvaluator(load_net(weights))
        super().__init__(
            seed=seed, iterations=iterations, evaluator=evaluator, dirichlet_fraction=0.0
        )
        self.name = f"alphazero_net:iterations={iterations}"


class NetworkPolicyAgent(ForwardModelAgent):
    """A saved network alone, no search: its most probable legal move (``alphazero_policy:
    weights=PATH``); the arena figure of what the network itself learned."""

    def __init__(self, *, weights: str, seed: int | None = None) -> None:
        self.evaluator = TorchEvaluator(load_net(weights))
        self.name = "alphazero_policy"

    def act_state(self, game, state: np.ndarray) -> int:
        player = game.current_player(state)
        observation = game.observation(state, player)[None]
        priors, _ = self.evaluator(observation, game.action_mask(state)[None])
        return int(np.argmax(priors[0]))


# -- self-play and the replay buffer ----------------------------------------------------------


class ReplayBuffer:
    """The last ``capacity`` training rows (observation, mask, visit distribution, outcome)."""

    def __init__(self, capacity: int, observation_shape: tuple[int, ...], num_actions: int):
        self.observations = np.zeros((capacity, *observation_shape), np.float32)
        self.masks = np.zeros((capacity, num_actions), bool)
        self.policies = np.zeros((capacity, num_actions), np.float32)
        self.outcomes = np.zeros(capacity, np.float32)
        self.capacity, self.size, self.next = capacity, 0, 0

    def add(self, observations, masks, policies, outcomes) -> None:
        if len(observations) == 0:
            return
        rows = (self.next + np.arange(len(observations))) % self.capacity
        if len(rows) > self.capacity:  # only the last rows fit
            rows, observations, masks = (
                rows[-self.capacity :],
                observations[-self.capacity :],
                masks[-self.capacity :],
            )
            policies, outcomes = policies[-self.capacity :], outcomes[-self.capacity :]
        self.observations[rows], self.masks[rows] = observations, masks
        self.policies[rows], self.outcomes[rows] = policies, outcomes
        self.next = int(rows[-1] + 1) % self.capacity
        self.size = min(self.size + len(rows), self.capacity)

    def sample(self, count: int, generator: np.random.Generator):
        rows = generator.integers(0, self.size, count)
        return (
            torch.from_numpy(self.observations[rows]),
            torch.from_numpy(self.masks[rows]),
            torch.from_numpy(self.policies[rows]),
            torch.from_numpy(self.outcomes[rows]),
        )


class SelfPlayers(NamedTuple):
    """The searches of self-play: ``full`` (``config.simulations``, root noise; its decisions are
    recorded) and ``cheap`` (``config.cheap_simulations``, no noise, not recorded; ``None``
    unless playout cap randomisation is on, ``config.full_fraction < 1``)."""

    full: MCTSAgent
    cheap: MCTSAgent | None


def self_play_game(game, agents: SelfPlayers, config: Config, generator: np.random.Generator):
    """One self-play game: per recorded decision ``(observation, mask, visits, action, player,
    root value)`` and the final returns.

    With playout cap randomisation (``config.full_fraction < 1``) each decision is a full search
    with probability ``full_fraction`` (recorded) and otherwise a cheap one (played, not
    recorded: its visits are a poor target), as in KataGo."""
    state = game.initial_state()
    for agent in agents:
        if agent is not None:
            agent.restart(state)
    rows = []
    ply = 0
    while True:
        player = game.current_player(state)
        if player == TERMINAL:  # (Tic-Tac-Toe and Ultimate have no chance nodes)
            break
        full = agents.cheap is None or generator.random() < config.full_fraction
        result = (agents.full if full else agents.cheap).search(game, state)
        visits = result.policy(game.info.num_actions)
        temperature = alphazero_temperature(ply, config.temperature_moves)
        action = sample_action(visits, temperature, generator)
        if full:
            rows.append(
                (game.observation(state, player), game.action_mask(state), visits, action, player,
                 result.value)
            )  # fmt: skip
        state = game.apply(state, action)
        for agent in agents:
            if agent is not None:
                agent.inform(action)
        ply += 1
    return rows, game.returns(state)


def augment(symmetries, rows, returns, value_mix: float = 0.0) -> tuple[np.ndarray, ...]:
    """The decisions of one game under every symmetry, with value targets from the mover's view:
    ``(1 - value_mix) * outcome + value_mix * root value``."""
    observations = np.stack([r[0] for r in rows]).astype(np.float32)
    masks = np.stack([r[1] for r in rows]).astype(bool)
    policies = np.stack([r[2] for r in rows]).astype(np.float32)
    actions = np.array([r[3] for r in rows], np.int64)
    outcomes = np.array([returns[r[4]] for r in rows], np.float32)
    if value_mix:
        roots = np.array([r[5] for r in rows], np.float32)
        outcomes = (1.0 - value_mix) * outcomes + value_mix * roots
    parts = [
        symmetries.transform_rows(s, observations, masks, policies, actions)
        for s in range(len(symmetries))
    ]
    return (
        np.concatenate([p[0] for p in parts]),
        np.concatenate([p[1] for p in parts]),
        np.concatenate([p[2] for p in parts]),
        np.tile(outcomes, len(parts)),
    )


class Losses(NamedTuple):
    """Mean losses of one round of training, and the yardsticks: ``policy`` (cross-entropy to
    the visits) against ``policy_entropy`` (the targets' own entropy, its floor), ``value``
    (squared error) against ``value_variance`` (the targets' variance: a constant predictor's
    error)."""

    policy: float
    value: float
    policy_entropy: float
    value_variance: float

    @property
    def total(self) -> float:
        return self.policy + self.value


def fresh_losses(net: nn.Module, games: list) -> tuple[float, float, float]:
    """The network on decisions it has not trained on (the newest games, before training):
    ``(policy cross-entropy to the visits, value squared error to the game outcome, the
    outcomes' variance)``, the held-out counterpart of :class:`Losses`."""
    rows = [(row, returns[row[4]]) for rows, returns in games for row in rows]
    if not rows:
        return float("nan"), float("nan"), float("nan")
    observations = torch.from_numpy(np.stack([r[0] for r, _ in rows]).astype(np.float32))
    masks = torch.from_numpy(np.stack([r[1] for r, _ in rows]) != 0)
    policies = torch.from_numpy(np.stack([r[2] for r, _ in rows]).astype(np.float32))
    outcomes = torch.tensor([z for _, z in rows], dtype=torch.float32)
    net.eval()
    with torch.no_grad():
        logits, values = net(observations)
        log_priors = torch.log_softmax(logits.masked_fill(~masks, -1e9), dim=1)
        policy = -(policies * log_priors).sum(dim=1).mean().item()
        value = ((values - outcomes) ** 2).mean().item()
    return policy, value, outcomes.var(unbiased=False).item()


def train(net: nn.Module, optimiser, buffer: ReplayBuffer, config: Config, generator) -> Losses:
    """``config.train_steps`` steps of Adam on the buffer; returns the mean losses."""
    net.train()
    sums = np.zeros(4)
    for _ in range(config.train_steps):
        observations, masks, policies, outcomes = buffer.sample(config.batch_size, generator)
        logits, values = net(observations)
        log_priors = torch.log_softmax(logits.masked_fill(~masks, -1e9), dim=1)
        policy_loss = -(policies * log_priors).sum(dim=1).mean()
        value_loss = ((values - outcomes) ** 2).mean()
        loss = policy_loss + value_loss
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
        with torch.no_grad():
            entropy = -(policies * torch.log(policies.clamp_min(1e-12))).sum(dim=1).mean()
        sums += (policy_loss.item(), value_loss.item(), entropy.item(), outcomes.var().item())
    net.eval()
    return Losses(*(sums / max(config.train_steps, 1)))


# -- evaluation -------------------------------------------------------------------------------


def evaluate(net: Net, config: Config, folder: Path) -> tuple[list[str], dict]:
    """Arena matches against alpha-beta (Tic-Tac-Toe; else ``mcts:iterations=200``) and (Tic-Tac-Toe) mistake rates: report lines and the
    figures (``match``, ``network_mistakes``, ``search_mistakes``)."""
    lines: list[str] = []
    figures: dict = {}
    weights = folder / "net.pt"
    save_net(net, config.game, net_shape(config), weights)
    register_agent("alphazero_net", AlphaZeroAgent)
    # Alpha-beta plays Tic-Tac-Toe perfectly; on larger games a fixed MCTS is the yardstick.
    opponent = "alphabeta" if config.game == "tictactoe" else "mcts:iterations=200"
    spec = f"alphazero_net:weights={weights},iterations={config.eval_simulations}"
    match = play_match(
        plan_match(config.game, spec, opponent, config.eval_games, seed=config.seed),
        hooks=RunHooks(progress=True),
    )
    figures["match"] = match
    lines.append(
        f"arena, PUCT {config.eval_simulations} sims vs {opponent}: "
        f"{match_summary(match, config.eval_games)}"
    )
    register_agent("alphazero_policy", NetworkPolicyAgent)
    spec = f"alphazero_policy:weights={weights}"
    match = play_match(
        plan_match(config.game, spec, opponent, config.eval_games, seed=config.seed),
        hooks=RunHooks(progress=True),
    )
    figures["policy_match"] = match
    lines.append(f"arena, network alone vs {opponent}: {match_summary(match, config.eval_games)}")
    solved = shipped_solution(make_game(config.game))
    if solved is not None:
        labels = exact_labels(solved)
        if config.mistake_positions is not None:
            labels = dataclasses.replace(
                labels,
                states=labels.states[: config.mistake_positions],
                action_values=labels.action_values[: config.mistake_positions],
            )
        game = make_game(config.game)
        network_policy = LabelledPositions(game, labels).network_policy(net)
        report = mistake_rate(labels, network_policy, progress=True)
        figures["network_mistakes"] = report
        lines.append(f"network alone, mistakes vs exact solver: {report.summary()}")
        agent = AlphaZeroAgent(
            weights=str(weights), iterations=config.eval_simulations, seed=config.seed
        )
        report = mistake_rate(labels, agent.act_state, progress=True)
        figures["search_mistakes"] = report
        lines.append(
            f"PUCT {config.eval_simulations} sims, mistakes vs exact solver: {report.summary()}"
        )
    return lines, figures


def match_summary(match, games: int) -> str:
    """Wins, draws and losses of the network (agent A) with Wilson 95% intervals, and its
    losses per seat."""
    parts = []
    for label, count in (
        ("wins", match.a.wins),
        ("draws", match.a.draws),
        ("losses", match.a.losses),
    ):
        low, high = wilson_interval(count, games)
        parts.append(f"{label} {count}/{games} [{low:.3f}, {high:.3f}]")
    seats = [0, 0]
    for record in match.records:
        seats[record["seat_a"]] += record["result"] == "b"
    parts.append(f"losses as first / second player {seats[0]} / {seats[1]}")
    return ", ".join(parts)


# -- the loop ---------------------------------------------------------------------------------


class LabelledPositions:
    """The exact solver's labelled positions with their observations and masks, stacked once,
    so a network's priors over all of them take one batched forward pass."""

    def __init__(self, game, labels) -> None:
        self.labels = labels
        self.observations = np.stack(
            [game.observation(s, game.current_player(s)) for s in labels.states]
        ).astype(np.float32)
        self.masks = np.stack([game.action_mask(s) for s in labels.states]) != 0
        self.rows = {s.tobytes(): row for row, s in enumerate(labels.states)}

    def network_policy(self, net: Net):
        """``policy(game, state) -> priors`` of ``net`` at the labelled positions (for
        ``mistake_rate``), from one forward pass over all of them."""
        priors, _ = TorchEvaluator(net)(self.observations, self.masks)

        def decide(game, state):
            return priors[self.rows[state.tobytes()]]

        return decide


class NetworkCheck:
    """The network alone (greedy on its priors, no search) against the exact solver's labels,
    every ``config.check_seconds`` of training: cheap (one batched forward pass over the 4,520
    Tic-Tac-Toe positions), so training can stop as soon as the network itself plays perfectly.
    Games without a shipped solution are not checked."""

    def __init__(self, config: Config) -> None:
        self.every = float(config.check_seconds or 0.0)
        solved = shipped_solution(make_game(config.game))
        self.labels = None if solved is None else exact_labels(solved)
        self.positions = 0 if self.labels is None else len(self.labels)
        self.next = self.every
        self.cpu_start = time.process_time()
        self.rows: list[dict] = []
        if self.labels is not None:
            self.positions_data = LabelledPositions(make_game(config.game), self.labels)

    def due(self, seconds: float) -> bool:
        return self.labels is not None and seconds >= self.next

    def run(self, net: Net, seconds: float, games: int) -> int:
        """Count the network's mistakes now (and schedule the next check)."""
        self.next = seconds + self.every
        report = mistake_rate(self.labels, self.positions_data.network_policy(net))
        self.rows.append(
            {
                "seconds": round(seconds, 1),
                "cpu_seconds": round(time.process_time() - self.cpu_start, 1),
                "games": games,
                "mistakes": report.mistakes,
            }
        )
        return report.mistakes


class Checkpoints:
    """Saves the network every ``config.checkpoint_minutes`` of training (and at 0 and at the
    end) as ``checkpoint_NN.pt`` in ``config.checkpoint_dir`` (nothing without a folder); a
    file appears whole (written aside, then renamed), so another process can watch the folder."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.folder = None if config.checkpoint_dir is None else Path(config.checkpoint_dir)
        if self.folder is not None:
            self.folder.mkdir(parents=True, exist_ok=True)
        self.count = 0
        self.last = -1  # iterations at the last checkpoint

    def maybe_save(
        self, net: Net, seconds: float, iterations: int, games: int, final: bool = False
    ) -> None:
        if self.folder is None or iterations == self.last:
            return  # nothing trained since the last checkpoint
        due = self.count * self.config.checkpoint_minutes * 60.0
        if not final and seconds < due:
            return
        path = self.folder / f"checkpoint_{self.count:02d}.pt"
        partial = path.with_suffix(".part")
        save_net(
            net, self.config.game, net_shape(self.config), partial,
            minutes=seconds / 60.0, iterations=iterations, games=games,
        )  # fmt: skip
        partial.replace(path)
        print(
            f"checkpoint {path.name}: {seconds / 60:.1f} min, {iterations} iterations, "
            f"{games} games", flush=True,
        )  # fmt: skip
        self.count += 1
        self.last = iterations


def run(config: Config) -> tuple[list[str], dict]:
    """Self-play and training for ``config.minutes`` (or ``max_iterations``), then evaluation."""
    torch.manual_seed(config.seed)
    torch.set_num_threads(config.torch_threads)
    generator = np.random.default_rng(config.seed)
    game = make_game(config.game)
    symmetries = game_symmetries(config.game)
    net = build_net(config.game, net_shape(config))
    optimiser = torch.optim.Adam(net.parameters(), lr=config.learning_rate, weight_decay=1e-4)
    observation_shape = game.observation(game.initial_state(), 0).shape
    buffer = ReplayBuffer(config.buffer_size, observation_shape, game.info.num_actions)
    evaluator = TorchEvaluator(net.eval())
    agent = MCTSAgent(
        seed=config.seed,
        iterations=config.simulations,
        evaluator=evaluator,
        reuse_tree=False,
        batch_size=config.leaf_batch,
    )
    cheap = None
    if config.full_fraction < 1.0:
        cheap = MCTSAgent(
            seed=config.seed + 1,
            iterations=config.cheap_simulations,
            evaluator=evaluator,
            reuse_tree=False,
            batch_size=config.leaf_batch,
            dirichlet_fraction=0.0,
        )
    agents = SelfPlayers(agent, cheap)
    print(f"{config.game}: compiling the PUCT search (first run: up to a minute)...", flush=True)
    agent.prepare(game)
    check = NetworkCheck(config) if config.check_seconds else None
    start, cpu_start = time.perf_counter(), time.process_time()
    if check is not None:
        check.cpu_start = cpu_start
    budget = config.minutes * 60.0
    iteration, games_played, positions = 0, 0, 0
    losses = Losses(*[float("nan")] * 4)
    loss = float("nan")
    next_report = 0.0
    fresh: list[tuple[float, float, float]] = []  # held-out losses since the last report
    held_out = [float("nan")] * 3  # the last report's: policy, value, outcomes' variance
    bar = tqdm(total=round(budget), unit="s", desc="self-play + training")
    checkpoints = Checkpoints(config)
    checkpoints.maybe_save(net, 0.0, iteration, games_played)
    while time.perf_counter() - start < budget:
        if config.max_iterations is not None and iteration >= config.max_iterations:
            break
        new_games = []
        for _ in range(config.games_per_iteration):
            rows, returns = self_play_game(game, agents, config, generator)
            new_games.append((rows, returns))
            if rows:
                buffer.add(*augment(symmetries, rows, returns, config.value_mix))
            games_played += 1
            positions += len(rows)
        if buffer.size == 0:
            continue
        if config.report_seconds:
            fresh.append(fresh_losses(net, new_games))
        losses = train(net, optimiser, buffer, config, generator)
        loss = losses.total
        iteration += 1
        elapsed = time.perf_counter() - start
        if config.report_seconds and elapsed >= next_report:
            next_report = elapsed + config.report_seconds
            held_out = np.nanmean(np.array(fresh), axis=0) if fresh else [float("nan")] * 3
            fresh = []
            bar.write(
                f"{elapsed / 60:5.1f} min ({(time.process_time() - cpu_start) / 60:.1f} CPU min, "
                f"load {os.getloadavg()[0]:.1f}): {iteration} iterations, {games_played} games, "
                f"{positions} recorded decisions, buffer {buffer.size}; policy loss "
                f"{losses.policy:.3f} (targets' entropy {losses.policy_entropy:.3f}), value "
                f"loss {losses.value:.3f} (targets' variance {losses.value_variance:.3f}); on new "
                f"games before training on them: policy {held_out[0]:.3f}, value "
                f"{held_out[1]:.3f} (outcomes' variance {held_out[2]:.3f})",
                file=sys.stdout,
            )
            sys.stdout.flush()
        bar.n = min(round(time.perf_counter() - start), bar.total)
        bar.set_postfix(
            iteration=iteration, games=games_played, loss=f"{loss:.3f}", buffer=buffer.size
        )
        checkpoints.maybe_save(net, time.perf_counter() - start, iteration, games_played)
        if check is not None and check.due(time.perf_counter() - start):
            mistakes = check.run(net, time.perf_counter() - start, games_played)
            bar.write(
                f"{check.rows[-1]['seconds']:6.0f} s ({check.rows[-1]['cpu_seconds']:.0f} s of "
                f"CPU), {games_played} games: network alone "
                f"{mistakes} mistakes in {check.positions} positions"
            )
            if config.stop_when_perfect and mistakes == 0:
                break
    bar.close()
    seconds = time.perf_counter() - start
    cpu_seconds = time.process_time() - cpu_start
    checkpoints.maybe_save(net, seconds, iteration, games_played, final=True)
    stats = evaluator.stats()
    lines = [
        f"game {config.game}, seed {config.seed}: {iteration} iterations, {games_played} self-play "
        f"games, {config.simulations} simulations per move, {seconds / 60:.1f} min of self-play "
        f"and training ({cpu_seconds / 60:.1f} min of CPU, load average "
        f"{os.getloadavg()[0]:.1f}), final loss {loss:.3f}",
        f"evaluator: {stats.calls} calls, {stats.positions} positions, mean batch "
        f"{stats.mean_batch:.2f}",
    ]
    if config.eval_games == 0:
        more, figures = [], {}
    else:
        with tempfile.TemporaryDirectory() as folder:
            more, figures = evaluate(net, config, Path(folder))
    figures["iterations"], figures["games"], figures["seconds"] = iteration, games_played, seconds
    figures["cpu_seconds"] = cpu_seconds
    figures["losses"] = losses._asdict()
    names = ("policy", "value", "outcome_variance")
    figures["held_out"] = {name: float(value) for name, value in zip(names, held_out, strict=True)}
    figures["recorded_decisions"] = positions
    figures["checks"] = [] if check is None else check.rows
    return lines + more, figures


def parse_config(argv: list[str] | None = None) -> Config:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="tictactoe", choices=["tictactoe", "ultimate_tictactoe"])
    parser.add_argument("--minutes", type=float, default=10.0, help="self-play + training time")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--simulations", type=int, default=None, help="PUCT simulations per move")
    parser.add_argument(
        "--eval-games", type=int, default=100, help="arena games at the end (0: no evaluation)"
    )
    parser.add_argument("--checkpoint-dir", default=None, help="save checkpoints here")
    parser.add_argument(
        "--overwrite", action="store_true", help="save into a --checkpoint-dir that holds files"
    )
    parser.add_argument("--checkpoint-minutes", type=float, default=5.0)
    parser.add_argument(
        "--temperature-moves", type=int, default=None, help="moves drawn from the visits"
    )
    parser.add_argument("--learning-rate", type=float, default=None)
    parser.add_argument("--leaf-batch", type=int, default=None, help="leaves per network call")
    parser.add_argument("--train-steps", type=int, default=None, help="Adam steps per iteration")
    parser.add_argument(
        "--check-seconds",
        type=float,
        default=None,
        help="Tic-Tac-Toe: count the network's mistakes against the exact solver this often",
    )
    parser.add_argument(
        "--stop-when-perfect",
        action="store_true",
        help="end training once the network alone makes no mistake (with --check-seconds)",
    )
    parser.add_argument(
        "--net", choices=["mlp", "conv"], default="mlp",
        help="network: residual MLP, or (Ultimate Tic-Tac-Toe) residual convolutions",
    )  # fmt: skip
    parser.add_argument("--hidden", type=int, default=None, help="MLP units")
    parser.add_argument("--channels", type=int, default=32, help="conv: channels")
    parser.add_argument("--blocks", type=int, default=3, help="conv: residual blocks")
    parser.add_argument("--buffer-size", type=int, default=None, help="replay buffer rows")
    parser.add_argument("--games-per-iteration", type=int, default=None)
    parser.add_argument(
        "--value-mix", type=float, default=0.0,
        help="value target: (1 - mix) * game outcome + mix * the search's root value",
    )  # fmt: skip
    parser.add_argument(
        "--full-fraction", type=float, default=1.0,
        help="playout cap randomisation: the share of decisions searched in full and recorded",
    )  # fmt: skip
    parser.add_argument(
        "--cheap-simulations", type=int, default=25,
        help="simulations of the other (unrecorded) decisions, with --full-fraction below 1",
    )  # fmt: skip
    parser.add_argument("--torch-threads", type=int, default=1)
    parser.add_argument(
        "--report-seconds", type=float, default=60.0, help="print the losses this often"
    )
    parser.add_argument("--quick", action="store_true", help="a tiny smoke run (seconds)")
    args = parser.parse_args(argv)
    if not 0.0 < args.full_fraction <= 1.0:
        parser.error(f"--full-fraction must be in (0, 1], got {args.full_fraction}")
    if not 0.0 <= args.value_mix <= 1.0:
        parser.error(f"--value-mix must be in [0, 1], got {args.value_mix}")
    if args.net == "conv" and tictactoe_only(args.game):
        parser.error("--net conv is for --game ultimate_tictactoe")
    if args.checkpoint_dir:
        refuse_used_folder(parser, args.checkpoint_dir, args.overwrite, "--checkpoint-dir")
    extras = {
        "net": args.net,
        "channels": args.channels,
        "blocks": args.blocks,
        "value_mix": args.value_mix,
        "full_fraction": args.full_fraction,
        "cheap_simulations": args.cheap_simulations,
        "torch_threads": args.torch_threads,
        "report_seconds": args.report_seconds,
    }
    tictactoe = args.game == "tictactoe"
    if args.quick:
        return Config(
            *(args.game, args.minutes, args.seed, 8, 2, 4, 32, 2000, 2, 32),
            *(2 if args.eval_games else 0, 4, 40, 1),
            checkpoint_dir=args.checkpoint_dir,
            checkpoint_minutes=args.checkpoint_minutes,
            check_seconds=args.check_seconds,
            **{**extras, "cheap_simulations": min(args.cheap_simulations, 4)},
        )
    simulations = args.simulations or (64 if tictactoe else 200)
    return Config(
        game=args.game,
        minutes=args.minutes,
        seed=args.seed,
        simulations=simulations,
        games_per_iteration=args.games_per_iteration or (8 if tictactoe else 4),
        train_steps=args.train_steps or (80 if tictactoe else 100),
        batch_size=128,
        buffer_size=args.buffer_size or (40_000 if tictactoe else 200_000),
        temperature_moves=args.temperature_moves or (9 if tictactoe else 12),
        hidden=args.hidden or (128 if tictactoe else 256),
        eval_games=args.eval_games,
        eval_simulations=simulations,
        mistake_positions=None,
        max_iterations=None,
        checkpoint_dir=args.checkpoint_dir,
        checkpoint_minutes=args.checkpoint_minutes,
        learning_rate=args.learning_rate or (2e-3 if tictactoe else 1e-3),
        leaf_batch=args.leaf_batch or (16 if tictactoe else 8),
        check_seconds=args.check_seconds,
        stop_when_perfect=args.stop_when_perfect,
        **extras,
    )


def tictactoe_only(game: str) -> bool:
    return game == "tictactoe"


def main(argv: list[str] | None = None) -> dict:
    """Run and print the report; returns the figures (for tests)."""
    lines, figures = run(parse_config(argv))
    for line in lines:
        print(line)
    return figures


if __name__ == "__main__":
    main()
