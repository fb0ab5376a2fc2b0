"""The ``llm:`` client bounded in time, size and trust, against real HTTP servers on 127.0.0.1.

Issue 39: a server trickling its answer held a request for minutes past ``timeout``; a redirect
to another port received the ``Authorization`` header; an error body echoing the request's
headers put the key into records and logs; a 1.9M-character answer made record lines too long to
read back.
"""

from __future__ import annotations

import json
import time

import pytest

import mcts_envs
from mcts_envs.agents.players.llm_agent import ANSWER_KEEP_CHARS, ForfeitError, LLMAgent
from mcts_envs.core.errors import InvalidOptionError
from tests.agents.chat_endpoint import HUGE_CHARS, chat_server

KEY = "sk-test-0123456789-secret"


@pytest.fixture
def servers():
    with chat_server() as first, chat_server() as second:
        yield first, second


def agent(server, model: str, tmp_path=None, **options: object) -> LLMAgent:
    log = None if tmp_path is None else str(tmp_path / "llm.jsonl")
    return LLMAgent(model=model, base_url=server.base_url, log=log, seed=0, **options)


def ask(llm: LLMAgent) -> int:
    game = mcts_envs.make_game("tictactoe")
    return llm.act_state(game, game.initial_state())


def test_a_trickling_server_is_cut_at_the_wall_clock_deadline(servers):
    """The answer arrives one byte every 0.2 s (about a minute in all); each request is cut at
    ``timeout`` whatever the per-read timeouts, and a retry is a second whole request."""
    server, _ = servers
    llm = agent(server, "trickle", timeout=1, retries=1)
    start = time.monotonic()
    with pytest.raises(ForfeitError) as caught:
        ask(llm)
    elapsed = time.monotonic() - start
    assert 2.0 <= elapsed < 3.5, elapsed  # two requests of 1 s each, plus the cuts
    assert caught.value.reason == "timeout"
    assert "within timeout=1 s" in str(caught.value)
    assert [entry["error"] is not None for entry in llm.transcript] == [True, True]
    assert all(entry["seconds"] < 1.5 for entry in llm.transcript)


def test_no_key_crosses_a_redirect_to_another_origin(servers, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    first, second = servers
    first.redirect_to = f"{second.base_url}/chat/completions"  # another port: another origin
    with pytest.raises(ForfeitError):
        ask(agent(first, "redirect", retries=0))
    assert first.requests[-1]["authorization"] == f"Bearer {KEY}"
    followed = [r for r in second.requests if r["method"] == "GET"]
    assert followed, "the redirect was not followed"
    assert all(r["authorization"] is None for r in second.requests)
    # the same origin keeps the key (a redirect from one path to another of base_url's server)
    first.redirect_to = f"{first.base_url}/elsewhere"
    with pytest.raises(ForfeitError):
        ask(agent(first, "redirect", retries=0))
    assert first.requests[-1]["path"] == "/v1/elsewhere"
    assert first.requests[-1]["authorization"] == f"Bearer {KEY}"


def test_a_key_echoed_by_the_endpoint_is_in_no_record_log_or_error(
    servers, tmp_path, capsys, monkeypatch
):
    """A 500 whose body echoes the request headers, and an answer that echoes them: the key
    reaches neither the forfeit, the transcript, the log file nor the exception."""
    server, _ = servers
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    for model in ("echo500", "echo"):
        llm = agent(server, model, tmp_path, retries=1)
        with pytest.raises(ForfeitError) as caught:
            ask(llm)
        assert server.requests[-1]["authorization"] == f"Bearer {KEY}"  # it was sent
        texts = [
            str(caught.value),
            json.dumps(caught.value.forfeit(0)),
            json.dumps(llm.transcript),
            (tmp_path / "llm.jsonl").read_text(),
        ]
        assert all(KEY not in text for text in texts), model
        assert "[key removed]" in "".join(texts), model  # the echo is there, the key not
    captured = capsys.readouterr()
    assert KEY not in captured.out + captured.err


def test_a_huge_answer_is_kept_truncated_with_a_flag(servers, tmp_path):
    """1.9M non-ASCII characters (the text env refuses answers over its limit: an invalid
    answer); the transcript, hence the record, and the log keep 16,384 characters and say so."""
    server, _ = servers
    llm = agent(server, "huge", tmp_path, retries=0)
    with pytest.raises(ForfeitError) as caught:
        ask(llm)
    assert caught.value.reason == "invalid move" and "more than" in str(caught.value)
    assert len(json.dumps(caught.value.forfeit(0))) < 4096
    (entry,) = llm.transcript
    assert len(entry["answer"]) == ANSWER_KEEP_CHARS
    assert entry["truncated"] == {"answer": HUGE_CHARS + len("<move>a3</move>")}
    line = (tmp_path / "llm.jsonl").read_text()
    assert len(line) < 8 * ANSWER_KEEP_CHARS  # JSON escapes each character in 6 bytes


def test_a_password_in_base_url_is_refused():
    with pytest.raises(InvalidOptionError, match="must not hold a user name or password"):
        LLMAgent(model="x", base_url="http://user:sk-secret@127.0.0.1:8080/v1")


def test_a_tournament_of_huge_answers_writes_records_that_read_back(servers, tmp_path):
    """The issue's 34 MB record lines, refused by the same tournament's --resume and by
    ratings: now each answer is kept to 16,384 characters with its length."""
    from mcts_envs.agents.frontends.cli import main
    from mcts_envs.records import MAX_LINE_BYTES, read_records

    server, _ = servers
    out = tmp_path / "llm.jsonl"
    llm = f"llm:model=huge,base_url={server.base_url},retries=1"
    argv = ["tournament", "tictactoe", llm, "random", "--games-per-pair", "2", "--out", str(out)]
    assert main([*argv, "--no-progress"]) == 0
    lines = out.read_bytes().splitlines()
    assert len(lines) == 2 and max(len(line) for line in lines) < MAX_LINE_BYTES // 16
    for record in read_records(out):
        entries = [e for seat in record["transcripts"].values() for e in seat]
        assert all(e["truncated"] == {"answer": HUGE_CHARS + len("<move>a3</move>")}
                   for e in entries if e["answer"] is not None)  # fmt: skip
    assert main([*argv, "--resume", "--no-progress"]) == 0  # the same tournament reads it back
    assert main(["ratings", str(out), "--bootstrap", "0"]) == 0
