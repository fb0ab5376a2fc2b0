"""The behaviour-cloning example runs end to end at a toy size (torch from the train extra)."""

from __future__ import annotations

import pytest

from mcts_envs.agents import spec as spec_module
from tests.examples.loading import load_example

pytest.importorskip("torch")


def test_behaviour_cloning_example_runs_tiny(tmp_path):
    module = load_example("behaviour_cloning")
    data_path = tmp_path / "expert.npz"
    try:
        figures = module.main(
            ["--tiny", "--model", str(tmp_path / "net.pt"), "--data", str(data_path)]
        )
    finally:  # the example registers its agent kind; leave the registry as found
        spec_module.AGENT_KINDS.pop("bc_network", None)
        spec_module._REGISTERED_CLASSES.pop("bc_network", None)
    assert data_path.exists() and (tmp_path / "net.pt").exists()
    assert 0.0 <= figures["top1_agreement"] <= 1.0
    assert figures["mistakes"].positions == 100
    for opponent in module.OPPONENTS:
        result = figures[opponent]
        assert result.a.wins + result.a.draws + result.a.losses == 2
