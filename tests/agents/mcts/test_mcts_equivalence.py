"""MCTS decisions are pinned: the same seed gives the same move and the same root visit counts
on seeded positions of every game, under the per-game defaults and the other option paths
(expansion, rollouts, scores, final rule, solver off, cutoff, PUCT with an evaluator, a Python
rollout, the immediate-win check, tree reuse).

The expected digests were computed by the code before the MCTS configuration was unified (one
config, one translation); a refactor of the search's plumbing must leave them unchanged. Run this
file as a script to print the digests of the current code.
"""

from __future__ import annotations

import hashlib
import sys

import numpy as np
import pytest

import mcts_envs
from mcts_envs.agents.mcts import MCTSAgent
from mcts_envs.core.game import CHANCE, TERMINAL

ITERATIONS = 300
SEED = 11


def seeded_position(game, moves: int, seed: int) -> np.ndarray:
    """The initial state after ``moves`` seeded random plies (chance outcomes included), at a
    position where a player decides."""
    generator = np.random.default_rng(seed)
    state = game.initial_state()
    played = 0
    while True:
        player = game.current_player(state)
        if player == CHANCE:
            outcomes, probabilities = game.chance_outcomes(state)
            state = game.apply(state, int(generator.choice(outcomes, p=probabilities)))
            continue
        assert player != TERMINAL, "the seeded line ended the game: use fewer moves"
        if played == moves:
            return state
        state = game.apply(state, int(generator.choice(game.legal_actions(state))))
        played += 1


def uniform_evaluator(observations, masks):
    """Priors from the masks (favouring low actions) and a value from the observation sum."""
    priors = masks.astype(np.float64) * (1.0 + 1.0 / (1.0 + np.arange(masks.shape[1])))
    values = np.tanh(observations.reshape(len(observations), -1).sum(axis=1) * 0.01)
    return priors, values


def first_legal(game, state) -> int:
    """A Python rollout policy: the lowest legal action."""
    return int(game.legal_actions(state)[0])


def digest(result) -> str:
    """``action/simulations/children/hash of the sorted (action, visits) pairs``."""
    pairs = sorted(zip(result.actions.tolist(), result.visits.astype(int).tolist(), strict=True))
    key = hashlib.sha1(repr(pairs).encode()).hexdigest()[:10]
    return f"{result.action}/{result.simulations}/{len(pairs)}/{key}"


def play_and_inform(game, state: np.ndarray, agent: MCTSAgent, action: int) -> np.ndarray:
    """``state`` after ``action`` and the first listed outcome of every chance node that
    follows, each told to ``agent``."""
    state = game.apply(state, action)
    agent.inform(action)
    while game.current_player(state) == CHANCE:
        outcome = int(game.chance_outcomes(state)[0][0])
        state = game.apply(state, outcome)
        agent.inform(outcome)
    return state


def decisions(game_name: str, options: dict, moves: int = 4) -> list[str]:
    """Digests of two decisions of one agent: at a seeded position, then (tree reused) after
    its move and the opponent's lowest legal reply."""
    game = mcts_envs.make_game(game_name)
    state = seeded_position(game, moves, seed=3)
    agent = MCTSAgent(seed=SEED, iterations=ITERATIONS, **options)
    first = agent.search(game, state)
    out = [digest(first)]
    state = play_and_inform(game, state, agent, first.action)
    if game.current_player(state) == TERMINAL:
        return out
    state = play_and_inform(game, state, agent, int(game.legal_actions(state)[0]))
    if game.current_player(state) == TERMINAL:
        return out
    second = agent.search(game, state)
    out.append(digest(second) + ("/reused" if second.reused else "/new"))
    return out


#: The Ultimate Tic-Tac-Toe row before first-play urgency and heuristic child order: the
#: ``ultimate-*`` cases pin the option paths with it (their digests were computed then).
ULTIMATE_ROW_BEFORE = dict(first_play=None, expand_order="random")

