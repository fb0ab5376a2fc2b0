"""TorchEvaluator: a real (tiny) torch network as the PUCT search's batched leaf evaluator."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from mcts_envs.agents.mcts import MCTSAgent, puct
from mcts_envs.core.errors import InvalidOptionError, OptionalDependencyError
from mcts_envs.core.registry import make_game

torch = pytest.importorskip("torch")

from mcts_envs.agents.learned.torch_evaluator import TorchEvaluator  # noqa: E402


class TinyNet(torch.nn.Module):
    """One linear layer to logits and one to a tanh value (deterministic weights)."""

    def __init__(self, observation_size: int, num_actions: int, seed: int = 0) -> None:
        super().__init__()
        generator = torch.Generator().manual_seed(seed)
        self.policy = torch.nn.Linear(observation_size, num_actions)
        self.value = torch.nn.Linear(observation_size, 1)
        with torch.no_grad():
            for parameter in self.parameters():
                parameter.copy_(torch.randn(parameter.shape, generator=generator))

    def forward(self, x):
        flat = x.flatten(1)
        return self.policy(flat), torch.tanh(self.value(flat))


def _positions(game, count: int, seed: int):
    """Non-terminal positions from random play."""
    rng = np.random.default_rng(seed)
    states = []
    state = game.initial_state()
    while len(states) < count:
        if game.current_player(state) < 0:
            state = game.initial_state()
        states.append(state.copy())
        legal = game.legal_actions(state)
        state = game.apply(state, int(rng.choice(legal)))
    return [s for s in states if game.current_player(s) >= 0]


def test_priors_are_the_masked_softmax_and_values_the_value_head():
    game = make_game("tictactoe")
    net = TinyNet(18, 9)
    evaluator = TorchEvaluator(net)
    states = _positions(game, 12, seed=1)
    observations = np.stack([game.observation(s, game.current_player(s)) for s in states])
    masks = np.stack([game.action_mask(s) for s in states])
    priors, values = evaluator(observations, masks)
    # Oracle: the same weights applied in numpy, softmax over the legal moves only.
    weight = net.policy.weight.detach().numpy().astype(np.float64)
    bias = net.policy.bias.detach().numpy().astype(np.float64)
    flat = observations.reshape(len(states), -1).astype(np.float64)
    logits = flat @ weight.T + bias
    for row in range(len(states)):
        legal = masks[row] != 0
        expected = np.zeros(9)
        exp = np.exp(logits[row, legal] - logits[row, legal].max())
        expected[legal] = exp / exp.sum()
        np.testing.assert_allclose(priors[row], expected, atol=1e-5)
        assert priors[row][~legal].sum() == 0.0
    value_weight = net.value.weight.detach().numpy().astype(np.float64)[0]
    value_bias = float(net.value.bias.detach().numpy()[0])
    np.testing.assert_allclose(values, np.tanh(flat @ value_weight + value_bias), atol=1e-5)
    stats = evaluator.stats()
    assert (stats.calls, stats.positions, stats.max_batch) == (1, len(states), len(states))


def test_model_mode_is_kept_and_bad_outputs_are_rejected():
    net = TinyNet(18, 9)
    net.train()
    evaluator = TorchEvaluator(net)
    evaluator(np.zeros((2, 3, 3, 2), np.int8), np.ones((2, 9), np.int8))
    assert net.training  # switched to eval for the call only
    with pytest.raises(InvalidOptionError, match="legal action"):
        evaluator(np.zeros((1, 3, 3, 2)), np.zeros((1, 9), np.int8))
    with pytest.raises(InvalidOptionError, match="masks must be"):
        evaluator(np.zeros((2, 3, 3, 2)), np.ones((3, 9), np.int8))
    wrong = TorchEvaluator(TinyNet(18, 7))
    with pytest.raises(InvalidOptionError, match="logits"):
        wrong(np.zeros((1, 3, 3, 2)), np.ones((1, 9), np.int8))
    with pytest.raises(InvalidOptionError, match="callable"):
        TorchEvaluator("not a model")


def test_without_torch_the_error_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)  # makes `import torch` fail
    with pytest.raises(OptionalDependencyError, match=r"mcts-envs\[train\]"):
        TorchEvaluator(lambda x: x)


@pytest.mark.parametrize("game_name", ["tictactoe", "ultimate_tictactoe"])
def test_puct_search_with_the_evaluator_counts_batches(game_name):
    game = make_game(game_name)
    observation = game.observation(game.initial_state(), 0)
    evaluator = TorchEvaluator(TinyNet(observation.size, game.info.num_actions))
    agent = MCTSAgent(iterations=64, evaluator=evaluator, batch_size=8, seed=3)
    result = agent.search(game, game.initial_state())
    stats = evaluator.stats()
    assert result.simulations >= 64 and game.action_mask(game.initial_state())[result.action]
    assert 0 < stats.positions <= result.simulations
    assert stats.max_batch <= 8 and stats.calls >= stats.positions / 8
    assert sum(size * calls for size, calls in stats.batch_sizes.items()) == stats.positions
    assert (result.evaluator_calls, result.evaluated_leaves) == (stats.calls, stats.positions)
    # The same seed gives the same search.
    again = MCTSAgent(
        iterations=64, evaluator=TorchEvaluator(evaluator.model), batch_size=8, seed=3
    )
    np.testing.assert_array_equal(again.search(game, game.initial_state()).visits, result.visits)
    evaluator.reset_stats()
    assert evaluator.stats().calls == 0


def test_root_noise_is_mixed_in_once_per_search(monkeypatch):
    game = make_game("tictactoe")
    evaluator = TorchEvaluator(TinyNet(18, 9))
    mixes: list[np.ndarray] = []
    real_apply = puct.RootNoise.apply

    def counting_apply(self, tree):  # the real method runs; a mix is when it stores priors
        before = self._clean
        real_apply(self, tree)
        if before is None and self._clean is not None:
            mixes.append(self._clean.copy())

    monkeypatch.setattr(puct.RootNoise, "apply", counting_apply)
    agent = MCTSAgent(
        iterations=200, evaluator=evaluator, batch_size=4, seed=5, dirichlet_fraction=0.25
    )
    state = game.initial_state()
    agent.search(game, state)
    assert len(mixes) == 1
    agent.search(game, state)  # a second search (tree reused): noise mixed once more, no more
    assert len(mixes) == 2
    # The clean priors saved before mixing are the network's priors at the root.
    root_priors, _ = evaluator(game.observation(state, 0)[None], game.action_mask(state)[None])
    np.testing.assert_allclose(np.sort(mixes[0]), np.sort(root_priors[0]), atol=1e-6)
    np.testing.assert_allclose(np.sort(mixes[1]), np.sort(root_priors[0]), atol=1e-6)
    # Without noise nothing is mixed; with it the visits differ from the noiseless search.
    quiet = MCTSAgent(
        iterations=200, evaluator=evaluator, batch_size=4, seed=5, dirichlet_fraction=0.0
    )
    quiet_visits = quiet.search(game, state).policy(9)
    assert len(mixes) == 2
    noisy = MCTSAgent(
        iterations=200, evaluator=evaluator, batch_size=4, seed=5, dirichlet_fraction=1.0
    )
    assert not np.allclose(noisy.search(game, state).policy(9), quiet_visits)
