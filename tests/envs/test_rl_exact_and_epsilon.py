"""Exact outcome against random (checked against a plain recursive oracle over the full game tree)
and epsilon-noisy opponents."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

import mcts_envs
from mcts_envs.core.errors import IllegalActionError, InvalidOptionError
from mcts_envs.rl import epsilon_opponent, outcome_against_random, policy_opponent
from mcts_envs.rl.opponents import OpponentView


def first_legal(observation, mask):
    return mask.argmax(axis=1)


def centre_then_last(observation, mask):
    """Takes the centre when free, else the highest legal cell (another deterministic policy)."""
    picks = mask.shape[1] - 1 - mask[:, ::-1].argmax(axis=1)
    return np.where(mask[:, 4], 4, picks)


def oracle(game, policy, seat, state=None):
    """[win, draw, loss] as exact fractions: plain recursion, no memo, no batching."""
    state = game.initial_state() if state is None else state
    player = game.current_player(state)
    if game.is_terminal(state):
        ret = game.returns(state)[seat]
        return [Fraction(int(ret > 0)), Fraction(int(ret == 0)), Fraction(int(ret < 0))]
    if player == seat:
        obs = game.observation(state, seat)[None]
        mask = game.action_mask(state).astype(bool)[None]
        return oracle(game, policy, seat, game.apply(state, int(policy(obs, mask)[0])))
    legal = game.legal_actions(state)
    total = [Fraction(0)] * 3
    for action in legal:
        sub = oracle(game, policy, seat, game.apply(state, int(action)))
        total = [t + s / len(legal) for t, s in zip(total, sub, strict=True)]
    return total


@pytest.mark.parametrize("policy", [first_legal, centre_then_last])
@pytest.mark.parametrize("seat", [0, 1])
def test_exact_outcome_matches_a_recursive_oracle(policy, seat):
    game = mcts_envs.make_game("tictactoe")
    got = outcome_against_random(game, policy, seat)
    want = oracle(game, policy, seat)
    assert [got.win, got.draw, got.loss] == pytest.approx([float(x) for x in want], abs=1e-12)
    assert got.win + got.draw + got.loss == pytest.approx(1.0)
    assert got.decisions > 0
    assert (got.losing_lines == 0) == (want[2] == 0)


def test_a_perfect_policy_never_loses_and_blunders_are_found():
    from mcts_envs.agents.players.perfect import PerfectAgent

    game = mcts_envs.make_game("tictactoe")
    perfect = PerfectAgent(seed=0, tiebreak="first")
    # the policy sees observations only: find the position of each (unique in Tic-Tac-Toe)
    solved = perfect.solution(game)
    by_obs = {
        game.observation(solved.states[row], game.current_player(solved.states[row])).tobytes(): row
        for row in solved.decision_rows()
    }

    def play(observation, mask):
        return np.array(
            [perfect.act_state(game, solved.states[by_obs[o.tobytes()]]) for o in observation]
        )

    for seat in (0, 1):
        result = outcome_against_random(game, play, seat)
        assert result.loss == 0.0 and result.losing_lines == 0
        assert result.win > 0.5
    assert outcome_against_random(game, first_legal, 1).loss > 0.4


def test_exact_outcome_rejects_bad_input():
    game = mcts_envs.make_game("tictactoe")
    with pytest.raises(InvalidOptionError, match="seat"):
        outcome_against_random(game, first_legal, 2)
    with pytest.raises(IllegalActionError, match="illegal action"):
        outcome_against_random(game, lambda obs, mask: np.zeros(len(mask), np.int64), 0)
    with pytest.raises(InvalidOptionError, match="too large"):
        outcome_against_random(mcts_envs.make_game("ultimate_tictactoe"), first_legal, 0, 500)


def view_of(masks: np.ndarray) -> OpponentView:
    n = len(masks)
    game = mcts_envs.make_game("tictactoe")
    return OpponentView(
        np.zeros((n, 3, 3, 2), np.int8), masks, np.zeros((n, 1), np.int64),
        np.arange(n), np.zeros(n, np.int64), game,
    )  # fmt: skip


def test_epsilon_opponent_mixes_random_moves_into_its_base():
    masks = np.ones((4000, 9), bool)
    masks[:, 0] = False  # the base (first legal) always plays 1
    base = policy_opponent(first_legal)
    assert (epsilon_opponent(base, 0.0, seed=1)(view_of(masks)) == 1).all()
    noisy = epsilon_opponent(base, 0.5, seed=1)(view_of(masks))
    assert masks[np.arange(4000), noisy].all()
    # a random move is 1 with probability 1/8: 0.5 + 0.5 / 8 of the moves are 1
    assert (noisy == 1).mean() == pytest.approx(0.5625, abs=0.03)
    uniform = epsilon_opponent(base, 1.0, seed=1)(view_of(masks))
    assert np.bincount(uniform, minlength=9)[0] == 0
    assert np.bincount(uniform, minlength=9)[1:].min() > 400
    again = epsilon_opponent(base, 0.5, seed=1)
    again.reset(1)
    np.testing.assert_array_equal(again(view_of(masks)), noisy)
    with pytest.raises(InvalidOptionError, match="epsilon"):
        epsilon_opponent(base, 1.5)
