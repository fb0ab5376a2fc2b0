"""Records say what played: every match record names each agent as resolved for its game (every
option after per-game defaults, an engine's identity) and what produced it; resume, ratings, the
experiments and the ladders key on it, so a default that changes later never relabels old games,
while records written before still read."""

from __future__ import annotations

import copy
import dataclasses
import inspect
import json
import platform
import shlex
import subprocess
import sys
from pathlib import Path

import numba
import numpy
import pytest

import mcts_envs
from experiments.common import Series, summarise
from mcts_envs.agents.evaluation import ladder as ladders
from mcts_envs.agents.evaluation.arena import play_match
from mcts_envs.agents.evaluation.games import GameRules
from mcts_envs.agents.evaluation.plan import plan_match, resolve_specs
from mcts_envs.agents.evaluation.ratings import rate, tally
from mcts_envs.agents.evaluation.run import RunSettings
from mcts_envs.agents.mcts import defaults as mcts_defaults
from mcts_envs.agents.players.alphabeta import AlphaBetaAgent
from mcts_envs.agents.resolved import resolved_label
from mcts_envs.core.errors import InvalidOptionError, InvalidRecordError
from mcts_envs.records import check_record, read_records, resolved_agents

ROOT = Path(__file__).resolve().parents[2]
FAKE = ROOT / "tests" / "agents" / "fake_uai_engine.py"


def records_of(spec_a: str, spec_b: str, games: int = 2, game: str = "tictactoe", out=None):
    settings = RunSettings(out=out, resume=out is not None and Path(out).exists())
    return play_match(plan_match(game, spec_a, spec_b, games, seed=5), settings).records


def test_a_record_names_every_option_as_resolved_for_its_game():
    (record, _) = records_of("alphabeta:depth=1", "mcts:iterations=10", game="pentago_twist")
    check_record(record)
    alphabeta, mcts = resolved_agents(record)
    # every constructor option of alpha-beta, its defaults where the spec is silent
    signature = inspect.signature(AlphaBetaAgent.__init__).parameters
    expected = {n: p.default for n, p in signature.items() if n not in ("self", "seed")}
    expected["depth"] = 1
    assert alphabeta["kind"] == "alphabeta" and alphabeta["options"] == expected
    # MCTS: the options the spec leaves to the game take Pentago Twist's row
    row = mcts_defaults.GAME_DEFAULTS["pentago_twist"]
    assert mcts["kind"] == "mcts"
    for name, value in row.per_game_options().items():
        assert mcts["options"][name] == value, name
    assert mcts["options"]["iterations"] == 10
    assert mcts["options"]["c"] != mcts_defaults.GENERIC.c  # the row, not the generic value


def test_a_record_names_what_produced_it():
    (record, _) = records_of("random", "random")
    produced = record["provenance"]
    assert produced["package"] == mcts_envs.__version__
    assert produced["numba"] == numba.__version__ and produced["numpy"] == numpy.__version__
    assert produced["python"] == platform.python_version()
    head = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True
    )
    if head.returncode == 0:
        assert produced["commit"] == head.stdout.strip()
        assert isinstance(produced["modified"], bool)


def test_an_engine_is_named_by_its_id():
    pytest.importorskip("ataxx")
    engine = shlex.join([sys.executable, str(FAKE), "legal"])
    (record, _) = records_of(f"uai:cmd={engine},movetime=20", "random", game="ataxx")
    uai = resolved_agents(record)[0]
    assert uai["identity"]["name"] == "fake-legal"
    assert uai["options"]["cmd"] == engine and uai["options"]["movetime"] == 20


def test_resume_refuses_games_a_changed_default_would_relabel(tmp_path, monkeypatch):
    out = tmp_path / "games.jsonl"
    records_of("mcts:iterations=10", "random", out=out)
    # the game's row changes (as a tuned default would): the spec means another agent now
    row = mcts_defaults.GAME_DEFAULTS["tictactoe"]
    monkeypatch.setitem(
        mcts_defaults.GAME_DEFAULTS, "tictactoe", dataclasses.replace(row, c=row.c + 1)
    )
    before = out.read_text()
    with pytest.raises(InvalidRecordError, match=r"was played as c=.* \(against c="):
        records_of("mcts:iterations=10", "random", games=4, out=out)
    assert out.read_text() == before  # nothing lost, nothing appended


