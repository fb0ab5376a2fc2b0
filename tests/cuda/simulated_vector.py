"""Child program: a CUDA ``VectorGame`` under numba's CUDA simulator against the CPU one.

Run as ``NUMBA_ENABLE_CUDASIM=1 python -m tests.cuda.simulated_vector GAME`` (the variable must
be set before numba-cuda is imported, hence a process of its own). Every check gives both
vectors the same seed and the same actions and compares every array of every batch (and the
errors raised) entry by entry; the CPU vector is the oracle. Prints ``ok GAME`` at the end.
"""

from __future__ import annotations

import os
import sys

import numpy as np

from mcts_envs.core.errors import IllegalActionError
from mcts_envs.cuda import vector as cuda_vector
from mcts_envs.vector import VectorBatch, VectorGame

#: Envs per vector: three blocks of four threads, the last one partly empty.
NUM_ENVS = 10
#: Random steps of the first check (with max_moves 12: games end by the rules and by the cap).
STEPS = 24


def check(condition: bool, message: str) -> None:
    if not condition:
        raise AssertionError(message)


def assert_same_batch(on_device: VectorBatch, on_host: VectorBatch, where: str) -> None:
    for field in VectorBatch._fields:
        device_array = getattr(on_device, field)
        check(hasattr(device_array, "copy_to_host"), f"{where}: {field} is not a device array")
        np.testing.assert_array_equal(
            device_array.copy_to_host(), getattr(on_host, field), err_msg=f"{where}: {field}"
        )


def pair(game: str, seed: int, **options) -> tuple[object, VectorGame]:
    return (
        VectorGame(game, NUM_ENVS, seed, device="cuda", **options),
        VectorGame(game, NUM_ENVS, seed, **options),
    )


def random_steps(game: str) -> None:
    """Random legal actions (each vector draws its own: they must agree), with truncation."""
    on_device, on_host = pair(game, 11, max_moves=12)
    assert_same_batch(on_device.reset(), on_host.reset(), "reset")
    ended = 0
    for step in range(STEPS):
        drawn = on_device.random_actions()
        expected = on_host.random_actions()
        np.testing.assert_array_equal(drawn.copy_to_host(), expected, err_msg=f"draws {step}")
        batch = on_host.step(expected)
        assert_same_batch(on_device.step(drawn), batch, f"step {step}")
        ended += int(batch.terminated.sum() + batch.truncated.sum())
    np.testing.assert_array_equal(on_device.states.copy_to_host(), on_host.states)
    np.testing.assert_array_equal(on_device.step_count.copy_to_host(), on_host.step_count)
    check(ended > 0, "no game ended: the check saw no auto-reset")
    # host actions, and a reset with a new seed
    assert_same_batch(on_device.reset(seed=4), on_host.reset(seed=4), "reseeded reset")
    actions = on_host.random_actions()
    assert_same_batch(on_device.step(actions), on_host.step(actions), "host actions")


def illegal_actions(game: str) -> None:
    """Penalty mode ends the offending games; raise mode refuses the step and changes nothing."""
    on_device, on_host = pair(game, 5, illegal_action="penalty", penalty=2.0)
    on_device.reset()
    batch = on_host.reset()
    actions = on_host.random_actions()
    illegal = np.flatnonzero(~batch.legal_action_mask[3])[:1]
    actions[3] = illegal[0] if illegal.size else -1
    actions[8] = on_host.info.num_actions  # outside the action space
    expected = on_host.step(actions)
    check(bool(expected.illegal[3] and expected.illegal[8]), "the CPU vector saw no penalty")
    assert_same_batch(on_device.step(actions), expected, "penalties")

    on_device, on_host = pair(game, 5)
    on_device.reset()
    on_host.reset()
    actions = on_host.random_actions()
    actions[7] = -3
    messages = []
    for vector in (on_device, on_host):
        try:
            vector.step(actions)
        except IllegalActionError as error:
            messages.append(str(error))
    check(len(messages) == 2 and messages[0] == messages[1], f"raise mode: {messages}")
    np.testing.assert_array_equal(on_device.states.copy_to_host(), on_host.states)


