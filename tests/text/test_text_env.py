"""The text env: PettingZoo conformance, prompts, infos, the parser and the invalid-answer policy."""

from __future__ import annotations

import json

import numpy as np
import pytest
from pettingzoo.test import api_test

import mcts_envs
import mcts_envs.text as text
from mcts_envs import ActionTypeError, IllegalActionError, InvalidOptionError, ResetRequiredError

GAMES = mcts_envs.list_games()


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("invalid", ["lose", "retry"])
def test_api_test(name, invalid):
    env = text.env(name, invalid=invalid, retries=3 if invalid == "retry" else 0, seed=0)
    api_test(env, num_cycles=20)


def play_middle_moves(env, moves):
    """Answer ``moves`` times with prose naming the middle legal move."""
    for _ in range(moves):
        agent = env.agent_selection
        names = env.infos[agent]["legal_moves"]
        env.step(f"Thinking... {names[len(names) // 2]} looks best.")


@pytest.mark.parametrize("name", GAMES)
def test_prompts_and_infos_follow_the_base_env(name):
    env = text.env(name, seed=5)
    env.reset()
    game = env.game
    first = env.observe(env.agent_selection)
    assert first.startswith(f"Rules of {name}:") and "Legal moves (" in first
    assert "<move>" in first and game.to_text(env.game_state) in first
    assert env.observation_space(env.agent_selection).contains(first)
    play_middle_moves(env, 4)
    agent = env.agent_selection
    prompt = env.observe(agent)
    info = env.infos[agent]
    assert info["legal_moves"] == [
        game.action_to_string(env.game_state, int(a)) for a in game.legal_actions(env.game_state)
    ]
    assert all(move in prompt for move in info["legal_moves"][:5])
    np.testing.assert_array_equal(game.from_json(info["state_json"]), env.game_state)
    json.dumps(info)
    other = next(a for a in env.agents if a != agent)
    assert env.infos[other]["legal_moves"] == []
    assert f"{agent} is to move" in env.observe(other)
    record = env.record()
    assert [answer["error"] for answer in record["answers"]] == [None] * 4
    assert record["answers"][-1]["move"] in env.observe(agent)  # the opponent's last move


def test_rules_are_shown_once_and_the_opponent_move_every_turn():
    env = text.env("tictactoe", show_legal_moves=False)
    env.reset()
    env.step("<move>b2</move>")
    prompt = env.observe("player_1")
    assert prompt.startswith("Rules of tictactoe:") and "Legal moves" not in prompt
    assert "Your opponent's last move: b2" in prompt and "\n2 | . x . | 2\n" in prompt
    env.step("a1")
    prompt = env.observe("player_0")
    assert "Rules" not in prompt and "Your opponent's last move: a1" in prompt


@pytest.mark.parametrize(
    ("answer", "move"),
    [
        ("<move>b2</move>", "b2"),
        ("<MOVE>  B2 </Move>", "b2"),
        ("first <move>a1</move>, on second thought <move>c3</move>", "c3"),
        ("<move>a1</move> although b2 is tempting", "a1"),
        ("a1 or b2? I choose C3.", "c3"),
        ("Answer:\n\n  b1", "b1"),
        ("[a3]", "a3"),
    ],
)
def test_the_parser_reads_tags_then_the_last_move_named(answer, move):
    game = mcts_envs.make_game("tictactoe")
    state = game.initial_state()
    assert game.action_to_string(state, text.parse_move(game, state, answer)) == move


@pytest.mark.parametrize(
    ("answer", "words"),
    [
        ("<move>d4</move> (b2 would be fine too)", "'d4' is not a legal move"),
        ("I pass", "no legal move found in the answer 'I pass'"),
        ("ab2 and b22 and 3a3", "no legal move found"),
        ("", "no legal move found"),
    ],
)
def test_the_parser_refuses_answers_without_a_legal_move(answer, words):
    game = mcts_envs.make_game("tictactoe")
    with pytest.raises(IllegalActionError) as error:
        text.parse_move(game, game.initial_state(), answer)
    assert words in str(error.value)


def test_moves_inside_longer_moves_are_not_found():
    names = {"c5": 1, "a7c5": 2, "c4 tl rotate": 3, "c4 tl flip": 4}
    assert text.find_last_move("I jump a7c5", names) == "a7c5"
    assert text.find_last_move("c5, or rather A7C5", names) == "a7c5"
    assert text.find_last_move("a7c5? no: c5.", names) == "c5"
    assert text.find_last_move("C4  TL\nRotate", names) == "c4 tl rotate"
    assert text.find_last_move("c4 tl rotated", names) is None


