"""The players: random, minimax2, alpha-beta, perfect (with its solver), oliver (Tantrix), and
the clients of outside players (a UAI engine, a language model). MCTS has a package of its own
(:mod:`mcts_envs.agents.mcts`). Players import the protocol and the game core only, never
evaluation or front ends."""
