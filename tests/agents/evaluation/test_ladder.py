"""Rating ladders: the shipped files agree with their records; newcomers are rated on them."""

from __future__ import annotations

import json
import math
from dataclasses import replace

import pytest

from mcts_envs.agents.evaluation.games import GameRules
from mcts_envs.agents.evaluation.ladder import (
    DEFAULT_ANCHORS,
    LADDER_DIR,
    build_ladder,
    estimate_elo,
    fit_ladder,
    load_ladder,
    rate_on_ladder,
    read_ladder_records,
)
from mcts_envs.agents.evaluation.plan import plan_tournament
from mcts_envs.agents.frontends.cli import main
from mcts_envs.agents.players.alphabeta_options import plain_spec
from mcts_envs.core.errors import InvalidOptionError, InvalidRecordError
from mcts_envs.records import game_identity
from tests.agents.chat_endpoint import chat_server

SHIPPED = sorted(path.stem for path in LADDER_DIR.glob("*.json"))

#: The shipped ladders' depth-1 alpha-beta anchor: the plain search, every option spelled out.
PLAIN_DEPTH_1 = plain_spec(1)


def test_tictactoe_and_two_more_games_have_ladders():
    assert "tictactoe" in SHIPPED and len(SHIPPED) >= 3


@pytest.mark.parametrize("game", SHIPPED)
def test_a_shipped_ladder_is_the_fit_of_its_stored_round_robin(game):
    ladder = load_ladder(game)
    info = ladder.info
    records = read_ladder_records(ladder)
    specs = [anchor.spec for anchor in ladder.anchors]
    assert set(specs) == set(DEFAULT_ANCHORS[game]) and "random" in specs
    assert ladder.anchor("random").elo == 0.0
    # the records are exactly the games of the round robin the file names
    plan = plan_tournament(
        GameRules(game), DEFAULT_ANCHORS[game], info["games_per_pair"], info["seed"]
    )
    assert sorted(task.key for task in plan.tasks) == sorted(
        (r["agents"][0], r["agents"][1], r["index"]) for r in records
    )
    assert len(records) == info["games"]
    assert info["command"].startswith(f"mcts-envs ladder build {game} ")
    assert f"--games-per-pair {info['games_per_pair']}" in info["command"]
    assert info["package_version"] and info["build_seconds"] > 0
    refit = fit_ladder(game, records, info["bootstrap"], info["bootstrap_seed"], specs, info["fit"])
    # the fit gives back every number; what each anchor resolved to is the build's record
    assert refit.anchors == tuple(replace(anchor, resolved=None) for anchor in ladder.anchors)
    assert all(a.low <= a.elo <= a.high for a in ladder.anchors)


def test_the_docs_show_every_shipped_ladder_as_its_file_has_it():
    text = (LADDER_DIR.parents[2] / "docs" / "guides" / "ladder.md").read_text()
    for game in SHIPPED:
        assert load_ladder(game).docs_section() in text


def test_estimates_stay_finite_and_are_symmetric():
    elo, low, high = estimate_elo([(0.0, 10.0, 10)])  # all wins
    assert math.isfinite(elo) and 0 < low < elo < high
    minus = estimate_elo([(0.0, 0.0, 10)])
    assert minus[0] == pytest.approx(-elo)
    even = estimate_elo([(100.0, 5.0, 10), (300.0, 5.0, 10)])
    assert even[0] == pytest.approx(200.0, abs=1.0)
    assert all(math.isnan(v) for v in estimate_elo([]))


def test_an_anchor_rated_as_a_newcomer_lands_within_its_own_interval():
    ladder = load_ladder("tictactoe")
    anchor = ladder.anchor(PLAIN_DEPTH_1)
    result = rate_on_ladder("tictactoe", anchor.spec, games=16, seed=5)
    assert result.low <= anchor.elo <= result.high
    assert sum(t.games for t in result.tallies) == 16 and result.forfeits == 0
    # it played the anchors nearest its estimate, not the whole ladder
    assert len([t for t in result.tallies if t.games]) < len(ladder.anchors)


