"""Env modules, one per game (``<game>_v<N>.py``), found and imported by ``mcts_envs``."""
