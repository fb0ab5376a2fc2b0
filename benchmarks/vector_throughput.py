"""Batched stepping throughput: VectorGame (Python-driven and fully compiled) beside pgx and our AEC env.

For every game and N in ``--sizes`` (default 1, 64, 1024), env steps per second with uniformly
random legal actions:

* ``python``: one :meth:`VectorGame.step` call per batch from a Python loop, actions from
  :meth:`VectorGame.random_actions` (compiled, per-env generators), batches returned as views
  (``copy=False``);
* ``python+numpy``: the same loop as a user without our sampler writes it: fresh arrays per step
  (``copy=True``, the default) and actions sampled from ``legal_action_mask`` with NumPy;
* ``compiled``: :meth:`VectorGame.random_rollout`, the same step (observations, masks, rewards,
  auto-reset) inside one compiled loop on one thread; ``compiled+threads`` the same on numba's
  thread pool (all cores);
* ``threads/1``: ``compiled+threads`` over ``compiled``, two figures taken apart (a rough view:
  ``thread_scaling.py`` measures the scaling, with ratios taken within a round and the ceiling
  two independent processes reach);
* ``aec``: our PettingZoo AEC env, one game at a time (``last``, mask sample, ``step``), and
  ``compiled/aec`` the ratio of the one-thread compiled loop to it (per core);
* with ``--observe``: per game and N, :meth:`VectorGame.observe` of the seat not on move
  (compiled) against the same observations through Python (``game.observation`` per env, what
  ``observe`` did before it was compiled), as observations per second beside a ``step`` of
  the same N;
* ``pgx`` (Tic-Tac-Toe and Connect Four, the games pgx ships too; needs the ``bench`` extra:
  ``pip install pgx jax``): ``jax.jit(jax.vmap(env.step))`` driven from Python one batch at a
  time, and a fully jitted ``lax.fori_loop``, both with random legal actions from
  ``jax.random.categorical`` over the masked logits.

Every figure is the median of ``--repeats`` runs of about ``--seconds`` each, after an untimed
warm-up (compiles or loads the code). The script ends with the issue's targets as ratios. Figures
on a shared machine are noisy: the load average is printed at the start and the end.

Usage: ``python benchmarks/vector_throughput.py [--games tictactoe,...] [--sizes 1,64,1024]
[--seconds 1.0] [--repeats 3] [--no-pgx] [--warm-cache] [--observe]``.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time

import measure
import numba
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


def python_driven(name: str, num_envs: int, seconds: float) -> float:
    """Python loop: ``step(random_actions())`` on views (``copy=False``)."""
    vg = VectorGame(name, num_envs, seed=0, copy=False)
    vg.reset()
    actions = np.empty(num_envs, np.int64)
    vg.step(vg.random_actions(actions))  # warm-up

    def once() -> int:
        vg.step(vg.random_actions(actions))
        return num_envs

    return measure.rate(once, seconds)


def python_numpy(name: str, num_envs: int, seconds: float) -> float:
    """Python loop: fresh arrays per step (``copy=True``) and NumPy sampling from the masks."""
    vg = VectorGame(name, num_envs, seed=0)
    rng = np.random.default_rng(0)
    batch = vg.reset()
    batch = vg.step(random_legal(batch.legal_action_mask, rng))  # warm-up

    def once() -> int:
        nonlocal batch
        batch = vg.step(random_legal(batch.legal_action_mask, rng))
        return num_envs

    return measure.rate(once, seconds)


def compiled_loop(name: str, num_envs: int, seconds: float, threads: bool = False) -> float:
    vg = VectorGame(name, num_envs, seed=0, threads=threads)
    vg.reset()
    vg.random_rollout(1)  # warm-up
    steps = measure.size_lasting(vg.random_rollout, seconds / 4)  # a fair share of the time
    return measure.rate(lambda: (vg.random_rollout(steps), num_envs * steps)[1], seconds)


def observe_figures(name: str, num_envs: int, seconds: float) -> dict[str, float]:
    """Per second: env steps of ``step`` (views), observations of the seat not on move by the
    compiled ``observe`` and by ``game.observation`` per env from Python."""
    vg = VectorGame(name, num_envs, seed=0, copy=False)
    vg.reset()
    actions = np.empty(num_envs, np.int64)
    batch = vg.step(vg.random_actions(actions))
    game = vg.game

    def step_once() -> int:
        vg.step(vg.random_actions(actions))
        return num_envs

    def compiled_once() -> int:
        vg.observe(1 - batch.current_player)
        return num_envs

    def python_once() -> int:
        players = 1 - batch.current_player
        np.stack([game.observation(s, int(p)) for s, p in zip(vg.states, players, strict=True)])
        return num_envs

    compiled_once()  # compile or load
    return {
        "step": measure.rate(step_once, seconds),
        "observe": measure.rate(compiled_once, seconds),
        "python observe": measure.rate(python_once, seconds),
    }


def aec_steps(name: str, seconds: float) -> float:
    return measure.env_moves_per_second(lambda: mcts_envs.make(name), seconds)


#: Our game -> pgx's env id of the same game.
PGX_PEERS = {"tictactoe": "tic_tac_toe", "connect_four": "connect_four"}


def pgx_figures(
    env_id: str, sizes: list[int], seconds: float, repeats: int
) -> dict[tuple[str, int], float]:
    """Steps/s of pgx's ``env_id``, Python-driven and fully jitted, per batch size (medians)."""
    import jax
    import jax.numpy as jnp
    import pgx

    env = pgx.make(env_id)
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

        figures[("python", size)] = statistics.median(
            measure.rate(once, seconds) for _ in range(repeats)
        )
        length = max(1, 2**16 // size)
        loop = make_loop(length)
        jax.block_until_ready(loop(state, key))

        def looped(size=size, loop=loop, length=length):
            nonlocal state, key
            state, key = loop(state, key)
            jax.block_until_ready(state.rewards)
            return size * length

        figures[("jit loop", size)] = statistics.median(
            measure.rate(looped, seconds) for _ in range(repeats)
        )
    return figures


def print_observe(games: list[str], sizes: list[int], repeats: int, seconds: float) -> None:
    """The ``--observe`` table: the other seat's observations, compiled against Python."""
    print("| game | N | step | observe (compiled) | observe (Python) | compiled/Python |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for name in games:
        for size in sizes:
            runs = [observe_figures(name, size, seconds) for _ in range(repeats)]
            row = {key: statistics.median(r[key] for r in runs) for key in runs[0]}
            print(
                f"| {name} | {size} | {row['step']:,.0f} | {row['observe']:,.0f} | "
                f"{row['python observe']:,.0f} | {row['observe'] / row['python observe']:.0f}x |",
                flush=True,
            )
    print(f"load average {measure.load_average()} at the end")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default=",".join(mcts_envs.list_games()))
    parser.add_argument("--sizes", default="1,64,1024")
    parser.add_argument("--pgx-sizes", default="1,64,1024,8192")
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--no-pgx", action="store_true")
    parser.add_argument("--warm-cache", action="store_true", help="reuse the numba cache")
    parser.add_argument("--observe", action="store_true", help="only the observe figures")
    args = parser.parse_args(argv)
    games = [mcts_envs.get_entry(g).name for g in args.games.split(",")]
    sizes = [int(s) for s in args.sizes.split(",")]

    def median(fn, *fn_args):
        return statistics.median(fn(*fn_args) for _ in range(args.repeats))

    print(
        f"mcts-envs {mcts_envs.__version__}; {platform.processor() or platform.machine()}, "
        f"{os.cpu_count()} cores, {numba.get_num_threads()} numba threads (shared: figures are "
        f"noisy); median of {args.repeats} x {args.seconds:g} s; env steps per second; "
        f"load average {measure.load_average()} at the start"
    )
    if args.observe:
        print_observe(games, sizes, args.repeats, args.seconds)
        return
    columns = ("game", "N", "python", "python+numpy", "compiled", "compiled+threads", "aec")
    print("| " + " | ".join(columns) + " | threads/1 | compiled/aec |")
    print("| --- | ---: |" + " ---: |" * (len(columns)))
    results: dict[tuple[str, int], dict[str, float]] = {}
    for name in games:
        print(f"  (compiling or loading {name}'s batch functions...)", flush=True)
        tic = time.perf_counter()
        VectorGame(name, 2, seed=0, threads=True).compile(rollout=True)
        VectorGame(name, 2, seed=0).compile(rollout=True)
        compile_time = time.perf_counter() - tic
        aec = median(aec_steps, name, args.seconds)
        for size in sizes:
            row = results[(name, size)] = {
                "python": median(python_driven, name, size, args.seconds),
                "python+numpy": median(python_numpy, name, size, args.seconds),
                "compiled": median(compiled_loop, name, size, args.seconds),
                "compiled+threads": (
                    median(compiled_loop, name, size, args.seconds, True) if size > 1 else 0.0
                ),
                "aec": aec,
            }
            cells = [f"{row[c]:,.0f}" if row[c] else "-" for c in columns[2:]]
            scaling = row["compiled+threads"] / row["compiled"]
            per_core = f"{row['compiled'] / aec:.0f}x" if aec else "-"
            print(
                f"| {name} | {size} | "
                + " | ".join(cells)
                + f" | {f'{scaling:.2f}x' if scaling else '-'} | {per_core} |",
                flush=True,
            )
        print(f"  ({name}: compile or cache load {compile_time:.1f} s)", flush=True)
    print(f"load average {measure.load_average()} at the end of our rows", flush=True)
    if args.no_pgx:
        return
    pgx_sizes = [int(s) for s in args.pgx_sizes.split(",")]
    for name in [g for g in games if g in PGX_PEERS]:
        print_pgx_rows(name, pgx_sizes, sizes, results, args)


def print_pgx_rows(
    name: str,
    pgx_sizes: list[int],
    sizes: list[int],
    results: dict[tuple[str, int], dict[str, float]],
    args: argparse.Namespace,
) -> None:
    """pgx's figures for ``name`` and our ratios to them (the issue's targets)."""
    try:
        figures = pgx_figures(PGX_PEERS[name], pgx_sizes, args.seconds, args.repeats)
    except ImportError:
        print("pgx/jax not installed (pip install -e '.[bench]'); pgx figures skipped")
        return
    import jax
    import pgx

    print(
        f"\npgx {pgx.__version__} / jax {jax.__version__} {PGX_PEERS[name]} on CPU "
        f"(load {measure.load_average()})"
    )
    print("| N | pgx python-driven | pgx jit loop |\n| ---: | ---: | ---: |")
    for size in pgx_sizes:
        print(
            f"| {size} | {figures[('python', size)]:,.0f} | {figures[('jit loop', size)]:,.0f} |",
            flush=True,
        )
    best = max(figures[("jit loop", size)] for size in pgx_sizes)
    ours = {size: results[(name, size)] for size in sizes if (name, size) in results}
    if not ours:
        return
    top = max(ours)
    compiled = max(max(r["compiled"], r["compiled+threads"]) for r in ours.values())
    print(f"\nTargets, {name} (pgx's best jit loop: {best:,.0f} steps/s):")
    print(
        f"- python-driven at N = {top}: {ours[top]['python'] / best:.2f}x pgx (target 2x); "
        f"python+numpy {ours[top]['python+numpy'] / best:.2f}x"
    )
    print(
        f"- compiled loop (best of one thread and threads): {compiled / best:.2f}x pgx (target 10x)"
    )


if __name__ == "__main__":
    main()
