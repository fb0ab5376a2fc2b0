"""Every source experiment's ``--quick`` run writes its records, table, summary and figure."""

from __future__ import annotations

import json

import pytest

from mcts_envs.records import read_records


def outputs(directory, figure: str) -> tuple[list[dict], dict]:
    records = [r for path in sorted(directory.glob("results_*.jsonl")) for r in read_records(path)]
    summary = json.loads((directory / "summary.json").read_text())
    assert (directory / "table.md").read_text().count("\n|") >= 3
    assert (directory / f"{figure}.png").stat().st_size > 5000
    assert summary["machine"]["cores"] >= 1 and "load_average_start" in summary["machine"]
    for point in summary["points"]:
        assert point["games"] == summary["games_per_point"]
        assert point["win_low"] <= point["win_rate"] <= point["win_high"]
    return records, summary


def test_tictactoe_quick(tmp_path):
    from experiments.tictactoe_article import main

    main(["--quick", "--out", str(tmp_path)])
    records, summary = outputs(tmp_path, "losses")
    assert len(records) == 20
    assert all(r["termination"] == "end" for r in records)
    # the exact player never loses: every point is a loss or a draw for MCTS
    assert all(p["wins"] == 0 for p in summary["points"])


def test_ataxx_quick(tmp_path):
    from experiments.ataxx_paper import main

    main(["--quick", "--out", str(tmp_path)])
    records, summary = outputs(tmp_path, "figure6")
    opponents = {p["opponent"] for p in summary["points"]}
    assert opponents == {"random", "minimax2", "authors_minimax_as_published"}
    # the correct depth-2 minimax beats the published one (which plays to lose)
    ours = [p for p in summary["points"] if p["spec"] == "minimax2"]
    assert ours and ours[0]["wins"] == ours[0]["games"]


def test_pentago_quick(tmp_path):
    from experiments.pentago_twist_report import main

    main(["--quick", "--out", str(tmp_path)])
    records, summary = outputs(tmp_path, "winrate")
    assert len(records) == 4 and all(r["result"] in ("a", "b", "draw") for r in records)


def test_uttt_openspiel_quick(tmp_path):
    pytest.importorskip("pyspiel")
    from experiments.uttt_openspiel import main

    main(["--quick", "--out", str(tmp_path)])
    records, summary = outputs(tmp_path, "winrate")
    assert len(records) == 2 and all(r["termination"] == "end" for r in records)
    # both sides on a time budget; the table states both sides' measured time per move
    assert all("seconds=0.05" in spec for r in records for spec in r["agents"])
    assert all(p["opponent_seconds_per_move"] > 0 for p in summary["points"])
    probe = json.loads((tmp_path / "probe.json").read_text())[0]
    assert probe["simulations_ratio"] > 0
    assert {k for k in probe if k.startswith(("mcts", "openspiel"))} == set(records[0]["agents"])


def test_tictactoe_replies_quick():
    from experiments.tictactoe_replies import FIRST_MOVES, losing_replies

    counts = losing_replies("rollout_cutoff=0,c=0.5", 100, 3)
    assert set(counts) == set(FIRST_MOVES)
    for bad, chosen in counts.values():
        assert sum(chosen.values()) == 3 and 0 <= bad <= 3
    # after X's corner, only the centre draws: the exact solver is the oracle of "losing"
    bad, chosen = counts["corner"]
    assert bad == sum(n for action, n in chosen.items() if action != 4)


def test_defaults_sweep_quick(tmp_path):
    from experiments.defaults_sweep import main

    main(["--quick", "--out", str(tmp_path)])
    summary = json.loads((tmp_path / "summary.json").read_text())
    run = summary["games"]["tictactoe"]
    assert run["table_row"] == "c=0.5,expand=all,rollout_cutoff=0"  # the row the defaults apply
    assert run["recommended"].startswith("mcts:iterations=50")
    assert run["default_games"] == 2 and "beats_default" in run
    records = read_records(tmp_path / "tictactoe" / "results_perfect.jsonl")
    assert len(records) == 4 and all(
        r["result"] != "draw" or r["returns"] == [0.0, 0.0] for r in records
    )


