"""The ``llm:`` agent against a real OpenAI-compatible HTTP endpoint on 127.0.0.1."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

import mcts_envs
from mcts_envs.agents.evaluation.games import Adjudication, GameRules, GameTask, play_game
from mcts_envs.agents.players.llm_agent import ForfeitError, LLMAgent, LLMEndpointError
from mcts_envs.agents.spec import make_agent
from mcts_envs.core.errors import InvalidOptionError
from tests.agents.chat_endpoint import SLOW_SECONDS, chat_server

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def server():
    with chat_server() as running:
        yield running


def spec(server, model: str, **options: object) -> str:
    extra = "".join(f",{key}={value}" for key, value in options.items())
    return f"llm:model={model},base_url={server.base_url}{extra}"


def play(spec_a: str, spec_b: str = "random", colour: int = 0, opening: str | None = None):
    game = mcts_envs.make_game("tictactoe")
    task = GameTask(
        0, spec_a, spec_b, 0, colour, opening or game.to_text(game.initial_state()), (1, 2, 3)
    )
    return play_game(task, GameRules("tictactoe"))


def test_match_through_the_cli_keeps_every_prompt_and_answer(server, tmp_path):
    log = tmp_path / "llm.jsonl"
    out = tmp_path / "games.jsonl"
    llm = spec(server, "legal", log=log)
    completed = subprocess.run(
        [
            sys.executable,
            "-m",
            "mcts_envs.agents",
            "match",
            "tictactoe",
            llm,
            "random",
            "--games",
            "2",
            "--out",
            str(out),
            "--no-progress",
        ],
        cwd=ROOT,
        env=os.environ | {"PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert completed.returncode == 0, completed.stderr
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(records) == 2 and all(r.get("termination", "end") == "end" for r in records)
    exchanges = [json.loads(line) for line in log.read_text().splitlines()]
    game = mcts_envs.make_game("tictactoe")
    played = 0
    for record in records:
        seat = record["players"].index(next(p for p in record["players"] if p.startswith("llm")))
        states = mcts_envs.records.replay_states(record)[1]
        moves = [
            game.action_to_string(states[k], action)
            for k, action in enumerate(record["actions"])
            if game.current_player(states[k]) == seat
        ]
        played += len(moves)
        assert all(f"<move>{move}</move>" in {e["answer"] for e in exchanges} for move in moves)
        kept = record["transcripts"][str(seat)]  # the record keeps the prompts and answers
        assert [e["answer"] for e in kept] == [f"<move>{move}</move>" for move in moves]
        assert all("Legal moves (" in e["prompt"] for e in kept)
    # every decision of the games is one exchange with its prompt (no warm-up requests)
    assert len(exchanges) == played
    assert all("Legal moves (" in e["prompt"] and e["error"] is None for e in exchanges)
    assert "Rules of Tic-Tac-Toe" in exchanges[-played]["prompt"] or any(
        "Rules of" in e["prompt"] for e in exchanges
    )
    body = server.requests[-1]["body"]
    assert body["max_tokens"] == 512 and body["temperature"] == 0.0
    assert body["messages"][0]["content"].startswith(("Rules of", "You are"))


def test_a_match_against_an_llm_that_names_no_move_ends_in_forfeits(server, tmp_path):
    from mcts_envs.agents.frontends.cli import main

    out = tmp_path / "games.jsonl"
    llm = spec(server, "garbage", retries=0)
    assert (
        main(
            [
                "match",
                "tictactoe",
                llm,
                "random",
                "--games",
                "2",
                "--no-progress",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["forfeit"]["reason"] for r in records] == ["invalid move", "invalid move"]
    assert [r["result"] for r in records] == ["b", "b"]


def test_a_move_buried_in_prose_is_the_last_legal_move_named(server):
    agent = make_agent(spec(server, "prose"), seed=0)
    game = mcts_envs.make_game("tictactoe")
    state = game.initial_state()
    action = agent.act_state(game, state)
    assert game.action_to_string(state, action) == "c1"  # the last of the listed moves
    (exchange,) = agent.transcript
    assert "<move>" not in exchange["answer"] and exchange["move"] == "c1"
    assert "Rules of" in exchange["prompt"] and exchange["move_number"] == 1


def test_the_opponents_move_reaches_the_next_prompt(server):
    agent = make_agent(spec(server, "legal"), seed=0)
    game = mcts_envs.make_game("tictactoe")
    state = game.initial_state()
    own = agent.act_state(game, state)
    state = game.apply(state, own)
    agent.inform(own)  # a caller informs every move played, the agent's own too (Agent.inform)
    reply = game.string_to_action(state, "b2")
    state = game.apply(state, reply)
    agent.inform(reply)
    agent.act_state(game, state)
    second = agent.transcript[-1]["prompt"]
    assert "Your opponent's last move: b2" in second and "Rules of" not in second
    # a position the agent never saw (another opening) is shown as it is
    fresh = make_agent(spec(server, "legal"), seed=0)
    fresh.act_state(game, state)
    assert game.to_text(state) in fresh.transcript[-1]["prompt"]


def test_the_prompts_follow_the_moves_informed_not_the_answers_given(server):
    """A caller that plays another move than the agent's answer (and informs it) gets prompts
    of the game played: the agent follows what it is informed of, it does not guess."""
    agent = make_agent(spec(server, "legal"), seed=0)
    game = mcts_envs.make_game("tictactoe")
    state = game.initial_state()
    agent.restart(state)
    answer = agent.act_state(game, state)
    played = next(int(a) for a in game.legal_actions(state) if a != answer)
    state = game.apply(state, played)
    agent.inform(played)
    reply = next(int(a) for a in game.legal_actions(state) if a != answer)
    reply_name = game.action_to_string(state, reply)
    state = game.apply(state, reply)
    agent.inform(reply)
    agent.act_state(game, state)
    prompt = agent.transcript[-1]["prompt"]
    assert f"Your opponent's last move: {reply_name}" in prompt
    assert "set up" not in prompt and "Rules of" not in prompt


def test_moving_second_the_first_prompt_names_the_opponents_first_move(server):
    """Through the game loop, a move informed before the agent's first decision is reported."""
    record = play(spec(server, "legal"), colour=1)
    game = mcts_envs.make_game("tictactoe")
    first = game.action_to_string(game.initial_state(), record["actions"][0])
    prompt = record["transcripts"]["1"][0]["prompt"]
    assert f"Your opponent's last move: {first}" in prompt and "set up" not in prompt


