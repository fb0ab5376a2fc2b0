"""Reinforcement-learning views of the games: learners against opponents, SB3, self-play.

* :class:`~mcts_envs.rl.vector_env.LearnerVectorEnv`: a Gymnasium vector env of one seat against
  a batched opponent, on the compiled :class:`~mcts_envs.vector.VectorGame`;
* :mod:`~mcts_envs.rl.opponents`: random, policy and epsilon-noisy opponents (search agents:
  :func:`mcts_envs.agents.learned.rl.agent_opponent`);
* :func:`~mcts_envs.rl.exact.outcome_against_random`: the exact outcome of a deterministic
  policy against a random player (small games);
* :class:`~mcts_envs.rl.selfplay.OpponentPool`: frozen snapshots of a learner as opponents;
* :mod:`mcts_envs.rl.sb3` (needs the ``train`` extra): a Stable-Baselines3 ``VecEnv`` adapter
  that ``MaskablePPO`` trains on, a self-play callback and ``BoardCNN`` for ``CnnPolicy``;
* :mod:`mcts_envs.rl.rllib` (needs the ``rllib`` extra): the games as RLlib multi-agent envs for
  its action-masking module, and a self-play PPO config.
"""

from mcts_envs.rl.exact import ExactOutcome, outcome_against_random
from mcts_envs.rl.opponents import (
    OpponentView,
    epsilon_opponent,
    policy_opponent,
    random_opponent,
)
from mcts_envs.rl.selfplay import OpponentPool
from mcts_envs.rl.vector_env import LearnerVectorEnv

__all__ = [
    "ExactOutcome",
    "LearnerVectorEnv",
    "OpponentPool",
    "OpponentView",
    "epsilon_opponent",
    "outcome_against_random",
    "policy_opponent",
    "random_opponent",
]
