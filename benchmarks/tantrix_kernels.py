"""Tantrix: where a compiled env step goes, kernel by kernel (one core).

Plays ``--games`` random games and keeps every decision position, then times each kernel alone
in a compiled loop over those positions (nanoseconds of CPU time per call, so that other
processes on a shared machine matter less; medians of ``--repeats``):

* ``legal_actions`` (move generation into a list), ``observation_planes`` (into a zeroed
  buffer, and the zeroing alone), ``observation_update`` (what the vector calls within a game:
  rewriting the previous decision's observation in place), ``apply_action`` of a random legal
  placement (on a copy: the copy is timed apart and subtracted), the chance step that follows
  (``chance_outcomes`` and ``apply_action`` of a drawn tile, which runs ``advance``: the next
  decision's move-existence tests), the same placement and draw as the vector steps them
  (``apply_and_list`` with a reused scratch, the tile from ``random_outcome``: the search for
  the next player with a move lists that player's moves, so ``legal_actions`` is not called
  again) and ``returns``.

The vector's step per decision is the ``apply_and_list`` row, the observation update and its mask
writes (see ``mcts_envs/vector.py``); ``benchmarks/vector_throughput.py --games tantrix`` gives
the whole step beside the AEC env.

Usage: ``python benchmarks/tantrix_kernels.py [--games 200] [--repeats 5] [--warm-cache]``
(from a source checkout, put the repository root on ``PYTHONPATH`` to measure that copy).
"""

from __future__ import annotations

import argparse
import os

import measure  # first: points numba at a fresh cache unless --warm-cache
import numpy as np
from numba import njit

import mcts_envs
from mcts_envs.core.seeding import make_rng, rng_below
from mcts_envs.games.tantrix import kernels as k
from mcts_envs.games.tantrix.hexgrid import WINDOW


@njit(cache=True)
def collect(initial, rng, games, out_states):
    """Plays random games from ``initial``; keeps up to ``len(out_states)`` decision states."""
    buffer = np.empty(k.MAX_LEGAL_ACTIONS, np.int64)
    kept = 0
    for _ in range(games):
        state = initial.copy()
        while True:
            status = state[k.STATUS]
            if status == k.DECIDE:
                if kept < out_states.shape[0]:
                    out_states[kept, :] = state
                    kept += 1
                count = k.legal_actions(state, buffer)
                k.apply_action(state, buffer[rng_below(rng, count)])
            elif k.is_chance(status):
                k.apply_action(state, k.random_tile_from_bag(state, rng))
            else:
                break
    return kept


@njit(cache=True)
def time_legal(states, buffer):
    total = 0
    for i in range(states.shape[0]):
        total += k.legal_actions(states[i], buffer)
    return total


@njit(cache=True)
def time_observation(states, out, zero, write):
    total = 0
    for i in range(states.shape[0]):
        if zero:
            out[...] = 0
        if write:
            k.observation_planes(states[i], states[i, k.MOVER], out)
        total += out[0, 0, 0]
    return total


@njit(cache=True)
def time_observation_update(states, out):
    """Each position's observation written over the previous one's (zeroed at a new game), as
    the vector does within a game (the positions are consecutive decisions of their games)."""
    total = 0
    for i in range(states.shape[0]):
        if i == 0 or states[i, k.NUM_PLACED] < states[i - 1, k.NUM_PLACED]:
            out[...] = 0
            k.observation_planes(states[i], states[i, k.MOVER], out)
        else:
            k.observation_update(states[i], states[i, k.MOVER], out)
        total += out[0, 0, 0]
    return total


@njit(cache=True)
def time_copy(states, scratch):
    total = 0
    for i in range(states.shape[0]):
        scratch[:] = states[i]
        total += scratch[k.STATUS]
    return total


@njit(cache=True)
def time_apply(states, actions, scratch, chance):
    """Copy, then the placement; with ``chance`` also the draw that follows (and advance)."""
    total = 0
    outcomes = np.empty(k.NUM_TILES, np.int64)
    probabilities = np.empty(k.NUM_TILES, np.float64)
    for i in range(states.shape[0]):
        scratch[:] = states[i]
        k.apply_action(scratch, actions[i])
        if chance:
            while k.current_player(scratch) == -1:
                count = k.chance_outcomes(scratch, outcomes, probabilities)
                k.apply_action(scratch, outcomes[i % count])
        total += k.current_player(scratch)
    return total


