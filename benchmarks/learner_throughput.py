"""The learner's batched env against one AEC env: ``LearnerVectorEnv`` moves/s beside ``env()``'s.

For each game of ``--games`` (default: Tantrix, the game whose 121,104-wide masks made the learner
env slower than one AEC env) and each N of ``--sizes`` (default 64):

* ``aec``: our PettingZoo env through ``mcts_envs.make`` (``env()``), random play (``last``,
  ``np.flatnonzero`` over the mask, ``step``), moves of both agents per second;
* ``learner``: :class:`~mcts_envs.rl.vector_env.LearnerVectorEnv` with N envs and the default
  random opponent (it draws from the vector's legal action lists). ``learner steps/s`` counts
  the learner's moves (N per ``step``), ``moves/s`` the learner's and the opponent's together
  (the AEC figure's unit);
* ``ratio``: learner moves/s over the AEC env's (target: at least 5x on Tantrix at N = 64).

Two ways to choose the random actions, each the same for both envs:

* ``mask``: NumPy over the masks (``np.flatnonzero(obs["action_mask"])`` in the AEC loop,
  ``np.nonzero`` over ``infos["action_mask"]`` for the learner, fresh arrays: ``copy=True``), the
  loop as usually written: on Tantrix both loops then spend most of their time reading
  121,104-entry mask rows;
* ``lists``: from the legal actions as lists (the AEC loop: ``game.legal_actions(game_state)``;
  the learner: :meth:`~mcts_envs.rl.vector_env.LearnerVectorEnv.legal_lists` with
  ``copy=False``), what a sampler or a policy that scores only the legal actions reads.

Each figure is the median of ``--repeats`` runs of about ``--seconds`` each, the two envs taken in
turn within a repeat, after an untimed warm-up (compiles or loads the code). The load average is
printed at the start and the end.

Usage: ``python benchmarks/learner_throughput.py [--games tantrix,...] [--sizes 64]
[--seconds 2.0] [--repeats 5] [--warm-cache]``.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time

import measure
from measure import env_moves_per_second, load_average

import mcts_envs
from mcts_envs.rl import LearnerVectorEnv, random_opponent
from mcts_envs.rl.opponents import sample_legal


class CountingOpponent:
    """The random opponent, counting the moves it makes."""

    name = "random"

    def __init__(self, seed: int) -> None:
        self.base = random_opponent(seed)
        self.moves = 0

    def reset(self, seed: int | None) -> None:
        self.base.reset(seed)

    def __call__(self, view):
        self.moves += len(view.env_indices)
        return self.base(view)


def aec_rate(name: str, seconds: float, seed: int, mode: str) -> float:
    """Random-play moves/s through ``env()``: the shared AEC loop (``mask``), or the same loop
    drawing from ``game.legal_actions(game_state)`` (``lists``)."""
    make = mcts_envs.get_entry(name).env_factory
    if mode == "mask":
        return env_moves_per_second(make, seconds, seed)

    def game_lists(env, _observation):
        raw = env.unwrapped
        return raw.game.legal_actions(raw.game_state)

    return env_moves_per_second(make, seconds, seed, legal_of=game_lists)


def learner_rates(
    name: str, num_envs: int, seconds: float, seed: int, mode: str
) -> tuple[float, float]:
    """``(learner moves/s, all moves/s)`` of random play in a ``LearnerVectorEnv``."""
    import numpy as np

    opponent = CountingOpponent(seed)
    env = LearnerVectorEnv(name, num_envs, opponent=opponent, seed=seed, copy=mode == "mask")
    rng = np.random.default_rng(seed)
    rows = np.arange(num_envs)

    def actions(infos):
        lists = env.legal_lists() if mode == "lists" else None
        if lists is None:
            return sample_legal(infos["action_mask"], rng)
        legal, counts = lists
        return legal[rows, (rng.random(num_envs) * counts).astype(np.int64)]

    _, infos = env.reset(seed=seed)
    for _ in range(3):  # warm-up: compiles or loads the step
        _, _, _, _, infos = env.step(actions(infos))
    opponent.moves, steps, start = 0, 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        _, _, _, _, infos = env.step(actions(infos))
        steps += 1
    elapsed = time.perf_counter() - start
    learner = steps * num_envs / elapsed
    return learner, learner + opponent.moves / elapsed


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default="tantrix")
    parser.add_argument("--sizes", default="64")
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--warm-cache", action="store_true", help="reuse the numba cache")
    args = parser.parse_args(argv)
    print(
        f"mcts-envs {mcts_envs.__version__}; {platform.machine()}, {os.cpu_count()} cores; "
        f"load average {load_average()} at the start; medians of {args.repeats} x "
        f"{args.seconds:.1f} s (numba cache: {'warm' if args.warm_cache else 'fresh'})"
    )
    assert measure  # imported first: points numba at a fresh cache unless --warm-cache
    header = (
        f"{'game':<20} {'actions':<7} {'N':>5} {'aec moves/s':>12} {'learner steps/s':>16} "
        f"{'moves/s':>10} {'ratio':>7}"
    )
    print(header)
    for name in args.games.split(","):
        for mode in ("mask", "lists"):
            for num_envs in (int(n) for n in args.sizes.split(",")):
                aec, learner, moves = [], [], []
                for seed in range(args.repeats):
                    aec.append(aec_rate(name, args.seconds, seed, mode))
                    steps, all_moves = learner_rates(name, num_envs, args.seconds, seed, mode)
                    learner.append(steps)
                    moves.append(all_moves)
                a, lr, m = (statistics.median(x) for x in (aec, learner, moves))
                print(
                    f"{name:<20} {mode:<7} {num_envs:5d} {a:12,.0f} {lr:16,.0f} {m:10,.0f} "
                    f"{m / a:6.1f}x"
                )
    print(f"load average {load_average()} at the end")


if __name__ == "__main__":
    main()
