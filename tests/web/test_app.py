"""The ``mcts-envs serve`` app through HTTP (Starlette's test client, the real app and agents):
validation with clear 4xx answers, capped opponents, bounded sessions, whole games, undo and
records that replay through the game's rules."""

from __future__ import annotations

import json
import re
import socket
import warnings

import pytest

pytest.importorskip("starlette", reason="starlette is in the 'web' extra")
pytest.importorskip("httpx", reason="the test client needs httpx (in the 'dev' extra)")
with warnings.catch_warnings():  # Starlette 1.x nudges towards httpx2; httpx still works
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

import mcts_envs
from mcts_envs import svg
from mcts_envs.agents.frontends.web.app import MAX_BODY, create_app
from mcts_envs.agents.frontends.web.limits import ServeLimits, check_opponent
from mcts_envs.agents.frontends.web.session import PlaySession
from mcts_envs.agents.frontends.web.store import SessionStore, StoreFullError, UnknownSessionError
from mcts_envs.agents.spec import make_agent
from mcts_envs.records import replay_states

BASE = "http://127.0.0.1"


@pytest.fixture
def client():
    with TestClient(create_app(ServeLimits(max_sessions=3), seed=11), base_url=BASE) as test:
        yield test


def _post(client, path: str, body: object):
    return client.post(path, content=json.dumps(body), headers={"Content-Type": "application/json"})


def _new(client, game="tictactoe", opponent="mcts:iterations=30", seat="player_0"):
    answer = _post(client, "/api/new", {"game": game, "opponent": opponent, "seat": seat})
    assert answer.status_code == 200, answer.text
    return re.search(r'data-session="([^"]+)"', answer.json()["html"]).group(1), answer.json()


def _session(client, key):
    return client.app.state.store.get(key)


def test_page_is_served_with_a_strict_policy(client):
    answer = client.get("/")
    assert answer.status_code == 200
    assert "default-src 'none'" in answer.headers["content-security-policy"]
    for name in mcts_envs.list_games():
        assert f'value="{name}"' in answer.text


@pytest.mark.parametrize(
    ("body", "status", "message"),
    [
        ("not json", 400, "not valid JSON"),
        ([1, 2], 400, "JSON object"),
        ({"game": "chess", "opponent": "random", "seat": "player_0"}, 400, "choose one of"),
        ({"game": "tictactoe", "opponent": "random", "seat": "north"}, 400, "seat must be"),
        ({"game": "tictactoe", "opponent": "uai:cmd=/bin/sh", "seat": "player_0"}, 400,
         "not offered here"),
        ({"game": "tictactoe", "opponent": "mcts:workers=64", "seat": "player_0"}, 400,
         "cannot be set here"),
        ({"game": "tictactoe", "opponent": "mcts:iterations=lots", "seat": "player_0"}, 400,
         "iterations must be an integer"),
        ({"game": "tictactoe", "opponent": "random", "seat": "player_0", "x": "1"}, 400,
         "unknown x"),
        ({"game": "tictactoe", "opponent": 5, "seat": "player_0"}, 400, "must be a string"),
    ],
)  # fmt: skip
def test_bad_new_game_requests_get_clear_4xx_answers(client, body, status, message):
    content = body if isinstance(body, str) else json.dumps(body)
    answer = client.post("/api/new", content=content, headers={"Content-Type": "application/json"})
    assert answer.status_code == status
    assert message in answer.json()["error"]
    assert "Traceback" not in answer.text


@pytest.mark.parametrize(
    "body",
    ["[" * 2000 + "]" * 2000, '{"game": ' + "[" * 1900 + "]" * 1900 + "}"],
    ids=["nested-arrays", "nested-in-a-field"],
)
def test_deeply_nested_json_under_the_size_cap_is_a_400(client, body):
    assert len(body) <= MAX_BODY  # json's decoder would recurse past Python's limit
    answer = client.post("/api/new", content=body, headers={"Content-Type": "application/json"})
    assert answer.status_code == 400
    assert "nested too deeply" in answer.json()["error"]


