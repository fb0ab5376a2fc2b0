"""Batched stepping on a GPU: ``VectorGame(device="cuda")`` beside pgx's jitted Tic-Tac-Toe loop.

For every game that runs on the GPU and every N in ``--sizes`` (default 1,024 to 4,194,304),
env steps per second with uniformly random legal actions, on the same GPU in the same run:

* ``device loop``: :meth:`VectorGame.random_rollout`, every env's steps in one GPU thread
  (observations, masks, rewards and auto-resets written at every step, as on the CPU);
* ``python``: one :meth:`VectorGame.step` per batch from a Python loop, actions from
  :meth:`VectorGame.random_actions`, both on the device (``copy=False``,
  ``illegal_action="penalty"``: nothing is read back inside the loop);
* ``pgx jit loop`` (Tic-Tac-Toe and Connect Four, the games pgx ships too; the ``bench`` extra
  with a CUDA build of jax): ``jax.lax.fori_loop`` over ``jax.vmap(env.step)`` with random legal
  actions from ``jax.random.categorical`` over the masked logits (the loop of
  ``vector_throughput.py``), and ``ours/pgx`` the device loop over it.

Every figure is the median of ``--repeats`` runs of about ``--seconds`` each, after an untimed
warm-up that compiles the kernels (compile times printed apart). Without a CUDA GPU the script
says so and exits with status 2: no figure is printed. ``NUMBA_ENABLE_CUDASIM=1`` runs it under
numba's CUDA simulator (pure Python: a check that the script works, never a speed) and marks
every row "simulator".

Usage: ``python benchmarks/gpu_throughput.py [--games tictactoe,...]
[--sizes 1024,16384,131072,1048576,4194304] [--seconds 2] [--repeats 3] [--no-pgx]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from importlib.metadata import version

import measure  # noqa: F401 (before numba: a fresh cache unless --warm-cache)

import mcts_envs
from mcts_envs.vector import VectorGame

SIZES = "1024,16384,131072,1048576,4194304"
#: pgx's names of the games it shares with us.
PGX_PEERS = {"tictactoe": "tic_tac_toe", "connect_four": "connect_four"}


def timed_rate(run, seconds: float) -> float:
    """Steps per second of ``run()`` (which returns the steps it played and waits for the GPU),
    called until ``seconds`` have passed."""
    steps, start = 0, time.perf_counter()
    while True:
        steps += run()
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return steps / elapsed


def our_figures(game: str, size: int, args: argparse.Namespace) -> dict[str, float]:
    """Steps/s of the device loop and the Python-driven loop for ``game`` at batch ``size``."""
    from numba import cuda

    start = time.perf_counter()
    vector = VectorGame(game, size, 0, device="cuda", copy=False, illegal_action="penalty")
    built = time.perf_counter() - start
    start = time.perf_counter()
    vector.compile(rollout=True)
    compiled = time.perf_counter() - start
    length = max(1, args.loop_steps // size)

    def loop() -> int:
        vector.random_rollout(length)  # returns the games finished: waits for the GPU
        return size * length

    def python() -> int:
        for _ in range(args.python_steps):
            vector.step(vector.random_actions())
        cuda.synchronize()
        return size * args.python_steps

    figures = {
        "device loop": statistics.median(
            timed_rate(loop, args.seconds) for _ in range(args.repeats)
        ),
        "python": statistics.median(timed_rate(python, args.seconds) for _ in range(args.repeats)),
    }
    print(
        f"  ({game} N={size:,}: built in {built:.1f} s (seeding every env's generators on the "
        f"CPU), kernels compiled in {compiled:.1f} s)",
        flush=True,
    )
    return figures


def device_name() -> str:
    from numba import cuda

    if os.environ.get("NUMBA_ENABLE_CUDASIM") == "1":
        return "numba's CUDA simulator (no GPU: not a speed)"
    if not cuda.is_available():
        return ""
    name = cuda.get_current_device().name
    return name.decode() if isinstance(name, bytes) else str(name)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default="")
    parser.add_argument("--sizes", default=SIZES)
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--loop-steps", type=int, default=2**24, help="env steps per loop call")
    parser.add_argument("--python-steps", type=int, default=16, help="steps per timed call")
    parser.add_argument("--no-pgx", action="store_true")
    parser.add_argument("--warm-cache", action="store_true", help="reuse the numba cache")
    args = parser.parse_args(argv)
    from mcts_envs.cuda import CPU_ONLY_GAMES

    device = device_name()
    if not device:
        print(
            "gpu_throughput.py: no CUDA GPU here (numba-cuda finds none), so no figure. Run it "
            "on a machine with an NVIDIA GPU and the cuda extra installed.",
            file=sys.stderr,
        )
        return 2
    games = args.games.split(",") if args.games else mcts_envs.list_games()
    games = [game for game in games if game not in CPU_ONLY_GAMES]
    sizes = [int(size) for size in args.sizes.split(",")]
    print(
        f"mcts-envs {version('mcts-envs')}, numba-cuda {version('numba-cuda')} on "
        f"{device}; median of {args.repeats} x {args.seconds:g} s; env steps per second; load "
        f"average {os.getloadavg()[0]:.1f} at the start"
    )
    pgx_rows = {}
    if not args.no_pgx:
        pgx_rows = pgx_figures([g for g in games if g in PGX_PEERS], sizes, args)
    print("| game | N | device loop | python | pgx jit loop | ours/pgx |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for game in games:
        for size in sizes:
            ours = our_figures(game, size, args)
            peer = pgx_rows.get((game, size))
            ratio = f"{ours['device loop'] / peer:.2f}x" if peer else "-"
            print(
                f"| {game} | {size:,} | {ours['device loop']:,.0f} | {ours['python']:,.0f} | "
                f"{f'{peer:,.0f}' if peer else '-'} | {ratio} |",
                flush=True,
            )
    print(f"load average {os.getloadavg()[0]:.1f} at the end")
    return 0


def pgx_figures(games: list[str], sizes: list[int], args: argparse.Namespace) -> dict:
    """pgx's jitted loop per game and size, from ``vector_throughput.py`` (its ``jit loop``)."""
    try:
        import jax
        import pgx
    except ImportError:
        print("  (pgx: not installed, pip install pgx jax[cuda12]: no pgx column)")
        return {}
    from vector_throughput import pgx_figures as measured

    if jax.default_backend() != "gpu":
        print(
            f"  (pgx: jax {jax.__version__} runs on its {jax.default_backend()} backend here, not "
            "the GPU: no pgx column; pip install 'jax[cuda12]')",
            flush=True,
        )
        return {}
    print(f"  (pgx {pgx.__version__} on jax {jax.__version__}, GPU backend)", flush=True)
    rows = {}
    for game in games:
        figures = measured(PGX_PEERS[game], sizes, args.seconds, args.repeats)
        rows.update({(game, size): figures[("jit loop", size)] for size in sizes})
    return rows


if __name__ == "__main__":
    sys.exit(main())
