"""Pentago Twist: nanoseconds per call of each compiled kernel, over positions of random games.

Plays ``--games`` uniformly random games with the kernels, keeps every position where a player
must act (and the random action played there), then times each kernel alone in a compiled loop
over those positions, and a whole env step two ways (not the step's other work: flags,
auto-reset): ``step``, as :func:`mcts_envs.vector.VectorGame.random_rollout` did it before the
``random_action`` kernel (apply, current player, observation planes, legal actions with the
incremental mask update), and ``step, mask kernel``, as it does it now (the whole mask row from
``legal_mask`` and the action from ``random_action``, no list). Each block of 4,000
positions is timed ``--repeats`` times in each of two rounds and its best time kept (short runs
dodge preemption on a busy machine); the cost of the call itself is subtracted.

* ``apply_action``: copy the state and play the recorded action (the copy is timed apart as
  ``copy`` and subtracted);
* ``current_player``, ``returns``, ``observation_planes``, ``legal_actions``;
* ``legal_actions + mask update``: the legal list with the env's clear-old/set-new mask loop
  over it (VectorGame's code, timed here because it bounds the step);
* ``random_playout``: a random game to the end from each position (MCTS rollouts);
* ``step``: apply, current player, observation and legal list with the mask update, per step.

``--compare PATH`` loads a second kernels file (for instance main's
``mcts_envs/games/pentago_twist/kernels.py``) under another module name and prints its figures
beside ours, measured in the same process (the rounds alternate between the two).

Usage: ``python benchmarks/pentago_twist_kernels.py [--games 2000] [--repeats 7]
[--compare PATH]`` (from a source checkout, put the repository root on ``PYTHONPATH``).
"""

from __future__ import annotations

import argparse
import os
import time
from types import ModuleType

import measure  # first: points numba at a fresh cache unless --warm-cache
import numpy as np
from numba import njit

from mcts_envs.core.numba_compat import borrow
from mcts_envs.core.seeding import make_rng, rng_below
from mcts_envs.games.pentago_twist import kernels as ours


@njit
def _collect(initial, legal_actions, apply_action, current_player, games, seed_words):
    """Positions before every move of ``games`` random games, the actions played, and players."""
    rng = seed_words.copy()
    cap = games * 36
    states = np.empty((cap, initial.shape[0]), np.int64)
    actions = np.empty(cap, np.int64)
    legal = np.empty(288, np.int64)
    n = 0
    for _ in range(games):
        state = initial.copy()
        while current_player(state) >= 0:
            count = legal_actions(state, legal)
            action = legal[rng_below(rng, count)]
            states[n] = state
            actions[n] = action
            n += 1
            apply_action(state, action)
    return states[:n], actions[:n]


@njit
def _time_copy(states, actions, apply_action, lo, hi):
    tmp = np.empty(states.shape[1], np.int64)
    total = 0
    for j in range(lo, hi):
        tmp[:] = states[j]
        total += tmp[0] + actions[j]
    return total


@njit
def _time_apply(states, actions, apply_action, lo, hi):
    tmp = np.empty(states.shape[1], np.int64)
    total = 0
    for j in range(lo, hi):
        tmp[:] = states[j]
        apply_action(tmp, actions[j])
        total += tmp[0] ^ tmp[3]
    return total


@njit
def _time_current_player(states, current_player, lo, hi):
    total = 0
    for j in range(lo, hi):
        total += current_player(states[j])
    return total


@njit
def _time_returns(states, returns, lo, hi):
    out = np.zeros(2)
    total = 0.0
    for j in range(lo, hi):
        returns(states[j], out)
        total += out[0]
    return total


@njit
def _time_observation(states, players, observation_planes, obs, lo, hi):
    states, players, obs = borrow(states), borrow(players), borrow(obs)  # as VectorGame does
    total = 0
    for j in range(lo, hi):
        o = obs[j & 63]
        observation_planes(states[j], players[j], o)
        total += o[0, 0, 0]
    return total


