"""Importing the package, and the command line's help, import no heavy module (issue 23).

Each check runs in a fresh interpreter, so modules imported by other tests do not count.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

#: Modules that only the commands needing them may import (numba kernels among them).
HEAVY = ("numba", "torch", "matplotlib", "starlette", "ray", "scipy", "mcts_envs.core.game")

HELP = (
    "import contextlib, io\n"
    "from mcts_envs.agents.frontends.cli import main\n"
    "with contextlib.suppress(SystemExit), contextlib.redirect_stdout(io.StringIO()):\n"
    "    main(['--help'])\n"
)


def _imported_heavy(code: str) -> list[str]:
    check = f"{code}\nimport sys\nprint([m for m in {HEAVY!r} if m in sys.modules])"
    done = subprocess.run(
        [sys.executable, "-c", check], capture_output=True, text=True, cwd=ROOT, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return eval(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize(
    "code",
    [
        "import mcts_envs",
        "import mcts_envs.agents",
        "import mcts_envs.core, mcts_envs.records",
        HELP,
        "from mcts_envs.agents.mcts.defaults import GENERIC; GENERIC.per_game_options()",
    ],
    ids=["mcts_envs", "agents", "core+records", "cli-help", "mcts-config"],
)
def test_import_pulls_in_no_heavy_module(code):
    assert _imported_heavy(code) == []


def test_lazy_names_still_work_after_a_light_import():
    code = (
        "import mcts_envs, pettingzoo, gymnasium\n"
        "assert 'tictactoe' in mcts_envs.list_games()\n"
        "assert 'mcts_envs/TicTacToe-v0' in gymnasium.registry\n"
        "assert mcts_envs.tictactoe_v0.env().metadata['name'] == 'tictactoe_v0'\n"
        "from mcts_envs import Game, GameInfo, CHANCE\n"
        "from mcts_envs.core import KernelGame\n"
        "assert isinstance(mcts_envs.make_game('ataxx_v0'), Game) and CHANCE == -1\n"
        "pettingzoo.make('aec', 'mcts_envs/pentago_twist-v0').reset(seed=0)\n"
    )
    assert set(_imported_heavy(code)) >= {"numba", "mcts_envs.core.game"}  # now they are used
