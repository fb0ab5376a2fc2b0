"""VectorGame's positions against the forward model: ``set_states``, ``copy_states``, ``observe``
and ``step_count``, each followed by steps replayed with ``game.apply`` (as in test_vector)."""

from __future__ import annotations

import numpy as np
import pytest

import mcts_envs
from mcts_envs.core.game import CHANCE, TERMINAL, sample_chance_outcome
from mcts_envs.vector import VectorGame
from tests.envs.test_vector import Reference, chance_list, check_position

GAMES = mcts_envs.list_games()


def random_positions(game, count, rng, max_plies=30):
    """``count`` (state, moves played) pairs reached by random play from the start, unfinished."""
    positions = []
    while len(positions) < count:
        state, moves = game.initial_state(), 0
        for _ in range(int(rng.integers(0, max_plies))):
            player = game.current_player(state)
            if player == CHANCE:
                state = game.apply(state, sample_chance_outcome(game, state, rng))
                continue
            if player == TERMINAL:
                break
            state = game.apply(state, int(rng.choice(game.legal_actions(state))))
            moves += 1
        while game.current_player(state) == CHANCE:
            state = game.apply(state, sample_chance_outcome(game, state, rng))
        if game.current_player(state) != TERMINAL:
            positions.append((state, moves))
    return positions


def started_references(vg, batch) -> list[Reference]:
    """One forward-model :class:`Reference` per env of ``vg``, at the first position of its game
    (``batch``: what ``vg.reset()`` returned, whose chance outcomes the references replay)."""
    refs = [Reference(vg.game) for _ in range(vg.num_envs)]
    for i, ref in enumerate(refs):
        ref.restart(chance_list(batch, i))
    return refs


def follow(vg, refs, moves, batch, rng, steps):
    """Step ``vg`` with random legal actions, checking every env against ``refs`` (forward model)
    and ``moves`` (moves of each env's current game, for ``step_count``)."""
    game = vg.game
    for _ in range(steps):
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in batch.legal_action_mask])
        batch = vg.step(actions)
        states = vg.states
        for i, ref in enumerate(refs):
            outcomes = chance_list(batch, i)
            ref.state = game.apply(ref.state, int(actions[i]))
            moves[i] += 1
            ref.consume_chance(outcomes)
            over = game.current_player(ref.state) == TERMINAL
            assert batch.terminated[i] == over
            np.testing.assert_array_equal(
                batch.rewards[i], game.returns(ref.state) if over else np.zeros(2)
            )
            if over:
                assert batch.final_step_count[i] == moves[i]
                moves[i] = 0
                ref.restart(outcomes)
            assert outcomes == []
            check_position(game, ref.state, batch, states, i)
            assert batch.step_count[i] == moves[i]
    return batch


@pytest.mark.parametrize("name", GAMES)
def test_set_states_then_steps_match_the_forward_model(name):
    num_envs = 3 if name == "tantrix" else 8
    vg = VectorGame(name, num_envs, seed=1)
    game = vg.game
    rng = np.random.default_rng(5)
    batch = vg.reset()
    refs = started_references(vg, batch)
    chosen = np.array([num_envs - 1, 0])  # any order; the others keep their games
    positions = random_positions(game, len(chosen), rng)
    counts = [moves for _, moves in positions]
    batch = vg.set_states(chosen, np.stack([s for s, _ in positions]), step_counts=counts)
    moves = [0] * num_envs
    states = vg.states
    for j, i in enumerate(chosen):
        refs[i].state = positions[j][0]
        moves[i] = counts[j]
    for i, ref in enumerate(refs):
        check_position(game, ref.state, batch, states, i)
        assert batch.step_count[i] == moves[i]
        assert not (batch.terminated[i] or batch.truncated[i]) and not batch.rewards[i].any()
    follow(vg, refs, moves, batch, rng, 4 if name == "tantrix" else 25)


def test_set_states_samples_a_chance_node_with_the_env_generator():
    vg = VectorGame("tantrix", 2, seed=3)
    vg.reset()
    game = vg.game
    batch = vg.set_states([1], game.initial_state()[None, :])  # before the deal
    deal = chance_list(batch, 1)
    assert len(deal) == 12 and chance_list(batch, 0) == []
    ref = Reference(game)
    ref.restart(list(deal))
    check_position(game, ref.state, batch, vg.states, 1)