@njit(cache=True)
def time_apply_and_list(states, actions, scratch, legal, work, rng):
    """Copy, then the placement and the draws after it as the vector steps them: each move by
    ``apply_and_list`` (listing the next decision's moves), each tile from ``random_outcome``."""
    total = 0
    for i in range(states.shape[0]):
        scratch[:] = states[i]
        count = k.apply_and_list(scratch, actions[i], legal, work)
        while k.current_player(scratch) == -1:
            count = k.apply_and_list(scratch, k.random_outcome(scratch, rng), legal, work)
        total += count
    return total


@njit(cache=True)
def time_returns(states, result):
    total = 0.0
    for i in range(states.shape[0]):
        k.returns(states[i], result)
        total += result[0]
    return total


def per_call(fn, calls: int, repeats: int, *args) -> float:
    """Median CPU ns per position of ``fn(*args)`` (one call covers ``calls`` positions)."""

    def run(passes: int) -> None:
        for _ in range(passes):
            fn(*args)

    return measure.cpu_ns_per_call(run, calls, repeats, seconds=0.1)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="random games for the positions")
    parser.add_argument("--repeats", type=int, default=5, help="timings per figure (median)")
    parser.add_argument("--warm-cache", action="store_true", help="reuse the numba cache")
    args = parser.parse_args(argv)

    game = mcts_envs.make_game("tantrix")
    states = np.zeros((args.games * 56, k.STATE_SIZE), np.int64)
    kept = collect(game.initial_state(), make_rng(0), args.games, states)
    states = states[:kept].copy()
    buffer = np.empty(k.MAX_LEGAL_ACTIONS, np.int64)
    counts = np.array([k.legal_actions(s, buffer) for s in states])
    rng = np.random.default_rng(1)
    actions = np.empty(kept, np.int64)
    for i, s in enumerate(states):
        n = k.legal_actions(s, buffer)
        actions[i] = buffer[rng.integers(n)]
    obs = np.zeros((WINDOW, WINDOW, k.NUM_CHANNELS), np.int8)
    scratch = np.empty(k.STATE_SIZE, np.int64)
    result = np.zeros(2, np.float64)
    print(
        f"{kept:,} decision positions from {args.games} random games; mean legal "
        f"{counts.mean():.1f}; load {os.getloadavg()[0]:.2f}; ns per call, median of "
        f"{args.repeats}"
    )
    rows = {
        "legal_actions": per_call(time_legal, kept, args.repeats, states, buffer),
        "observation (zero + write)": per_call(
            time_observation, kept, args.repeats, states, obs, True, True
        ),
        "  zeroing alone": per_call(time_observation, kept, args.repeats, states, obs, True, False),
        "  writes alone": per_call(time_observation, kept, args.repeats, states, obs, False, True),
        "observation_update (over the previous)": per_call(
            time_observation_update, kept, args.repeats, states, obs
        ),
        "state copy": per_call(time_copy, kept, args.repeats, states, scratch),
    }
    copy = rows["state copy"]
    rows["apply placement (- copy)"] = (
        per_call(time_apply, kept, args.repeats, states, actions, scratch, False) - copy
    )
    rows["placement + draw + advance (- copy)"] = (
        per_call(time_apply, kept, args.repeats, states, actions, scratch, True) - copy
    )
    work = np.empty(k.APPLY_AND_LIST_SCRATCH, np.int64)
    rows["placement + draw + next list, apply_and_list (- copy)"] = (
        per_call(
            time_apply_and_list,
            kept,
            args.repeats,
            states,
            actions,
            scratch,
            buffer,
            work,
            make_rng(2),
        )
        - copy
    )
    rows["returns"] = per_call(time_returns, kept, args.repeats, states, result)
    for name, value in rows.items():
        print(f"  {name:55s} {value:9.0f}")


if __name__ == "__main__":
    main()