def test_transport_checks(client):
    answer = client.post("/api/new", content="{}", headers={"Content-Type": "text/plain"})
    assert answer.status_code == 415
    big = json.dumps({"game": "x" * (MAX_BODY + 10)})
    answer = client.post("/api/new", content=big, headers={"Content-Type": "application/json"})
    assert answer.status_code == 413
    assert client.get("/", headers={"Host": "attacker.example"}).status_code == 400
    assert client.get("/api/click").status_code == 405
    assert client.get("/etc/passwd").status_code == 404
    assert client.get("/api/record", params={"session": "../../etc/passwd"}).status_code == 400


def test_search_budgets_are_clipped_server_side(client):
    key, answer = _new(client, opponent="mcts:iterations=100000000,seconds=3600")
    session = _session(client, key)
    assert session.agent.config.iterations == 200_000
    assert session.agent.config.seconds == 5.0
    assert "clipped" in answer["html"]
    # alpha-beta and minimax2 are checked without playing (alpha-beta compiles for ~30 s)
    tantrix = mcts_envs.make_game("tantrix")
    opponent = check_opponent("alphabeta:depth=40", tantrix, ServeLimits())
    agent = make_agent(opponent.spec)
    assert agent.seconds == 5.0 and agent.depth == 40
    assert agent.table_size * 8 * tantrix.info.state_size <= ServeLimits().max_table_bytes
    assert check_opponent("minimax2:depth=7", tantrix, ServeLimits()).spec == "minimax2:depth=3"


def test_clicks_are_checked_against_the_legal_moves(client):
    key, _ = _new(client, game="ataxx", opponent="random")
    answer = _post(client, "/api/click", {"session": key, "target": "s24"})
    assert answer.status_code == 400 and "not a legal click" in answer.json()["error"]
    answer = _post(client, "/api/click", {"session": key, "target": "<script>"})
    assert answer.status_code == 400 and "<script>" not in answer.json().get("html", "")
    answer = _post(client, "/api/agent", {"session": key})
    assert answer.status_code == 400 and "your turn" in answer.json()["error"]
    answer = _post(client, "/api/click", {"session": "A" * 30, "target": "s0"})
    assert answer.status_code == 404 and "no open game" in answer.json()["error"]
    answer = _post(client, "/api/click", {"session": "bad id!", "target": "s0"})
    assert answer.status_code == 400
    # a jump in two clicks: the stone, then the square two away
    answer = _post(client, "/api/click", {"session": key, "target": "s0"})
    assert answer.status_code == 200 and not answer.json()["agent_turn"]
    answer = _post(client, "/api/click", {"session": key, "target": "s14"})
    assert answer.status_code == 200 and answer.json()["agent_turn"]
    session = _session(client, key)
    assert (
        session.actions
        and session.game.action_to_string(session.states[0], session.actions[0]) == "a7a5"
    )


def test_busy_session_answers_409(client):
    key, _ = _new(client, opponent="random")
    session = _session(client, key)
    with session._locked():  # as while the agent searches
        answer = _post(client, "/api/click", {"session": key, "target": "c4"})
    assert answer.status_code == 409 and "thinking" in answer.json()["error"]


def test_whole_game_undo_and_record(client):
    key, _ = _new(client, game="tictactoe", opponent="mcts:iterations=30", seat="player_1")
    game = mcts_envs.make_game("tictactoe")
    answer = _post(client, "/api/agent", {"session": key})
    assert answer.status_code == 200
    assert 'id="win-probability"' in answer.json()["html"]
    session = _session(client, key)
    first_agent_state = session.state.copy()
    paths = svg.move_paths(game, session.state)
    _post(client, "/api/click", {"session": key, "target": next(iter(paths))[0]})
    _post(client, "/api/agent", {"session": key})
    answer = _post(client, "/api/undo", {"session": key})
    assert answer.status_code == 200
    assert (session.state == first_agent_state).all() and len(session.actions) == 1
    while not session.over:
        if session.agent_turn:
            assert _post(client, "/api/agent", {"session": key}).status_code == 200
        else:
            target = next(iter(svg.move_paths(game, session.state)))[0]
            assert (
                _post(client, "/api/click", {"session": key, "target": target}).status_code == 200
            )
    record = client.get("/api/record", params={"session": key}).json()
    _, states = replay_states(record)
    assert (states[-1] == session.state).all()
    assert record["players"] == ["mcts:iterations=30,seconds=5.0", "human"]
    returns = game.returns(session.state)
    html = _post(client, "/api/clear", {"session": key}).json()["html"]
    expected = {1.0: "You won", -1.0: "The agent won", 0.0: "Draw"}[returns[1]]
    assert f">{expected}</div>" in html


