"""Measurement helpers shared by the benchmark scripts (import this module before numba).

On import, unless ``--warm-cache`` is on the command line, numba's cache is pointed at a fresh
temporary directory so that the first call of each kernel is a real JIT compile, which the scripts
report apart from steady-state speed.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from types import ModuleType
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # numpy is imported inside the functions, after the cache is set
    import numpy as np

if "--warm-cache" not in sys.argv and "MCTS_ENVS_CACHE_DIR" not in os.environ:
    os.environ["MCTS_ENVS_CACHE_DIR"] = tempfile.mkdtemp(prefix="mcts_envs_bench_")
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")


def median_of(measure: Callable[[int], float], repeats: int) -> float:
    """Median of ``measure(seed)`` over seeds ``0 .. repeats - 1``."""
    return statistics.median(measure(seed) for seed in range(repeats))


def mask_legal(env, observation) -> np.ndarray:
    """The legal actions as the AEC loop reads them: the observation's action mask."""
    import numpy as np

    return np.flatnonzero(observation["action_mask"])


def env_moves_per_second(
    make_env: Callable, seconds: float, seed: int = 0, legal_of: Callable = mask_legal
) -> float:
    """Random-play moves per second through the AEC loop (``last``, a uniform draw from
    ``legal_of(env, observation)``, by default the mask's actions, then ``step``)."""
    import numpy as np

    env = make_env()
    rng = np.random.default_rng(seed)
    moves, games, start = 0, 0, time.perf_counter()
    warm_up = True  # one untimed game first: compiles or loads every kernel the loop uses
    while warm_up or time.perf_counter() - start < seconds:
        env.reset(seed=seed + games)
        for _agent in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            legal = legal_of(env, obs)
            env.step(int(legal[rng.integers(len(legal))]))
            moves += 1
        games += 1
        if warm_up:
            warm_up, moves, start = False, 0, time.perf_counter()
    return moves / (time.perf_counter() - start)


def compile_seconds(game) -> float:
    """Seconds of the first compiled playout batch (JIT compile, or cache load with --warm-cache)."""
    from mcts_envs.core.playouts import run_random_playouts
    from mcts_envs.core.seeding import make_rng

    kernels = game.kernels
    tic = time.perf_counter()
    run_random_playouts(
        kernels.random_playout, kernels.returns, game.initial_state(), 1, make_rng(0)
    )
    return time.perf_counter() - tic


def rate(run_once: Callable[[], int], seconds: float) -> float:
    """Units per second of ``run_once() -> units`` called again and again for about ``seconds``."""
    units, start = 0, time.perf_counter()
    while True:
        units += run_once()
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return units / elapsed


def size_lasting(run: Callable[[int], object], seconds: float, limit: int = 1 << 24) -> int:
    """The smallest power of two ``n`` (at most ``limit``) for which one ``run(n)`` takes at
    least ``seconds``: how long to make each timed call."""
    size = 1
    while size < limit:
        tic = time.perf_counter()
        run(size)
        if time.perf_counter() - tic >= seconds:
            break
        size *= 2
    return size


def load_average() -> str:
    """The 1-minute load average (a shared machine's noise), or '?' where unknown."""
    try:
        return f"{os.getloadavg()[0]:.1f}"
    except OSError:
        return "?"


def playouts_per_second(game, seconds: float, seed: int = 0) -> float:
    """Compiled random playouts per second from the initial state; batches grow to fill ``seconds``."""
    from mcts_envs.core.playouts import run_random_playouts
    from mcts_envs.core.seeding import make_rng

    kernels, start = game.kernels, game.initial_state()
    rng = make_rng(seed)
    count = 500
    while True:
        tic = time.perf_counter()
        run_random_playouts(kernels.random_playout, kernels.returns, start, count, rng)
        elapsed = time.perf_counter() - tic
        if elapsed >= seconds / 2 or count > 10**8:
            return count / elapsed
        count = int(count * max(2.0, 0.6 * seconds / max(elapsed, 1e-6)))


def cpu_ns_per_call(
    run: Callable[[int], object], calls: int, repeats: int, seconds: float
) -> float:
    """Median nanoseconds of this thread's CPU time per call of a timed kernel loop.

    ``run(r)`` makes ``r`` passes of ``calls`` calls each; passes per timing grow until one
    timing takes about ``seconds`` (``time.thread_time``: time slices given to other processes
    do not count), then ``repeats`` timings are taken and their median is returned.
    """
    run(1)  # compile or load, and warm the caches
    passes = 1
    while True:
        tic = time.thread_time()
        run(passes)
        elapsed = time.thread_time() - tic
        if elapsed >= seconds or passes > 10**7:
            break
        passes *= 2
    samples = []
    for _ in range(repeats):
        tic = time.thread_time()
        run(passes)
        samples.append((time.thread_time() - tic) / (passes * calls) * 1e9)
    return statistics.median(samples)


def load_module_copy(path: str, name: str) -> ModuleType:
    """The Python file at ``path`` imported as module ``name`` from a copy in a new temporary
    directory, so it compiles on its own (numba caches beside the copy, not the original): how
    a kernel benchmark times another checkout's kernels beside the current ones."""
    folder = tempfile.mkdtemp(prefix=f"{name}_")
    target = os.path.join(folder, f"{name}.py")
    shutil.copy(path, target)
    spec = importlib.util.spec_from_file_location(name, target)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # numba's cache finds compiled code through the module name
    spec.loader.exec_module(module)
    return module