@njit
def _time_legal(states, legal_actions, mask_update, lo, hi):
    """The legal list of each position, and (``mask_update``) the env's incremental mask update:
    clear the entries of the previous list, write the new list, set its entries."""
    states = borrow(states)
    legal = np.zeros(288, np.int64)
    mask = np.zeros(288, np.bool_)
    count = 0
    total = 0
    for j in range(lo, hi):
        if mask_update:
            for i in range(count):
                mask[legal[i]] = False
        count = legal_actions(states[j], legal)
        if mask_update:
            for i in range(count):
                mask[legal[i]] = True
        total += count
    return total + mask[0]


@njit
def _time_playout(states, random_playout, seed_words, lo, hi):
    """A random playout to the end from each position (one generator, seeded the same)."""
    rng = seed_words.copy()
    tmp = np.empty(states.shape[1], np.int64)
    total = 0
    for j in range(lo, hi):
        tmp[:] = states[j]
        random_playout(tmp, rng)
        total += tmp[3]
    return total


@njit(inline="always")
def _play_and_observe(states, actions, j, step_kernels, obs, tmp):
    """Copy position ``j`` into ``tmp``, play its action and write the observation of the player
    to move; returns that player (< 0: the game is over, nothing written) and the row written."""
    k_apply, k_player, k_obs = step_kernels
    tmp[:] = states[j]
    k_apply(tmp, actions[j])
    player = k_player(tmp)
    o = obs[j & 63]
    if player >= 0:
        k_obs(tmp, player, o)
    return player, o


@njit
def _time_step(states, actions, k_apply, k_player, k_obs, k_legal, obs, lo, hi):
    """Copy, apply, current player, observation planes, legal list and incremental mask."""
    states, actions, obs = borrow(states), borrow(actions), borrow(obs)
    tmp = np.empty(states.shape[1], np.int64)
    legal = np.zeros(288, np.int64)
    mask = np.zeros(288, np.bool_)
    num_legal = 0
    total = 0
    for j in range(lo, hi):
        player, o = _play_and_observe(states, actions, j, (k_apply, k_player, k_obs), obs, tmp)
        if player < 0:
            continue
        for i in range(num_legal):
            mask[legal[i]] = False
        num_legal = k_legal(tmp, legal)
        for i in range(num_legal):
            mask[legal[i]] = True
        total += num_legal + o[0, 0, 0]
    return total


@njit
def _time_step_mask(states, actions, kernels, obs, seed_words, lo, hi):
    """Copy, apply, current player, observation planes, the whole mask row from ``legal_mask``
    and a draw from ``random_action``: the step as VectorGame does it now (no legal list)."""
    k_apply, k_player, k_obs, k_mask, k_random = kernels
    states, actions, obs = borrow(states), borrow(actions), borrow(obs)
    tmp = np.empty(states.shape[1], np.int64)
    mask = np.zeros(288, np.bool_)
    rng = seed_words.copy()
    total = 0
    for j in range(lo, hi):
        player, o = _play_and_observe(states, actions, j, (k_apply, k_player, k_obs), obs, tmp)
        if player < 0:
            continue
        k_mask(tmp, mask)
        total += k_random(tmp, rng) + o[0, 0, 0]
    return total


BLOCK = 4000  # positions per timed call: short enough to run between preemptions


def best_ns(run, n: int, repeats: int) -> float:
    """Nanoseconds per position of ``run(lo, hi)`` over positions ``0..n``: each block of
    :data:`BLOCK` positions is timed ``repeats`` times and its best time kept (a busy machine
    preempts some runs; the best of short runs is the undisturbed figure)."""
    overhead = float("inf")  # of the call itself (numba's dispatch), subtracted
    for _ in range(repeats):
        start = time.perf_counter()
        run(0, 0)
        overhead = min(overhead, time.perf_counter() - start)
    total = 0.0
    for lo in range(0, n, BLOCK):
        hi = min(n, lo + BLOCK)
        best = float("inf")
        for _ in range(repeats):
            start = time.perf_counter()
            run(lo, hi)
            best = min(best, time.perf_counter() - start)
        total += best - overhead
    return total / n * 1e9


