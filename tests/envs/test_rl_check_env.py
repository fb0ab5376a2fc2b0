"""Gymnasium's ``check_env``, render checks included, passes on the single-agent view.

On the core install (no pygame: a fresh interpreter where importing pygame fails) the env offers
``ansi`` only; with pygame it offers ``rgb_array`` too. Either way ``render_fps`` is declared and
the module-prefixed id works in a fresh interpreter.
"""

from __future__ import annotations

import json
import subprocess
import sys
import warnings

import gymnasium
import pytest
from gymnasium.utils.env_checker import check_env

import mcts_envs
from mcts_envs.envs.single_agent import gymnasium_id

#: Runs in a fresh interpreter with pygame blocked (``import pygame`` raises ImportError).
WITHOUT_PYGAME = """
import json, sys, warnings
sys.modules["pygame"] = None  # as if pygame were not installed
import gymnasium
from gymnasium.utils.env_checker import check_env
report = {"imported_before_make": "mcts_envs" in sys.modules, "games": {}}
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    for env_id in IDS:
        env = gymnasium.make("mcts_envs:" + env_id)
        check_env(env.unwrapped)
        report["games"][env_id] = dict(env.unwrapped.metadata)
report["checker_warnings"] = [
    str(w.message) for w in caught if "gymnasium" in w.filename.replace("\\\\", "/")
]
try:
    gymnasium.make("mcts_envs/TicTacToe-v0", render_mode="rgb_array")
except Exception as error:
    report["rgb_array_error"] = type(error).__name__ + ": " + str(error)
print(json.dumps(report))
"""


def test_check_env_passes_without_pygame_in_a_fresh_interpreter():
    ids = [gymnasium_id(game) for game in mcts_envs.list_games()]
    code = WITHOUT_PYGAME.replace("IDS", repr(ids))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["imported_before_make"] is False  # the "mcts_envs:" prefix imported it
    assert set(report["games"]) == set(ids)
    for metadata in report["games"].values():
        assert metadata["render_modes"] == ["ansi"]
        assert metadata["render_fps"] > 0
    assert report["checker_warnings"] == []
    assert report["rgb_array_error"].startswith("OptionalDependencyError")
    assert "mcts-envs[render]" in report["rgb_array_error"]


def test_check_env_with_render_checks_passes_with_pygame():
    pytest.importorskip("pygame")
    env = gymnasium.make(gymnasium_id("tictactoe"))
    assert env.unwrapped.metadata["render_modes"] == ["ansi", "rgb_array"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env.unwrapped)
    assert [str(w.message) for w in caught if "gymnasium" in w.filename] == []
    rgb = gymnasium.make(gymnasium_id("tictactoe"), render_mode="rgb_array")
    rgb.reset(seed=0)
    frame = rgb.render()
    assert frame.ndim == 3 and frame.shape[2] == 3