@pytest.mark.slow  # a training child process, compiles PUCT twice: about a minute
def test_alphazero_uttt_curve_quick(tmp_path):
    pytest.importorskip("torch")
    pytest.importorskip("matplotlib")
    from experiments.alphazero_uttt_curve import main

    curve = main(["--quick", "--out", str(tmp_path)])
    anchors = [r for path in (tmp_path / "games").glob("anchors.jsonl") for r in read_records(path)]
    assert len(anchors) == 2  # the anchors' round robin: one pairing, one game pair
    rows = curve["checkpoints"]
    assert [row["label"][:5] for row in rows] == ["net00", "net01"]  # start and end of training
    for row in rows:
        games = sum(sum(v[k] for k in ("wins", "draws", "losses")) for v in row["against"].values())
        assert games == 4  # two anchors, one game pair each
    assert curve["anchors"]["mcts:iterations=4,c=1.4"]["elo"] == 0.0
    assert (tmp_path / "curve.png").stat().st_size > 5000
    assert "Bradley-Terry" in (tmp_path / "ratings.txt").read_text()


def test_alphazero_uttt_curve_passes_the_training_options(tmp_path):
    """The curve's trainer gets the network, playout caps, value mix and Adam steps asked for,
    self-play at its own simulations while the rating keeps ``--simulations``."""
    pytest.importorskip("torch")
    from experiments.alphazero_uttt_curve import build_parser, training_command

    args = build_parser().parse_args(
        ["--net", "conv", "--selfplay-simulations", "160", "--full-fraction", "0.25",
         "--cheap-simulations", "32", "--value-mix", "0.5", "--train-steps", "20"]
    )  # fmt: skip
    command = training_command(args, tmp_path)
    options = dict(zip(command[2::2], command[3::2], strict=False))
    assert options["--simulations"] == "160" and args.simulations == 100
    assert options["--net"] == "conv" and options["--full-fraction"] == "0.25"
    assert options["--cheap-simulations"] == "32" and options["--value-mix"] == "0.5"
    assert options["--train-steps"] == "20"
    assert options["--checkpoint-dir"] == str(tmp_path / "checkpoints")
    plain = training_command(build_parser().parse_args([]), tmp_path)
    assert "--net" not in plain and "--full-fraction" not in plain and "--value-mix" not in plain
    assert plain[plain.index("--simulations") + 1] == "100"


def test_equal_time_alphabeta_quick(tmp_path):
    """Each budget is a figure of its own (own seed, own folder, colours swapped, both sides on the
    same clock); a later run with another budget joins the same table, summary and curve."""
    from experiments.equal_time_alphabeta import figure_folder, main

    main(["--quick", "--seconds", "0.01", "--out", str(tmp_path)])
    figures = main(["--quick", "--seconds", "0.02", "--out", str(tmp_path)])
    assert [(f["game"], f["seconds"]) for f in figures] == [
        ("tictactoe", 0.01),
        ("tictactoe", 0.02),
    ]
    assert len({f["seed"] for f in figures}) == 2
    for f in figures:
        folder = figure_folder(tmp_path, "tictactoe", f["seconds"])
        records = [r for path in folder.glob("results_*.jsonl") for r in read_records(path)]
        summary = json.loads((folder / "summary.json").read_text())
        assert sorted(r["seat_a"] for r in records) == [0, 1]
        budget = f"seconds={f['seconds']:g}"
        assert all(budget in spec for r in records for spec in r["agents"])
        assert summary["master_seed"] == f["seed"]
        assert f["games"] == 2 and f["wins"] + f["draws"] + f["losses"] == 2
        assert f["score_low"] <= f["score"] <= f["score_high"]
        assert f["mcts_seconds_per_move"] > 0 and f["load_average_start"]
    stored = json.loads((tmp_path / "summary.json").read_text())
    assert stored["figures"] == figures
    assert (tmp_path / "table.md").read_text().count("| tictactoe |") == 2
    assert (tmp_path / "score.png").stat().st_size > 5000