def test_tantrix_move_in_three_clicks_with_chance_draws(client):
    key, _ = _new(client, game="tantrix", opponent="random")
    session = _session(client, key)
    game = session.game
    assert session.chance and game.current_player(session.state) in (0, 1)
    if session.agent_turn:
        assert _post(client, "/api/agent", {"session": key}).status_code == 200
    path = next(iter(svg.move_paths(game, session.state)))
    for target in path:
        answer = _post(client, "/api/click", {"session": key, "target": target})
        assert answer.status_code == 200, answer.text
    record = client.get("/api/record", params={"session": key}).json()
    _, states = replay_states(record)
    assert (states[-1] == session.state).all()
    assert len(record["chance"]) >= 13  # the deal of 12, then the mover's draw


def test_sessions_are_bounded(client):
    keys = [_new(client, opponent="random")[0] for _ in range(3)]
    answer = _post(
        client, "/api/new", {"game": "tictactoe", "opponent": "random", "seat": "player_0"}
    )
    assert answer.status_code == 503 and "games are open" in answer.json()["error"]
    answer = _post(
        client,
        "/api/new",
        {"game": "tictactoe", "opponent": "random", "seat": "player_0", "previous": keys[0]},
    )
    assert answer.status_code == 200  # replacing a game frees its place
    assert client.get("/api/record", params={"session": keys[0]}).status_code == 404  # replaced
    for key in keys[1:]:
        assert client.get("/api/record", params={"session": key}).status_code == 200


def _spy_on_prepare(monkeypatch, fail: bool = False) -> list:
    """Record each game's preparation (the warm-up search); make it fail if ``fail``."""
    calls = []
    real = PlaySession.prepare

    def prepare(session):
        calls.append(session)
        if fail:
            raise RuntimeError("the warm-up failed")
        real(session)

    monkeypatch.setattr(PlaySession, "prepare", prepare)
    return calls


def test_full_server_refuses_before_the_warm_up(client, monkeypatch):
    for _ in range(3):
        _new(client, opponent="random")
    calls = _spy_on_prepare(monkeypatch)
    new = {"game": "tictactoe", "opponent": "mcts:iterations=30", "seat": "player_0"}
    answer = _post(client, "/api/new", new)
    assert answer.status_code == 503 and "games are open" in answer.json()["error"]
    assert calls == []  # refused at once, not after tens of seconds of compiling
    answer = _post(client, "/api/new", {**new, "previous": "A" * 24})  # no such game: no place
    assert answer.status_code == 503 and calls == []


def test_a_failed_new_game_keeps_the_previous_one(client, monkeypatch):
    key, _ = _new(client, opponent="random")
    assert _post(client, "/api/click", {"session": key, "target": "c4"}).status_code == 200
    _spy_on_prepare(monkeypatch, fail=True)
    new = {"game": "ataxx", "opponent": "random", "seat": "player_1", "previous": key}
    assert _post(client, "/api/new", new).status_code == 500
    session = _session(client, key)  # still open, with its move
    assert len(session.actions) == 1
    assert _post(client, "/api/undo", {"session": key}).status_code == 200


