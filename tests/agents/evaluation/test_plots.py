"""Plots of a results file: the budget curve and the Elo chart, as PNG and SVG."""

from __future__ import annotations

import io

import pytest

pytest.importorskip("matplotlib")

from mcts_envs.agents.evaluation import plots
from mcts_envs.agents.frontends.cli import main
from mcts_envs.core.errors import InvalidOptionError


def _records():
    records = []
    for budget, wins in ((10, 3), (40, 6), (160, 9)):
        for k in range(10):
            result = "a" if k < wins else ("draw" if k == wins else "b")
            records.append(
                {"game": "tictactoe", "agents": [f"mcts:iterations={budget},c=1.0", "random"],
                 "result": result, "index": k, "pair": k // 2, "colour": k % 2}
            )  # fmt: skip
    return records


def test_budget_families_group_specs_that_differ_only_in_budget():
    families = plots.budget_families(
        ["mcts:iterations=10,c=1.0", "mcts:c=1.0,iterations=40", "mcts:iterations=40", "random"]
    )
    assert families == {
        ("mcts:c=1.0", "iterations"): {
            10.0: "mcts:iterations=10,c=1.0",
            40.0: "mcts:c=1.0,iterations=40",
        }
    }


def test_plot_writes_png_and_svg_of_both_charts(tmp_path):
    import matplotlib.image

    paths = plots.plot_results(_records(), tmp_path, bootstrap=20)
    names = sorted(path.name for path in paths)
    assert names == ["elo.png", "elo.svg", "winrate_vs_budget.png", "winrate_vs_budget.svg"]
    for path in paths:
        if path.suffix == ".png":
            height, width, _ = matplotlib.image.imread(path).shape
            assert height > 200 and width > 400
        else:
            assert path.read_text().lstrip().startswith("<?xml") and "<svg" in path.read_text()


def test_no_budget_family_is_a_clear_error(tmp_path):
    records = [{"game": "tictactoe", "agents": ["random", "minimax2"], "result": "b", "index": 0}]
    with pytest.raises(InvalidOptionError, match="differ only"):
        plots.plot_winrate_vs_budget(records, tmp_path)
    assert [p.name for p in plots.plot_results(records, tmp_path, bootstrap=5)] == [
        "elo.png",
        "elo.svg",
    ]


def test_cli_plot(tmp_path):
    import json

    empty = ".../.../... x"  # records that replay: the plot checks them as replay does
    base = {"version": 2, "game": "tictactoe", "initial": empty, "actions": [], "chance": []}
    base |= {"players": ["x", "y"], "returns": None, "final": empty}
    path = tmp_path / "results.jsonl"
    path.write_text("".join(json.dumps({**base, **r}) + "\n" for r in _records()))
    out = io.StringIO()
    assert (
        main(
            ["plot", str(path), "--out-dir", str(tmp_path / "charts"), "--bootstrap", "10"], out=out
        )
        == 0
    )
    assert (tmp_path / "charts" / "winrate_vs_budget.svg").exists()
    assert out.getvalue().count("wrote ") == 4