def partial_steps_and_rollout(game: str) -> None:
    """``active`` steps some envs; the device loop plays the same games as the compiled one."""
    on_device, on_host = pair(game, 9)
    on_device.reset()
    on_host.reset()
    active = np.arange(NUM_ENVS) % 3 != 1
    actions = on_host.random_actions()
    on_device.random_actions()  # keep both generators in step
    assert_same_batch(on_device.step(actions, active), on_host.step(actions, active), "active")
    finished = on_device.random_rollout(7, seed=2)
    check(finished == on_host.random_rollout(7, seed=2), "rollout: games finished differ")
    np.testing.assert_array_equal(on_device.states.copy_to_host(), on_host.states)
    actions = on_host.random_actions()
    np.testing.assert_array_equal(on_device.random_actions().copy_to_host(), actions)
    assert_same_batch(on_device.step(actions), on_host.step(actions), "after the rollout")


def positions_and_views(game: str) -> None:
    """``set_states``, ``copy_states`` and ``observe`` as on the CPU (copy=False views)."""
    on_device, on_host = pair(game, 13, copy=False)
    on_device.reset()
    on_host.reset()
    for _ in range(3):
        actions = on_host.random_actions()
        on_device.step(actions)
        on_host.step(actions)
    positions = on_host.states[[2, 6]]
    expected = on_host.set_states([1, 9], positions, step_counts=[2, 5])
    got = on_device.set_states([1, 9], positions, step_counts=[2, 5])
    assert_same_batch(got, expected, "set_states")
    expected = on_host.copy_states([0, 0, 2], [4, 5, 0])
    assert_same_batch(on_device.copy_states([0, 0, 2], [4, 5, 0]), expected, "copy_states")
    players = 1 - on_host.step_count % 2
    np.testing.assert_array_equal(
        on_device.observe(players).copy_to_host(), on_host.observe(players), "observe"
    )
    np.testing.assert_array_equal(
        on_device.observe(0, positions).copy_to_host(), on_host.observe(0, positions)
    )
    first, second = on_device.reset(), on_device.reset()
    check(first.observation is second.observation, "copy=False: not the vector's own buffers")


def saved_states_and_first_players(game: str) -> None:
    """``random_first_player`` draws the same first players; ``get_states`` saves what a
    ``set_states`` restores on either vector."""
    on_device, on_host = pair(game, 21, random_first_player=True)
    assert_same_batch(on_device.reset(), on_host.reset(), "random first players")
    for step in range(6):
        actions = on_host.random_actions()
        on_device.random_actions()
        assert_same_batch(on_device.step(actions), on_host.step(actions), f"first {step}")
    players = np.arange(NUM_ENVS) % 2
    np.testing.assert_array_equal(
        on_device.observe(players).copy_to_host(), on_host.observe(players), "observe by player"
    )
    saved = on_device.get_states([0, 3, 4])
    for got, expected in zip(saved, on_host.get_states([0, 3, 4]), strict=True):
        np.testing.assert_array_equal(got, expected, err_msg="get_states")
    other = [7, 8, 9]
    firsts = 1 - saved.first_players
    expected = on_host.set_states(other, saved.states, saved.step_counts, saved.chance_rngs, firsts)
    got = on_device.set_states(other, saved.states, saved.step_counts, saved.chance_rngs, firsts)
    assert_same_batch(got, expected, "set_states with generators and first players")
    np.testing.assert_array_equal(on_device.states_view.copy_to_host(), on_host.states_view)
    lists = on_device.legal_lists()
    check((lists is None) == (on_host.legal_lists() is None), "legal_lists")
    if lists is not None:
        for got, expected in zip(lists, on_host.legal_lists(), strict=True):
            np.testing.assert_array_equal(got.copy_to_host(), expected, err_msg="legal_lists")


def main(game: str) -> None:
    check(os.environ.get("NUMBA_ENABLE_CUDASIM") == "1", "run with NUMBA_ENABLE_CUDASIM=1")
    cuda_vector.THREADS_PER_BLOCK = 4  # several blocks, the last one partly filled
    random_steps(game)
    illegal_actions(game)
    partial_steps_and_rollout(game)
    positions_and_views(game)
    saved_states_and_first_players(game)
    print("ok", game)


if __name__ == "__main__":
    main(sys.argv[1])
