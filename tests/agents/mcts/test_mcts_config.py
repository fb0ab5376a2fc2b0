"""The MCTS options as one frozen config: the spec and the constructor build the same
:class:`~mcts_envs.agents.mcts.defaults.MCTSConfig` (the game's row filling the options not given), an
agent rebuilt from its config decides the same, and a decision checks the state once and sizes
no tree again once the agent has one."""

from __future__ import annotations

import dataclasses

import pytest

from mcts_envs.agents.mcts import MCTSAgent, MCTSConfig
from mcts_envs.agents.mcts import tree as tree_module
from mcts_envs.agents.mcts.defaults import GENERIC, defaults_for
from mcts_envs.agents.spec import make_agent
from mcts_envs.core.registry import make_game


def test_the_spec_and_the_constructor_build_one_config():
    spec = make_agent("mcts:iterations=200,c=0.3,rollout_cutoff=none,final=mean", seed=0)
    keywords = MCTSAgent(iterations=200, c=0.3, rollout_cutoff=None, final="mean", seed=0)
    assert spec.config == keywords.config
    assert spec.config == dataclasses.replace(
        GENERIC, iterations=200, c=0.3, rollout_cutoff=None, final="mean"
    )
    with pytest.raises(dataclasses.FrozenInstanceError):
        spec.config.c = 1.0  # frozen: variants are made with dataclasses.replace


def test_a_game_fills_only_the_options_not_given():
    agent = make_agent("mcts:iterations=50,c=0.3,workers=1", seed=0)
    game = make_game("ataxx")
    agent.act_state(game, game.initial_state())
    assert agent.config == dataclasses.replace(defaults_for("ataxx"), iterations=50, c=0.3)


def test_an_agent_built_from_a_config_decides_the_same():
    game = make_game("ultimate_tictactoe")
    state = game.initial_state()
    first = MCTSAgent(iterations=300, c=0.8, expand="all", seed=4)
    again = MCTSAgent.from_config(first.config, seed=4)
    assert isinstance(again.config, MCTSConfig) and again.config == first.config
    one, two = first.search(game, state), again.search(game, state)
    assert one.action == two.action
    assert one.visits.tolist() == two.visits.tolist()


def test_a_decision_checks_the_state_once_and_sizes_no_tree_again(monkeypatch):
    """One decision enters the engine once: the state is checked by the agent only (the
    check of :func:`mcts_envs.agents.base.check_decision`, which reads the player through the checked
    game API: two calls), and after the first decision the tree's arrays are recycled."""
    game = make_game("ultimate_tictactoe")
    state = game.initial_state()
    agent = MCTSAgent(iterations=100, seed=0, reuse_tree=False)
    agent.search(game, state)  # builds the engine and the first tree
    checks = []
    trees = []
    original_check, original_tree = game.check_state, tree_module.Tree.__init__
    monkeypatch.setattr(game, "check_state", lambda s: checks.append(1) or original_check(s))

    def counting_tree(self, *args, **kwargs):
        trees.append(1)
        original_tree(self, *args, **kwargs)

    monkeypatch.setattr(tree_module.Tree, "__init__", counting_tree)
    for _ in range(3):
        agent.search(game, state)
    assert len(checks) == 3 * 2
    assert trees == []
