"""Ataxx kernels one by one: nanoseconds per call in a compiled loop over positions of random games.

Collects positions from uniformly random games (every ongoing position of ``--games`` games),
then times each kernel of :mod:`mcts_envs.games.ataxx.kernels` alone in a compiled loop over
them (the fastest of ``--repeats`` passes), and the whole step two ways: as ``VectorGame`` did
it before the ``legal_mask`` and ``random_action`` kernels (apply, current player, observation
planes, legal actions into a list and an incremental mask, a draw from the list) and as it does
now (the whole mask row from ``legal_mask``, the draw from ``random_action``, no list).

``--baseline FILE`` times another copy of ``kernels.py`` with the same kernels (say main's) in
the same process, alternating passes, and prints both columns and their ratio: the fair A/B on a
shared machine.

Usage: ``python benchmarks/ataxx_kernels.py [--games 40] [--repeats 31] [--baseline FILE]``
"""

from __future__ import annotations

import argparse
import os
import time
from types import ModuleType
from typing import NamedTuple

import measure  # first: points numba at a fresh cache unless --warm-cache
import numpy as np
from numba import njit

from mcts_envs.core.numba_compat import borrow
from mcts_envs.core.seeding import make_rng, rng_below
from mcts_envs.games.ataxx import kernels as current