def test_garbage_is_retried_then_forfeits_and_the_record_keeps_it(server):
    before = len(server.requests)
    record = play(spec(server, "garbage", retries=1))
    assert record["termination"] == "forfeit" and record["result"] == "b"
    assert record["forfeit"]["reason"] == "invalid move" and record["forfeit"]["fault"] == "agent"
    assert record["forfeit"]["line"] == "No idea, to be honest."
    assert "no legal move found" in record["forfeit"]["message"]
    asked = [r["body"]["messages"][0]["content"] for r in server.requests[before:]]
    assert len(asked) == 2 and "Your last answer was invalid" in asked[1]


def test_a_second_try_that_names_a_legal_move_plays_it(server):
    agent = make_agent(spec(server, "second-try", retries=2), seed=0)
    game = mcts_envs.make_game("tictactoe")
    action = agent.act_state(game, game.initial_state())
    assert game.action_to_string(game.initial_state(), action) == "c1"
    first, second = agent.transcript
    assert first["move"] is None and "no legal move found" in first["error"]
    assert second["move"] == "c1" and second["error"] is None


def test_a_slow_answer_times_out_and_forfeits_without_waiting(server):
    start = time.monotonic()
    record = play(spec(server, "slow", timeout=0.3, retries=0))
    assert time.monotonic() - start < SLOW_SECONDS + 1.0
    assert record["termination"] == "forfeit" and record["forfeit"]["reason"] == "timeout"
    assert "timeout=0.3" in record["forfeit"]["message"]


