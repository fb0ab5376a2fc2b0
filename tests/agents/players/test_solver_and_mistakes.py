"""The exact Tic-Tac-Toe solver, the perfect agent and mistake rates, against an independent
brute-force reference written here from RULES.md section 1 (plain tuples, no package code)."""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest

import mcts_envs
from mcts_envs.agents.evaluation.arena import play_match
from mcts_envs.agents.evaluation.mistakes import (
    LabelledPositions,
    exact_labels,
    load_shipped_labels,
    mistake_rate,
    shipped_label_games,
)
from mcts_envs.agents.evaluation.plan import plan_match
from mcts_envs.agents.players.perfect import PerfectAgent
from mcts_envs.agents.players.solver import TooManyPositionsError, shipped_solution, solve_game
from mcts_envs.agents.spec import make_agent
from mcts_envs.core.errors import InvalidOptionError
from tests.agents.toy_games import ALL_TREES, TreeGame, expectimax

LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


def _winner(board):
    for a, b, c in LINES:
        if board[a] != 0 and board[a] == board[b] == board[c]:
            return board[a]
    return 0


def _to_move(board):
    return 1 if board.count(1) == board.count(2) else 2


@cache
def _reference_value(board):
    """Exact value for X (+1 X wins, -1 O wins) by plain minimax over tuples."""
    winner = _winner(board)
    if winner:
        return 1 if winner == 1 else -1
    if 0 not in board:
        return 0
    mover = _to_move(board)
    children = [
        _reference_value((*board[:i], mover, *board[i + 1 :])) for i in range(9) if board[i] == 0
    ]
    return max(children) if mover == 1 else min(children)


def _reference_positions():
    seen, frontier = {(0,) * 9}, [(0,) * 9]
    while frontier:
        board = frontier.pop()
        if _winner(board) or 0 not in board:
            continue
        mover = _to_move(board)
        for i in range(9):
            if board[i] == 0:
                child = (*board[:i], mover, *board[i + 1 :])
                if child not in seen:
                    seen.add(child)
                    frontier.append(child)
    return seen


@pytest.fixture(scope="module")
def game():
    return mcts_envs.make_game("tictactoe")


@pytest.fixture(scope="module")
def solved(game):
    return solve_game(game)


def _board(game, state):
    return tuple(int(v) for v in game.board(state).ravel())


def test_solver_reaches_the_published_counts(solved):
    assert len(solved) == 5478
    assert len(solved.decision_rows()) == 4520
    assert solved.games[0].tolist() == [131184, 77904, 46080]
    assert solved.games[0].sum() == 255168
    assert solved.values[0] == 0.0  # perfect play draws


def test_solver_values_match_an_independent_minimax(game, solved):
    positions = _reference_positions()
    assert {_board(game, s) for s in solved.states} == positions
    for row, state in enumerate(solved.states):
        board = _board(game, state)
        assert solved.values[row] == _reference_value(board)
        if solved.to_move[row] >= 0:
            mover = _to_move(board)
            sign = 1 if mover == 1 else -1
            values = solved.move_values(state)
            for cell in range(9):
                if board[cell] == 0:
                    child = (*board[:cell], mover, *board[cell + 1 :])
                    assert values[cell] == sign * _reference_value(child)
                else:
                    assert np.isnan(values[cell])


def test_shipped_solution_equals_a_fresh_solve(game, solved):
    shipped = shipped_solution(game)
    assert shipped is not None
    assert np.array_equal(shipped.states, solved.states)
    assert np.array_equal(shipped.values, solved.values)
    assert np.array_equal(shipped.games, solved.games)
    assert np.array_equal(shipped.action_values, solved.action_values, equal_nan=True)


def test_solver_refuses_large_games_and_cycles():
    with pytest.raises(TooManyPositionsError, match="more than 500"):
        solve_game(mcts_envs.make_game("ultimate_tictactoe"), max_positions=500)
    agent = make_agent("perfect:max_positions=300", seed=0)
    uttt = mcts_envs.make_game("ultimate_tictactoe")
    with pytest.raises(TooManyPositionsError, match="small games such as tictactoe"):
        agent.act_state(uttt, uttt.initial_state())
    with pytest.raises(InvalidOptionError, match="cycles"):
        solve_game(_CycleGame())