def test_bad_positions_and_indices_are_refused_and_change_nothing():
    vg = VectorGame("tictactoe", 3, seed=0)
    vg.reset()
    vg.step(np.array([4, 0, 8]))
    before, counts = vg.states, vg.step_count
    game = vg.game
    good = game.from_text("x.o/.x./... o")
    won = game.from_text("xxx/oo./... o")
    both = game.from_text("x../.../... o")
    both[1] = both[0]  # an O mark on X's cell
    cases = [
        (mcts_envs.InvalidRecordError, r"states\[1\]", ([0, 1], np.stack([good, both]))),
        (mcts_envs.InvalidOptionError, "finished game", ([0], won[None, :])),
        (mcts_envs.InvalidOptionError, "outside 0..2", ([3], good[None, :])),
        (mcts_envs.InvalidOptionError, "more than once", ([1, 1], np.stack([good, good]))),
        (mcts_envs.InvalidOptionError, "2 rows for 1", ([1], np.stack([good, good]))),
        (mcts_envs.InvalidOptionError, "step_counts", ([1], good[None, :], [-1])),
        (TypeError, "int64 array of shape", ([1], good[None, :].astype(np.int32))),
    ]
    for error, message, arguments in cases:
        with pytest.raises(error, match=message):
            vg.set_states(*arguments)
        np.testing.assert_array_equal(vg.states, before)
        np.testing.assert_array_equal(vg.step_count, counts)
    with pytest.raises(mcts_envs.InvalidOptionError, match="destinations: env 2 is given"):
        vg.copy_states([0, 1], [2, 2])
    with pytest.raises(RuntimeError, match="reset"):
        VectorGame("tictactoe", 1).set_states([0], good[None, :])


@pytest.mark.parametrize("name", ["ultimate_tictactoe", "tantrix"])
def test_copy_states_branches_games_that_then_match_the_forward_model(name):
    num_envs = 4
    vg = VectorGame(name, num_envs, seed=2)
    game = vg.game
    rng = np.random.default_rng(3)
    batch = vg.reset()
    refs = started_references(vg, batch)
    moves = [0] * num_envs
    batch = follow(vg, refs, moves, batch, rng, 3)
    # env 0 into envs 2 and 3, and env 2 into env 0 (read before written: a swap)
    batch = vg.copy_states([0, 0, 2], [2, 3, 0])
    old = [ref.state for ref in refs], list(moves)
    for source, destination in ((0, 2), (0, 3), (2, 0)):
        refs[destination].state = old[0][source]
        moves[destination] = old[1][source]
    states = vg.states
    for i, ref in enumerate(refs):
        check_position(game, ref.state, batch, states, i)
        assert batch.step_count[i] == moves[i]
    assert not batch.terminated.any() and not batch.rewards.any()
    follow(vg, refs, moves, batch, rng, 3 if name == "tantrix" else 20)


@pytest.mark.parametrize("name", GAMES)
def test_observe_gives_any_seat_of_every_env_as_the_forward_model(name):
    num_envs = 3 if name == "tantrix" else 8
    vg = VectorGame(name, num_envs, seed=4)
    game = vg.game
    batch = vg.reset()
    for _ in range(2 if name == "tantrix" else 5):
        batch = vg.step(vg.random_actions())
    states = vg.states
    other = vg.observe(1 - batch.current_player)
    for i, state in enumerate(states):
        np.testing.assert_array_equal(
            other[i], game.observation(state, 1 - batch.current_player[i])
        )
        np.testing.assert_array_equal(vg.observe(0)[i], game.observation(state, 0))
    np.testing.assert_array_equal(vg.observe(batch.current_player), batch.observation)
    picked = vg.observe(np.array([1, 0]), states=states[[1, 0]])
    np.testing.assert_array_equal(picked[0], game.observation(states[1], 1))
    with pytest.raises(mcts_envs.InvalidOptionError, match="players must be 0, 1"):
        vg.observe(2)
    with pytest.raises(mcts_envs.InvalidOptionError, match="players must be 0, 1"):
        vg.observe(states, batch.current_player)  # the states come second


def test_work_rows_of_threads_do_not_share_cache_lines():
    """Each thread's working rows (``result`` is written at every game end) start at least 128
    bytes apart: rows in one cache line bounced between cores and stopped the threads scaling."""
    vg = VectorGame("tictactoe", 130, seed=0, threads=True)
    buf = vg._buf
    for work in (buf.result, buf.scratch, buf.probabilities, buf.listed, buf.list_scratch):
        assert work.strides[0] >= 128
    assert buf.result.strides[0] - 2 * buf.result.itemsize >= 64  # two entries used per row
