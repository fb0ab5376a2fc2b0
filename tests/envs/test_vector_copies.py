"""Copies that copy, chance that restores, and a random first player on ``VectorGame``.

Copies (``copy.deepcopy``, ``pickle``) are taken mid-game and then stepped apart from the original:
the original first plays on with one set of actions, then the copy is given the same actions and
must return the very batches the original returned (a copy sharing the original's buffers, or
holding stale views, would have moved with it or kept returning the old batch). The restore test
saves a Tantrix batch, plays on, restores and replays: observations, rewards and draws must repeat,
and without the saved chance generators the draws must differ.
"""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

import mcts_envs
from mcts_envs.core.errors import InvalidOptionError
from mcts_envs.vector import VectorGame

GAMES = mcts_envs.list_games()


def random_legal(batch, rng):
    """One uniformly random legal action per env, drawn with the test's own generator."""
    return np.array([rng.choice(np.flatnonzero(row)) for row in batch.legal_action_mask])


def play(vg, batch, rng, steps):
    """``steps`` random legal steps; returns the actions given and the batches returned."""
    actions, batches = [], []
    for _ in range(steps):
        chosen = random_legal(batch, rng)
        batch = vg.step(chosen)
        actions.append(chosen)
        batches.append(batch)
    return actions, batches


def replay(vg, actions):
    return [vg.step(chosen) for chosen in actions]


def assert_same_batches(expected, got, fields=None):
    for step, (a, b) in enumerate(zip(expected, got, strict=True)):
        for field in fields or a._fields:
            np.testing.assert_array_equal(
                getattr(a, field), getattr(b, field), err_msg=f"step {step}: {field}"
            )


def steps_for(name):
    return 4 if name == "tantrix" else 30  # Tantrix steps are long; 30 moves end small games


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("how", ["deepcopy", "pickle"])
def test_a_copy_mid_game_is_independent_and_plays_on_identically(name, how):
    vg = VectorGame(name, 4, seed=3, random_first_player=True, max_moves=20)
    rng = np.random.default_rng(0)
    batch = vg.reset()
    play(vg, batch, rng, 3)
    twin = copy.deepcopy(vg) if how == "deepcopy" else pickle.loads(pickle.dumps(vg))
    assert twin._buf.states is not vg._buf.states
    for a, b in zip(vg.get_states(), twin.get_states(), strict=True):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(twin.random_actions(), vg.random_actions())  # same generators
    batch = vg.step(vg.random_actions())
    twin_batch = twin.step(twin.random_actions())
    assert_same_batches([batch], [twin_batch])
    # the original plays on first, then the copy gets the same actions
    actions, batches = play(vg, batch, rng, steps_for(name))
    assert_same_batches(batches, replay(twin, actions))
    if name != "tantrix":  # through an auto-reset too
        assert any((b.terminated | b.truncated).any() for b in batches)


@pytest.mark.parametrize("how", ["deepcopy", "pickle"])
def test_a_copy_keeps_its_options_and_copy_false_views_its_own_buffers(how):
    vg = VectorGame("ultimate_tictactoe", 3, seed=1, max_moves=5, copy=False)
    batch = vg.reset()
    twin = copy.deepcopy(vg) if how == "deepcopy" else pickle.loads(pickle.dumps(vg))
    assert (twin.max_moves, twin.copy, twin.num_envs) == (5, False, 3)
    twin_batch = twin.step(np.asarray(batch.legal_action_mask).argmax(1))
    assert twin_batch.observation.base is not batch.observation.base
    assert not np.shares_memory(twin_batch.observation, batch.observation)
    assert (twin.step_count == 1).all() and (vg.step_count == 0).all()


def test_a_copy_before_reset_needs_a_reset_too():
    twin = pickle.loads(pickle.dumps(VectorGame("tictactoe", 2, seed=0)))
    with pytest.raises(RuntimeError, match="reset"):
        twin.step(np.zeros(2, np.int64))