def kernel_timings(k: ModuleType, data, repeats: int) -> dict[str, float]:
    """Nanoseconds per call of each kernel of module ``k`` over the positions in ``data``."""
    states, actions, players, obs = data
    n = len(states)
    rows = {}
    copy = best_ns(lambda lo, hi: _time_copy(states, actions, k.apply_action, lo, hi), n, repeats)
    rows["copy (subtracted)"] = copy
    rows["apply_action"] = (
        best_ns(lambda lo, hi: _time_apply(states, actions, k.apply_action, lo, hi), n, repeats)
        - copy
    )
    rows["current_player"] = best_ns(
        lambda lo, hi: _time_current_player(states, k.current_player, lo, hi), n, repeats
    )
    rows["returns"] = best_ns(lambda lo, hi: _time_returns(states, k.returns, lo, hi), n, repeats)
    rows["observation_planes"] = best_ns(
        lambda lo, hi: _time_observation(states, players, k.observation_planes, obs, lo, hi),
        n,
        repeats,
    )
    rows["legal_actions"] = best_ns(
        lambda lo, hi: _time_legal(states, k.legal_actions, False, lo, hi), n, repeats
    )
    rows["legal_actions + mask update (env)"] = best_ns(
        lambda lo, hi: _time_legal(states, k.legal_actions, True, lo, hi), n, repeats
    )
    rows["random_playout (to the end)"] = best_ns(
        lambda lo, hi: _time_playout(states, k.random_playout, make_rng(1), lo, hi), n, repeats
    )
    rows["step"] = best_ns(
        lambda lo, hi: _time_step(
            states,
            actions,
            k.apply_action,
            k.current_player,
            k.observation_planes,
            k.legal_actions,
            obs,
            lo,
            hi,
        ),
        n,
        repeats,
    )
    if hasattr(k, "legal_mask") and hasattr(k, "random_action"):  # (a --compare copy may lack them)
        kernels = (k.apply_action, k.current_player, k.observation_planes)
        kernels += (k.legal_mask, k.random_action)
        rows["step, mask kernel"] = best_ns(
            lambda lo, hi: _time_step_mask(states, actions, kernels, obs, make_rng(1), lo, hi),
            n,
            repeats,
        )
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000, help="random games for positions")
    parser.add_argument("--repeats", type=int, default=7, help="passes per figure (best kept)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--compare", help="another kernels.py to time beside ours")
    parser.add_argument("--warm-cache", action="store_true", help="reuse the numba cache")
    args = parser.parse_args(argv)

    initial = np.zeros(ours.STATE_SIZE, np.int64)
    states, actions = _collect(
        initial,
        ours.legal_actions,
        ours.apply_action,
        ours.current_player,
        args.games,
        make_rng(args.seed),
    )
    players = states[:, ours.TO_MOVE].copy()
    counts = np.array([ours.legal_actions(s, np.empty(288, np.int64)) for s in states])
    obs = np.zeros((64, 6, 6, 2), np.int8)
    data = (states, actions, players, obs)
    modules = {"ours": ours}
    if args.compare:
        modules["compared"] = measure.load_module_copy(args.compare, "_compared_pentago_kernels")
    results: dict[str, list[dict[str, float]]] = {name: [] for name in modules}
    for k in modules.values():  # warm-up: compile
        kernel_timings(k, (states[:64], actions[:64], players[:64], obs), 1)
    for _ in range(2):
        for name, k in modules.items():
            results[name].append(kernel_timings(k, data, args.repeats))
    load = os.getloadavg()[0]
    print(
        f"{len(states)} positions from {args.games} random games (mean {len(states) / args.games:.1f}"
        f" moves, mean {counts.mean():.0f} legal actions); ns per call, best of "
        f"{2 * args.repeats} passes over each block of {BLOCK}; load average {load:.1f}"
    )
    names = list(modules)
    print("| kernel | " + " | ".join(names) + " |")
    print("| --- |" + " ---: |" * len(names))
    for row in results["ours"][0]:
        cells = [
            f"{min(r[row] for r in results[name]):.1f}" if row in results[name][0] else "-"
            for name in names
        ]
        print(f"| {row} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