def test_records_written_before_resolved_agents_still_read_and_resume(tmp_path):
    out = tmp_path / "games.jsonl"
    records = records_of("mcts:iterations=10", "random", out=out)
    old = [{k: v for k, v in r.items() if k not in ("resolved", "provenance")} for r in records]
    out.write_text("".join(json.dumps(r) + "\n" for r in old))
    assert all(resolved_agents(r) is None for r in read_records(out))
    resumed = records_of("mcts:iterations=10", "random", games=4, out=out)
    assert len(resumed) == 4 and resolved_agents(resumed[-1]) is not None


def test_ratings_never_count_two_resolved_agents_as_one():
    records = records_of("alphabeta:depth=1", "random", games=4)
    changed = copy.deepcopy(records)
    for record in changed:
        record["resolved"][0]["options"]["lmr"] = False
        record["index"] += 4
        record["pair"] += 2
    old = copy.deepcopy(records)
    for record in old:
        del record["resolved"]
        record["index"] += 8
        record["pair"] += 4
    names = {name for pairing in tally(records + changed + old) for name in pairing}
    assert names == {
        "alphabeta:depth=1 [lmr=true]",
        "alphabeta:depth=1 [lmr=false]",
        "alphabeta:depth=1 [as recorded]",
        "random",
        "random [as recorded]",
    }
    assert set(rate(records + changed, bootstrap=0).agents) == {
        "alphabeta:depth=1 [lmr=true]",
        "alphabeta:depth=1 [lmr=false]",
        "random",
    }
    assert {name for pairing in tally(records) for name in pairing} == {
        "alphabeta:depth=1",
        "random",
    }


def test_an_experiment_table_never_pools_two_resolved_agents():
    records = records_of("alphabeta:depth=1", "random", games=4)
    series = [Series("alpha-beta", {1: "alphabeta:depth=1"}, ("random",))]
    (point,) = summarise(records, series)
    assert point.games == 4
    changed = copy.deepcopy(records)
    for record in changed:
        record["resolved"][0]["options"]["depth"] = 2
        record["index"] += 4
    with pytest.raises(InvalidRecordError, match=r"alphabeta:depth=1 \[depth=2\]"):
        summarise(records + changed, series)


def test_the_shipped_ladders_anchors_mean_today_what_they_meant_when_built():
    # a default that changes without the ladders being rebuilt fails here
    for path in sorted(ladders.LADDER_DIR.glob("*.json")):
        ladder = ladders.load_ladder(path)
        specs = [anchor.spec for anchor in ladder.anchors]
        today = resolve_specs(GameRules(ladder.game), mcts_envs.make_game(ladder.game), specs)
        for anchor in ladder.anchors:
            assert anchor.resolved is not None, (ladder.game, anchor.spec)
            assert resolved_label(anchor.resolved) == resolved_label(today[anchor.spec]), (
                ladder.game,
                anchor.spec,
            )
        ladders.check_anchors(ladder, today)


def test_a_ladder_whose_anchor_changed_meaning_is_refused(monkeypatch, tmp_path):
    row = mcts_defaults.GAME_DEFAULTS["tictactoe"]
    monkeypatch.setitem(
        mcts_defaults.GAME_DEFAULTS, "tictactoe", dataclasses.replace(row, c=row.c + 1)
    )
    with pytest.raises(InvalidOptionError, match=r"mean other agents today.*rebuild it: mcts-envs"):
        ladders.rate_on_ladder("tictactoe", "random", games=2, out=tmp_path / "rating.jsonl")
    assert not (tmp_path / "rating.jsonl").exists() or not read_records(tmp_path / "rating.jsonl")