def test_a_replaced_game_keeps_its_place_until_the_new_one_is_stored():
    store = SessionStore(ServeLimits(max_sessions=2))
    game = mcts_envs.make_game("tictactoe")
    first = store.add(PlaySession(game, "tictactoe", "random", 0, 1))
    with store.reserve(replacing=first) as place:  # the new game is being prepared
        assert store.get(first) is not None
        other = store.add(PlaySession(game, "tictactoe", "random", 0, 2))
        with pytest.raises(StoreFullError, match="open or starting"):
            store.add(PlaySession(game, "tictactoe", "random", 0, 3))
        # a game lends its place to one new game only
        with pytest.raises(StoreFullError), store.reserve(replacing=first):
            pass
        key = place.fill(PlaySession(game, "tictactoe", "random", 0, 4))
    with pytest.raises(UnknownSessionError):
        store.get(first)
    assert store.get(key).seed == 4 and store.get(other).seed == 2 and len(store) == 2
    with store.reserve(replacing=other):
        pass  # released unfilled: the game it would replace stays
    assert store.get(other).seed == 2 and len(store) == 2


def test_store_closes_idle_and_old_games():
    now = [0.0]
    limits = ServeLimits(max_sessions=2, idle_seconds=10, max_age_seconds=100)
    store = SessionStore(limits, clock=lambda: now[0])
    game = mcts_envs.make_game("tictactoe")
    first = store.add(PlaySession(game, "tictactoe", "random", 0, 1))
    second = store.add(PlaySession(game, "tictactoe", "random", 0, 2))
    with pytest.raises(StoreFullError):
        store.add(PlaySession(game, "tictactoe", "random", 0, 3))
    for _ in range(11):  # keep the first game busy past the idle limit of the second
        now[0] += 1
        store.get(first)
    with pytest.raises(UnknownSessionError):
        store.get(second)
    now[0] = 101
    with pytest.raises(UnknownSessionError):
        store.get(first)  # older than max_age_seconds, even if used
    assert len(store) == 0


def test_internal_errors_are_json_without_traceback(client, monkeypatch):
    key, _ = _new(client, opponent="random", seat="player_1")

    def broken(self):
        raise RuntimeError("secret detail /home/user")

    monkeypatch.setattr("mcts_envs.agents.frontends.web.session.PlaySession.agent_move", broken)
    answer = _post(client, "/api/agent", {"session": key})
    assert answer.status_code == 500
    assert answer.json() == {"error": "internal error; the server log has the details"}


def test_undo_in_tantrix_does_not_change_the_next_draw(client):
    key, _ = _new(client, game="tantrix", opponent="random")
    session = _session(client, key)
    if session.agent_turn:
        assert _post(client, "/api/agent", {"session": key}).status_code == 200
    path = next(iter(svg.move_paths(session.game, session.state)))
    for target in path:
        _post(client, "/api/click", {"session": key, "target": target})
    drawn = list(session.actions)
    assert _post(client, "/api/undo", {"session": key}).status_code == 200
    for target in path:
        _post(client, "/api/click", {"session": key, "target": target})
    assert session.actions == drawn


def test_serve_command_checks_its_arguments(capsys):
    from mcts_envs.agents.frontends.cli import main

    assert main(["serve", "--port", "70000"]) == 2
    assert "--port must be 0..65535" in capsys.readouterr().err
    assert main(["serve", "--max-seconds", "0"]) == 2
    assert "max_seconds must be positive" in capsys.readouterr().err
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        assert main(["serve", "--port", str(taken.getsockname()[1])]) == 2
    assert "cannot listen on 127.0.0.1" in capsys.readouterr().err
    assert main(["serve", "--max-connections", "0"]) == 2
    assert "max_connections must be positive" in capsys.readouterr().err


def test_serve_command_gives_its_connection_limits_to_the_server(monkeypatch, capsys):
    from mcts_envs.agents.frontends.cli import main

    served = {}
    monkeypatch.setattr(
        "mcts_envs.agents.frontends.web.server.serve", lambda *args: served.update(args=args)
    )
    options = ["--max-connections", "7", "--request-seconds", "2.5", "--keep-alive-seconds", "1"]
    assert main(["serve", "--port", "0", *options]) == 0
    _, host, port, limits = served["args"]
    assert (host, port) == ("127.0.0.1", 0)
    assert (limits.max_connections, limits.request_seconds, limits.keep_alive_seconds) == (
        7,
        2.5,
        1,
    )
