"""The training example runs end to end at a tiny size (so it cannot rot): real SB3, real arena."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "train_maskable_ppo.py"


def test_train_maskable_ppo_example_runs_tiny(tmp_path):
    pytest.importorskip("sb3_contrib")
    spec = importlib.util.spec_from_file_location("train_maskable_ppo", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    results = module.main(
        [
            "--steps", "512", "--envs", "8", "--n-steps", "32", "--batch-size", "64",
            "--epochs", "1", "--net", "32", "--snapshot-every", "128", "--eval-every", "256",
            "--eval-games", "8", "--eval-opponent", "minimax2", "--final", "random:6,minimax2:2",
            "--teachers", "perfect~0.5:0.3", "--loss-reward", "-2", "--lr-final", "1e-5",
            "--ent-final", "0",
            "--out", str(tmp_path), "--no-progress",
        ]
    )  # fmt: skip
    assert results["steps"] >= 512
    assert [entry["games"] for entry in results["arena"]] == [6, 2]
    assert all(1 <= entry["distinct_games"] <= entry["games"] for entry in results["arena"])
    assert (tmp_path / "model.zip").exists() and (tmp_path / "curve.png").stat().st_size > 1000
    curve = json.loads((tmp_path / "curve.json").read_text())
    assert [point["steps"] for point in curve][:2] == [0, 256]
    assert json.loads((tmp_path / "results.json").read_text()) == results
    # Tic-Tac-Toe is small enough for the exact outcome against random at every curve point
    exact = results["exact_random"]
    assert exact["win"] + exact["draw"] + exact["loss"] == pytest.approx(1.0)
    assert exact["loss"] == pytest.approx(sum(exact["loss_by_seat"]) / 2)
    assert all("exact_random" in point for point in curve)


def test_teacher_shares_parse_epsilon():
    spec = importlib.util.spec_from_file_location("train_maskable_ppo", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.spec_shares("alphabeta:0.25,perfect~0.5:0.1,mcts:iterations=9:0.2") == [
        ("alphabeta", 0.0, 0.25),
        ("perfect", 0.5, 0.1),
        ("mcts:iterations=9", 0.0, 0.2),
    ]
