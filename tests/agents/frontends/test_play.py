"""``mcts-envs play``: a person's typed lines against an agent, driven through stdin."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import mcts_envs
from mcts_envs.agents.frontends.cli import main
from mcts_envs.records import read_records, replay_states

ROOT = Path(__file__).resolve().parents[3]
CLI = [sys.executable, "-m", "mcts_envs.agents.frontends.cli"]


def run(argv: list[str], lines: list[str]) -> tuple[int, str]:
    out = io.StringIO()
    status = main(argv, out=out, keys=io.StringIO("".join(line + "\n" for line in lines)))
    return status, out.getvalue()


def test_a_whole_tictactoe_game_is_won_and_saved_for_replay(tmp_path):
    # every square once: moves on squares the opponent took are refused and the next line read
    out_file = tmp_path / "mine.jsonl"
    status, text = run(
        ["play", "tictactoe", "--opponent", "random", "--seed", "3", "--out", str(out_file)],
        ["b2", "a3", "c1", "a1", "c3", "b3", "a2", "b1", "c2"],
    )
    assert status == 0
    assert "  +---+---+---+\n" in text and "    a   b   c\n" in text  # the board's coordinates
    records = read_records(out_file)
    assert len(records) == 1
    record = records[0]
    game, states = replay_states(record)
    assert record["players"] == ["human", "random"]
    assert game.is_terminal(states[-1])
    assert record["returns"] == [float(r) for r in game.returns(states[-1])]
    assert "game over" in text
    # every move the person typed that was legal appears in the record under its notation
    typed = [game.action_to_string(states[i], a) for i, a in enumerate(record["actions"][::2])]
    assert typed[0] == "b2"
    # the replay command reads the saved game
    replay_out = io.StringIO()
    assert main(["replay", str(out_file), "--delay", "0"], out=replay_out) == 0
    assert "player_0 plays b2" in replay_out.getvalue()


def test_illegal_and_malformed_moves_are_refused_and_nothing_is_lost():
    status, text = run(
        ["play", "tictactoe", "--opponent", "minimax2", "--seat", "1"],
        ["b2", "zz9", "moves", "quit"],
    )
    assert status == 0
    # minimax2 (seat 0) moved first; whatever it took, 'zz9' is refused with the notation
    assert "'zz9' is not a legal move here (a square: column a-c" in text
    assert "legal moves:" in text
    assert "game abandoned" in text


def test_undo_takes_back_the_persons_move_and_the_reply(tmp_path):
    out_file = tmp_path / "undo.jsonl"
    status, text = run(
        ["play", "ultimate_tictactoe", "--opponent", "random", "--out", str(out_file)],
        ["e5", "undo", "undo", "a9", "quit"],
    )
    assert status == 0
    assert "took back 2 action(s)" in text
    assert "nothing to undo" in text
    record = read_records(out_file)[0]
    assert record["returns"] is None and record["result"].startswith("unfinished")
    assert record["actions"][0] == 0  # a9 is board 0, cell 0; e5 was taken back
    assert len(record["actions"]) == 2


def test_hint_lists_top_moves_with_shares_and_value():
    status, text = run(
        ["play", "tictactoe", "--opponent", "random", "--hint", "mcts:iterations=3000"],
        ["a3", "hint 3", "hint x", "resign"],
    )
    assert status == 0
    hint = text[text.index("hint (mcts") :]
    assert "value" in hint and "win probability" in hint
    shares = [line.split() for line in hint.splitlines()[1:4]]
    assert all(len(parts) == 2 and parts[1].endswith("%") for parts in shares)
    assert float(shares[0][1][:-1]) >= float(shares[1][1][:-1]) >= float(shares[2][1][:-1])
    assert "hint takes a number of moves" in text


def test_hint_finds_the_winning_move():
    from mcts_envs.agents.frontends.play import PlaySession
    from mcts_envs.agents.players.random_agent import RandomAgent
    from mcts_envs.agents.spec import make_agent

    game = mcts_envs.make_game("tictactoe")
    session = PlaySession(
        game, RandomAgent(seed=0), make_agent("mcts:iterations=2000", seed=0), 0, 0, ["human", "r"]
    )
    session.states = [game.from_text("xx./.../oo. x")]  # X (the person) wins at c3
    lines, value = session.hint(2)
    assert lines[0].move == "c3" and lines[0].share > 0.5
    assert value > 0.9


def test_resignation_is_recorded_as_a_loss(tmp_path):
    out_file = tmp_path / "resign.jsonl"
    status, text = run(
        ["play", "ataxx", "--opponent", "random", "--seat", "1", "--out", str(out_file)],
        ["resign"],
    )
    assert status == 0
    record = read_records(out_file)[0]
    assert record["returns"] == [1.0, -1.0]
    assert record["result"] == "player_1 resigned"
    assert record["players"] == ["random", "human"]
    replay_states(record)


@pytest.mark.parametrize("game", ["pentago_twist", "tantrix"])
def test_games_with_long_notation_take_typed_moves(game):
    # the first legal move, as listed by 'moves', is accepted back when typed
    status, text = run(["play", game, "--opponent", "random", "--seed", "1"], ["moves", "quit"])
    listed = text.split("legal moves: ")[1].splitlines()[0].split(", ")
    first = listed[0]
    status, text = run(["play", game, "--opponent", "random", "--seed", "1"], [first, "quit"])
    assert status == 0
    assert f"you play {first}" in text


def test_bad_arguments_fail_before_play():
    err = io.StringIO()
    sys_stderr, sys.stderr = sys.stderr, err
    try:
        assert run(["play", "tictactoe", "--opponent", "nosuch"], [])[0] == 2
        assert run(["play", "tictactoe", "--seat", "2"], [])[0] == 2
        assert run(["play", "chess"], [])[0] == 2
    finally:
        sys.stderr = sys_stderr
    assert "unknown agent 'nosuch'" in err.getvalue()


def test_play_reads_stdin_of_a_real_process(tmp_path):
    out_file = tmp_path / "proc.jsonl"
    result = subprocess.run(
        [*CLI, "play", "tictactoe", "--opponent", "random", "--out", str(out_file)],
        input="b2\nresign\n",
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert "you play b2" in result.stdout
    assert json.loads(out_file.read_text())["result"] == "player_0 resigned"


def test_undo_cannot_fish_for_other_tantrix_draws():
    from mcts_envs.agents.frontends.play import PlaySession
    from mcts_envs.agents.players.random_agent import RandomAgent

    game = mcts_envs.make_game("tantrix")
    session = PlaySession(game, RandomAgent(seed=0), RandomAgent(seed=1), 0, 7, ["human", "r"])
    while session.to_move() != 0:
        if session.to_move() == -1:
            session.play_chance()
        else:
            session.play_agent()
    legal = game.legal_actions(session.state)

    def continue_after(action: int) -> list[int]:
        session.play_text(game.action_to_string(session.state, int(action)))
        while session.to_move() == -1:
            session.play_chance()
        return list(session.actions)

    before = len(session.actions)
    first = continue_after(legal[0])
    assert len(first) >= before + 2  # the move, then at least one draw
    assert session.undo() > 0
    assert continue_after(legal[0]) == first


def test_play_says_compiling_only_when_something_compiles():
    # the first game in this process may compile (an empty numba cache); the second cannot
    run(["play", "tictactoe", "--opponent", "minimax2"], ["quit"])
    status, text = run(["play", "tictactoe", "--opponent", "minimax2"], ["quit"])
    assert status == 0 and "game abandoned" in text
    assert "compil" not in text
