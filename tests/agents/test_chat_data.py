"""``mcts-envs expert --format chat``: the text env's prompts and the search's moves as chat rows."""

from __future__ import annotations

import json

import pytest

import mcts_envs.text
from agents.evaluation.chat_data import generate_chat_data
from agents.evaluation.expert import ExpertConfig
from agents.frontends.cli import main
from mcts_envs.core.errors import InvalidOptionError


def run_cli(tmp_path, name, *extra):
    out = tmp_path / name
    status = main(
        [
            "expert",
            "tictactoe",
            "mcts:iterations=50",
            "--games",
            "2",
            "--seed",
            "3",
            "--out",
            str(out),
            "--format",
            "chat",
            "--no-progress",
            "--temperature-moves",
            "2",
            *extra,
        ]
    )
    assert status == 0
    return [json.loads(line) for line in out.read_text().splitlines()]


def test_rows_are_the_text_envs_prompts_and_the_searchs_moves_reproducibly(tmp_path):
    rows = run_cli(tmp_path, "a.jsonl")
    assert rows == run_cli(tmp_path, "b.jsonl")  # same seed, same file
    assert {row["game_index"] for row in rows} == {0, 1}
    for game_index in (0, 1):
        game_rows = [row for row in rows if row["game_index"] == game_index]
        env = mcts_envs.text.env("tictactoe")
        env.reset()
        for row in game_rows:  # self-play: every decision is a row, replayed by the text env
            user, assistant = row["messages"]
            assert user == {"role": "user", "content": env.observe(env.agent_selection)}
            assert assistant["content"] == f"<move>{row['move']}</move>"
            assert set(row["visits"]) <= set(env.infos[env.agent_selection]["legal_moves"])
            assert sum(row["visits"].values()) == pytest.approx(1.0, abs=1e-4)
            assert -1.0 <= row["value"] <= 1.0 and row["finished"]
            env.step(assistant["content"])
        assert env.outcome() is not None
        returns = env.outcome()["returns"]
        assert all(row["outcome"] == returns[row["seat"]] for row in game_rows)


def test_against_an_opponent_only_the_experts_decisions_are_rows():
    config = ExpertConfig("tictactoe", "mcts:iterations=20", games=2, seed=0, opponent="random")
    rows = list(generate_chat_data(config))
    assert {(row["game_index"], row["seat"]) for row in rows} == {(0, 0), (1, 1)}


def test_chat_refuses_symmetries_and_keeps_an_existing_file(tmp_path):
    existing = tmp_path / "keep.jsonl"
    existing.write_text("mine\n")
    with pytest.raises(InvalidOptionError, match="symmetry"):
        list(generate_chat_data(ExpertConfig("tictactoe", "random", 1, symmetries=True)))
    status = main(
        [
            "expert",
            "tictactoe",
            "random",
            "--games",
            "1",
            "--out",
            str(existing),
            "--format",
            "chat",
        ]
    )
    assert status != 0 and existing.read_text() == "mine\n"
    status = main(
        [
            "expert",
            "tictactoe",
            "random",
            "--games",
            "1",
            "--out",
            str(tmp_path / "x.npz"),
            "--format",
            "chat",
        ]
    )
    assert status != 0 and not (tmp_path / "x.npz").exists()
