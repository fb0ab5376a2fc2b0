"""``--agent-module`` modules are found as ``python -m`` finds them: on ``sys.path``, else in the
current working directory (console scripts such as ``mcts-envs`` do not put it on the path)."""

from __future__ import annotations

import sys

import pytest

from mcts_envs.agents.spec import agent_class, import_agent_module
from mcts_envs.core.errors import InvalidOptionError

MODULE = """
from mcts_envs.agents.players.random_agent import RandomAgent
from mcts_envs.agents.spec import register_agent

class HereAgent(RandomAgent):
    name = "here_agent"

register_agent("here_agent", HereAgent)
"""


def test_a_module_in_the_working_directory_is_imported(tmp_path, monkeypatch):
    package = tmp_path / "local_agents_pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "mine.py").write_text(MODULE)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", str(tmp_path))])
    import_agent_module("local_agents_pkg.mine")
    assert agent_class("here_agent").__name__ == "HereAgent"
    assert sys.path[0] == str(tmp_path)  # worker processes inherit it


def test_a_module_nowhere_is_refused_with_the_reason(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(InvalidOptionError, match="cannot import agent module 'nowhere_agents'"):
        import_agent_module("nowhere_agents")
    (tmp_path / "broken_agents.py").write_text("import not_a_module_anywhere\n")
    with pytest.raises(InvalidOptionError, match="not_a_module_anywhere"):
        import_agent_module("broken_agents")
