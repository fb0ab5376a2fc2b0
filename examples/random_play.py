"""Random play through the PettingZoo AEC API, then the forward model behind it.

Run: ``python examples/random_play.py [game]`` (default ``ultimate_tictactoe``).
"""

from __future__ import annotations

import sys

import numpy as np

import mcts_envs


def main(name: str = "ultimate_tictactoe") -> None:
    env = mcts_envs.make(name, render_mode="ansi")
    env.reset(seed=3)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        action = None
        if not (terminated or truncated):
            action = env.action_space(agent).sample(obs["action_mask"])
        env.step(action)
    print(env.render())
    print("record:", env.unwrapped.record())

    # The forward model: what search agents use, no env copy needed.
    game = env.unwrapped.game
    state = game.initial_state()
    while not game.is_terminal(state):
        if game.current_player(state) == mcts_envs.CHANCE:
            outcomes, probabilities = game.chance_outcomes(state)
            state = game.apply(
                state, int(np.random.default_rng(0).choice(outcomes, p=probabilities))
            )
            continue
        legal = game.legal_actions(state)
        state = game.apply(state, int(legal[0]))  # always the first legal action
    print("first-legal-action game:", game.to_text(state), "returns", game.returns(state))


if __name__ == "__main__":
    main(*sys.argv[1:])
