"""The AlphaZero example runs end to end at its --quick size (torch from the train extra)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from agents import spec as spec_module

pytest.importorskip("torch")

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "alphazero.py"


def test_alphazero_example_quick_run(tmp_path):
    spec = importlib.util.spec_from_file_location("alphazero_example", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
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
