"""VectorGame against the forward model: random batches replayed side by side with ``game.apply``.

The oracle is the checked Python forward model (``game.apply``, ``game.observation``,
``game.action_mask``, ``game.returns``), one state at a time; chance outcomes the vector drew are
replayed through ``game.apply`` too, which checks that each is a legal outcome.
"""

from __future__ import annotations

import itertools
import textwrap

import numpy as np
import pytest

import mcts_envs
from mcts_envs.core.game import CHANCE, TERMINAL, sample_chance_outcome
from mcts_envs.vector import VectorGame, observation_kernel
from tests.fresh_process import second_run_cache_counts

STEPS = {"tictactoe": 40, "ultimate_tictactoe": 120, "pentago_twist": 60, "ataxx": 60, "tantrix": 6}


def steps_for(game) -> int:
    """Steps of a random run: :data:`STEPS`, else (a game added later) three games' length."""
    return STEPS.get(game.info.name, 3 * game.info.max_game_length)


class Reference:
    """One env followed with the forward model."""

    def __init__(self, game):
        self.game = game
        self.state = None

    def consume_chance(self, outcomes):
        while self.game.current_player(self.state) == CHANCE:
            self.state = self.game.apply(self.state, int(outcomes.pop(0)))

    def restart(self, outcomes):
        self.state = self.game.initial_state()
        self.consume_chance(outcomes)


def check_position(game, ref_state, batch, vg_states, i):
    player = game.current_player(ref_state)
    assert player in (0, 1)
    np.testing.assert_array_equal(vg_states[i], ref_state)
    assert batch.current_player[i] == player
    np.testing.assert_array_equal(batch.observation[i], game.observation(ref_state, player))
    np.testing.assert_array_equal(batch.legal_action_mask[i], game.action_mask(ref_state) == 1)


def chance_list(batch, i):
    count = int(batch.num_chance_outcomes[i])
    assert count <= batch.chance_outcomes.shape[1]
    return [int(x) for x in batch.chance_outcomes[i, :count]]


@pytest.mark.parametrize("name", mcts_envs.list_games())
def test_steps_match_the_forward_model(name):
    num_envs = 3 if name == "tantrix" else 16
    max_moves = 7 if name == "ataxx" else None  # exercise truncation too
    vg = VectorGame(name, num_envs, seed=5, max_moves=max_moves)
    game = vg.game
    rng = np.random.default_rng(11)
    batch = vg.reset()
    refs = [Reference(game) for _ in range(num_envs)]
    states = vg.states
    for i, ref in enumerate(refs):
        outcomes = chance_list(batch, i)
        ref.restart(outcomes)
        assert outcomes == []
        check_position(game, ref.state, batch, states, i)
        assert batch.step_count[i] == 0
    ended = 0
    moves = [0] * num_envs
    for _ in range(steps_for(game)):
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in batch.legal_action_mask])
        batch = vg.step(actions)
        states = vg.states
        for i, ref in enumerate(refs):
            outcomes = chance_list(batch, i)
            ref.state = game.apply(ref.state, int(actions[i]))
            moves[i] += 1
            ref.consume_chance(outcomes)
            over = game.current_player(ref.state) == TERMINAL
            cut = not over and max_moves is not None and moves[i] >= max_moves
            assert batch.terminated[i] == over
            assert batch.truncated[i] == cut
            expected = game.returns(ref.state) if over else np.zeros(2)
            np.testing.assert_array_equal(batch.rewards[i], expected)
            if over or cut:
                np.testing.assert_array_equal(batch.final_state[i], ref.state)
                assert batch.final_step_count[i] == moves[i]
                ended += 1
                moves[i] = 0
                ref.restart(outcomes)
            assert outcomes == []
            check_position(game, ref.state, batch, states, i)
            assert batch.step_count[i] == moves[i]
    assert not batch.illegal.any()
    if name != "tantrix":
        assert ended > 0


def tantrix_logs(num_envs, threads):
    """Chance outcomes of Tantrix envs 0 and 1 over a reset and three first-legal steps."""
    vg = VectorGame("tantrix", num_envs, seed=3, threads=threads)
    batch = vg.reset()
    logs = [[chance_list(batch, i)] for i in range(2)]
    for _ in range(3):
        actions = batch.legal_action_mask.argmax(axis=1)  # the first legal action
        batch = vg.step(actions)
        for i in range(2):
            logs[i].append(chance_list(batch, i))
    return logs, vg.states[:2], batch.legal_action_mask[:2]


