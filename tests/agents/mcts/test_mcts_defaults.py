"""Per-game MCTS defaults (mcts_envs.agents.mcts.defaults): each game gets its row of the table for the
options a spec leaves out, an explicit option always wins, and the defaults change the search
exactly as writing the options out would."""

from __future__ import annotations

import dataclasses
import pickle

import numpy as np
import pytest

from mcts_envs.agents.mcts import MCTSAgent
from mcts_envs.agents.mcts.config import PER_GAME, MCTSConfig
from mcts_envs.agents.mcts.defaults import (
    GAME_DEFAULTS,
    GENERIC,
    defaults_for,
    resolve,
    spec_options,
)
from mcts_envs.agents.spec import describe_agent, make_agent
from mcts_envs.core.registry import list_games, make_game
from tests.agents.toy_games import TreeGame


def test_every_game_has_a_row():
    assert sorted(GAME_DEFAULTS) == sorted(list_games())


def test_explicit_options_win_over_the_table():
    agent = make_agent("mcts:iterations=16,c=0.7,rollout_cutoff=none,scores=fractional", seed=0)
    agent.prepare(make_game("ataxx"))
    assert (agent.config.c, agent.config.rollout_cutoff) == (0.7, None)
    assert agent.config.scores == "fractional"
    # an explicit value equal to the generic one is still explicit
    assert resolve(MCTSConfig(c=1.4, rollout_cutoff=None), "ataxx").c == 1.4
    assert resolve(MCTSConfig(c=1.4, rollout_cutoff=None), "ataxx").rollout_cutoff is None


def test_games_outside_the_table_get_the_generic_values():
    assert defaults_for("no such game") == GENERIC
    agent = MCTSAgent(iterations=50, seed=1)
    game = TreeGame(0)
    agent.act_state(game, game.initial_state())
    assert agent.config.c == GENERIC.c and agent.config.rollout_cutoff is None


@pytest.mark.parametrize("name", ["ataxx", "tictactoe"])
def test_defaults_search_exactly_as_the_written_out_options(name):
    """Same seed: the defaults give the same tree as the game's row written in the spec, so the
    table is what is applied (and nothing else)."""
    game = make_game(name)
    state = game.initial_state()
    plain = make_agent("mcts:iterations=300", seed=5).search(game, state)
    written = make_agent(f"mcts:iterations=300,{spec_options(defaults_for(name))}", seed=5).search(
        game, state
    )
    assert plain.action == written.action
    np.testing.assert_array_equal(plain.visits, written.visits)


def test_ataxx_defaults_differ_from_the_generic_search():
    game = make_game("ataxx")
    state = game.initial_state()
    ours = make_agent("mcts:iterations=300", seed=5).search(game, state)
    generic = make_agent(f"mcts:iterations=300,{spec_options(GENERIC)}", seed=5).search(game, state)
    assert not np.array_equal(ours.visits, generic.visits)


def test_one_agent_follows_the_game_it_plays():
    agent = make_agent("mcts:iterations=16", seed=0)
    for name in ("ataxx", "tictactoe", "ataxx"):
        game = make_game(name)
        agent.act_state(game, game.initial_state())
        assert agent.config.c == defaults_for(name).c


def test_a_changed_budget_survives_a_new_game():
    """The tournament sets a per-move time budget through ``config``; learning the game must not
    undo it."""
    agent = make_agent("mcts:iterations=10,seconds=1.0", seed=0)
    agent.config = dataclasses.replace(agent.config, seconds=0.05)
    agent.prepare(make_game("ataxx"))
    assert agent.config.seconds == 0.05 and agent.config.c == defaults_for("ataxx").c


def test_pickled_agents_keep_the_marker():
    agent = pickle.loads(pickle.dumps(make_agent("mcts:iterations=16,c=0.3", seed=0)))
    assert agent.given.c == 0.3 and agent.given.rollout_cutoff is PER_GAME
    agent.prepare(make_game("ataxx"))
    assert agent.config.rollout_cutoff == 0 and agent.config.c == 0.3


def test_listing_states_the_table():
    text = describe_agent("mcts")
    assert "c: float = per game" in text
    for name in GAME_DEFAULTS:
        assert f"    {name}: " in text
    assert "ataxx: c=0.005, rollout_cutoff=0" in text


def test_tictactoe_defaults_answer_every_first_move_soundly():
    """O's reply to X's first move is where MCTS loses to perfect play (a corner must be met
    in the centre, the centre in a corner). The Tic-Tac-Toe defaults at 1,600 iterations pick a
    drawing reply in every seeded search; the exact solver is the oracle."""
    from mcts_envs.agents.players.perfect import PerfectAgent

    game = make_game("tictactoe")
    perfect = PerfectAgent(seed=0)
    for first in (0, 1, 4):  # corner, edge, centre: every first move up to symmetry
        state = game.apply(game.initial_state(), first)
        good = {int(a) for a in perfect.best_actions(game, state)}
        for seed in range(20):
            agent = make_agent("mcts:iterations=1600", seed=seed)
            assert agent.act_state(game, state) in good, (first, seed)
