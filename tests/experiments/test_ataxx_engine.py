"""experiments/ataxx_engine.py: skips without the engine, and plays through the UAI client."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from experiments.ataxx_engine import main

FAKE = Path(__file__).parents[1] / "agents" / "fake_uai_engine.py"


def test_without_the_engine_it_says_so_and_plays_nothing(tmp_path, capsys):
    main(["--out", str(tmp_path), "--engine", str(tmp_path / "no-such-engine")])
    assert "no engine at" in capsys.readouterr().out
    assert not list(tmp_path.rglob("*.jsonl"))


def test_a_quick_run_records_both_sides_think_times(tmp_path):
    engine = tmp_path / "engine.sh"  # a UAI engine playing the first legal move
    engine.write_text(f"#!/bin/sh\nexec {sys.executable} {FAKE} legal\n")
    engine.chmod(0o755)
    out = tmp_path / "out"
    arguments = ["--quick", "--out", str(out), "--engine", str(engine), "--seconds", "0.02"]
    main([*arguments, "--agents", "alphabeta", "mcts"])
    summary = json.loads((out / "0.02s_clock25" / "summary.json").read_text())
    assert summary["clock_factor"] == 25 and summary["openings"] == "random:4"
    points = {point["label"]: point for point in summary["points"]}
    assert set(points) == {"alphabeta", "mcts"}
    for point in points.values():
        assert point["games"] == 2
        assert 0 < point["seconds_per_move"] < 0.2 and point["opponent_seconds_per_move"] > 0
