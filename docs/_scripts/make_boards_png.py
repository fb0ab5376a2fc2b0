"""Draw every game's board (a mid-game position of each) as one PNG for the README and the docs.

Run from the repository root: ``python docs/_scripts/make_boards_png.py`` (needs ``cairosvg``,
from the ``docs`` extra). Writes ``docs/images/boards.png`` and one ``docs/images/<game>.png``
per game of the registry (``BUILTIN_GAMES``), in its order. The positions are seeded random
play, ``PICTURE_PLIES`` decisions as the game's SVG module declares, so the picture is the same
on every run.
"""

from __future__ import annotations

import io
from pathlib import Path

import cairosvg
import numpy as np
from PIL import Image

import mcts_envs
from mcts_envs.core.registry import BUILTIN_GAMES
from mcts_envs.svg import board, game_module

HEIGHT = 260
OUT = Path("docs/images")


def picture_plies(game) -> int:
    """The decisions played before the game's picture: ``PICTURE_PLIES`` of its SVG module.

    Raises:
        AttributeError: if the SVG module does not declare it.
    """
    module = game_module(game)
    if not hasattr(module, "PICTURE_PLIES"):
        raise AttributeError(
            f"{module.__name__} declares no PICTURE_PLIES (plies before the picture)"
        )
    return int(module.PICTURE_PLIES)


def position(name: str, seed: int = 1):
    """The state after the game's :func:`picture_plies` seeded random decisions (chance
    outcomes by their probability)."""
    game = mcts_envs.make_game(name)
    plies = picture_plies(game)
    state = game.initial_state()
    rng = np.random.default_rng(seed)
    last = None
    done = 0
    while done < plies and game.current_player(state) != mcts_envs.TERMINAL:
        if game.current_player(state) == mcts_envs.CHANCE:
            outcomes, probabilities = game.chance_outcomes(state)
            state = game.apply(state, int(rng.choice(outcomes, p=probabilities)))
            continue
        last = int(rng.choice(game.legal_actions(state)))
        state = game.apply(state, last)
        done += 1
    return game, state, last


def render(name: str) -> Image.Image:
    """One game's board as an RGBA image ``HEIGHT`` pixels high."""
    game, state, last = position(name)
    svg = board(game, state, last_action=last, highlight_legal=False).svg
    png = cairosvg.svg2png(bytestring=svg.encode(), output_height=HEIGHT)
    return Image.open(io.BytesIO(png)).convert("RGBA")


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    images = []
    for game in BUILTIN_GAMES:
        image = render(game.name)
        image.save(OUT / f"{game.name}.png")
        images.append(image)
    gap = 16
    width = sum(image.width for image in images) + gap * (len(images) - 1)
    strip = Image.new("RGBA", (width, HEIGHT), (255, 255, 255, 0))
    x = 0
    for image in images:
        strip.paste(image, (x, 0), image)
        x += image.width + gap
    strip.save(OUT / "boards.png")
    print(f"wrote {OUT / 'boards.png'} ({width}x{HEIGHT}) and {len(images)} game pictures")


if __name__ == "__main__":
    main()
