"""Per-kernel timing of Tic-Tac-Toe and Ultimate Tic-Tac-Toe: where a compiled step goes.

Each kernel the compiled vector step calls (``apply_action``, ``current_player``,
``observation_planes``, ``legal_actions``, ``returns``) is timed alone in a compiled loop over
positions of uniformly random games (ongoing positions, each with a random legal action; state
copies are timed apart and subtracted from ``apply_action``). Also ``step``: copy, apply, current
player, observation and legal actions in one loop, the kernels' share of a vector step.

Figures are nanoseconds of this thread's CPU time per call (``time.thread_time``, so time
slices given to other processes do not count; caches shared with them still do), medians of
``--repeats`` runs; quote the load average printed beside them. Runs whichever ``mcts_envs`` is first on ``PYTHONPATH``, so
the same script times two checkouts' kernels for an A/B comparison.

Usage: ``python benchmarks/tictactoe_kernels.py [--games tictactoe,ultimate_tictactoe]
[--positions 4096] [--repeats 5] [--seconds 0.3]``
"""

from __future__ import annotations

import argparse
import os

import measure  # first: points numba at a fresh cache unless --warm-cache
import numpy as np
from numba import njit

import mcts_envs
from mcts_envs.core.numba_compat import borrow
from mcts_envs.vector import observation_kernel


@njit
def _loop_copy(states, scratch, repeats):
    states = borrow(states)
    scratch = borrow(scratch)
    total = 0
    for _ in range(repeats):
        for i in range(states.shape[0]):
            scratch[:] = states[i]
            total += scratch[0]
    return total


@njit
def _loop_apply(apply_action, states, actions, scratch, repeats):
    states = borrow(states)
    scratch = borrow(scratch)
    actions = borrow(actions)
    total = 0
    for _ in range(repeats):
        for i in range(states.shape[0]):
            scratch[:] = states[i]
            apply_action(scratch, actions[i])
            total += scratch[0]
    return total


@njit
def _loop_current_player(current_player, states, repeats):
    states = borrow(states)
    total = 0
    for _ in range(repeats):
        for i in range(states.shape[0]):
            total += current_player(states[i])
    return total


@njit
def _loop_legal(legal_actions, states, out, repeats):
    states = borrow(states)
    out = borrow(out)
    total = 0
    for _ in range(repeats):
        for i in range(states.shape[0]):
            total += legal_actions(states[i], out)
    return total


@njit
def _loop_observation(observation_planes, states, players, out, repeats):
    states = borrow(states)
    players = borrow(players)
    out = borrow(out)
    for _ in range(repeats):
        for i in range(states.shape[0]):
            observation_planes(states[i], players[i], out)
    return out.sum()


@njit
def _loop_returns(returns, states, out, repeats):
    states = borrow(states)
    out = borrow(out)
    total = 0.0
    for _ in range(repeats):
        for i in range(states.shape[0]):
            returns(states[i], out)
            total += out[0]
    return total


@njit
def _loop_step(
    apply_action,
    current_player,
    observation_planes,
    legal_actions,
    states,
    actions,
    scratch,
    obs,
    legal,
    repeats,
):
    states = borrow(states)
    scratch = borrow(scratch)
    actions = borrow(actions)
    obs = borrow(obs)
    legal = borrow(legal)
    total = 0
    for _ in range(repeats):
        for i in range(states.shape[0]):
            scratch[:] = states[i]
            apply_action(scratch, actions[i])
            player = current_player(scratch)
            if player >= 0:
                observation_planes(scratch, player, obs)
                total += legal_actions(scratch, legal)
    return total


def random_positions(game, count: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """``count`` ongoing positions of uniformly random games and one random legal action each."""
    rng = np.random.default_rng(seed)
    states, actions = [], []
    while len(states) < count:
        state = game.initial_state()
        while not game.is_terminal(state) and len(states) < count:
            move = int(rng.choice(game.legal_actions(state)))
            states.append(state.copy())
            actions.append(move)
            state = game.apply(state, move)
    return np.array(states), np.array(actions, np.int64)


def time_game(name: str, positions: int, repeats: int, seconds: float) -> dict[str, float]:
    game = mcts_envs.make_game(name)
    info = game.info
    k = game.kernels
    obs_kernel = observation_kernel(game).kernel
    states, actions = random_positions(game, positions, seed=0)
    players = np.array([game.current_player(s) for s in states], np.int64)
    n = len(states)
    scratch = np.zeros(info.state_size, np.int64)
    legal = np.zeros(info.max_legal_actions, np.int64)
    obs = np.zeros(info.observation_shape, info.observation_dtype)  # one row, as in a rollout
    result = np.zeros(2, np.float64)
    copy = measure.cpu_ns_per_call(lambda r: _loop_copy(states, scratch, r), n, repeats, seconds)
    figures = {
        "state copy": copy,
        "apply_action (- copy)": measure.cpu_ns_per_call(
            lambda r: _loop_apply(k.apply_action, states, actions, scratch, r), n, repeats, seconds
        )
        - copy,
        "current_player": measure.cpu_ns_per_call(
            lambda r: _loop_current_player(k.current_player, states, r), n, repeats, seconds
        ),
        "observation_planes": measure.cpu_ns_per_call(
            lambda r: _loop_observation(obs_kernel, states, players, obs, r), n, repeats, seconds
        ),
        "legal_actions": measure.cpu_ns_per_call(
            lambda r: _loop_legal(k.legal_actions, states, legal, r), n, repeats, seconds
        ),
        "returns": measure.cpu_ns_per_call(
            lambda r: _loop_returns(k.returns, states, result, r), n, repeats, seconds
        ),
    }
    step_kernels = (k.apply_action, k.current_player, obs_kernel, k.legal_actions)
    figures["step (copy+apply+player+obs+legal)"] = measure.cpu_ns_per_call(
        lambda r: _loop_step(*step_kernels, states, actions, scratch, obs, legal, r),
        n,
        repeats,
        seconds,
    )
    return figures


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default="tictactoe,ultimate_tictactoe")
    parser.add_argument("--positions", type=int, default=4096)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=0.3)
    parser.add_argument("--warm-cache", action="store_true", help="reuse the numba cache")
    args = parser.parse_args(argv)
    print(
        f"mcts_envs from {os.path.dirname(mcts_envs.__file__)}; load average "
        f"{os.getloadavg()[0]:.1f}; ns per call, median of {args.repeats}"
    )
    for name in args.games.split(","):
        figures = time_game(name, args.positions, args.repeats, args.seconds)
        print(f"{name}:")
        for label, value in figures.items():
            print(f"  {label:36s} {value:8.1f} ns")
    print(f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
