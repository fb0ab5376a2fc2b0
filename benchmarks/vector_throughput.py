"""Batched stepping throughput: VectorGame (Python-driven and fully compiled) beside pgx and our AEC env.

For every game and N in ``--sizes`` (default 1, 64, 1024), env steps per second with uniformly
random legal actions chosen from the masks:

* ``python``: one :meth:`VectorGame.step` call per batch from a Python loop, actions sampled
  from ``legal_action_mask`` with NumPy (so the figure includes the sampling and the copies a
  user gets back);
* ``compiled``: :meth:`VectorGame.random_rollout`, the same step (observations, masks, rewards,
  auto-reset) inside one compiled loop; ``compiled+threads`` the same on numba's thread pool;
* ``aec``: our PettingZoo AEC env, one game at a time (``last``, mask sample, ``step``);
* ``pgx`` (Tic-Tac-Toe; needs the ``bench`` extra: ``pip install pgx jax``): ``jax.jit(jax.vmap(
  env.step))`` driven from Python one batch at a time, and a fully jitted ``lax.fori_loop``, both
  with random legal actions from ``jax.random.categorical`` over the masked logits.

Every figure is the median of ``--repeats`` runs of about ``--seconds`` each, after an untimed
warm-up (compiles or loads the code). Figures on a shared machine are noisy.

Usage: ``python benchmarks/vector_throughput.py [--games tictactoe,...] [--sizes 1,64,1024]
[--seconds 1.0] [--repeats 3] [--no-pgx] [--warm-cache]``
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time

import measure
import numpy as np

import mcts_envs
from mcts_envs.vector import VectorGame


def random_legal(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row of a boolean mask (vectorised)."""
    rows, cols = np.nonzero(mask)
    counts = np.bincount(rows, minlength=mask.shape[0])
    offsets = np.concatenate(([0], np.cumsum(counts)[:-1]))
    picks = (rng.random(mask.shape[0]) * counts).astype(np.int64)
    return cols[offsets + picks]


def timed(run_once, seconds: float) -> float:
    """Steps/s of ``run_once() -> steps`` repeated for about ``seconds``."""
    steps, start = 0, time.perf_counter()
    while True:
        steps += run_once()
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return steps / elapsed


def python_driven(name: str, num_envs: int, seconds: float, threads: bool = False) -> float:
    vg = VectorGame(name, num_envs, seed=0, threads=threads)
    rng = np.random.default_rng(0)
    batch = vg.reset()
    batch = vg.step(random_legal(batch.legal_action_mask, rng))  # warm-up

    def once() -> int:
        nonlocal batch
        batch = vg.step(random_legal(batch.legal_action_mask, rng))
        return num_envs

    return timed(once, seconds)


def compiled_loop(name: str, num_envs: int, seconds: float, threads: bool = False) -> float:
    vg = VectorGame(name, num_envs, seed=0, threads=threads)
    vg.reset()
    vg.random_rollout(1)  # warm-up
    steps = 1
    while True:  # grow the loop until one call takes a fair share of the time
        tic = time.perf_counter()
        vg.random_rollout(steps, seed=steps)
        elapsed = time.perf_counter() - tic
        if elapsed > seconds / 4 or steps > 10**7:
            break
        steps *= 4
    return timed(lambda: (vg.random_rollout(steps, seed=steps), num_envs * steps)[1], seconds)


def aec_steps(name: str, seconds: float) -> float:
    return measure.env_moves_per_second(lambda: mcts_envs.make(name), seconds)