def test_http_errors_use_the_retries_then_forfeit(server):
    before = len(server.requests)
    record = play(spec(server, "error500", retries=1), colour=1)
    assert record["termination"] == "forfeit" and record["forfeit"]["reason"] == "http error"
    assert record["forfeit"]["fault"] == "infrastructure"  # the server failed, not the model
    assert "HTTP 500" in record["forfeit"]["message"] and record["result"] == "b"
    assert len(server.requests) - before == 2
    record = play(spec(server, "not-json", retries=0))
    assert record["forfeit"]["reason"] == "bad response"


def test_nothing_listens_is_a_connection_forfeit():
    agent = LLMAgent(model="x", base_url="http://127.0.0.1:9/v1", retries=0, timeout=2)
    game = mcts_envs.make_game("tictactoe")
    with pytest.raises(ForfeitError) as caught:
        agent.act_state(game, game.initial_state())
    assert caught.value.reason == "connection" and caught.value.fault == "infrastructure"


def test_a_refused_key_ends_the_run_with_one_line(server, capsys):
    from mcts_envs.agents.frontends.cli import main

    agent = make_agent(spec(server, "error401"), seed=0)
    game = mcts_envs.make_game("tictactoe")
    with pytest.raises(LLMEndpointError, match="HTTP 401"):
        agent.act_state(game, game.initial_state())
    status = main(
        ["match", "tictactoe", spec(server, "error401"), "random", "--games", "2", "--no-progress"]
    )
    err = capsys.readouterr().err
    assert status != 0 and "HTTP 401" in err and "Traceback" not in err


def test_the_key_comes_from_the_environment_never_the_spec(server, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-default")
    monkeypatch.setenv("MY_LLM_KEY", "sk-test-named")
    game = mcts_envs.make_game("tictactoe")
    make_agent(spec(server, "legal"), seed=0).act_state(game, game.initial_state())
    assert server.requests[-1]["authorization"] == "Bearer sk-test-default"
    make_agent(spec(server, "legal", key_env="MY_LLM_KEY"), seed=0).act_state(
        game, game.initial_state()
    )
    assert server.requests[-1]["authorization"] == "Bearer sk-test-named"
    monkeypatch.delenv("OPENAI_API_KEY")
    make_agent(spec(server, "legal"), seed=0).act_state(game, game.initial_state())
    assert server.requests[-1]["authorization"] is None
    with pytest.raises(InvalidOptionError, match="NO_SUCH_VARIABLE is not set"):
        make_agent(spec(server, "legal", key_env="NO_SUCH_VARIABLE"))
    with pytest.raises(InvalidOptionError, match="unknown option 'key'"):
        make_agent(spec(server, "legal", key="sk-oops"))


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ("model=x,base_url=127.0.0.1:8080", "base_url must start with http"),
        ("model=x,base_url=http://h/v1,temperature=3", "temperature must be"),
        ("model=x,base_url=http://h/v1,timeout=0", "timeout must be"),
        ("model=x,base_url=http://h/v1,max_tokens=0", "max_tokens must be"),
        ("base_url=http://h/v1", "missing required option"),
        ("model=x,base_url=http://h/v1,log=/no/such/dir/x.jsonl", "does not exist"),
    ],
)
def test_bad_options_are_refused_naming_what_is_allowed(options, message):
    with pytest.raises(InvalidOptionError, match=message):
        make_agent(f"llm:{options}")


def test_a_tantrix_llm_gets_the_rules_once_and_sees_the_draws_between_its_moves(server):
    """Through the game loop, Tantrix's draws between decisions are reported as chance outcomes
    of the same game (not a new, set-up game with the rules again)."""
    game = mcts_envs.make_game("tantrix")
    task = GameTask(
        0, spec(server, "legal"), "random", 0, 0, game.to_text(game.initial_state()), (1, 2, 3)
    )
    record = play_game(task, GameRules("tantrix", adjudication=Adjudication(max_moves=12)))
    prompts = [entry["prompt"] for entry in record["transcripts"]["0"]]
    assert len(prompts) >= 3
    assert "Rules of" in prompts[0]
    assert not any("Rules of" in prompt for prompt in prompts[1:])
    assert not any("set up" in prompt for prompt in prompts)
    assert any("Chance outcomes since your last move" in prompt for prompt in prompts[1:])
