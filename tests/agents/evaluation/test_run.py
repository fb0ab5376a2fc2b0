"""The one run function: what it plays, tells, writes and skips, against the game loop by hand."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from mcts_envs.agents.evaluation.games import play_game
from mcts_envs.agents.evaluation.plan import plan_tournament
from mcts_envs.agents.evaluation.run import RunHooks, RunSettings, StopFlag, run_plan
from mcts_envs.core.errors import InvalidOptionError
from mcts_envs.records import game_identity, read_records

ROOT = Path(__file__).resolve().parents[3]
SPECS = ["random", "minimax2", "alphabeta:depth=1"]


@pytest.fixture(scope="module")
def plan():
    return plan_tournament("tictactoe", SPECS, 4, seed=3, openings="random:1")


def _identities(records):
    return sorted((game_identity(r) for r in records), key=lambda r: (r["pairing"], r["index"]))


def test_a_run_plays_every_game_of_the_plan_as_the_game_loop_does(plan, tmp_path):
    by_hand = [play_game(task, plan.rules) for task in plan.tasks]
    told, seen = [], []
    path = tmp_path / "run.jsonl"
    outcome = run_plan(plan, RunSettings(out=path), RunHooks(told.append, seen.append))
    assert outcome.played == len(seen) == len(plan.tasks) == 12 and outcome.stopped is None
    assert _identities(outcome.records) == _identities(by_hand)
    assert _identities(read_records(path)) == _identities(by_hand)
    assert told[0] == (
        f"tictactoe: 3 pairing(s), 12 games; 0 already in {path}, 12 to play on local (1 worker(s))"
    )
    assert told[-1].startswith("prepared: random ")


def test_a_resumed_run_plays_and_prepares_nothing_when_the_file_is_whole(plan, tmp_path):
    path = tmp_path / "run.jsonl"
    first = run_plan(plan, RunSettings(out=path))
    told = []
    again = run_plan(plan, RunSettings(out=path, resume=True), RunHooks(announce=told.append))
    assert again.played == 0 and again.records == first.records
    assert told == [f"tictactoe: 3 pairing(s), 12 games; 12 already in {path}, 0 to play on "
                    "local (1 worker(s))"]  # fmt: skip


class _CloseAfterOne:
    """A monitor that closes every pairing once it has seen one of its records."""

    def __init__(self):
        self.closed: set[int] = set()

    def update(self, record):
        self.closed.add(record["pairing"])


def test_a_monitor_closes_pairings_and_a_stop_flag_stops_the_run(plan):
    outcome = run_plan(plan, hooks=RunHooks(monitors=(_CloseAfterOne(),)))
    assert sorted(r["pairing"] for r in outcome.records) == [0, 1, 2]
    stop = StopFlag()
    hooks = RunHooks(
        on_record=lambda r: stop.stop("enough") if r["index"] == 2 else None, stop=stop
    )
    outcome = run_plan(plan, hooks=hooks)
    assert outcome.stopped == "enough" and not outcome.interrupted
    assert [(r["pairing"], r["index"]) for r in outcome.records] == [
        (0, 0), (0, 1), (1, 0), (1, 1), (2, 0), (2, 1), (0, 2)
    ]  # fmt: skip


def test_a_bad_backend_fails_before_the_results_file_is_made(plan, tmp_path):
    path = tmp_path / "never.jsonl"
    with pytest.raises(InvalidOptionError, match="--workers 1 only"):
        run_plan(plan, RunSettings(out=path, backend="local", workers=2))
    assert not path.exists()


def _calls(path: Path, name: str) -> bool:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return any(
        isinstance(node, ast.Call)
        and getattr(node.func, "id", getattr(node.func, "attr", None)) == name
        for node in ast.walk(tree)
    )


def test_the_run_is_assembled_in_one_place():
    """Only the run function builds a backend and opens a results file (the ladder's rating,
    which picks each game pair's anchor from the games before, reads its file itself)."""
    sources = [*(ROOT / "agents").rglob("*.py"), *(ROOT / "experiments").glob("*.py")]
    backends = sorted(str(p.relative_to(ROOT)) for p in sources if _calls(p, "make_backend"))
    files = sorted(str(p.relative_to(ROOT)) for p in sources if _calls(p, "open_results"))
    assert backends == ["agents/evaluation/run.py"]
    assert files == ["agents/evaluation/ladder.py", "agents/evaluation/run.py"]
