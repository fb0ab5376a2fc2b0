"""Draw the five boards (a mid-game position of each) as one PNG for the README and the docs.

Run from the repository root: ``python docs/_scripts/make_boards_png.py`` (needs ``cairosvg``,
from the ``docs`` extra). Writes ``docs/images/boards.png`` and one ``docs/images/<game>.png``
per game. The positions are seeded random play, so the picture is the same on every run.
"""

from __future__ import annotations

import io
from pathlib import Path

import cairosvg
import numpy as np
from PIL import Image

import mcts_envs
from mcts_envs.svg import board

#: Game name -> number of random plies played before the picture.
PLIES = {"tictactoe": 4, "ultimate_tictactoe": 20, "pentago_twist": 10, "ataxx": 16, "tantrix": 40}
HEIGHT = 260
OUT = Path("docs/images")


def position(name: str, plies: int, seed: int = 1):
    """The state after ``plies`` seeded random decisions (chance outcomes by their probability)."""
    game = mcts_envs.make_game(name)
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
    game, state, last = position(name, PLIES[name])
    svg = board(game, state, last_action=last, highlight_legal=False).svg
    png = cairosvg.svg2png(bytestring=svg.encode(), output_height=HEIGHT)
    return Image.open(io.BytesIO(png)).convert("RGBA")


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    images = []
    for name in PLIES:
        image = render(name)
        image.save(OUT / f"{name}.png")
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
