"""The text env's prompt after a position jump, from a set-up position and across chance draws:
the move number is the position's own, and only moves that are known are reported."""

from __future__ import annotations

import numpy as np
import pytest

import mcts_envs
import mcts_envs.text as text
from mcts_envs.core.constants import CHANCE
from mcts_envs.records import replay_states
from mcts_envs.text.history import MoveHistory, moves_played
from tests.agents.toy_games import ALL_TREES, CHANCE_GAME, TreeGame
from tests.text.test_text_env import play_middle_moves

GAMES = mcts_envs.list_games()


def middle_move(env):
    names = env.infos[env.agent_selection]["legal_moves"]
    return names[len(names) // 2]


@pytest.mark.parametrize("name", GAMES)
def test_the_position_counts_the_decisions_of_a_game_from_its_start(name):
    env = mcts_envs.make(name, raw=True)
    env.reset(seed=4)
    rng = np.random.default_rng(4)
    for decisions in range(25):
        if not env.agents or env.terminations[env.agent_selection]:
            break
        assert moves_played(env.game, env.game_state) == decisions == env.num_moves
        legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
        env.step(int(rng.choice(legal)))


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("jump", ["text env", "base env"])
def test_a_set_up_position_has_its_own_move_number_and_no_stale_moves(name, jump):
    source = text.env(name, seed=7)
    source.reset()
    play_middle_moves(source, 5)
    state = source.game_state
    env = text.env(name, seed=8)
    env.reset()
    play_middle_moves(env, 2)  # a game whose moves must not show after the jump
    set_up = env.set_game_state if jump == "text env" else env.base_env.set_game_state
    set_up(state)
    agent = env.agent_selection
    prompt = env.observe(agent)
    assert prompt.startswith(f"Rules of {name}:")  # a new game
    assert "Position before move 6:" in prompt
    assert "The game was set up at move 6: the moves before it are not known." in prompt
    assert "Your opponent" not in prompt and "No move has been played yet" not in prompt
    assert env.infos[agent]["legal_moves"] == list(text.legal_move_names(env.game, env.game_state))
    assert env.record()["answers"] == [] and env.record()["actions"] == []
    move = middle_move(env)
    env.step(move)
    assert env.record()["answers"][0]["move_number"] == 6
    other = env.agent_selection
    if other != agent:  # Tantrix: the same agent may move again (forced fills)
        prompt = env.observe(other)
        assert "Position before move 7:" in prompt
        assert f"Your opponent's last move: {move}\n" in prompt
        assert "set up" not in prompt.replace("since the game was set up", "")


def test_set_game_state_is_refused_before_reset_and_for_bad_states():
    env = text.env("tictactoe")
    with pytest.raises(mcts_envs.EnvUsageError, match="reset"):
        env.set_game_state(env.game.initial_state())
    env.reset()
    env.step("b2")
    bad = env.game_state.copy()
    bad[:] = 7
    with pytest.raises(mcts_envs.core.errors.InvalidRecordError):
        env.set_game_state(bad)
    assert "Your opponent's last move: b2" in env.observe("player_1")  # nothing changed


def expected_past(record, seat):
    """The opponent's moves and the chance outcomes since ``seat``'s last decision (or since the
    start), named, from the record alone."""
    game, states = replay_states(record)
    actions = [
        (
            CHANCE if index in record["chance"] else game.current_player(states[index]),
            game.action_to_string(states[index], action),
        )
        for index, action in enumerate(record["actions"])
    ]
    own = [index for index, (player, _) in enumerate(actions) if player == seat]
    since = actions[own[-1] + 1 :] if own else actions
    return (
        [name for player, name in since if player == 1 - seat],
        [name for player, name in since if player == CHANCE],
        bool(own),
    )


def test_tantrix_prompts_report_the_draws_between_decisions_in_order():
    env = text.env("tantrix", seed=4)  # forced fills: one agent makes decisions 6, 7 and 8
    env.reset()
    agent = env.agent_selection
    prompt = env.observe(agent)
    opponent, deal, known = expected_past(env.record(), env.possible_agents.index(agent))
    assert len(deal) == 12 and not opponent and not known
    assert "Position before move 1:" in prompt
    assert "No move has been played yet." in prompt
    assert f"Chance outcomes so far (in order): {', '.join(deal)}\n" in prompt
    seen_both_draws = seen_own_turn_again = False
    for decisions in range(1, 10):
        play_middle_moves(env, 1)
        agent = env.agent_selection
        seat = env.possible_agents.index(agent)
        prompt = env.observe(agent)
        assert f"Position before move {decisions + 1}:" in prompt
        opponent, chance, known = expected_past(env.record(), seat)
        assert known or decisions == 1  # the second seat's first decision: all since the start
        if len(opponent) == 1:
            assert f"Your opponent's last move: {opponent[0]}\n" in prompt
        elif opponent:
            assert f"Your opponent's moves: {', '.join(opponent)}\n" in prompt
        else:
            assert "Your opponent" not in prompt
            seen_own_turn_again = True
        since = "since your last move" if known else "so far"
        assert f"Chance outcomes {since} (in order): {', '.join(chance)}\n" in prompt
        seen_both_draws |= len(chance) >= 2  # its own draw, then the opponent's
    assert seen_both_draws and seen_own_turn_again


def test_a_set_up_tantrix_chance_node_is_drawn_through_and_reported():
    env = text.env("tantrix", seed=5)
    env.reset()
    play_middle_moves(env, 3)
    record = env.record()
    _, states = replay_states(record)
    chance_node = states[record["chance"][-1]]  # before the last draw
    assert env.game.current_player(chance_node) == CHANCE
    env.set_game_state(chance_node)
    prompt = env.observe(env.agent_selection)
    (draw,) = env.base_env.history
    assert "Position before move 4:" in prompt
    name = env.game.action_to_string(chance_node, draw)
    assert f"Chance outcomes since the game was set up (in order): {name}\n" in prompt


@pytest.mark.parametrize("name", ["tictactoe", "tantrix"])
def test_following_a_history_gives_the_prompts_of_the_game_played_through_the_env(name):
    env = text.env(name, seed=2)
    env.reset()
    play_middle_moves(env, 3)
    record = env.record()
    history = MoveHistory(env.game)
    history.restart(env.game.from_text(record["initial"]))
    for action in record["actions"]:
        history.inform(action)
    np.testing.assert_array_equal(history.state, env.game_state)
    follower = text.env(name, seed=9)
    follower.reset()
    play_middle_moves(follower, 1)  # another game, forgotten
    follower.follow(history)
    for agent in env.possible_agents:
        assert follower.observe(agent) == env.observe(agent)
        assert follower.infos[agent]["legal_moves"] == env.infos[agent]["legal_moves"]
    assert len(history.moves) == len(record["actions"])  # not changed by follow
    move = middle_move(env)
    env.step(move)
    follower.step(move)  # answers go on from there
    if name == "tictactoe":  # (in Tantrix each env draws the next tile itself)
        for agent in env.possible_agents:
            assert follower.observe(agent) == env.observe(agent)
    assert follower.record()["answers"][0]["move_number"] == 4


def test_follow_refuses_another_games_history():
    env = text.env("tictactoe")
    env.reset()
    with pytest.raises(mcts_envs.InvalidOptionError, match="follows ataxx"):
        env.follow(MoveHistory(mcts_envs.make_game("ataxx")))


def test_a_game_without_move_counters_or_json_view_is_followed_from_its_start():
    # A Game of its own (no JSON view, a position that does not count its decisions): the
    # history counts the decisions it was informed of.
    game = TreeGame(ALL_TREES.index(CHANCE_GAME))
    history = MoveHistory(game)
    assert game.moves_played(history.state) is None and history.start_moves == 0
    decisions = 0
    while not game.is_terminal(history.state):
        assert history.move_number() == decisions + 1
        player = game.current_player(history.state)
        if player == CHANCE:
            history.inform(int(game.chance_outcomes(history.state)[0][-1]))
        else:
            history.inform(int(game.legal_actions(history.state)[-1]))
            decisions += 1
    assert history.move_number() == decisions + 1 == 3  # two decisions around a draw
    assert any(move.player == CHANCE for move in history.moves)
