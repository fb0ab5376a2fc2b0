"""The AlphaZero example runs end to end at its --quick size (torch from the train extra)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from agents import spec as spec_module

pytest.importorskip("torch")

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "alphazero.py"


def test_alphazero_example_quick_run():
    spec = importlib.util.spec_from_file_location("alphazero_example", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    try:
        figures = module.main(["--quick", "--seed", "3"])
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