def test_same_seed_same_games_whatever_num_envs():
    logs, states, masks = tantrix_logs(2, False)
    other_logs, other_states, other_masks = tantrix_logs(3, False)
    assert other_logs == logs
    np.testing.assert_array_equal(other_states, states)
    np.testing.assert_array_equal(other_masks, masks)
    assert tantrix_logs(2, False)[0] == logs
    different = VectorGame("tantrix", 2, seed=4).reset()
    assert chance_list(different, 0) != logs[0][0]


def test_same_seed_same_games_whatever_threads():
    logs, states, masks = tantrix_logs(2, False)
    threaded_logs, threaded_states, threaded_masks = tantrix_logs(130, True)  # 3 chunks of 64
    assert threaded_logs == logs
    np.testing.assert_array_equal(threaded_states, states)
    np.testing.assert_array_equal(threaded_masks, masks)  # per-thread listing buffers


def test_threads_give_the_same_results_and_compiled_rollout_is_seeded():
    def run(threads):
        vg = VectorGame("tictactoe", 130, seed=0, threads=threads)
        vg.reset()
        finished = vg.random_rollout(200, seed=1)
        return finished, vg.states

    finished, states = run(False)
    assert finished > 0
    threaded_finished, threaded_states = run(True)
    assert threaded_finished == finished
    np.testing.assert_array_equal(threaded_states, states)


