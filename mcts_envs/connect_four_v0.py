"""`import mcts_envs.connect_four_v0`: the env module; game card in :mod:`mcts_envs.envs.connect_four_v0`."""

from mcts_envs.envs.connect_four_v0 import __doc__, env, raw_env  # noqa: F401  (the game card is the doc)

__all__ = ["env", "raw_env"]
