"""Milliseconds per ``env.render()`` frame (``rgb_array``) beside SVG-then-rasterise.

For one mid-game position per game (random play from a fixed seed), times, as medians of
``--repeats`` frames after one untimed frame:

* ``env.render()`` in ``rgb_array`` mode, as the env draws it (since the render-once change: the
  same SVG canvas painted by pygame, ``mcts_envs/envs/rendering.py``; before it, a second
  drawing per game in pygame);
* the SVG board (``mcts_envs.svg.board``, no highlights) rasterised to an HxWx3 array by each
  PyPI rasteriser that is installed: cairosvg (straight from its cairo surface, no PNG), resvg-py
  (PNG bytes decoded by pygame) and pyvips (librsvg, from the ``pyvips-binary`` wheel); the
  column says ``n/a`` for one that is not installed. The SVG's own drawing time is included.

Prints the load average before and after (a shared machine: read the ratios). Run from the
repository root: ``python benchmarks/render_speed.py``.
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import time
from collections.abc import Callable
from functools import partial

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import numpy as np

import mcts_envs
from mcts_envs import svg

#: (env name, plies of random play before the timed position)
POSITIONS = (
    ("tictactoe", 4),
    ("ultimate_tictactoe", 30),
    ("pentago_twist", 12),
    ("ataxx", 40),
    ("tantrix", 30),
)


def mid_game_env(name: str, plies: int, seed: int = 0, render_mode: str = "rgb_array"):
    """An env (``rgb_array`` unless ``render_mode`` says otherwise) after ``plies`` seeded random
    moves (fewer if the game ends first); ``tests/envs/test_render_modes.py`` draws it too."""
    env = mcts_envs.make(name, render_mode=render_mode)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for moves, _agent in enumerate(env.agent_iter()):
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated or moves >= plies:
            break
        legal = np.flatnonzero(observation["action_mask"])
        env.step(int(legal[rng.integers(len(legal))]))
    return env


def median_ms(frame: Callable[[], object], repeats: int) -> float:
    """Median milliseconds of ``frame()`` over ``repeats`` calls after one untimed call."""
    frame()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        frame()
        times.append(time.perf_counter() - start)
    return 1000 * statistics.median(times)


def cairosvg_rasteriser() -> Callable[[str], np.ndarray] | None:
    """SVG text -> HxWx3 uint8 through cairosvg's cairo surface, or ``None`` if not installed."""
    try:
        from cairosvg.parser import Tree
        from cairosvg.surface import PNGSurface
    except ImportError:
        return None

    def rasterise(text: str) -> np.ndarray:
        cairo = PNGSurface(Tree(bytestring=text.encode()), None, 96).cairo
        cairo.flush()
        height, stride = cairo.get_height(), cairo.get_stride()
        bgra = np.frombuffer(cairo.get_data(), np.uint8).reshape(height, stride // 4, 4)
        return bgra[:, : cairo.get_width(), 2::-1].copy()

    return rasterise


def resvg_rasteriser() -> Callable[[str], np.ndarray] | None:
    """SVG text -> HxWx3 uint8 through resvg-py's PNG bytes, or ``None`` if not installed."""
    try:
        import pygame
        import resvg_py
    except ImportError:
        return None

    def rasterise(text: str) -> np.ndarray:
        png = bytes(resvg_py.svg_to_bytes(svg_string=text))
        surface = pygame.image.load(io.BytesIO(png), "board.png")
        return np.transpose(pygame.surfarray.array3d(surface), (1, 0, 2))

    return rasterise


def pyvips_rasteriser() -> Callable[[str], np.ndarray] | None:
    """SVG text -> HxWx3 uint8 through pyvips (librsvg), or ``None`` if not installed."""
    try:
        import pyvips
    except (ImportError, OSError):
        return None

    def rasterise(text: str) -> np.ndarray:
        return pyvips.Image.svgload_buffer(text.encode()).numpy()[:, :, :3]

    return rasterise


def svg_frame(rasterise: Callable[[str], np.ndarray], game, state: np.ndarray) -> np.ndarray:
    """One frame the SVG way: draw the board as SVG text, then rasterise it."""
    return rasterise(svg.board(game, state, highlight_legal=False).svg)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=30, help="timed frames per cell")
    args = parser.parse_args()
    rasterisers = {
        "cairosvg": cairosvg_rasteriser(),
        "resvg-py": resvg_rasteriser(),
        "pyvips": pyvips_rasteriser(),
    }
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    header = "| game | picture | env.render() ms | " + " | ".join(
        f"SVG + {name} ms (ratio)" for name in rasterisers
    )
    print(header + " |")
    print("| --- " * (3 + len(rasterisers)) + "|")
    for name, plies in POSITIONS:
        env = mid_game_env(name, plies)
        game, state = env.unwrapped.game, env.unwrapped.game_state
        frame = env.render()
        render_ms = median_ms(env.render, args.repeats)
        cells = []
        for rasterise in rasterisers.values():
            if rasterise is None:
                cells.append("n/a")
                continue
            ms = median_ms(partial(svg_frame, rasterise, game, state), args.repeats)
            cells.append(f"{ms:.2f} ({ms / render_ms:.1f}x)")
        size = f"{frame.shape[1]}x{frame.shape[0]}"
        print(f"| {name} | {size} | {render_ms:.2f} | " + " | ".join(cells) + " |", flush=True)
        env.close()
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