def test_a_damaged_pickle_is_refused_with_the_buffer_named():
    vg = VectorGame("tictactoe", 2, seed=0)
    vg.reset()
    state = vg.__getstate__()
    state["buffers"] = dict(state["buffers"], states=np.zeros((3, 4), np.int64))
    other = VectorGame.__new__(VectorGame)
    with pytest.raises(InvalidOptionError, match="states buffer should be int64"):
        other.__setstate__(state)


def test_a_restored_tantrix_batch_replays_its_draws():
    vg = VectorGame("tantrix", 3, seed=5)
    rng = np.random.default_rng(1)
    batch = vg.reset()
    _, batches = play(vg, batch, rng, 6)
    saved = vg.get_states()
    actions, batches = play(vg, batches[-1], rng, 25)
    drawn = sum(int(b.num_chance_outcomes.sum()) for b in batches)
    assert drawn > 0
    vg.set_states(np.arange(3), *saved)
    again = replay(vg, actions)
    fields = ("observation", "legal_action_mask", "current_player", "rewards", "terminated")
    assert_same_batches(batches, again, (*fields, "chance_outcomes", "num_chance_outcomes"))
    # the position alone (each env's generator left where it is) draws other tiles
    vg.set_states(np.arange(3), saved.states, saved.step_counts)
    other = [vg.step(chosen) for chosen in actions[:1]]
    diverged = False
    for chosen in actions[1:]:
        legal = other[-1].legal_action_mask[np.arange(3), chosen]
        if not legal.all() or not np.array_equal(
            other[-1].chance_outcomes, batches[len(other) - 1].chance_outcomes
        ):
            diverged = True
            break
        other.append(vg.step(chosen))
    assert diverged


def test_set_states_checks_generators_and_first_players():
    vg = VectorGame("tictactoe", 2, seed=0)
    vg.reset()
    saved = vg.get_states([1])
    with pytest.raises(InvalidOptionError, match="chance_rngs must be 1 uint64"):
        vg.set_states([1], saved.states, None, np.array([1, 2], np.uint64))
    with pytest.raises(InvalidOptionError, match="first_players must be 1 players 0 or 1"):
        vg.set_states([1], saved.states, None, None, [2])
    vg.set_states([1], saved.states, None, None, [1])
    assert vg.get_states([1]).first_players.tolist() == [1]


def test_the_first_player_is_player_0_unless_asked():
    vg = VectorGame("tictactoe", 64, seed=0)
    batch = vg.reset()
    assert not batch.first_player.any() and (batch.current_player == 0).all()


@pytest.mark.parametrize("name", GAMES)
def test_a_random_first_player_is_seeded_and_maps_seats_to_players(name):
    """Against the forward model: ``current_player`` is the seat on move ``^ first_player``,
    observations are that seat's, rewards go to the players holding the seats."""
    num_envs = 3 if name == "tantrix" else 32
    vg = VectorGame(name, num_envs, seed=4, random_first_player=True)
    game = vg.game
    batch = vg.reset()
    again = VectorGame(name, num_envs, seed=4, random_first_player=True).reset()
    np.testing.assert_array_equal(batch.first_player, again.first_player)
    firsts = set(batch.first_player.tolist())
    rng = np.random.default_rng(2)
    ends = 0
    for _ in range(steps_for(name)):
        states = vg.states
        for i in range(num_envs):
            seat = game.current_player(states[i])
            first = int(batch.first_player[i])
            assert batch.current_player[i] == seat ^ first
            np.testing.assert_array_equal(batch.observation[i], game.observation(states[i], seat))
            np.testing.assert_array_equal(vg.observe(batch.current_player)[i], batch.observation[i])
        batch = vg.step(random_legal(batch, rng))
        for i in np.flatnonzero(batch.terminated):
            returns = game.returns(batch.final_state[i])
            first = int(batch.final_first_player[i])
            assert batch.rewards[i, first] == returns[0]
            assert batch.rewards[i, 1 - first] == returns[1]
            ends += 1
        firsts |= set(batch.first_player.tolist())
    assert firsts == {0, 1}
    if game.info.max_game_length <= steps_for(name):  # games this short end within the test
        assert ends > 0
