"""``mcts-envs warmup [GAME ...] [--agents SPEC ...]``: compile everything once, ahead of use.

numba compiles each function on its first use and keeps it in the machine's cache
(:mod:`mcts_envs.core.numba_cache`), so the first run of each command on a
machine waits for compiles (seconds to minutes on a small machine) and later runs load them in
milliseconds. ``warmup`` pays that cost up front, e.g. in a container build or a CI cache step:
for every named game (default: all) it compiles (or loads) each path

* ``env``: the PettingZoo env, one random game through ``agent_iter`` / ``last`` / ``step``;
* ``forward model``: the game's compiled random playouts;
* ``vector``: :class:`~mcts_envs.vector.VectorGame`'s reset, step, random actions, compiled
  rollout (threads run the same compiled code as one thread), ``set_states`` and ``observe``;
* one per agent of ``--agents`` (default ``random``, ``minimax2``, ``alphabeta``, ``mcts``): the
  preparation every match makes before its clocks run
  (:func:`mcts_envs.agents.preparation.prepare_spec`).

It shows a progress bar and ends with one line per path that compiled and the total time.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from typing import Any

from mcts_envs.agents.frontends import CommandIO

#: Agents warmed up when ``--agents`` is not given.
DEFAULT_AGENTS = ("random", "minimax2", "alphabeta", "mcts")


def add_parser(commands: Any) -> None:
    """Register ``warmup`` on the ``mcts-envs`` subcommand parsers ``commands``."""
    parser = commands.add_parser(
        "warmup",
        help="compile the games and agents ahead of use (numba's disk cache)",
        description="Compile (or load from numba's disk cache) every path of the named games: "
        "the env, the forward model, the batched VectorGame API and the agents of --agents, so "
        "that later commands start at once. Prints the time each compile took and the total.",
    )
    parser.add_argument("games", nargs="*", metavar="GAME", help="games (default: all)")
    parser.add_argument(
        "--agents",
        nargs="+",
        default=list(DEFAULT_AGENTS),
        metavar="SPEC",
        help=f"agent specs to prepare on every game (default: {' '.join(DEFAULT_AGENTS)})",
    )
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")


def _env_game(name: str) -> None:
    import numpy as np

    import mcts_envs

    env = mcts_envs.make(name)
    env.reset(seed=0)
    generator = np.random.default_rng(0)
    for _ in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        legal = np.flatnonzero(observation["action_mask"])
        env.step(int(legal[generator.integers(len(legal))]))
    env.close()


def _forward_model(name: str) -> None:
    from mcts_envs.core.playouts import random_playout_statistics
    from mcts_envs.core.registry import make_game

    game = make_game(name)
    random_playout_statistics(game, game.initial_state(), 1, 0)


def _vector(name: str) -> None:
    from mcts_envs.vector import VectorGame

    for threads in (False, True):
        vector = VectorGame(name, 8, seed=0, threads=threads)
        vector.compile(rollout=True)
        vector.reset(seed=0)
        vector.step(vector.random_actions())
    saved = vector.get_states([0, 1])
    vector.set_states([0, 1], *saved)  # positions put in (openings, restores, search roots)
    vector.observe(0)  # any seat's observations (the learner env's final observations)


def _agent(name: str, spec: str) -> None:
    from mcts_envs.agents.preparation import first_decision, prepare_spec
    from mcts_envs.core.registry import make_game

    game = make_game(name)
    prepare_spec(game, spec, first_decision(game))


def plan(games: list[str], specs: list[str]) -> list[tuple[str, str, Callable[[], None]]]:
    """The warm-up tasks ``(game, path, run)`` for ``games`` (all if empty) and ``specs``.

    Raises:
        UnknownGameError: for an unknown game.
        MctsEnvsError: for a bad agent spec (checked before anything compiles).
    """
    from mcts_envs.agents.spec import make_agent
    from mcts_envs.core.registry import get_entry, list_games

    names = [get_entry(game).name for game in games] if games else list_games()
    for spec in specs:
        make_agent(spec, seed=0)
    tasks: list[tuple[str, str, Callable[[], None]]] = []
    for name in dict.fromkeys(names):
        tasks.append((name, "env", lambda name=name: _env_game(name)))
        tasks.append((name, "forward model", lambda name=name: _forward_model(name)))
        tasks.append((name, "vector", lambda name=name: _vector(name)))
        for spec in dict.fromkeys(specs):
            tasks.append((name, spec, lambda name=name, spec=spec: _agent(name, spec)))
    return tasks


def run(args: argparse.Namespace, io: CommandIO) -> int:
    """``mcts-envs warmup``: run every task of :func:`plan`; returns 0.

    Prints to ``io.out`` one line per task that compiled (with its seconds) and a
    last line with the total; the progress bar goes to stderr.

    Raises:
        MctsEnvsError: for an unknown game or a bad agent spec, before anything compiles.
    """
    from mcts_envs.core.compiling import compile_notice

    out = io.out
    tasks = plan(list(args.games), list(args.agents))
    bar = None
    if not args.no_progress:
        from tqdm import tqdm

        bar = tqdm(total=len(tasks), desc="warmup", unit="path", file=sys.stderr)
    start = time.perf_counter()
    compiled = 0
    lines = []
    try:
        for game, path, task in tasks:
            if bar is not None:
                bar.set_postfix_str(f"{game}: {path}")
            with compile_notice(path, lambda _text: None) as status:
                task()
            if status["compiled"]:
                compiled += status["compiled"]
                lines.append(f"  {game}: {path}: {status['seconds']:.1f} s")
            if bar is not None:
                bar.update()
    finally:
        if bar is not None:
            bar.close()
    for line in lines:
        print(line, file=out)
    print(
        f"warmup: {len(tasks)} paths of {len({t[0] for t in tasks})} games in "
        f"{time.perf_counter() - start:.1f} s ({compiled} functions compiled, the rest loaded "
        "from numba's cache)",
        file=out,
    )
    return 0