def test_the_parser_reads_real_ataxx_and_pentago_answers():
    ataxx = mcts_envs.make_game("ataxx")
    state = ataxx.initial_state()
    jump = text.parse_move(ataxx, state, "jump: a7c5")
    assert ataxx.action_to_string(state, jump) == "a7c5"
    pentago = mcts_envs.make_game("pentago_twist")
    start = pentago.initial_state()
    action = text.parse_move(pentago, start, "<move>c4tlr</move>")  # the game's abbreviation
    assert pentago.action_to_string(start, action) == "c4 tl rotate"


def test_invalid_raise_changes_nothing_but_the_record():
    env = text.env("tictactoe", invalid="raise")
    env.reset()
    with pytest.raises(IllegalActionError, match="no legal move found"):
        env.step("hmm")
    assert env.agent_selection == "player_0" and not any(env.terminations.values())
    assert env.record()["answers"][0]["answer"] == "hmm"
    env.step("b2")
    assert env.agent_selection == "player_1"


def test_invalid_lose_forfeits():
    env = text.env("tictactoe")
    env.reset()
    env.step("b2")
    env.step("I resign, no move")
    assert env.rewards == {"player_0": 1.0, "player_1": -1.0}
    assert all(env.terminations.values())
    assert env.outcome() == {
        "returns": [1.0, -1.0],
        "reason": "player_1 forfeited by an invalid answer",
    }
    _, reward, terminated, _, info = env.last()
    assert terminated and info["legal_moves"] == []
    record = env.record()
    assert record["returns"] is None and record["forfeit"]["seat"] == 1
    assert record["forfeit"]["line"] == "I resign, no move"
    assert record["answers"][1]["error"].startswith("tictactoe: no legal move found")
    assert "forfeited" in env.observe("player_0")
    for _agent in env.agent_iter():
        env.step(None)
    assert env.agents == []


def test_invalid_retry_asks_again_with_the_error_then_forfeits():
    env = text.env("tictactoe", invalid="retry", retries=2)
    env.reset()
    env.step("<move>z9</move>")
    assert env.agent_selection == "player_0" and env.rewards == {"player_0": 0, "player_1": 0}
    prompt = env.observe("player_0")
    assert "Your last answer was invalid: tictactoe: 'z9' is not a legal move" in prompt
    assert "2 more invalid answers allowed" not in prompt and "1 more invalid answer " in prompt
    env.step("b2")  # a valid answer resets the count
    env.step("no")
    env.step("still no")
    assert env.agent_selection == "player_1" and not any(env.terminations.values())
    env.step("never")
    assert env.rewards == {"player_0": 1.0, "player_1": -1.0}
    answers = env.record()["answers"]
    assert [a["move"] for a in answers] == [None, "b2", None, None, None]
    assert env.record()["forfeit"]["line"] == "never"


def test_bad_options_and_answers_are_refused():
    with pytest.raises(InvalidOptionError, match="allowed: raise, lose, retry"):
        text.env("tictactoe", invalid="ignore")
    with pytest.raises(InvalidOptionError, match="needs invalid='retry'"):
        text.env("tictactoe", retries=2)
    with pytest.raises(InvalidOptionError, match="non-negative int"):
        text.env("tictactoe", invalid="retry", retries=-1)
    env = text.env("tictactoe")
    for call in (lambda: env.observe("player_0"), lambda: env.step("b2"), env.record):
        # the raw env's and SafeEnv's error (also PettingZoo's AssertionError)
        with pytest.raises(ResetRequiredError, match=r"text_tictactoe_v0: call reset\(\) before"):
            call()
    env.reset()
    with pytest.raises(ActionTypeError, match="an answer is a str, got int"):
        env.step(4)
    assert env.agent_selection == "player_0" and env.record()["answers"] == []


def test_non_ascii_answers_stay_inside_the_observation_space():
    env = text.env("tictactoe", invalid="retry", retries=1)
    env.reset()
    env.step("<move>\u00e9\u4e2d</move>")
    prompt = env.observe("player_0")
    assert env.observation_space("player_0").contains(prompt)


def test_a_seeded_text_env_replays_tantrix():
    prompts = []
    for _ in range(2):
        env = text.env("tantrix", seed=11)
        env.reset()
        play_middle_moves(env, 5)
        prompts.append(env.observe(env.agent_selection))
    assert prompts[0] == prompts[1]


def test_a_whole_game_ends_with_the_games_returns():
    env = text.env("tictactoe", seed=0)
    env.reset()
    while env.outcome() is None:
        play_middle_moves(env, 1)
    outcome = env.outcome()
    record = env.record()
    assert record["returns"] == outcome["returns"]
    game, states = mcts_envs.records.replay_states(record)
    np.testing.assert_array_equal(states[-1], env.game_state)
