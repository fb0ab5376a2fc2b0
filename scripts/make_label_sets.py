"""Make the shipped deep alpha-beta label sets ``agents/data/<game>_labels.npz`` (seeded).

Positions: for game ``i`` of a seeded sequence, both sides play ``alphabeta:depth=2`` (tie-break
seed derived from ``--seed`` and ``i``) except that each move is uniformly random with probability
0.3 (so the games differ and reach unbalanced positions, as a learner's would); one decision ply
is drawn uniformly from plies 4 to the end, and the position there is kept if it has at least two
legal moves and was not kept before. Labels: :func:`mcts_envs.agents.evaluation.mistakes.search_labels` at the depth
of :data:`DEPTHS` (the position searched that many plies deep), tolerance 0.05.

Tantrix has no set: a chance draw follows every placement, so a label of each move is an
expectation over up to 40 tile draws, each searched, which makes deep labels about 40 times dearer.

Usage::

    python scripts/make_label_sets.py --positions 100 --seed 12 [GAME ...]

The shipped files were made with exactly that command (all three games).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from mcts_envs.agents.evaluation.mistakes import search_labels
from mcts_envs.agents.spec import make_agent
from mcts_envs.core.game import TERMINAL
from mcts_envs.core.registry import make_game

#: Search depth of the labels per game (about 1 s per position on one core in 2026-11).
DEPTHS = {"ultimate_tictactoe": 9, "ataxx": 5, "pentago_twist": 4}
RANDOM_MOVE_PROBABILITY = 0.3
FIRST_PLY = 4


def sample_positions(game_name: str, count: int, seed: int) -> np.ndarray:
    """``count`` distinct positions from seeded, partly random alpha-beta games."""
    game = make_game(game_name)
    seen: set[bytes] = set()
    states = []
    for index in range(100 * count):
        if len(states) == count:
            break
        generator = np.random.default_rng([seed, index])
        agent = make_agent("alphabeta:depth=2", seed=int(generator.integers(2**31)))
        state = game.initial_state()
        history = []
        while game.current_player(state) != TERMINAL and len(history) < 400:
            history.append(state)
            if generator.random() < RANDOM_MOVE_PROBABILITY:
                action = int(generator.choice(game.legal_actions(state)))
            else:
                action = agent.act_state(game, state)
            state = game.apply(state, action)
        if len(history) <= FIRST_PLY:
            continue
        chosen = history[int(generator.integers(FIRST_PLY, len(history)))]
        key = game.key(chosen)
        if len(game.legal_actions(chosen)) >= 2 and key not in seen:
            seen.add(key)
            states.append(chosen)
    return np.array(states, np.int64)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("games", nargs="*", default=sorted(DEPTHS))
    parser.add_argument("--positions", type=int, default=100)
    parser.add_argument("--seed", type=int, default=12)
    parser.add_argument("--out-dir", default="agents/data")
    args = parser.parse_args()
    for name in args.games:
        start = time.perf_counter()
        states = sample_positions(name, args.positions, args.seed)
        labels = search_labels(make_game(name), states, DEPTHS[name], seed=args.seed, progress=True)
        path = f"{args.out_dir}/{name}_labels.npz"
        labels.save(path)
        print(
            f"{name}: {len(states)} positions, {labels.source}, "
            f"{time.perf_counter() - start:.0f} s -> {path}"
        )


if __name__ == "__main__":
    main()