def test_the_cli_rates_resumes_and_refuses_another_runs_file(tmp_path, capsys):
    out = tmp_path / "games.jsonl"
    assert main(["ladder", "tictactoe", "random", "--games", "4", "--out", str(out)]) == 0
    first = out.read_text().splitlines()
    assert len(first) == 4
    assert (
        main(["ladder", "tictactoe", "random", "--games", "10", "--out", str(out), "--resume"]) == 0
    )
    lines = out.read_text().splitlines()
    assert lines[:4] == first and len(lines) == 10  # an Elo is printed from 10 games on
    text = capsys.readouterr().out
    assert "random on the tictactoe ladder" in text and "95% interval" in text
    assert "forfeits" in text
    status = main(
        [
            "ladder",
            "tictactoe",
            "random",
            "--games",
            "6",
            "--seed",
            "9",
            "--out",
            str(out),
            "--resume",
        ]
    )
    assert status != 0 and out.read_text().splitlines() == lines
    assert "not a ladder game" in capsys.readouterr().err
    assert main(["ladder", "tictactoe", "random", "--games", "4", "--out", str(out)]) != 0
    assert main(["ladder", "tictactoe", "random", "--games", "3"]) != 0
    assert main(["ladder", "tictactoe"]) != 0


def test_an_llm_that_answers_garbage_is_rated_with_its_forfeits_counted(capsys):
    with chat_server() as server:
        spec = f"llm:model=garbage,base_url={server.base_url},retries=0"
        result = rate_on_ladder("tictactoe", spec, games=8, seed=0)
    assert result.forfeits == 8 and all(r["termination"] == "forfeit" for r in result.records)
    # after its losses the ladder moves it down to random, and rates it below the anchors
    assert result.high < load_ladder("tictactoe").anchor(PLAIN_DEPTH_1).elo
    assert "8 forfeits" in result.summary()


def test_a_small_build_writes_a_ladder_and_keeps_existing_files(tmp_path):
    anchors = ["random", "minimax2"]
    ladder = build_ladder("tictactoe", tmp_path, anchors=anchors, games_per_pair=4, bootstrap=20)
    loaded = load_ladder(tmp_path / "tictactoe.json")
    assert loaded.anchors == ladder.anchors and len(read_ladder_records(loaded)) == 4
    assert "--anchors 'random;minimax2'" in loaded.info["command"]
    start, end = loaded.info["load_average"], loaded.info["load_average_end"]
    assert f"load average {start} at the start, {end} at the end" in loaded.docs_section()
    before = (tmp_path / "tictactoe.json").read_text()
    with pytest.raises(InvalidOptionError, match="exists"):
        build_ladder("tictactoe", tmp_path, anchors=anchors, games_per_pair=4)
    assert (tmp_path / "tictactoe.json").read_text() == before
    with pytest.raises(InvalidOptionError, match="must include random"):
        build_ladder("tictactoe", tmp_path / "x", anchors=["minimax2", "perfect"])
    (tmp_path / "bad.json").write_text(json.dumps({"format": 99}))
    with pytest.raises(InvalidRecordError, match="not a ladder file"):
        load_ladder(tmp_path / "bad.json")


def test_a_build_in_two_worker_processes_writes_the_ladder_of_one(tmp_path):
    anchors = ["random", "minimax2"]
    one = build_ladder("tictactoe", tmp_path, anchors=anchors, games_per_pair=4, bootstrap=20)
    (tmp_path / "two").mkdir()
    two = build_ladder(
        "tictactoe", tmp_path / "two", anchors=anchors, games_per_pair=4, bootstrap=20, workers=2
    )
    assert two.anchors == one.anchors and "--workers 2" in two.info["command"]
    identities = [list(map(game_identity, read_ladder_records(x))) for x in (one, two)]
    assert identities[0] == identities[1]


