"""Alpha-beta on every registered game: root values against a plain expectiminimax over the public
Game API (with the options that keep minimax values, principal variation search, aspiration
windows, killers and history on and off), reproducible decisions, and the compiled search loaded
from numba's disk cache."""

from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
import pytest

import mcts_envs
from mcts_envs.agents.players.alphabeta import (
    HEURISTIC_SCALE,
    MATE_STEP,
    MINIMAX_EQUIVALENT,
    AlphaBetaAgent,
)
from mcts_envs.core.game import CHANCE, TERMINAL
from tests.core.test_game_laws import random_states
from tests.fresh_process import second_run_cache_counts

ROOT = Path(__file__).resolve().parents[3]
GAMES = mcts_envs.list_games()
#: Depths checked per game: the reference is plain Python over the API, so games with hundreds
#: of moves per position are checked at depth 1 only (any other game at depths 1 and 2).
DEPTHS = {"tictactoe": (1, 2, 3), "pentago_twist": (1,), "tantrix": (1,)}
#: Random games per game name; positions are drawn from each.
NUM_GAMES = 6
POSITIONS_PER_GAME = 4


def reference_value(game, state, depth: int, ply: int) -> float:
    """Plain depth-limited expectiminimax, player 0's view, with alpha-beta's documented
    conventions: terminal results shrink by ``MATE_STEP`` per ply, the depth limit scores
    ``HEURISTIC_SCALE * (h0 - h1)``, chance nodes average their outcomes and are not a ply."""
    player = game.current_player(state)
    if player == TERMINAL:
        value = float(game.returns(state)[0])
        return value - np.sign(value) * MATE_STEP * ply
    if depth <= 0:
        return HEURISTIC_SCALE * (game.heuristic(state, 0) - game.heuristic(state, 1))
    if player == CHANCE:
        outcomes, probabilities = game.chance_outcomes(state)
        return sum(
            float(p) * reference_value(game, game.apply(state, int(o)), depth, ply + 1)
            for o, p in zip(outcomes, probabilities, strict=True)
        )
    values = [
        reference_value(game, game.apply(state, int(a)), depth - 1, ply + 1)
        for a in game.legal_actions(state)
    ]
    return max(values) if player == 0 else min(values)


def decision_positions(game, seed: int) -> list[np.ndarray]:
    """Positions with a player to move, drawn from ``NUM_GAMES`` seeded random games."""
    generator = np.random.default_rng(seed)
    positions = []
    for game_seed in range(seed, seed + NUM_GAMES):
        states = [s for s in random_states(game, game_seed) if game.current_player(s) in (0, 1)]
        picks = generator.choice(len(states), min(POSITIONS_PER_GAME, len(states)), replace=False)
        positions.extend(states[i] for i in sorted(picks))
    return positions


@pytest.mark.parametrize("name", GAMES)
def test_root_value_and_move_equal_plain_expectiminimax(name):
    game = mcts_envs.make_game(name)
    # its table and history are kept throughout; narrow aspiration windows fail and re-search
    kept = AlphaBetaAgent(
        seed=1, depth=1, table_size=1 << 10, aspiration=0.001, **MINIMAX_EQUIVALENT
    )
    plain = {"pvs": False, "killers": False, "history": False, **MINIMAX_EQUIVALENT}
    for index, state in enumerate(decision_positions(game, seed=100)):
        sign = 1.0 if game.current_player(state) == 0 else -1.0
        for depth in DEPTHS.get(name, (1, 2)):
            expected = reference_value(game, state, depth, 0)
            kept.depth = depth
            for agent in (AlphaBetaAgent(seed=index, depth=depth, **plain), kept):
                result = agent.search(game, state)
                where = (name, index, depth, game.to_text(state))
                assert sign * result.value == pytest.approx(expected, abs=1e-12), where
                chosen = reference_value(game, game.apply(state, result.action), depth - 1, 1)
                assert chosen == pytest.approx(expected, abs=1e-12), where


@pytest.mark.parametrize("name", GAMES)
def test_decisions_are_reproducible(name):
    game = mcts_envs.make_game(name)
    for state in decision_positions(game, seed=200)[:8]:
        results = []
        for _ in range(2):
            agent = AlphaBetaAgent(seed=3, depth=2)
            result = agent.search(game, state)
            line = agent.principal_variation(game, state, 4)
            results.append((result.action, result.value, result.nodes, result.depth, line))
        assert results[0] == results[1]


def test_a_new_process_loads_the_search_from_the_disk_cache():
    # One decision with a depth and one with a time budget (the clock is read in the compiled
    # search); the second process must compile nothing at all (the old recursive search was
    # compiled again in every process).
    code = textwrap.dedent(
        """
        import mcts_envs
        from mcts_envs.agents.players.alphabeta import AlphaBetaAgent, search_root
        from mcts_envs.core.compiling import compile_notice
        game = mcts_envs.make_game("tictactoe")
        with compile_notice("alpha-beta", lambda _text: None) as status:
            AlphaBetaAgent(seed=0, depth=3).search(game, game.initial_state())
            AlphaBetaAgent(seed=0, seconds=0.05).search(game, game.initial_state())
        hits = sum(search_root.stats.cache_hits.values())
        print(hits, sum(search_root.stats.cache_misses.values()) + status["compiled"])
        """
    )
    hits, misses = second_run_cache_counts(code, timeout=600, cwd=ROOT)
    assert hits > 0 and misses == 0
