"""The layering holds: no import cycle among the package's modules, the game side of
``mcts_envs`` never imports ``mcts_envs.agents``, players (``players``, ``mcts``) never import
evaluation or front ends, evaluation never imports front ends; the agent tests mirror the agents
package.

The graph is read from the source (every ``import`` statement, module level or inside functions,
but not those under ``if TYPE_CHECKING:``), not from a running interpreter, so a lazy import
inside a function counts too.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: Source folder -> the package it is installed as (setup.py maps ``agents/`` into mcts_envs).
PACKAGES = {"mcts_envs": "mcts_envs", "agents": "mcts_envs.agents"}
AGENTS = "mcts_envs.agents"


def _module_name(path: Path) -> str:
    folder, *parts = path.relative_to(ROOT).with_suffix("").parts
    if parts and parts[-1] == "__init__":
        parts.pop()
    return ".".join([PACKAGES[folder], *parts])


def _modules() -> dict[str, Path]:
    return {
        _module_name(path): path
        for package in PACKAGES
        for path in (ROOT / package).rglob("*.py")
        if "__pycache__" not in path.parts
    }


def _imports(name: str, path: Path, known: set[str]) -> set[str]:
    """The package modules that ``name`` imports (``from x import y`` counts ``x.y`` when that is
    a module, else ``x``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in _runtime_nodes(tree):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            targets = [f"{base}.{alias.name}" for alias in node.names] + [base]
        else:
            continue
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def _runtime_nodes(tree: ast.AST):
    """Every node of ``tree`` but those under ``if TYPE_CHECKING:`` (annotations only)."""
    stack = [tree]
    while stack:
        node = stack.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            test = getattr(child, "test", None)
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(test):
                stack.extend(child.orelse)
                continue
            stack.append(child)


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    known = set(modules)
    return {name: _imports(name, path, known) for name, path in modules.items()}


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """A cycle of the graph (ignoring edges into a package's own ``__init__``), or ``None``."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for target in sorted(graph[node]):
            if node.startswith(target + "."):  # a module importing its own package's __init__
                continue
            if state.get(target) == 1:
                return [*stack[stack.index(target) :], target]
            if state.get(target) is None:
                found = visit(target)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if state.get(node) is None:
            found = visit(node)
            if found:
                return found
    return None


def test_there_is_no_import_cycle():
    assert _cycle(_graph()) is None, " -> ".join(_cycle(_graph()) or [])


def test_the_cycle_finder_finds_a_cycle():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


@pytest.mark.parametrize(
    ("lower", "upper"),
    [
        ("mcts_envs", AGENTS),
        (f"{AGENTS}.evaluation", f"{AGENTS}.frontends"),
        (f"{AGENTS}.players", f"{AGENTS}.evaluation"),
        (f"{AGENTS}.players", f"{AGENTS}.frontends"),
        (f"{AGENTS}.players", f"{AGENTS}.learned"),
        (f"{AGENTS}.mcts", f"{AGENTS}.evaluation"),
        (f"{AGENTS}.mcts", f"{AGENTS}.frontends"),
    ],
)
def test_dependencies_point_down(lower, upper):
    graph = _graph()
    upward = sorted(
        f"{name} imports {target}"
        for name, targets in graph.items()
        if _inside(name, lower) and not (lower == "mcts_envs" and _inside(name, AGENTS))
        for target in targets
        if _inside(target, upper)
    )
    assert not upward, upward


def _inside(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def test_the_players_are_under_the_layering_rule():
    players = {name for name in _graph() if _inside(name, f"{AGENTS}.players")}
    assert {
        f"{AGENTS}.players.{name}" for name in ("alphabeta", "uai_agent", "llm_agent")
    } <= players


def test_the_agent_tests_mirror_the_agents_package():
    """``tests/agents/<folder>/`` exists only for a subpackage ``agents/<folder>/``, and a test at
    the top of ``tests/agents/`` is named for a module at the top of ``agents/``."""
    tests = ROOT / "tests" / "agents"
    folders = {p.name for p in tests.iterdir() if p.is_dir() and p.name != "__pycache__"}
    packages = {p.parent.name for p in (ROOT / "agents").glob("*/__init__.py")}
    assert folders <= packages, sorted(folders - packages)
    modules = {p.stem for p in (ROOT / "agents").glob("*.py")}
    strays = [
        p.name for p in tests.glob("test_*.py") if p.stem.removeprefix("test_") not in modules
    ]
    assert not strays, f"tests of a subpackage belong in its folder: {strays}"