def test_thread_chunks_are_whole_cache_lines_of_flags():
    """Chunks hold multiples of 64 envs (but the last), so threads never write one-byte flags
    of envs in one cache line; a batch of 64 envs or fewer runs on the calling thread alone."""
    for num_envs in (1, 64, 65, 130, 1000, 1024):
        vg = VectorGame("tictactoe", num_envs, seed=0, threads=True)
        bounds = vg._bounds
        assert bounds[0][0] == 0 and bounds[-1][1] == num_envs
        assert all(hi == lo for (_, hi), (lo, _) in itertools.pairwise(bounds))
        assert all(hi % 64 == 0 for _, hi in bounds[:-1])
        assert len(bounds) <= max(1, -(-num_envs // 64))
    assert not VectorGame("tictactoe", 64, seed=0, threads=True)._threaded


def test_many_threads_get_no_empty_chunk(monkeypatch):
    """With 16 threads, 1,040 envs make chunks of 128 (whole lines): 9 chunks, none empty."""
    from mcts_envs import vector

    monkeypatch.setattr(vector, "_num_threads", lambda: 16)
    bounds = VectorGame("tictactoe", 1040, seed=0, threads=True)._bounds
    assert bounds == [(128 * c, min(1040, 128 * (c + 1))) for c in range(9)]


def test_illegal_action_raises_naming_the_env_and_changes_nothing():
    vg = VectorGame("tictactoe", 3, seed=0)
    vg.reset()
    vg.step(np.array([4, 0, 8]))
    before = vg.states
    with pytest.raises(mcts_envs.IllegalActionError) as error:
        vg.step(np.array([0, 0, 1]))  # env 1 already has a mark on cell 0
    message = str(error.value)
    assert "env 1" in message and "action 0" in message and "player_1" in message
    assert "[1, 2, 3, 4, 5, 6, 7, 8]" in message
    np.testing.assert_array_equal(vg.states, before)
    with pytest.raises(mcts_envs.IllegalActionError, match="env 2: action 9 is outside"):
        vg.step(np.array([0, 1, 9]))
    with pytest.raises(mcts_envs.ActionTypeError, match=r"shape \(3,\)"):
        vg.step(np.array([0, 1]))
    with pytest.raises(mcts_envs.ActionTypeError):
        vg.step(np.array([0.0, 1.0, 2.0]))
    np.testing.assert_array_equal(vg.states, before)
    vg.step(np.array([0, 1, 0]))  # still playable


def test_illegal_action_with_penalty_ends_only_that_game():
    vg = VectorGame("tictactoe", 2, seed=0, illegal_action="penalty", penalty=2.0)
    vg.reset()
    vg.step(np.array([4, 4]))
    batch = vg.step(np.array([0, 4]))  # env 1: player_1 plays the taken centre
    assert batch.illegal.tolist() == [False, True]
    assert batch.terminated.tolist() == [False, True]
    assert batch.rewards[1].tolist() == [0.0, -2.0]
    assert batch.rewards[0].tolist() == [0.0, 0.0]
    assert batch.current_player[1] == 0 and batch.legal_action_mask[1].all()  # a new game
    game = vg.game
    np.testing.assert_array_equal(batch.final_state[1], game.apply(game.initial_state(), 4))


def test_bad_options_are_refused():
    with pytest.raises(mcts_envs.InvalidOptionError, match="num_envs"):
        VectorGame("tictactoe", 0)
    with pytest.raises(mcts_envs.InvalidOptionError, match="illegal_action"):
        VectorGame("tictactoe", 1, illegal_action="ignore")
    with pytest.raises(mcts_envs.UnknownGameError):
        VectorGame("tictactoo", 1)
    with pytest.raises(RuntimeError, match="reset"):
        VectorGame("tictactoe", 1).step(np.array([0]))


def test_compiled_rollout_is_seeded_and_finishes_games():
    def run(seed):
        vg = VectorGame("tictactoe", 4, seed=0)
        vg.reset()
        return vg.random_rollout(50, seed=seed), vg.states

    finished, states = run(1)
    assert finished > 4 * 50 // 9  # a Tic-Tac-Toe game lasts at most 9 steps
    again, again_states = run(1)
    assert again == finished
    np.testing.assert_array_equal(again_states, states)
    game = mcts_envs.make_game("tictactoe")
    for state in states:  # every env stands at a legal decision point
        assert game.current_player(state) in (0, 1)
        assert game.check_state(state) is state


def test_active_steps_only_the_chosen_envs():
    vg = VectorGame("tictactoe", 3, seed=0)
    first = vg.reset()
    before = vg.states
    batch = vg.step(np.array([4, 99, 0]), active=np.array([True, False, True]))  # 99 ignored
    states = vg.states
    np.testing.assert_array_equal(states[1], before[1])
    assert not (states[0] == before[0]).all() and not (states[2] == before[2]).all()
    np.testing.assert_array_equal(batch.observation[1], first.observation[1])
    assert batch.current_player.tolist() == [1, 0, 1]
    with pytest.raises(mcts_envs.InvalidOptionError, match="active"):
        vg.step(np.array([0, 0, 1]), active=np.array([1, 0, 1]))


def test_views_hold_the_same_batches_as_copies_and_are_read_only():
    fresh = VectorGame("ultimate_tictactoe", 6, seed=2)
    views = VectorGame("ultimate_tictactoe", 6, seed=2, copy=False)
    expected, got = fresh.reset(), views.reset()
    previous, previous_players, changed = None, None, False
    for _ in range(40):
        for field in expected._fields:
            np.testing.assert_array_equal(getattr(got, field), getattr(expected, field))
        with pytest.raises(ValueError, match="read-only"):
            got.legal_action_mask[0, 0] = True
        if previous is not None:  # views of the same buffers: the last batch was overwritten
            assert np.shares_memory(previous.observation, got.observation)
            np.testing.assert_array_equal(previous.current_player, expected.current_player)
            changed |= (previous_players != expected.current_player).any()
        assert expected.observation.flags.writeable  # a fresh array the caller owns
        previous, previous_players = got, expected.current_player.copy()
        actions = fresh.random_actions()
        np.testing.assert_array_equal(views.random_actions(), actions)
        expected, got = fresh.step(actions), views.step(actions)
    assert changed  # the old batch's views show the new players, not the ones they held
    with pytest.raises(mcts_envs.InvalidOptionError, match="copy"):
        VectorGame("tictactoe", 1, copy="yes")


@pytest.mark.parametrize(
    ("name", "first_legal"),
    [("tictactoe", 9), ("ultimate_tictactoe", 81), ("ataxx", 16)],  # ataxx: no legal list kept
)
def test_random_actions_are_legal_uniform_and_independent_of_num_envs(name, first_legal):
    small = VectorGame(name, 3, seed=7)
    large = VectorGame(name, 8, seed=7)
    batch, _ = small.reset(), large.reset()
    for _ in range(30):
        actions, more = small.random_actions(), large.random_actions()
        assert batch.legal_action_mask[np.arange(3), actions].all()
        np.testing.assert_array_equal(more[:3], actions)
        batch = small.step(actions)
        large.step(more)
    np.testing.assert_array_equal(large.states[:3], small.states)
    one = VectorGame(name, 1, seed=0)
    legal = np.flatnonzero(one.reset().legal_action_mask[0])
    assert len(legal) == first_legal
    draws = np.array([one.random_actions()[0] for _ in range(100 * first_legal)])
    counts = np.bincount(draws, minlength=one.info.num_actions)
    assert np.flatnonzero(counts).tolist() == legal.tolist()
    assert counts[legal].min() > 60 and counts.max() < 140  # about 100 draws each
    out = np.empty(1, np.int64)
    assert one.random_actions(out) is out
    with pytest.raises(mcts_envs.InvalidOptionError, match="out"):
        one.random_actions(np.empty(1, np.int32))
    with pytest.raises(RuntimeError, match="reset"):
        VectorGame("tictactoe", 1).random_actions()


@pytest.mark.parametrize("name", ["tictactoe", "pentago_twist", "ataxx"])
def test_compiled_rollout_plays_what_python_steps_with_random_actions_play(name):
    compiled = VectorGame(name, 5, seed=4)
    stepped = VectorGame(name, 5, seed=4)
    compiled.reset()
    stepped.reset()
    finished = compiled.random_rollout(30)
    ended = 0
    for _ in range(30):
        batch = stepped.step(stepped.random_actions())
        ended += int(batch.terminated.sum() + batch.truncated.sum())
    assert finished == ended
    np.testing.assert_array_equal(compiled.states, stepped.states)
    again = VectorGame(name, 5, seed=9)
    again.reset()
    again.random_rollout(10, seed=4)  # re-seeds the action generators only
    again.random_rollout(20)
    first = VectorGame(name, 5, seed=9)
    first.reset()
    first.random_rollout(30, seed=4)
    np.testing.assert_array_equal(again.states, first.states)


@pytest.mark.parametrize("name", mcts_envs.list_games())
def test_observation_kernels_claim_to_write_every_entry_only_when_they_do(name):
    """A kernel that claims it lets the batch skip zeroing: it must overwrite every entry. A
    kernel that does not claim it must really leave entries alone (else the flag is missing)."""
    game = mcts_envs.make_game(name)
    kernel = observation_kernel(game)
    rng = np.random.default_rng(0)
    state = game.initial_state()
    untouched = False
    for _ in range(12):
        player = game.current_player(state)
        if player == TERMINAL:
            break
        for seat in (0, 1):
            out = np.full(game.info.observation_shape, 7, game.info.observation_dtype)
            kernel.kernel(state, seat, out)
            expected = game.observation(state, seat)
            if kernel.writes_every_entry:
                np.testing.assert_array_equal(out, expected)
            else:
                untouched |= bool(np.any(out != expected))
                np.testing.assert_array_equal(np.where(out == 7, expected, out), expected)
        if player == CHANCE:
            state = game.apply(state, sample_chance_outcome(game, state, rng))
        else:
            state = game.apply(state, int(rng.choice(game.legal_actions(state))))
    assert kernel.writes_every_entry or untouched


def test_a_new_process_loads_the_compiled_step_from_the_disk_cache():
    # The step's cache key holds the game's kernels and the stand-ins for the optional ones
    # (Ultimate Tic-Tac-Toe has no legal_mask, random_action or observation_update): all must
    # have stable identities, or every process recompiles the step (5 to 25 s per game).
    code = textwrap.dedent(
        """
        from mcts_envs import vector
        vg = vector.VectorGame("ultimate_tictactoe", 2, seed=0)
        vg.reset()
        vg.step(vg.random_actions())
        vg.random_rollout(3)
        entries = (vector._step_serial, vector._rollout_serial, vector._random_actions)
        print(sum(sum(e.stats.cache_hits.values()) for e in entries),
              sum(sum(e.stats.cache_misses.values()) for e in entries))
        """
    )
    hits, misses = second_run_cache_counts(code)
    assert hits == 3 and misses == 0  # the reset is the step's entry
