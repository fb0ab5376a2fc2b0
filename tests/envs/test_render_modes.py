"""The ``rgb_array`` and ``human`` render modes show each game's SVG board (one drawing per game):
frames of the SVG's size whose pixels match the SVG rasterised by cairosvg, known colours at
known cells, the same picture in the window, and a clear refusal of what the painter cannot draw.
"""

from __future__ import annotations

import io
import xml.etree.ElementTree as ElementTree

import numpy as np
import pytest

import mcts_envs
from benchmarks.render_speed import mid_game_env
from mcts_envs import svg
from mcts_envs.core.svg import INK, O_COLOUR, PAPER, X_COLOUR, Canvas
from mcts_envs.envs.rendering import frame_array, paint
from mcts_envs.games.ataxx import svg as ataxx_svg
from mcts_envs.games.tictactoe import svg as tictactoe_svg

pygame = pytest.importorskip("pygame")

#: (game, plies of seeded random play): positions with marks, won boards, stones and tiles
POSITIONS = (
    ("tictactoe", 5),
    ("ultimate_tictactoe", 40),
    ("pentago_twist", 12),
    ("ataxx", 40),
    ("tantrix", 30),
    ("connect_four", 15),
)


def _rgb(hex_colour: str) -> list[int]:
    return [int(hex_colour[i : i + 2], 16) for i in (1, 3, 5)]


@pytest.mark.parametrize(("name", "plies"), POSITIONS)
def test_frame_is_the_svg_board(name, plies):
    cairosvg = pytest.importorskip("cairosvg")
    env = mid_game_env(name, plies)
    frame = env.render()
    text = svg.board(env, highlight_legal=False).svg
    root = ElementTree.fromstring(text)
    width, height = int(root.get("width")), int(root.get("height"))
    assert frame.dtype == np.uint8 and frame.shape == (height, width, 3)
    assert frame.flags.writeable and frame.flags.c_contiguous
    png = cairosvg.svg2png(bytestring=text.encode())
    reference = pygame.surfarray.array3d(pygame.image.load(io.BytesIO(png), "board.png"))
    reference = np.transpose(reference, (1, 0, 2)).astype(int)
    close = np.abs(frame.astype(int) - reference).max(axis=2) <= 48
    drawn = np.abs(reference - reference[0, 0]).max(axis=2) > 48  # all but the background
    # antialiased edges and the fonts differ; the shapes, their places and colours agree
    assert close.mean() > 0.9
    assert drawn.mean() > 0.02 and close[drawn].mean() > 0.6
    env.close()


def test_tictactoe_marks_sit_in_their_cells_in_the_svg_colours():
    env = mcts_envs.make("tictactoe", render_mode="rgb_array")
    env.reset(seed=0)
    env.step(4)  # X in the centre
    env.step(0)  # O top left
    frame = env.render()
    cell, margin = tictactoe_svg.CELL, tictactoe_svg.MARGIN

    def centre(index: int) -> tuple[int, int]:
        row, col = divmod(index, 3)
        return margin + row * cell + cell // 2, margin + col * cell + cell // 2

    y, x = centre(4)
    assert frame[y, x].tolist() == _rgb(X_COLOUR)  # where the cross's strokes meet
    y, x = centre(0)
    ring = round(cell / 2 - cell * 0.22)  # the O's radius (draw_mark)
    assert frame[y, x].tolist() == _rgb(PAPER)  # inside the ring
    assert frame[y, x + ring].tolist() == _rgb(O_COLOUR)
    assert frame[centre(8)].tolist() == _rgb(PAPER)
    assert frame[margin + cell // 2, margin + cell].tolist() == _rgb(INK)  # a grid line


def test_ataxx_stones_and_squares_in_the_svg_colours():
    env = mcts_envs.make("ataxx", render_mode="rgb_array")
    env.reset(seed=0)
    frame = env.render()
    cell, margin = ataxx_svg.CELL, ataxx_svg.MARGIN

    def centre(row: int, col: int) -> tuple[int, int]:
        return margin + row * cell + cell // 2, margin + col * cell + cell // 2

    # the start: x on a7 and g1, o on g7 and a1; b7 is empty
    assert frame[centre(0, 0)].tolist() == _rgb(X_COLOUR)
    assert frame[centre(6, 6)].tolist() == _rgb(X_COLOUR)
    assert frame[centre(0, 6)].tolist() == _rgb(O_COLOUR)
    assert frame[centre(6, 0)].tolist() == _rgb(O_COLOUR)
    assert frame[centre(0, 1)].tolist() == _rgb(ataxx_svg.DARK)
    assert frame[centre(1, 1)].tolist() == _rgb(ataxx_svg.LIGHT)


def test_the_window_shows_the_rgb_array_frame():
    picture = mid_game_env("ultimate_tictactoe", 40).render()
    human = mid_game_env("ultimate_tictactoe", 40, render_mode="human")
    assert human.render() is None
    window = pygame.display.get_surface()
    assert window.get_size() == (picture.shape[1], picture.shape[0])
    assert np.array_equal(frame_array(window, pygame), picture)
    human.close()
    assert not pygame.display.get_init()


def test_translucent_group_blends_with_what_is_under_it():
    canvas = Canvas(40, 20, "two squares", background="#ffffff")
    canvas.open("g", opacity=0.5)
    canvas.add("rect", x=0, y=0, width=20, height=20, fill="#000000")
    canvas.close("g")
    canvas.add("rect", x=20, y=0, width=20, height=20, fill="#000000", fill_opacity=0.25)
    frame = frame_array(paint(canvas, pygame), pygame)
    assert frame.shape == (20, 40, 3)
    assert abs(int(frame[10, 10, 0]) - 128) <= 2 and abs(int(frame[10, 30, 0]) - 191) <= 2


def test_an_element_the_painter_cannot_draw_is_refused_by_name():
    canvas = Canvas(10, 10, "a path")
    canvas.add("path", d="M 0 0 L 10 10", stroke=INK)
    assert "<path" in canvas.to_string()  # the SVG still has it
    with pytest.raises(NotImplementedError, match=r"<path>.*rect, circle, line"):
        paint(canvas, pygame)