CASES: dict[str, tuple[str, dict, int]] = {
    "ataxx-defaults": ("ataxx", {}, 4),
    "tictactoe-defaults": ("tictactoe", {}, 2),
    # the Tic-Tac-Toe row before expand=all: the same decisions as then
    "tictactoe-expand-one": ("tictactoe", dict(expand="one"), 2),
    "ultimate_tictactoe-defaults": ("ultimate_tictactoe", {}, 4),
    "ultimate-row-before": ("ultimate_tictactoe", ULTIMATE_ROW_BEFORE, 4),
    "pentago_twist-defaults": ("pentago_twist", {}, 4),
    # the Pentago Twist row before c=0.2: the same decisions as then
    "pentago_twist-c-0.1": ("pentago_twist", dict(c=0.1), 4),
    "tantrix-defaults": ("tantrix", {}, 4),
    "ultimate-generic": (
        "ultimate_tictactoe",
        dict(c=1.4, expand="one", rollout="random", scores="binary", final="visits")
        | ULTIMATE_ROW_BEFORE,
        4,
    ),
    "ultimate-expand-all": ("ultimate_tictactoe", dict(expand="all") | ULTIMATE_ROW_BEFORE, 4),
    "ultimate-minimax2": ("ultimate_tictactoe", dict(rollout="minimax2") | ULTIMATE_ROW_BEFORE, 4),
    "ultimate-cutoff": ("ultimate_tictactoe", dict(rollout_cutoff=3) | ULTIMATE_ROW_BEFORE, 4),
    "ultimate-final-mean": ("ultimate_tictactoe", dict(final="mean") | ULTIMATE_ROW_BEFORE, 4),
    "ultimate-no-solver": ("ultimate_tictactoe", dict(solver=False) | ULTIMATE_ROW_BEFORE, 4),
    "ultimate-no-win-check": ("ultimate_tictactoe", dict(win_check=False) | ULTIMATE_ROW_BEFORE, 4),
    "ultimate-no-reuse": ("ultimate_tictactoe", dict(reuse_tree=False) | ULTIMATE_ROW_BEFORE, 4),
    "ataxx-fractional": ("ataxx", dict(scores="fractional", rollout_cutoff=None, c=0.5), 4),
    "ataxx-puct": ("ataxx", dict(evaluator=uniform_evaluator, batch_size=4), 4),
    "ultimate-puct-noise": (
        "ultimate_tictactoe",
        dict(evaluator=uniform_evaluator, dirichlet_alpha=0.5, dirichlet_fraction=0.3, c_puct=2.0)
        | ULTIMATE_ROW_BEFORE,
        4,
    ),
    "tictactoe-python-rollout": (
        "tictactoe",
        dict(rollout=first_legal, rollout_cutoff=None, expand="one"),
        2,
    ),
    "tictactoe-win-in-one": ("tictactoe", {}, 5),
    "tantrix-memory": ("tantrix", dict(max_memory_mb=1.0), 4),
}

#: Digests computed by the code before the configuration refactor (``ultimate_tictactoe-defaults``:
#: the row with first-play urgency and heuristic child order, recorded when it became the row;
#: ``pentago_twist-defaults``: the row with ``c=0.2``, likewise).
EXPECTED: dict[str, list[str]] = {
    "ataxx-defaults": ["579/300/25/c82fbade50", "13/300/42/eaae81f5aa/reused"],
    "ataxx-fractional": ["32/300/25/5b757e3636", "19/300/54/8fe99413eb/reused"],
    "ataxx-puct": ["40/300/25/55fa61905e", "48/300/33/ffa65a8b0a/reused"],
    "pentago_twist-c-0.1": ["16/300/256/3d55e5e437", "12/300/240/119f5ce56e/reused"],
    "pentago_twist-defaults": ["16/300/256/dfde5c5fa9", "122/300/240/f2750bc5cb/reused"],
    "tantrix-defaults": ["61492/300/51/c52d82114c", "59502/300/1/fac7bebab1/new"],
    "tantrix-memory": ["61502/1/51/12c188d208", "57521/1/55/b45c35696c/new"],
    "tictactoe-defaults": ["4/300/7/d4544ffbff", "2/300/1/bf19d2d19c/reused"],
    "tictactoe-expand-one": ["4/300/7/343fd89165", "2/2/1/b5b0e46938/reused"],
    "tictactoe-python-rollout": ["6/86/7/c290a0e998", "8/0/1/b72f7b851f/new"],
    "tictactoe-win-in-one": ["6/0/1/758138448b"],
    "ultimate-cutoff": ["20/300/8/8b8912a090", "9/300/8/fc3c6a8c66/reused"],
    "ultimate-expand-all": ["21/300/8/9a12f33cd8", "4/300/8/a95cf06cdf/reused"],
    "ultimate-final-mean": ["19/300/8/46fdf35f0c", "2/300/8/fe3c7453cd/reused"],
    "ultimate-generic": ["20/300/8/31ab154805", "15/300/8/f2ad936ff5/reused"],
    "ultimate-minimax2": ["19/300/8/a1626432ec", "3/300/8/55f15f949f/reused"],
    "ultimate-no-reuse": ["19/300/8/46fdf35f0c", "8/300/8/b491651e88/new"],
    "ultimate-no-solver": ["19/300/8/46fdf35f0c", "2/300/8/fe3c7453cd/reused"],
    "ultimate-no-win-check": ["19/300/8/46fdf35f0c", "2/300/8/fe3c7453cd/reused"],
    "ultimate-puct-noise": ["19/300/8/a2ffc943c9", "5/300/8/0e2c3e844e/reused"],
    "ultimate-row-before": ["19/300/8/46fdf35f0c", "2/300/8/fe3c7453cd/reused"],
    "ultimate_tictactoe-defaults": ["23/300/8/223c6f9118", "6/300/8/d384efb646/reused"],
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_decisions_match_the_recorded_ones(case):
    game_name, options, moves = CASES[case]
    assert decisions(game_name, options, moves) == EXPECTED[case]


if __name__ == "__main__":
    names = sys.argv[1:] or sorted(CASES)
    for name in names:
        game_name, options, moves = CASES[name]
        print(f"    {name!r}: {decisions(game_name, options, moves)!r},", flush=True)
