"""``mcts-envs replay`` shows the text answers a record keeps (text env records, transcripts)."""

from __future__ import annotations

import io

import mcts_envs.text
from mcts_envs.agents.frontends.cli import main
from mcts_envs.records import dumps


def replay(tmp_path, record) -> str:
    path = tmp_path / "game.jsonl"
    path.write_text(dumps(record) + "\n")
    out = io.StringIO()
    assert main(["replay", str(path), "--delay", "0"], out=out) == 0
    return out.getvalue()


def test_replay_shows_each_answer_above_its_move_and_the_forfeiting_ones(tmp_path):
    env = mcts_envs.text.env("tictactoe", invalid="retry", retries=1)
    env.reset()
    env.step("The centre: b2.")
    env.step("<move>z9</move>")  # invalid, asked again
    env.step("<move>a1</move>")
    env.step("hmm")
    env.step("still nothing")  # forfeits
    text = replay(tmp_path, env.record())
    first = text.index("player_0 answered 'The centre: b2.'")
    assert first < text.index("move 1: player_0 plays b2")
    assert "player_1 answered '<move>z9</move>'  [invalid:" in text
    assert text.index("<move>a1</move>") < text.index("move 2: player_1 plays a1")
    assert text.index("player_0 answered 'still nothing'") > text.index("move 2:")


def test_replay_shows_an_agents_transcript(tmp_path):
    env = mcts_envs.text.env("tictactoe")
    env.reset()
    env.step("b2")
    record = env.record() | {
        "answers": [],
        "transcripts": {"0": [{"move_number": 1, "answer": "<move>b2</move>", "error": None}]},
    }
    assert "player_0 answered '<move>b2</move>'" in replay(tmp_path, record)