@pytest.mark.slow
def test_rebuilding_the_tictactoe_ladder_gives_the_shipped_one_and_rerates_two_anchors(tmp_path):
    shipped = load_ladder("tictactoe")
    rebuilt = build_ladder(
        "tictactoe",
        tmp_path,
        games_per_pair=shipped.info["games_per_pair"],
        seed=shipped.info["seed"],
        bootstrap=shipped.info["bootstrap"],
    )
    assert rebuilt.anchors == shipped.anchors
    for spec in ("mcts:iterations=100", "minimax2"):
        result = rate_on_ladder("tictactoe", spec, games=40, seed=11, ladder=rebuilt)
        assert result.low <= rebuilt.anchor(spec).elo <= result.high


def _first_legal_module(tmp_path, monkeypatch) -> str:
    """A module registering the agent kind ``firstlegal``, importable from ``tmp_path``."""
    (tmp_path / "my_ladder_agents.py").write_text(
        "import numpy as np\n"
        "from mcts_envs.agents.base import ForwardModelAgent\n"
        "from mcts_envs.agents.spec import register_agent\n\n"
        "class FirstLegal(ForwardModelAgent):\n"
        "    name = 'firstlegal'\n"
        "    def act_state(self, game, state):\n"
        "        return int(np.min(game.legal_actions(state)))\n\n"
        "register_agent('firstlegal', FirstLegal)\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    return "my_ladder_agents"


def test_an_agent_module_kind_is_rated(tmp_path, monkeypatch, capsys):
    _first_legal_module(tmp_path, monkeypatch)
    status = main(
        ["ladder", "tictactoe", "firstlegal", "--games", "2", "--agent-module", "my_ladder_agents"]
    )
    assert status == 0 and "firstlegal on the tictactoe ladder" in capsys.readouterr().out


def test_a_build_in_worker_processes_knows_the_agent_module_kinds(tmp_path, monkeypatch, capsys):
    module = _first_legal_module(tmp_path, monkeypatch)
    argv = ["ladder", "build", "tictactoe", "--anchors", "random;firstlegal"]
    argv += ["--games-per-pair", "2", "--bootstrap", "10", "--workers", "2"]
    argv += ["--out-dir", str(tmp_path), "--agent-module", module]
    assert main(argv) == 0, capsys.readouterr().err
    ladder = load_ladder(tmp_path / "tictactoe.json")
    assert {anchor.spec for anchor in ladder.anchors} == {"random", "firstlegal"}
    assert f"--agent-module {module}" in ladder.info["command"]


def test_rating_announces_compiling_as_a_match_does_only_when_it_compiles():
    rate_on_ladder("tictactoe", "random", games=2, seed=1)  # compiled (or loaded) now
    lines: list[str] = []
    rate_on_ladder("tictactoe", "random", games=2, seed=1, announce=lines.append)
    assert len(lines) == 1 and lines[0].startswith("pair 1/1: against ")


@pytest.mark.parametrize(
    "edit",
    [
        lambda record: record.pop("pair"),
        lambda record: record.update(result={"a": "b", "b": "a", "draw": "a"}[record["result"]]),
        lambda record: record.update(players=record["players"][::-1]),
    ],
    ids=["no pair", "result against returns", "seats swapped"],
)
def test_a_resumed_rating_checks_each_game_as_a_tournament_does(tmp_path, edit):
    out = tmp_path / "games.jsonl"
    rate_on_ladder("tictactoe", "random", games=2, seed=4, out=out)
    records = [json.loads(line) for line in out.read_text().splitlines()]
    edit(records[0])
    text = "".join(json.dumps(record) + "\n" for record in records)
    out.write_text(text)
    with pytest.raises(InvalidRecordError, match=r"line 1 .* not a ladder game of 'random'"):
        rate_on_ladder("tictactoe", "random", games=4, seed=4, out=out, resume=True)
    assert out.read_text() == text


def test_progress_goes_to_stderr_through_the_one_announcer(capsys):
    from mcts_envs.agents.evaluation import expert
    from mcts_envs.core import compiling

    assert expert.print_to_stderr is compiling.print_to_stderr
    compiling.print_to_stderr("compiling x")
    assert capsys.readouterr() == ("", "compiling x\n")
