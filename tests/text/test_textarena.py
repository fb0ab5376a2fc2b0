"""The games in TextArena: its own make / reset / get_observation / step / close loop plays them."""

from __future__ import annotations

import numpy as np
import pytest

import mcts_envs
from mcts_envs import InvalidOptionError
from mcts_envs.agents import make_agent
from mcts_envs.text.textarena import register_textarena, textarena_id

ta = pytest.importorskip("textarena")


class SearchTextAgent(ta.Agent):
    """A TextArena agent that reads the position from the prompt's last ``Record:`` line and
    answers with one of our agents' moves, in prose."""

    def __init__(self, game_name: str, spec: str, seed: int):
        self.game = mcts_envs.make_game(game_name)
        self.agent = make_agent(spec, seed=seed)

    def __call__(self, observation: str) -> str:
        line = [row for row in observation.splitlines() if row.startswith("Record: ")][-1]
        state = self.game.from_text(line.removeprefix("Record: "))
        action = self.agent.act_state(self.game, state)
        return f"After some thought I play {self.game.action_to_string(state, action)}."


def play(env_id, agents, seed, **kwargs):
    """TextArena's own loop; returns ``(rewards, game_info, steps)``."""
    env = ta.make(env_id, **kwargs)
    env.reset(num_players=len(agents), seed=seed)
    done, steps = False, 0
    while not done:
        player_id, observation = env.get_observation()
        assert isinstance(observation, str) and observation
        done, _ = env.step(action=agents[player_id](observation))
        steps += 1
    rewards, game_info = env.close()
    return rewards, game_info, steps


def test_every_game_is_registered():
    ids = register_textarena()
    assert ids == [textarena_id(name) for name in mcts_envs.list_games()]
    assert register_textarena() == ids  # again: no change
    assert "mcts_envs/tictactoe-v0-train" in ta.envs.registration.ENV_REGISTRY


@pytest.mark.parametrize("seed", range(4))
def test_whole_tictactoe_games_random_against_mcts(seed):
    register_textarena()
    agents = {
        seed % 2: SearchTextAgent("tictactoe", "random", seed),
        1 - seed % 2: SearchTextAgent("tictactoe", "mcts:iterations=200", seed),
    }
    rewards, game_info, steps = play("mcts_envs/tictactoe-v0", agents, seed)
    assert 5 <= steps <= 9
    assert sorted(rewards.values()) in ([-1, 1], [0, 0])
    assert rewards[seed % 2] <= 0, "MCTS with 200 iterations does not lose to random"
    assert not any(info["invalid_move"] for info in game_info.values())


@pytest.mark.parametrize("name", [g for g in mcts_envs.list_games() if g != "tictactoe"])
def test_capped_games_of_every_other_game(name):
    register_textarena()
    agents = {
        0: SearchTextAgent(name, "random", 1),
        1: SearchTextAgent(name, "mcts:iterations=20", 2),
    }
    # max_cycles is PettingZoo's: each agent makes at most 3 moves, 6 in all
    rewards, game_info, steps = play(textarena_id(name) + "-train", agents, seed=3, max_cycles=3)
    assert steps == 6 and rewards == {0: 0, 1: 0}
    assert game_info[0]["reason"] == "truncated (move limit)"


def test_an_invalid_answer_loses_in_textarena():
    register_textarena()
    agents = {0: lambda observation: "I would rather not.", 1: lambda observation: "b2"}
    rewards, game_info, steps = play("mcts_envs/tictactoe-v0", agents, seed=0)
    assert steps == 1 and rewards == {0: -1, 1: 1}
    assert game_info[0]["invalid_move"] and not game_info[1]["invalid_move"]
    assert "forfeited by an invalid answer" in game_info[0]["reason"]


def test_retry_shows_the_error_in_the_next_observation():
    register_textarena()
    seen = []

    def stubborn_then_right(observation):
        seen.append(observation)
        return "nothing" if len(seen) == 1 else "<move>b2</move>"

    env = ta.make("mcts_envs/tictactoe-v0-raw", invalid="retry", retries=1)
    env.reset(num_players=2, seed=0)
    for _ in range(2):
        _, observation = env.get_observation()
        env.step(action=stubborn_then_right(observation))
    assert any("Your last answer was invalid" in message for _, message, _ in seen[1])
    assert env.state.current_player_id == 1
    np.testing.assert_array_equal(
        env.text_env.game_state, mcts_envs.make_game("tictactoe").from_text(".../.x./... o")
    )


def test_textarena_refuses_other_player_counts():
    register_textarena()
    env = ta.make("mcts_envs/ataxx-v0")
    with pytest.raises(InvalidOptionError, match="num_players must be 2, got 3"):
        env.reset(num_players=3)
