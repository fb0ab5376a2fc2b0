"""The action mapping between our Ultimate Tic-Tac-Toe and OpenSpiel's, against OpenSpiel itself."""

from __future__ import annotations

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from experiments.openspiel_agent import (  # noqa: E402
    apply_ours,
    free_move,
    from_openspiel,
    make_game,
    to_openspiel,
)
from mcts_envs.core.game import TERMINAL  # noqa: E402


def openspiel_moves(os_state) -> set[int]:
    """Every whole move OpenSpiel allows, in our encoding (board then cell on a free move)."""
    if not free_move(os_state):
        line = str(os_state).rstrip().rsplit("\n", 1)[-1]
        board = int(line.split(":")[-1])
        return {from_openspiel(board, cell) for cell in os_state.legal_actions()}
    moves = set()
    for board in os_state.legal_actions():
        child = os_state.clone()
        child.apply_action(board)
        assert child.current_player() == os_state.current_player()  # same player picks the cell
        moves |= {from_openspiel(board, cell) for cell in child.legal_actions()}
    return moves


def test_encoding_round_trip():
    for action in range(81):
        board, cell = to_openspiel(action, True)
        assert from_openspiel(board, cell) == action
        assert to_openspiel(action, False) == [action % 9]


@pytest.mark.parametrize("seed", range(6))
def test_random_games_agree_move_by_move(seed):
    """Random games played in both engines in lockstep: same legal moves at every turn, same
    player to move, same end and winner."""
    game = make_game("ultimate_tictactoe")
    os_game = pyspiel.load_game("ultimate_tic_tac_toe")
    rng = np.random.default_rng(seed)
    state, os_state = game.initial_state(), os_game.new_initial_state()
    while game.current_player(state) != TERMINAL:
        assert not os_state.is_terminal()
        assert os_state.current_player() == game.current_player(state)
        legal = {int(a) for a in game.legal_actions(state)}
        assert legal == openspiel_moves(os_state)
        action = int(rng.choice(sorted(legal)))
        state = game.apply(state, action)
        apply_ours(os_state, action)
    assert os_state.is_terminal()
    assert list(os_state.returns()) == [float(r) for r in game.returns(state)]


def test_agent_plays_legal_moves_from_both_seats():
    from mcts_envs.agents.spec import make_agent

    game = make_game("ultimate_tictactoe")
    bot = make_agent("openspiel_mcts:simulations=20", seed=3)
    state = game.initial_state()
    bot.restart(state)
    rng = np.random.default_rng(0)
    while game.current_player(state) != TERMINAL:
        if game.current_player(state) == 0:
            action = bot.act_state(game, state)
            assert action in set(game.legal_actions(state).tolist())
        else:
            action = int(rng.choice(game.legal_actions(state)))
        state = game.apply(state, action)
        bot.inform(action)


def test_free_move_counts_both_decisions():
    """A free move is two OpenSpiel searches (board, then cell): the move's simulation count
    is their sum; a forced move is one search."""
    from mcts_envs.agents.spec import make_agent

    game = make_game("ultimate_tictactoe")
    bot = make_agent("openspiel_mcts:simulations=40", seed=5)
    state = game.initial_state()  # the first move is free
    bot.restart(state)
    action = bot.act_state(game, state)
    assert bot.last_search["simulations"] == 80
    state = game.apply(state, action)
    bot.inform(action)
    reply = int(game.legal_actions(state)[0])  # forced onto the board the cell pointed to
    state = game.apply(state, reply)
    bot.inform(reply)
    assert not free_move(bot.os_state)
    assert bot.act_state(game, state) in set(game.legal_actions(state).tolist())
    assert bot.last_search["simulations"] == 40


@pytest.mark.parametrize(
    "spec",
    [
        "openspiel_mcts:simulations=none",  # no budget at all
        "openspiel_mcts:simulations=0",
        "openspiel_mcts:simulations=none,seconds=0",
        "openspiel_mcts:seconds=-1",
    ],
)
def test_bad_budgets_are_refused(spec):
    from mcts_envs.agents.spec import make_agent
    from mcts_envs.core.errors import InvalidOptionError

    with pytest.raises(InvalidOptionError, match="openspiel_mcts"):
        make_agent(spec, seed=0)


def test_time_budget_plays_legal_moves():
    """``seconds`` alone (OpenSpiel's own clock) gives legal moves that follow the game."""
    from mcts_envs.agents.spec import make_agent

    game = make_game("ultimate_tictactoe")
    bot = make_agent("openspiel_mcts:simulations=none,seconds=0.005", seed=2)
    state = game.initial_state()
    bot.restart(state)
    for _ in range(6):
        action = bot.act_state(game, state)
        assert action in set(game.legal_actions(state).tolist())
        assert bot.last_search["simulations"] >= 1
        state = game.apply(state, action)
        bot.inform(action)


def test_search_stopped_after_one_simulation_still_moves():
    """OpenSpiel expands a node on its second visit: a search its clock stops after one
    simulation (a loaded machine) has a root without children. The agent searches again with
    enough simulations to give a move (here forced by a one-simulation budget)."""
    from mcts_envs.agents.spec import make_agent

    root = pyspiel.MCTSBot(
        pyspiel.load_game("ultimate_tic_tac_toe"),
        pyspiel.RandomRolloutEvaluator(1, 0), 2.0, 1, 100, True, 0, False,
    ).mcts_search(pyspiel.load_game("ultimate_tic_tac_toe").new_initial_state())  # fmt: skip
    assert root.best_child() is None  # OpenSpiel's own behaviour, which the agent works around
    game = make_game("ultimate_tictactoe")
    bot = make_agent("openspiel_mcts:simulations=1", seed=0)
    state = game.initial_state()
    bot.restart(state)
    assert bot.act_state(game, state) in set(game.legal_actions(state).tolist())