class _CycleGame:
    """Two positions that lead to each other (the smallest game with a cycle)."""

    class info:  # noqa: N801 - mimics GameInfo
        name, max_game_length, num_actions = "cycle", 4, 1

    def initial_state(self):
        return np.zeros(1, np.int64)

    def key(self, state):
        return state.tobytes()

    def current_player(self, state):
        return int(state[0])

    def legal_actions(self, state):
        return np.zeros(1, np.int64)

    def apply(self, state, action):
        return 1 - state


def test_solver_matches_expectimax_on_random_trees_with_chance():
    for index, _ in enumerate(ALL_TREES):
        tree_game = TreeGame(index)
        solved = solve_game(tree_game)
        for row, state in enumerate(solved.states):
            assert solved.values[row] == pytest.approx(expectimax(tree_game, state))


def test_perfect_agent_never_loses_and_draws_itself():
    against_random = play_match(plan_match("tictactoe", "perfect", "random", 40, seed=3))
    assert against_random.a.losses == 0 and against_random.a.wins >= 30
    against_itself = play_match(
        plan_match("tictactoe", "perfect", "perfect:tiebreak=first", 6, seed=3)
    )
    assert against_itself.a.draws == 6


def test_perfect_agent_from_an_unreached_text_position(game):
    agent = PerfectAgent(seed=0)
    # X to move can win at once in the top row (cell 2)
    state = game.from_text("xx./oo./... x")
    assert agent.act_state(game, state) == 2
    probs, value = agent.policy(game, state)
    assert value == 1.0 and probs[2] == 1.0


def test_mistake_rates_against_the_oracle(game, solved):
    labels = exact_labels(solved)
    assert len(labels) == 4520
    perfect = PerfectAgent(seed=1)
    report = mistake_rate(labels, perfect.act_state)
    assert report.mistakes == 0 and report.mistake_mass == 0.0
    # the uniform policy's mistake mass, counted directly from the reference
    expected = []
    for state in labels.states:
        board = _board(game, state)
        mover = _to_move(board)
        sign = 1 if mover == 1 else -1
        children = [
            sign * _reference_value((*board[:i], mover, *board[i + 1 :]))
            for i in range(9)
            if board[i] == 0
        ]
        expected.append(sum(v < max(children) for v in children) / len(children))
    uniform = make_agent("random", seed=0)
    report = mistake_rate(labels, lambda g, s: uniform.policy(g, s)[0])
    assert report.mistake_mass == pytest.approx(np.mean(expected))
    assert 0 < report.interval[0] <= report.rate <= report.interval[1]
    shallow = mistake_rate(labels, make_agent("minimax2", seed=0).act_state)
    assert shallow.mistakes > 0


def test_labelled_positions_round_trip(tmp_path, solved):
    labels = exact_labels(solved)
    labels.save(tmp_path / "labels.npz")
    loaded = LabelledPositions.load(tmp_path / "labels.npz")
    assert np.array_equal(loaded.states, labels.states)
    assert np.array_equal(loaded.action_values, labels.action_values, equal_nan=True)
    with np.load(tmp_path / "labels.npz") as data:  # plain numpy, texts readable
        assert str(data["texts"][0]) == mcts_envs.make_game("tictactoe").to_text(labels.states[0])


@pytest.mark.parametrize("name", shipped_label_games())
def test_shipped_label_sets_fit_their_games(name):
    game = mcts_envs.make_game(name)
    labels = load_shipped_labels(name)
    assert len(labels) >= 50 and labels.source.startswith("alphabeta:depth=")
    for row, state in enumerate(labels.states):
        legal = ~np.isnan(labels.action_values[row])
        assert np.array_equal(legal.astype(np.int8), game.action_mask(state))
        assert np.all(np.abs(labels.action_values[row][legal]) <= 1.0)
    random_report = mistake_rate(labels, make_agent("random", seed=0).act_state)
    assert random_report.mistakes > 0


def test_shipped_labels_cover_the_search_games_and_refuse_others():
    assert set(shipped_label_games()) >= {"ultimate_tictactoe", "ataxx", "pentago_twist"}
    with pytest.raises(InvalidOptionError, match="available"):
        load_shipped_labels("tantrix")
