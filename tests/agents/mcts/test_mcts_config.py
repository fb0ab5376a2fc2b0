"""The MCTS options as one frozen config: the spec and the constructor build the same
:class:`~mcts_envs.agents.mcts.config.MCTSConfig` (the game's row filling the options not given),
the config checks every option itself with the spec's own error, the listing and the docs read its
fields, an agent rebuilt from its config decides the same, and a decision checks the state once
and sizes no tree again once the agent has one."""

from __future__ import annotations

import dataclasses
import importlib.util
import math
from pathlib import Path

import pytest

from mcts_envs.agents.mcts import MCTSAgent, MCTSConfig
from mcts_envs.agents.mcts import tree as tree_module
from mcts_envs.agents.mcts.config import PER_GAME
from mcts_envs.agents.mcts.defaults import GENERIC, defaults_for
from mcts_envs.agents.spec import agent_parameters, describe_agent, make_agent
from mcts_envs.core.errors import InvalidOptionError
from mcts_envs.core.registry import make_game

ROOT = Path(__file__).resolve().parents[3]


def test_the_spec_and_the_constructor_build_one_config():
    spec = make_agent("mcts:iterations=200,c=0.3,rollout_cutoff=none,final=mean", seed=0)
    keywords = MCTSAgent(iterations=200, c=0.3, rollout_cutoff=None, final="mean", seed=0)
    assert spec.config == keywords.config
    assert spec.config == dataclasses.replace(
        GENERIC, iterations=200, c=0.3, rollout_cutoff=None, final="mean"
    )
    with pytest.raises(dataclasses.FrozenInstanceError):
        spec.config.c = 1.0  # frozen: variants are made with dataclasses.replace


#: (spec text, the same value given to the config) of values the config refuses.
REFUSED = [
    ("c=nan", {"c": math.nan}),
    ("c=-1", {"c": -1.0}),
    ("seconds=inf,iterations=none", {"seconds": math.inf, "iterations": None}),
    ("iterations=0", {"iterations": 0}),
    ("iterations=1e20", {"iterations": 10**20}),
    ("workers=300", {"workers": 300}),
    ("dirichlet_fraction=1.5", {"dirichlet_fraction": 1.5}),
    ("rollout_cutoff=-1", {"rollout_cutoff": -1}),
    ("first_play=-0.5", {"first_play": -0.5}),
    ("max_memory_mb=0.5", {"max_memory_mb": 0.5}),
    ("minimax_weight=2", {"minimax_weight": 2.0}),
    ("iterations=none", {"iterations": None}),
    ("expand=some", {"expand": "some"}),
    ("scores=exact", {"scores": "exact"}),
    ("rollout=fast", {"rollout": "fast"}),
    ("win_check=maybe", {"win_check": "maybe"}),
]


@pytest.mark.parametrize(("text", "values"), REFUSED, ids=[text for text, _ in REFUSED])
def test_the_config_and_the_spec_refuse_a_value_with_one_error(text, values):
    with pytest.raises(InvalidOptionError) as direct:
        MCTSConfig(**values)
    with pytest.raises(InvalidOptionError) as spec:
        make_agent(f"mcts:{text}")
    with pytest.raises(InvalidOptionError) as keywords:
        MCTSAgent(**values)
    assert str(spec.value) == str(direct.value) == str(keywords.value)
    assert str(direct.value).startswith("mcts: ")
    name = next(iter(values)) if text != "iterations=none" else "budget"
    assert name in str(direct.value)


def test_the_nan_exploration_constant_of_the_issue():
    with pytest.raises(InvalidOptionError, match=r"c must be a finite number in \[0, 1e\+06\]"):
        MCTSConfig(c=float("nan"))
    with pytest.raises(InvalidOptionError) as error:
        dataclasses.replace(MCTSConfig(), c=float("nan"))  # a variant is checked again
    assert "got nan" in str(error.value)


def test_the_config_takes_words_and_numbers_as_their_types():
    config = MCTSConfig(iterations=1e3, c=1, batch_size=4.0, rollout_cutoff=0)
    assert (config.iterations, config.c, config.batch_size) == (1000, 1.0, 4)
    assert type(config.iterations) is int and type(config.c) is float
    assert MCTSConfig().c is PER_GAME  # left to the game's row
    with pytest.raises(InvalidOptionError, match="iterations"):
        MCTSConfig(iterations=True)  # a bool is not a count
    with pytest.raises(InvalidOptionError, match="minimax_weight needs compiled leaf"):
        MCTSConfig(minimax_weight=0.3, rollout=lambda game, state: 0)


def test_unknown_options_name_the_known_ones():
    with pytest.raises(InvalidOptionError, match=r"unknown option.*iteration.*options: iterations"):
        MCTSAgent(iteration=10)
    with pytest.raises(InvalidOptionError, match="did you mean 'iterations'"):
        make_agent("mcts:iteration=10")


def test_the_spec_and_the_listing_read_the_config_fields():
    fields = dataclasses.fields(MCTSConfig)
    options = agent_parameters("mcts")
    assert [o.name for o in options] == [f.name for f in fields]
    assert [o.default for o in options] == [f.default for f in fields]
    assert all(
        o.help == f.metadata["help"] and o.help for o, f in zip(options, fields, strict=True)
    )
    text = describe_agent("mcts")
    assert "    c: float = per game\n        UCT exploration constant" in text
    assert "    iterations: int | None = 1000\n" in text


def test_the_docs_table_is_the_config_fields():
    path = ROOT / "docs" / "_scripts" / "mcts_options.py"
    spec = importlib.util.spec_from_file_location("mcts_options", path)
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    page = script.PAGE.read_text(encoding="utf-8")
    expected = script.options_table()
    assert script.page_table(page) == expected, (
        "docs/agents.md's MCTS options differ from MCTSConfig's fields: run "
        "python docs/_scripts/mcts_options.py"
    )
    for option in dataclasses.fields(MCTSConfig):
        assert f"| `{option.name}` |" in expected


def test_a_game_fills_only_the_options_not_given():
    agent = make_agent("mcts:iterations=50,c=0.3,workers=1", seed=0)
    game = make_game("ataxx")
    agent.act_state(game, game.initial_state())
    assert agent.config == dataclasses.replace(defaults_for("ataxx"), iterations=50, c=0.3)


def test_an_agent_built_from_a_config_decides_the_same():
    game = make_game("ultimate_tictactoe")
    state = game.initial_state()
    first = MCTSAgent(iterations=300, c=0.8, expand="all", seed=4)
    again = MCTSAgent(first.config, seed=4)
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