def random_positions(games: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Every ongoing position of ``games`` random games and the random legal action played."""
    rng = np.random.default_rng(seed)
    legal = np.empty(current.MAX_LEGAL_ACTIONS, np.int64)
    states, actions = [], []
    for _ in range(games):
        state = current.initial_state()
        while current.current_player(state) >= 0:
            count = current.legal_actions(state, legal)
            action = int(legal[rng.integers(count)])
            states.append(state.copy())
            actions.append(action)
            current.apply_action(state, action)
    return np.array(states), np.array(actions, np.int64)


class Scratch(NamedTuple):
    """The output arrays the timed loops write into (made in Python, so they outlive the loops)."""

    work: np.ndarray  # int64[6]: a state to apply actions to
    observation: np.ndarray  # int8[7, 7, 4]
    mask: np.ndarray  # bool[834]
    legal: np.ndarray  # int64[409]
    result: np.ndarray  # float32[2]


def make_scratch() -> Scratch:
    return Scratch(
        np.empty(current.STATE_SIZE, np.int64),
        np.empty((7, 7, 4), np.int8),
        np.zeros(current.NUM_ACTIONS, np.bool_),
        np.empty(current.MAX_LEGAL_ACTIONS, np.int64),
        np.empty(2, np.float32),
    )


def make_timers(k: ModuleType) -> dict:
    """Compiled loops over ``states`` calling one kernel each; each returns a checksum.

    The arrays are borrowed (not reference-counted) as in ``VectorGame``'s compiled loops, so
    views made inside a kernel cost what they cost there.
    """

    @njit
    def apply_action(states, actions, rng, scratch):
        states, work = borrow(states), borrow(scratch.work)
        total = 0
        for i in range(states.shape[0]):
            work[:] = states[i]
            k.apply_action(work, actions[i])
            total += work[5]
        return total

    @njit
    def current_player(states, actions, rng, scratch):
        states = borrow(states)
        total = 0
        for i in range(states.shape[0]):
            total += k.current_player(states[i])
        return total

    @njit
    def legal_actions(states, actions, rng, scratch):
        states, out = borrow(states), borrow(scratch.legal)
        total = 0
        for i in range(states.shape[0]):
            total += k.legal_actions(states[i], out)
        return total

    @njit
    def observation_planes(states, actions, rng, scratch):
        states, out = borrow(states), borrow(scratch.observation)
        total = 0
        for i in range(states.shape[0]):
            k.observation_planes(states[i], states[i, 2], out)
            total += out[3, 3, 3]
        return total

    @njit
    def returns(states, actions, rng, scratch):
        states, out = borrow(states), borrow(scratch.result)
        total = 0.0
        for i in range(states.shape[0]):
            k.returns(states[i], out)
            total += out[0]
        return total

    @njit
    def random_action(states, actions, rng, scratch):
        states = borrow(states)
        total = 0
        for i in range(states.shape[0]):
            total += k.random_action(states[i], rng)
        return total

    @njit
    def legal_mask(states, actions, rng, scratch):
        states, mask = borrow(states), borrow(scratch.mask)
        total = 0
        for i in range(states.shape[0]):
            k.legal_mask(states[i], mask)
            total += mask[i % 834]
        return total

    @njit
    def vector_step(states, actions, rng, scratch):
        """What one VectorGame rollout step asks of the kernels (no auto-reset)."""
        states, work = borrow(states), borrow(scratch.work)
        obs, mask, legal = borrow(scratch.observation), borrow(scratch.mask), borrow(scratch.legal)
        mask[:] = False
        num_legal = 0
        total = 0
        for i in range(states.shape[0]):
            work[:] = states[i]
            k.apply_action(work, actions[i])
            player = k.current_player(work)
            if player < 0:
                continue
            k.observation_planes(work, player, obs)
            for j in range(num_legal):
                mask[legal[j]] = False
            num_legal = k.legal_actions(work, legal)
            for j in range(num_legal):
                mask[legal[j]] = True
            total += num_legal + rng_below(rng, num_legal)
        return total

    @njit
    def vector_step_mask(states, actions, rng, scratch):
        """The same step with the whole-row mask kernel and a random action drawn from the
        state (no list), as VectorGame does for a game with ``legal_mask`` and
        ``random_action``."""
        states, work = borrow(states), borrow(scratch.work)
        obs, mask = borrow(scratch.observation), borrow(scratch.mask)
        total = 0
        for i in range(states.shape[0]):
            work[:] = states[i]
            k.apply_action(work, actions[i])
            player = k.current_player(work)
            if player < 0:
                continue
            k.observation_planes(work, player, obs)
            k.legal_mask(work, mask)
            total += k.random_action(work, rng)
        return total

    return {
        "apply_action": apply_action,
        "current_player": current_player,
        "legal_actions": legal_actions,
        "observation_planes": observation_planes,
        "returns": returns,
        "random_action": random_action,
        "legal_mask": legal_mask,
        "vector_step (no reset)": vector_step,
        "vector_step, mask kernel (no reset)": vector_step_mask,
    }


def time_once(function, states: np.ndarray, actions: np.ndarray) -> float:
    """Nanoseconds per position of one pass."""
    start = time.perf_counter()
    function(states, actions, make_rng(1), make_scratch())
    return (time.perf_counter() - start) * 1e9 / states.shape[0]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40, help="random games to take positions of")
    parser.add_argument(
        "--repeats",
        type=int,
        default=31,
        help="passes per figure (the fastest: the least disturbed by other processes)",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--baseline", help="another kernels.py to time side by side")
    parser.add_argument("--warm-cache", action="store_true", help="reuse the numba cache")
    args = parser.parse_args(argv)

    states, actions = random_positions(args.games, args.seed)
    legal = np.empty(current.MAX_LEGAL_ACTIONS, np.int64)
    mean_legal = np.mean([current.legal_actions(s, legal) for s in states])
    print(
        f"{len(states):,} positions of {args.games} random games "
        f"(mean {mean_legal:.1f} legal actions); load average {os.getloadavg()[0]:.1f}"
    )
    sides = {"ours": make_timers(current)}
    if args.baseline:
        sides["baseline"] = make_timers(
            measure.load_module_copy(args.baseline, "ataxx_baseline_kernels")
        )
    names = list(sides["ours"])
    for timers in sides.values():  # compile, and check both sides compute the same thing
        sums = {name: timers[name](states, actions, make_rng(1), make_scratch()) for name in names}
        print(f"  checksums: {sums}")
    header = "| kernel | " + " | ".join(f"{side} ns" for side in sides)
    print(header + (" | baseline/ours |" if args.baseline else " |"))
    print("| --- |" + " ---: |" * (len(sides) + bool(args.baseline)))
    for name in names:
        runs: dict[str, list[float]] = {side: [] for side in sides}
        for _ in range(args.repeats):
            for side, timers in sides.items():
                runs[side].append(time_once(timers[name], states, actions))
        fastest = {side: min(values) for side, values in runs.items()}
        row = f"| {name} | " + " | ".join(f"{value:.1f}" for value in fastest.values())
        if args.baseline:
            row += f" | {fastest['baseline'] / fastest['ours']:.2f}x"
        print(row + " |")
    print(f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
