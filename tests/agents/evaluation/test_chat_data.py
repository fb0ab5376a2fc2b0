"""``mcts-envs expert --format chat``: the text env's prompts and the search's moves as chat rows."""

from __future__ import annotations

import json

import pytest

import mcts_envs.text
from mcts_envs.agents.evaluation.chat_data import generate_chat_data
from mcts_envs.agents.evaluation.expert import ExpertConfig, generate_expert_data
from mcts_envs.agents.evaluation.games import task_seeds
from mcts_envs.agents.frontends.cli import main
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


def test_tantrix_rows_are_the_prompts_of_the_game_with_its_draws():
    rows = list(generate_chat_data(ExpertConfig("tantrix", "random", 1, seed=5, max_moves=6)))
    env = mcts_envs.text.env("tantrix")
    env.reset(seed=task_seeds(5, 0, 0, 0)[2])  # the chance seed of game 0
    for ply, row in enumerate(rows):
        prompt = row["messages"][0]["content"]
        assert row["ply"] == ply and prompt == env.observe(env.agent_selection)
        assert f"Position before move {ply + 1}:" in prompt
        env.step(row["messages"][1]["content"])
    assert len(rows) == 6 and not rows[0]["finished"]
    assert "Chance outcomes so far (in order): draw #" in rows[0]["messages"][0]["content"]
    assert "Chance outcomes since your last move (in order): draw #" in prompt


def test_chat_rows_are_the_decisions_of_the_array_datasets_games():
    config = ExpertConfig("tictactoe", "mcts:iterations=20", 2, seed=1, opponent="random")
    rows = list(generate_chat_data(config))
    data = generate_expert_data(config)
    assert [(row["game_index"], row["ply"], row["seat"]) for row in rows] == list(
        zip(
            data["game_index"].tolist(), data["ply"].tolist(), data["players"].tolist(), strict=True
        )
    )
    assert [row["value"] for row in rows] == pytest.approx(data["values"].tolist(), abs=1e-6)
    assert [row["outcome"] for row in rows] == data["outcomes"].tolist()


def test_games_cut_by_max_moves_give_both_datasets_outcome_zero_unfinished():
    config = ExpertConfig("tictactoe", "mcts:iterations=20", 2, seed=1, max_moves=3)
    rows = list(generate_chat_data(config))
    data = generate_expert_data(config)
    assert [row["ply"] for row in rows] == data["ply"].tolist() == [0, 1, 2, 0, 1, 2]
    assert [row["outcome"] for row in rows] == data["outcomes"].tolist() == [0.0] * 6
    assert not any(row["finished"] for row in rows) and not data["finished"].any()


def test_chat_refuses_symmetries_and_keeps_an_existing_file(tmp_path, capsys):
    existing = tmp_path / "keep.jsonl"
    existing.write_text("mine\n")
    with pytest.raises(InvalidOptionError, match="symmetry"):
        list(generate_chat_data(ExpertConfig("tictactoe", "random", 1, symmetries=True)))
    argv = ["expert", "tictactoe", "random", "--games", "1", "--format", "chat", "--out"]
    assert main([*argv, str(existing)]) == 2 and existing.read_text() == "mine\n"
    assert "exists; pass --overwrite" in capsys.readouterr().err
    assert main([*argv, str(tmp_path / "x.npz")]) == 2 and not (tmp_path / "x.npz").exists()
    assert "--out must end in .jsonl" in capsys.readouterr().err
