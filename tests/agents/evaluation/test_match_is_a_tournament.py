"""A match is a tournament of one pairing: the same command-line seeds give the same records
(up to their ``timing``), through the one game loop, on any backend."""

from __future__ import annotations

import io

import pytest

from mcts_envs.agents.evaluation.arena import play_match
from mcts_envs.agents.evaluation.games import Adjudication, GameRules
from mcts_envs.agents.evaluation.plan import plan_match, plan_tournament
from mcts_envs.agents.frontends.cli import main
from mcts_envs.core.errors import InvalidOptionError
from mcts_envs.records import game_identity, read_records

SPECS = ["mcts:iterations=30", "random"]


def _identities(path):
    return sorted((game_identity(r) for r in read_records(path)), key=lambda r: r["index"])


def test_match_plays_exactly_the_games_of_the_one_pairing_tournament(tmp_path):
    match, tournament = tmp_path / "match.jsonl", tmp_path / "tournament.jsonl"
    common = ["--seed", "5", "--no-progress"]
    argv = ["match", "tictactoe", *SPECS, "--games", "6", "--out", str(match), *common]
    assert main(argv, out=io.StringIO()) == 0
    argv = ["tournament", "tictactoe", *SPECS, "--games-per-pair", "6", "--out", str(tournament)]
    assert main([*argv, *common, "--bootstrap", "0"], out=io.StringIO()) == 0
    assert _identities(match) == _identities(tournament)
    assert len(_identities(match)) == 6


def test_the_python_match_and_the_command_agree_and_an_odd_count_ends_a_pair_early(tmp_path):
    path = tmp_path / "match.jsonl"
    argv = ["match", "tictactoe", *SPECS, "--games", "5", "--seed", "9", "--out", str(path)]
    assert main([*argv, "--no-progress"], out=io.StringIO()) == 0
    result = play_match(plan_match("tictactoe", *SPECS, 5, seed=9))
    assert [game_identity(r) for r in result.records] == _identities(path)
    assert [r["seat_a"] for r in result.records] == [0, 1, 0, 1, 0]


def test_a_match_resumes_like_a_tournament(tmp_path):
    path = tmp_path / "match.jsonl"
    argv = ["match", "tictactoe", "random", "minimax2", "--seed", "3", "--out", str(path)]
    assert main([*argv, "--games", "4", "--no-progress"], out=io.StringIO()) == 0
    first = _identities(path)
    assert main([*argv, "--games", "8", "--resume", "--no-progress"], out=io.StringIO()) == 0
    both = _identities(path)
    assert both[:4] == first and len(both) == 8


def test_a_match_refuses_a_move_cap_as_a_tournament_does():
    for bad in (0, True, 2.5, 10**6):
        rules = GameRules("tictactoe", adjudication=Adjudication(max_moves=bad))
        with pytest.raises(InvalidOptionError) as tournament:
            plan_tournament(rules, ["random", "minimax2"], 2)
        with pytest.raises(InvalidOptionError) as match:
            play_match(
                plan_match(
                    GameRules("tictactoe", adjudication=Adjudication(max_moves=bad)),
                    "random",
                    "minimax2",
                    2,
                )
            )
        assert str(match.value) == str(tournament.value)
        assert "from 1 to 900" in str(match.value)
