"""Build the wheel that carries the compiled code: ``python scripts/build_wheel.py``.

1. Compiles what ``mcts-envs warmup`` compiles (every game: the env, the forward model, the
   batched API; the agents random, minimax2, alphabeta and mcts) into a cache root that only
   this script writes (``--cache``, default ``<user cache>/mcts-envs/wheel-build``), for the
   portable CPU (:data:`mcts_envs.core.numba_cache.PORTABLE_CPU`). The root is keyed by source
   content like every cache of the package, so a second build compiles only what changed.
2. Packs the folders of the current sources (one per module, named by its key) as
   ``mcts_envs/_compiled/numba-<version>/`` and builds the wheel with ``python -m build``;
   ``setup.py`` tags it for this platform and Python (``cp311-cp311-manylinux_2_17_x86_64``...),
   since compiled code is specific to both.

A wheel from a plain ``python -m build`` carries no compiled code (pure Python, compiled on first
use). Prints the wheel's path and size. ``--stage-only DIR`` stops after step 1 and copies the
compiled code to ``DIR`` (for a build front end that runs setup.py itself, such as cibuildwheel,
with ``MCTS_ENVS_COMPILED_DIR=DIR``).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: Environment variable through which setup.py receives the folder to pack.
COMPILED_VARIABLE = "MCTS_ENVS_COMPILED_DIR"


def _warmup_groups(jobs: int) -> list[list[str]]:
    """The games split into ``jobs`` groups of about equal compile time (largest first)."""
    from mcts_envs.core.registry import list_games

    games = list(list_games())
    # Tantrix and Ataxx compile the most; deal them first so the groups balance.
    order = sorted(games, key=lambda name: name not in ("tantrix", "ataxx"))
    groups: list[list[str]] = [[] for _ in range(max(1, min(jobs, len(games))))]
    for index, game in enumerate(order):
        groups[index % len(groups)].append(game)
    return groups


def compile_into(cache: Path, jobs: int) -> float:
    """Run ``mcts-envs warmup`` for every game in ``jobs`` processes with ``cache`` as the cache
    root and the portable CPU; returns the seconds taken. Raises on a failed warmup."""
    env = dict(os.environ)
    env["MCTS_ENVS_CACHE_DIR"] = str(cache)
    for name in (
        "MCTS_ENVS_HOST_CPU",
        "NUMBA_CPU_NAME",
        "NUMBA_CPU_FEATURES",
        "MCTS_ENVS_NO_BORROW",
    ):
        env.pop(name, None)
    start = time.perf_counter()
    processes = [
        subprocess.Popen(
            [sys.executable, "-m", "mcts_envs.agents", "warmup", *group, "--no-progress"],
            cwd=ROOT,
            env=env,
        )
        for group in _warmup_groups(jobs)
    ]
    codes = [process.wait() for process in processes]
    if any(codes):
        raise SystemExit(f"warmup failed (exit statuses {codes})")
    return time.perf_counter() - start


def current_folders(cache: Path) -> list[Path]:
    """The folders of ``cache`` (this numba build's part) that belong to the current sources:
    ``<module>-<key>`` where ``key`` is the module's key now."""
    import mcts_envs.agents  # noqa: F401  (module files are found through the imported packages)
    from mcts_envs.core.numba_cache import _variant, module_key

    base = cache / _variant()
    folders = []
    for folder in sorted(base.iterdir()) if base.is_dir() else []:
        module, _, key = folder.name.rpartition("-")
        if not folder.is_dir() or not module:
            continue
        try:
            if module_key(module) == key:
                folders.append(folder)
        except LookupError:
            continue
    return folders


def stage(folders: list[Path], staging: Path) -> int:
    """Copy ``folders`` (cache files only, no lock files) under ``staging/<variant>/``; returns
    the bytes copied."""
    from mcts_envs.core.numba_cache import _variant

    total = 0
    for folder in folders:
        target = staging / _variant() / folder.name
        target.mkdir(parents=True, exist_ok=True)
        for file in folder.iterdir():
            if file.suffix in (".nbi", ".nbc"):
                shutil.copy2(file, target / file.name)
                total += file.stat().st_size
    return total


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--outdir", default="dist", help="where the wheel goes (default: dist)")
    parser.add_argument("--cache", help="the build's cache root (default: user cache/wheel-build)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="warmup processes")
    parser.add_argument("--stage-only", metavar="DIR", help="only compile and copy the code to DIR")
    args = parser.parse_args(argv)

    from mcts_envs.core.numba_cache import cache_root

    cache = Path(args.cache) if args.cache else cache_root() / "wheel-build"
    seconds = compile_into(cache, args.jobs)
    folders = current_folders(cache)
    if not folders:
        raise SystemExit(f"no compiled code of the current sources in {cache}")
    if args.stage_only:
        target = Path(args.stage_only)
        if target.exists() and any(target.iterdir()):
            raise SystemExit(f"--stage-only: {target} exists and is not empty")
        size = stage(folders, target)
        print(f"compiled code: {len(folders)} modules, {size / 1e6:.1f} MB in {target}")
        return 0
    with tempfile.TemporaryDirectory(prefix="mcts-envs-compiled-") as staging:
        size = stage(folders, Path(staging))
        print(
            f"compiled code: {len(folders)} modules, {size / 1e6:.1f} MB "
            f"(warmup {seconds:.0f} s, cache {cache})",
            flush=True,
        )
        outdir = Path(args.outdir).resolve()
        outdir.mkdir(parents=True, exist_ok=True)
        before = set(outdir.glob("*.whl"))
        env = dict(os.environ, **{COMPILED_VARIABLE: staging})
        subprocess.run(
            [sys.executable, "-m", "build", "--wheel", "--outdir", str(outdir), str(ROOT)],
            check=True,
            env=env,
        )
    built = sorted(set(outdir.glob("*.whl")) - before) or sorted(outdir.glob("*.whl"))
    wheel = max(built, key=lambda path: path.stat().st_mtime)
    print(f"{wheel} ({wheel.stat().st_size / 1e6:.1f} MB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
