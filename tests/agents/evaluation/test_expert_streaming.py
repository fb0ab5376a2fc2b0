"""Issue 39: ``mcts-envs expert`` streams each finished game to disk (memory does not grow with
the games) and keeps what was finished on Ctrl-C."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from mcts_envs.agents.evaluation.expert import (
    ExpertConfig,
    generate_expert_data,
    load_expert_data,
    write_expert_data,
)

ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.parametrize(
    ("config", "workers"),
    [
        (ExpertConfig("tictactoe", "mcts:iterations=30", 6, seed=4), 1),
        (ExpertConfig("tictactoe", "perfect", 5, seed=1, symmetries=True), 2),
        (ExpertConfig("ataxx", "minimax2", 2, seed=3, opponent="random", max_moves=12), 1),
    ],
    ids=["mcts", "symmetries-2-workers", "opponent"],
)
def test_the_streamed_file_holds_the_arrays_made_in_memory(tmp_path, config, workers):
    path = tmp_path / "data.npz"
    rows, summary, interrupted = write_expert_data(path, config, workers=workers)
    expected = generate_expert_data(config)
    written = load_expert_data(path)
    assert not interrupted and rows == len(expected["actions"])
    assert set(written) == set(expected)
    for name, array in expected.items():
        assert written[name].dtype == array.dtype, name
        assert np.array_equal(written[name], array), name
    assert tuple(int(v) for v in expected["summary"]) == tuple(summary)
    assert [p.name for p in tmp_path.iterdir()] == ["data.npz"]  # no spool or partial left


def test_ctrl_c_keeps_the_games_finished(tmp_path):
    """SIGINT during a long run: the games in flight finish, the finished ones are written
    (in game order), exit status 130, no spool folder left."""
    path = tmp_path / "data.npz"
    command = [
        sys.executable, "-m", "mcts_envs.agents", "expert", "tictactoe", "mcts:iterations=2000",
        "--games", "400", "--out", str(path), "--no-progress",
    ]  # fmt: skip
    process = subprocess.Popen(
        command,
        cwd=ROOT,
        env=os.environ | {"PYTHONPATH": str(ROOT)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 240
    while len(list(tmp_path.glob(".data.npz.spool-*/game-*.npz"))) < 3:  # games are spooled
        assert process.poll() is None and time.monotonic() < deadline, process.poll()
        time.sleep(0.2)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=300)
    assert process.returncode == 130, err[-2000:]
    assert "interrupted:" in out and "of 400 games finished and written" in out
    data = load_expert_data(path)
    games = int(data["num_games"])
    assert 0 < games < 400 and int(data["summary"][0]) == games
    indices = sorted(set(data["game_index"].tolist()))
    assert len(indices) == games and indices == sorted(indices)
    assert np.all(np.diff(data["game_index"]) >= 0)  # rows in game order
    assert [p.name for p in tmp_path.iterdir()] == ["data.npz"]