def pgx_figures(sizes: list[int], seconds: float) -> dict[tuple[str, int], float]:
    """Steps/s of pgx Tic-Tac-Toe, Python-driven and fully jitted, per batch size."""
    import jax
    import jax.numpy as jnp
    import pgx

    env = pgx.make("tic_tac_toe")
    init = jax.jit(jax.vmap(env.init))

    def pick(key, state):
        logits = jnp.where(state.legal_action_mask, 0.0, -jnp.inf)
        return jax.random.categorical(key, logits, axis=-1)

    def auto_step(state, action, key):
        state = env.step(state, action)
        return jax.lax.cond(state.terminated, lambda: env.init(key), lambda: state)

    @jax.jit
    def python_step(state, key):
        key, pick_key = jax.random.split(key)
        keys = jax.random.split(pick_key, state.current_player.shape[0] + 1)
        actions = pick(keys[0], state)
        return jax.vmap(auto_step)(state, actions, keys[1:]), key

    def make_loop(length):
        @jax.jit
        def loop(state, key):
            def body(_, carry):
                return python_step(*carry)

            return jax.lax.fori_loop(0, length, body, (state, key))

        return loop

    figures = {}
    for size in sizes:
        state = init(jax.random.split(jax.random.PRNGKey(0), size))
        key = jax.random.PRNGKey(1)
        state, key = python_step(state, key)
        jax.block_until_ready(state)

        def once(size=size):
            nonlocal state, key
            state, key = python_step(state, key)
            jax.block_until_ready(state.rewards)
            return size

        figures[("python", size)] = timed(once, seconds)
        length = max(1, 2**16 // size)
        loop = make_loop(length)
        jax.block_until_ready(loop(state, key))

        def looped(size=size, loop=loop, length=length):
            nonlocal state, key
            state, key = loop(state, key)
            jax.block_until_ready(state.rewards)
            return size * length

        figures[("jit loop", size)] = timed(looped, seconds)
    return figures


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default=",".join(mcts_envs.list_games()))
    parser.add_argument("--sizes", default="1,64,1024")
    parser.add_argument("--pgx-sizes", default="1,64,1024,8192")
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--no-pgx", action="store_true")
    parser.add_argument("--warm-cache", action="store_true", help="reuse the numba cache")
    args = parser.parse_args(argv)
    games = [mcts_envs.get_entry(g).name for g in args.games.split(",")]
    sizes = [int(s) for s in args.sizes.split(",")]

    def median(fn, *fn_args):
        return statistics.median(fn(*fn_args) for _ in range(args.repeats))

    print(
        f"mcts-envs {mcts_envs.__version__}; {platform.processor() or platform.machine()}, "
        f"{os.cpu_count()} cores (shared: figures are noisy); median of {args.repeats} x "
        f"{args.seconds:g} s; env steps per second"
    )
    header = f"| {'game':<18} | {'N':>5} | {'python':>11} | {'compiled':>11} | {'compiled+threads':>16} | {'aec (1 env)':>11} |"
    print(header)
    print("|" + "|".join("-" * (len(c)) for c in header.split("|")[1:-1]) + "|")
    for name in games:
        print(f"  (compiling or loading {name}'s batch functions...)", flush=True)
        tic = time.perf_counter()
        vg = VectorGame(name, 2, seed=0, threads=True)
        vg.compile(rollout=True)
        VectorGame(name, 2, seed=0).compile(rollout=True)
        compile_time = time.perf_counter() - tic
        aec = median(aec_steps, name, args.seconds)
        for size in sizes:
            python = median(python_driven, name, size, args.seconds)
            compiled = median(compiled_loop, name, size, args.seconds)
            threaded = median(compiled_loop, name, size, args.seconds, True) if size > 1 else None
            threaded_text = f"{threaded:>16,.0f}" if threaded else f"{'-':>16}"
            print(
                f"| {name:<18} | {size:>5} | {python:>11,.0f} | {compiled:>11,.0f} | "
                f"{threaded_text} | {aec:>11,.0f} |",
                flush=True,
            )
        print(f"  ({name}: compile or cache load {compile_time:.1f} s)", flush=True)
    if not args.no_pgx and "tictactoe" in games:
        try:
            figures = pgx_figures([int(s) for s in args.pgx_sizes.split(",")], args.seconds)
        except ImportError:
            print("pgx/jax not installed (pip install -e '.[bench]'); pgx figures skipped")
            return
        import jax
        import pgx

        print(f"\npgx {pgx.__version__} / jax {jax.__version__} Tic-Tac-Toe on CPU")
        print("| N | pgx python-driven | pgx jit loop |\n|---|---|---|")
        for size in [int(s) for s in args.pgx_sizes.split(",")]:
            print(
                f"| {size} | {figures[('python', size)]:,.0f} | "
                f"{figures[('jit loop', size)]:,.0f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
