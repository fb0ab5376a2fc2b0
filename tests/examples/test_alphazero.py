"""The AlphaZero example runs end to end at its --quick size (torch from the train extra)."""

from __future__ import annotations

import pytest

from mcts_envs.agents import spec as spec_module
from tests.examples.loading import load_example

pytest.importorskip("torch")


def test_alphazero_example_quick_run(tmp_path):
    module = load_example("alphazero")
    folder = tmp_path / "checkpoints"
    try:
        figures = module.main(
            ["--quick", "--seed", "3", "--check-seconds", "1e-9", "--checkpoint-dir", str(folder)]
        )
    finally:  # the example registers its agent kind; leave the registry as found
        for kind in ("alphazero_net", "alphazero_policy"):
            spec_module.AGENT_KINDS.pop(kind, None)
            spec_module._REGISTERED_CLASSES.pop(kind, None)
    assert figures["iterations"] == 1 and figures["games"] == 2
    for key in ("match", "policy_match"):
        match = figures[key]
        assert match.a.wins + match.a.draws + match.a.losses == 2
        assert {record["seat_a"] for record in match.records} == {0, 1}
    for key in ("network_mistakes", "search_mistakes"):
        report = figures[key]
        assert report.positions == 40 and 0 <= report.mistakes <= 40
    # The network check counted its mistakes on all 4,520 positions once (after the iteration).
    (check,) = figures["checks"]
    assert check["games"] == 2 and 0 <= check["mistakes"] <= 4520
    # Checkpoints at the start and the end load back as networks with their facts.
    saved = sorted(path.name for path in folder.iterdir())
    assert saved == ["checkpoint_00.pt", "checkpoint_01.pt"]
    facts = module.torch.load(folder / "checkpoint_01.pt", weights_only=True)
    assert facts["games"] == 2 and facts["iterations"] == 1
    net = module.load_net(str(folder / "checkpoint_01.pt"))
    assert isinstance(net, module.Net)


def test_conv_policy_head_reads_the_grid_in_action_order():
    """The conv net's policy logit of ``action = board * 9 + cell`` is the grid square the game
    puts that cell on: the playable plane of the observation, read through the net's action
    order, is the game's action mask in positions along a random game."""
    import numpy as np

    from mcts_envs.core.registry import make_game
    from mcts_envs.games.ultimate_tictactoe.game import grid_position

    module = load_example("alphazero")
    net = module.build_net("ultimate_tictactoe", module.NetShape("conv", channels=8, blocks=1))
    order = net.grid_of_action.numpy()
    for action in range(81):
        row, col = grid_position(action // 9, action % 9)
        assert order[action] == row * 9 + col
    game = make_game("ultimate_tictactoe")
    state, generator = game.initial_state(), np.random.default_rng(0)
    for _ in range(30):
        player = game.current_player(state)
        playable = game.observation(state, player)[:, :, 4].reshape(81)
        np.testing.assert_array_equal(playable[order], game.action_mask(state) != 0)
        state = game.apply(state, int(generator.choice(np.flatnonzero(game.action_mask(state)))))
    logits, values = net(module.torch.zeros(3, 9, 9, 5))
    assert tuple(logits.shape) == (3, 81) and tuple(values.shape) == (3,)


def test_alphazero_uttt_conv_quick_run_with_playout_caps(tmp_path):
    """Ultimate Tic-Tac-Toe with the conv net, playout cap randomisation and mixed value targets
    runs, reports held-out losses, and its checkpoints load back as conv nets."""
    module = load_example("alphazero")
    folder = tmp_path / "checkpoints"
    figures = module.main(
        [
            "--game", "ultimate_tictactoe", "--quick", "--eval-games", "0", "--net", "conv",
            "--channels", "8", "--blocks", "1", "--full-fraction", "0.5", "--value-mix", "0.5",
            "--checkpoint-dir", str(folder), "--report-seconds", "1e-9",
        ]
    )  # fmt: skip
    assert figures["iterations"] == 1 and figures["games"] == 2
    losses = figures["losses"]
    assert losses["policy"] > 0 and losses["value"] >= 0 and losses["policy_entropy"] >= 0
    held_out = figures["held_out"]  # the network on the new games before training on them
    assert held_out["policy"] > 0 and held_out["value"] >= 0
    assert held_out["outcome_variance"] >= 0
    assert figures["recorded_decisions"] > 0
    net = module.load_net(str(folder / "checkpoint_01.pt"))
    assert isinstance(net, module.ConvNet) and len(net.blocks) == 1


def test_augment_mixes_the_root_value_into_the_outcome():
    """Value targets are ``(1 - mix) * outcome + mix * root value``, from the mover's view."""
    import numpy as np

    from mcts_envs.core.registry import make_game
    from mcts_envs.core.symmetry import game_symmetries

    module = load_example("alphazero")
    game = make_game("tictactoe")
    state = game.initial_state()
    rows = []
    for ply, action in enumerate((4, 0)):
        player = game.current_player(state)
        visits = np.zeros(9)
        visits[action] = 1.0
        rows.append(
            (game.observation(state, player), game.action_mask(state), visits, action, player,
             0.5 if ply == 0 else -0.25)
        )  # fmt: skip
        state = game.apply(state, action)
    returns = np.array([1.0, -1.0])
    symmetries = game_symmetries("tictactoe")
    *_, outcomes = module.augment(symmetries, rows, returns, value_mix=0.25)
    np.testing.assert_allclose(outcomes[:2], [0.75 * 1 + 0.25 * 0.5, 0.75 * -1 + 0.25 * -0.25])
    *_, outcomes = module.augment(symmetries, rows, returns)
    np.testing.assert_allclose(outcomes[:2], [1.0, -1.0])
    assert len(outcomes) == 2 * len(symmetries)
