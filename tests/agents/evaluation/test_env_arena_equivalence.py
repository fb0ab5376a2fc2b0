"""The arena (forward model) and a plain PettingZoo loop play the same game for the same seeds."""

from __future__ import annotations

import pytest

import mcts_envs
from mcts_envs.agents import make_agent
from mcts_envs.agents.evaluation.games import GameRules, play_game
from mcts_envs.agents.evaluation.plan import plan_match

CASES = [
    ("tictactoe", "mcts:iterations=40,reuse_tree=false", "alphabeta:depth=2"),
    ("ultimate_tictactoe", "mcts:iterations=40,reuse_tree=false", "random"),
    ("ataxx", "minimax2", "random"),
    ("tantrix", "random", "random"),  # chance draws: the env's np_random against the arena's
]


def env_loop_actions(game_name, specs_by_seat, seeds_by_seat, chance_seed):
    env = mcts_envs.make(game_name)
    env.reset(seed=chance_seed)
    agents = {
        f"player_{seat}": make_agent(spec, seed=seed)
        for seat, (spec, seed) in enumerate(zip(specs_by_seat, seeds_by_seat, strict=True))
    }
    for agent in env.agent_iter(5000):
        _, _, terminated, truncated, _ = env.last(observe=False)
        env.step(None if terminated or truncated else agents[agent].act(env))
    return env.unwrapped.record()


@pytest.mark.parametrize(("game_name", "spec_a", "spec_b"), CASES)
@pytest.mark.parametrize("index", [0, 1])
def test_env_and_arena_play_the_same_game(game_name, spec_a, spec_b, index):
    task = plan_match(GameRules(game_name), spec_a, spec_b, 2, seed=17).tasks[index]
    record = play_game(task, GameRules(game_name))
    seeds = task.seeds
    seed_a, seed_b, seed_chance = seeds
    seat_a = index % 2
    specs = (spec_a, spec_b) if seat_a == 0 else (spec_b, spec_a)
    agent_seeds = (seed_a, seed_b) if seat_a == 0 else (seed_b, seed_a)
    from_env = env_loop_actions(game_name, specs, agent_seeds, seed_chance)
    assert from_env["actions"] == record["actions"]
    assert from_env["chance"] == record["chance"]
    assert from_env["returns"] == record["returns"]
    assert from_env["final"] == record["final"]
