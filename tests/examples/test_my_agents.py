"""An agent of your own, as the guide "Write your own agent" shows it: ``examples/my_agents.py``
from the current folder with ``--agent-module`` (also in worker processes), from an installed
package through its entry point, and ``examples/my_engine.py`` as a UAI engine.

The commands run the installed ``mcts-envs`` console script, not ``python -m``, which would put
the current folder on ``sys.path`` by itself.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import mcts_envs
from mcts_envs.core.errors import InvalidOptionError
from tests.examples.loading import EXAMPLES, load_example

CLI = str(Path(sys.executable).with_name("mcts-envs"))


def mcts_envs_command(*args: str, cwd: Path, **env: str) -> subprocess.CompletedProcess:
    environment = {**os.environ, **env}
    environment["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{environment['PATH']}"
    return subprocess.run(
        [CLI, *args], cwd=cwd, capture_output=True, text=True, timeout=300, env=environment
    )


def records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.fixture(scope="module")
def greedy():
    return load_example("my_agents")


def test_the_guide_shows_the_example_file_as_it_is():
    guide = (EXAMPLES.parent / "docs" / "guides" / "your-agent.md").read_text(encoding="utf-8")
    shown = guide.split("Save this as `my_agents.py`", 1)[1].split("```python\n", 1)[1]
    assert shown.split("```", 1)[0] == (EXAMPLES / "my_agents.py").read_text(encoding="utf-8")


def test_greedy_takes_a_win_at_once(greedy):
    for record, win in (("xx./oo./... x", "c3"), ("x.x/oo./x.. o", "c2")):
        game = mcts_envs.make_game("tictactoe")
        state = game.from_text(record)
        for seed in range(5):
            agent = greedy.GreedyAgent(seed=seed)
            assert game.action_to_string(state, agent.act_state(game, state)) == win


def test_greedy_checks_its_option(greedy):
    with pytest.raises(
        InvalidOptionError, match=r"greedy: epsilon must be a finite number in \[0, 1\]"
    ):
        greedy.GreedyAgent(epsilon=1.5)
    agent = greedy.GreedyAgent(epsilon=1.0, seed=1)  # every move random, still legal
    game = mcts_envs.make_game("ataxx")
    state = game.initial_state()
    assert agent.act_state(game, state) in set(game.legal_actions(state).tolist())


def test_an_agent_module_in_the_current_folder_plays_a_match(tmp_path):
    shutil.copy(EXAMPLES / "my_agents.py", tmp_path)
    for workers in ("1", "2"):  # in the driver, and in worker processes started there
        out = tmp_path / f"games-{workers}.jsonl"
        finished = mcts_envs_command(
            "match", "tictactoe", "greedy:epsilon=0.1", "random", "--agent-module", "my_agents",
            "--games", "6", "--seed", "1", "--workers", workers, "--no-progress",
            "--out", str(out), cwd=tmp_path,
        )  # fmt: skip
        assert finished.returncode == 0, finished.stderr
        assert "greedy:epsilon=0.1" in finished.stdout
        games = records(out)
        assert len(games) == 6 and all("greedy:epsilon=0.1" in g["players"] for g in games)
    one, two = (records(tmp_path / f"games-{w}.jsonl") for w in ("1", "2"))
    key = lambda record: record["actions"]  # noqa: E731
    assert sorted(map(key, one)) == sorted(map(key, two))  # the same games either way


def test_a_missing_agent_module_is_one_line_naming_the_current_folder(tmp_path):
    finished = mcts_envs_command(
        "match", "tictactoe", "greedy", "random", "--agent-module", "my_agents", cwd=tmp_path
    )
    assert finished.returncode == 2
    assert finished.stderr.count("\n") == 1
    assert "cannot import agent module 'my_agents'" in finished.stderr
    assert "current folder" in finished.stderr


def test_an_installed_package_adds_its_agent_through_an_entry_point(tmp_path):
    """The layout pip leaves in site-packages: the package and its ``.dist-info`` with
    ``entry_points.txt`` (what ``[project.entry-points."mcts_envs.agents"]`` in its
    ``pyproject.toml`` writes), found by ``importlib.metadata`` on ``PYTHONPATH``."""
    site = tmp_path / "site"
    package = site / "my_package"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    source = (EXAMPLES / "my_agents.py").read_text()
    (package / "agents.py").write_text(source.replace('register_agent("greedy", GreedyAgent)', ""))
    info = site / "my_package-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: my-package\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(
        '[mcts_envs.agents]\ngreedy = "my_package.agents:GreedyAgent"\n'.replace('"', "")
    )
    work = tmp_path / "elsewhere"
    work.mkdir()
    listed = mcts_envs_command("list", "agents", cwd=work, PYTHONPATH=str(site))
    assert listed.returncode == 0, listed.stderr
    assert "greedy:" in listed.stdout and "epsilon" in listed.stdout
    finished = mcts_envs_command(
        "match", "tictactoe", "greedy", "random", "--games", "4", "--no-progress",
        cwd=work, PYTHONPATH=str(site),
    )  # fmt: skip
    assert finished.returncode == 0, finished.stderr
    assert "A  greedy" in finished.stdout


def test_the_example_engine_speaks_uai_and_plays_legal_moves(tmp_path):
    shutil.copy(EXAMPLES / "my_engine.py", tmp_path)
    session = subprocess.run(
        [sys.executable, "my_engine.py"],
        input="uai\nisready\nposition startpos moves b6\ngo movetime 100\nquit\n",
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    lines = session.stdout.splitlines()
    assert lines[0] == "id name my_engine" and "uaiok" in lines and "readyok" in lines
    game = mcts_envs.make_game("ataxx")
    state = game.apply(game.initial_state(), game.string_to_action(game.initial_state(), "b6"))
    move = lines[-1].removeprefix("bestmove ")
    assert game.string_to_action(state, move) in set(game.legal_actions(state).tolist())
    out = tmp_path / "engine.jsonl"
    finished = mcts_envs_command(
        "match", "ataxx", "uai:cmd=python my_engine.py", "random", "--games", "2",
        "--no-progress", "--out", str(out), cwd=tmp_path,
    )  # fmt: skip
    assert finished.returncode == 0, finished.stderr
    games = records(out)
    assert [g["termination"] for g in games] == ["end", "end"]  # no forfeit: every move legal
    assert np.isfinite([r for g in games for r in g["returns"]]).all()
