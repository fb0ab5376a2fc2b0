"""Render modes shared by every env: ``ansi`` text, ``rgb_array`` pictures and a ``human`` window.

A game supplies a *board renderer* (in ``games/<game>/render.py``) with ``game`` (the
:class:`~mcts_envs.core.game.Game`) and ``text(state) -> str``, the ``ansi`` picture. The pictures
of the other two modes are the game's SVG board (``games/<game>/svg.py``, see :mod:`mcts_envs.svg`)
without highlights: its :class:`~mcts_envs.core.svg.Canvas` is painted on a pygame ``Surface`` by
:func:`paint`, so each game draws its board once, and the ``rgb_array`` frame, the window and the
notebook picture show the same board at the same size. :func:`paint` is a small rasteriser of
the SVG subset the canvases use, written against pygame because the SVG rasterisers on PyPI
were 2 to 50 times slower per frame (``benchmarks/render_speed.py``).

pygame is an optional dependency (extra ``render``), imported only when a picture is needed.
"""

from __future__ import annotations

import importlib.util
import itertools
import math
from collections.abc import Iterable
from typing import Any, Protocol

import numpy as np

from mcts_envs.core.errors import require_optional
from mcts_envs.core.svg import Canvas, Element, Marks

#: pygame's default font is drawn at this fraction of the size asked for; dividing by it gives
#: letters of the SVG ``font-size``.
DEFAULT_FONT_SCALE = 0.6875


#: The render modes that draw pictures (they need pygame, the ``render`` extra).
PICTURE_MODES = ("rgb_array", "human")


def available_render_modes(modes: Iterable[str]) -> list[str]:
    """The modes of ``modes`` that can render in this interpreter, in order: ``ansi`` always, the
    picture modes (:data:`PICTURE_MODES`) only when pygame can be imported (on the core install
    they are left out, so checkers that try every listed mode pass)."""
    pictures = importlib.util.find_spec("pygame") is not None
    return [mode for mode in modes if pictures or mode not in PICTURE_MODES]


class BoardRenderer(Protocol):
    """What a game's render module provides (see module docstring)."""

    game: Any

    def text(self, state: np.ndarray) -> str: ...


def board_canvas(game: Any, state: np.ndarray) -> Canvas:
    """The game's SVG board of ``state`` without highlights (the picture of ``rgb_array``).

    Raises:
        NotImplementedError: for a game without an SVG module.
    """
    from mcts_envs.svg import game_module

    return game_module(game).draw(game, state, Marks())


def canvas_size(canvas: Canvas) -> tuple[int, int]:
    """``(width, height)`` in pixels of a painted ``canvas`` (its user units, rounded up)."""
    return math.ceil(canvas.width), math.ceil(canvas.height)


class Renderer:
    """Turns a board renderer into the three render modes; owns the window in ``human`` mode."""

    def __init__(self, board: BoardRenderer, mode: str, fps: int, title: str):
        self.board = board
        self.mode = mode
        self.fps = fps
        self.title = title
        self._painter: Painter | None = None
        self._window = None
        self._clock = None

    def render(self, state: np.ndarray) -> str | np.ndarray | None:
        """Render ``state`` in this renderer's mode: text (``ansi``), an HxWx3 uint8 array
        (``rgb_array``, H and W the SVG board's height and width) or a window frame (``human``)."""
        if self.mode == "ansi":
            return self.board.text(state)
        if self._painter is None:
            self._painter = Painter(require_optional("pygame", "render"))
        pygame = self._painter.pygame
        surface = self._painter.paint(board_canvas(self.board.game, state))
        if self.mode == "rgb_array":
            return frame_array(surface, pygame)
        if self._window is None or self._window.get_size() != surface.get_size():
            pygame.display.init()
            self._window = pygame.display.set_mode(surface.get_size())
            pygame.display.set_caption(self.title)
            self._clock = pygame.time.Clock()
        pygame.event.pump()
        self._window.blit(surface, (0, 0))
        pygame.display.flip()
        self._clock.tick(self.fps)
        return None

    def close(self) -> None:
        """Close the window (``human`` mode)."""
        if self._window is not None and self._painter is not None:
            self._painter.pygame.display.quit()
        self._window = None


def frame_array(surface: Any, pygame: Any) -> np.ndarray:
    """The pixels of a pygame ``surface`` as a new HxWx3 uint8 array (rows first)."""
    pixels = pygame.surfarray.pixels3d(surface)  # a W x H x 3 view that locks the surface
    try:
        return np.ascontiguousarray(np.transpose(pixels, (1, 0, 2)))
    finally:
        del pixels


def paint(canvas: Canvas, pygame: Any) -> Any:
    """``canvas`` painted on a new pygame ``Surface`` of :func:`canvas_size` (no antialiasing).

    Paints the SVG subset the boards use: ``rect`` (with ``rx``), ``circle``, ``line``,
    ``polyline``, ``polygon``, ``text`` (pygame's default font, ``text-anchor``), groups with
    ``opacity``, ``fill-opacity``, ``stroke-dasharray`` and round line caps and joins.
    Attributes that only matter to a browser (``data-target``, ``class``, ``pointer-events``)
    are ignored.

    Raises:
        NotImplementedError: for an element outside that subset (e.g. ``path``), naming it.
    """
    return Painter(pygame).paint(canvas)


class Painter:
    """Paints canvases with pygame, keeping its fonts between pictures (see :func:`paint`)."""

    def __init__(self, pygame: Any):
        pygame.font.init()
        self.pygame = pygame
        self._fonts: dict[tuple[int, bool], Any] = {}
        self._colours: dict[str, Any] = {}
        self._layers: dict[int, Any] = {}  # transparent surfaces for translucent drawing, reused
        self._surface: Any = None  # the picture, reused while the size stays (saves page faults)

    def _layer(self, depth: int, size: tuple[int, int]) -> Any:
        """A transparent surface of ``size`` for translucent drawing at nesting ``depth``."""
        layer = self._layers.get(depth)
        if layer is None or layer.get_size() != size:
            layer = self._layers[depth] = self.pygame.Surface(size, self.pygame.SRCALPHA)
            layer.fill((0, 0, 0, 0))
        return layer

    def _compose(self, layer: Any, below: Any, opacity: float, area: Any) -> None:
        """Blend ``area`` of ``layer`` onto ``below`` at ``opacity``; clear it for reuse."""
        if area is None:
            return
        layer.set_alpha(round(255 * opacity))
        below.blit(layer, area, area)
        layer.fill((0, 0, 0, 0), area)

    def paint(self, canvas: Canvas) -> Any:
        """``canvas`` painted on this painter's ``Surface`` (see :func:`paint`); the next call
        paints over the same surface when the size is the same."""
        pygame = self.pygame
        size = canvas_size(canvas)
        if self._surface is None or self._surface.get_size() != size:
            self._surface = pygame.Surface(size)
        surface = self._surface  # the canvas's first element, its background, covers it
        area = None  # what the elements drawn since the innermost translucent group covered
        # per open group: (surface drawn on before it, its opacity, the area before it)
        groups: list[tuple[Any, float, Any]] = []
        for element in canvas.elements:
            if element.kind == "open":
                opacity = float(element.attributes.get("opacity", 1) or 1)
                groups.append((surface, opacity, area))
                if opacity < 1:
                    depth = sum(1 for _, o, _ in groups if o < 1)
                    surface, area = self._layer(depth, size), None
            elif element.kind == "close":
                below, opacity, outer = groups.pop()
                if opacity < 1:
                    self._compose(surface, below, opacity, area)
                    surface, area = below, _union(outer, area)
            else:
                area = _union(area, self._element(surface, element, len(groups) + 1))
        return surface

    def _colour(self, value: object) -> Any:
        if value is None or value == "none":
            return None
        colour = self._colours.get(value)
        if colour is None:
            colour = self._colours[value] = self.pygame.Color(str(value))
        return colour

    def _element(self, surface: Any, element: Element, depth: int) -> Any:
        """Draw one element; return the area it covered (a ``Rect``), or ``None``."""
        draw = _SHAPES.get(element.tag)
        if draw is None:
            raise NotImplementedError(
                f"cannot paint an SVG <{element.tag}> for rgb_array/human: the painter draws "
                f"{', '.join(_SHAPES)} and groups (draw the board with those)"
            )
        attributes = element.attributes
        opacity = float(attributes.get("fill_opacity", 1) or 1) * float(
            attributes.get("opacity", 1) or 1
        )
        if opacity >= 1:
            return draw(self, surface, element)
        layer = self._layer(depth + 64, surface.get_size())  # apart from the groups' layers
        area = draw(self, layer, element)
        self._compose(layer, surface, opacity, area)
        return area

    def _stroke(self, attributes: dict[str, object]) -> tuple[Any, float]:
        colour = self._colour(attributes.get("stroke"))
        return colour, float(attributes.get("stroke_width", 1) or 1)

    def _rect(self, surface: Any, element: Element) -> None:
        a = element.attributes
        x, y = float(a.get("x", 0)), float(a.get("y", 0))
        width, height = float(a["width"]), float(a["height"])
        radius = round(float(a.get("rx", 0) or 0))
        fill = self._colour(a.get("fill", "#000"))
        area = None
        if fill is not None:
            area = self.pygame.draw.rect(surface, fill, _box(x, y, width, height), 0, radius)
        stroke, line = self._stroke(a)
        if stroke is not None:
            half = line / 2
            box = _box(x - half, y - half, width + line, height + line)
            width = max(1, round(line))
            area = _union(area, self.pygame.draw.rect(surface, stroke, box, width, radius))
        return area

    def _circle(self, surface: Any, element: Element) -> None:
        a = element.attributes
        centre, radius = (float(a["cx"]), float(a["cy"])), float(a["r"])
        fill = self._colour(a.get("fill", "#000"))
        area = None
        if fill is not None:
            area = self.pygame.draw.circle(surface, fill, centre, radius)
        stroke, line = self._stroke(a)
        if stroke is not None:
            width = max(1, round(line))
            ring = self.pygame.draw.circle(surface, stroke, centre, radius + line / 2, width)
            area = _union(area, ring)
        return area

    def _line(self, surface: Any, element: Element) -> None:
        a = element.attributes
        points = [(float(a["x1"]), float(a["y1"])), (float(a["x2"]), float(a["y2"]))]
        return self._path(surface, points, a, closed=False)

    def _polyline(self, surface: Any, element: Element) -> None:
        a = element.attributes
        fill = self._colour(a.get("fill", "#000"))
        points = _points(a["points"])
        area = None
        if fill is not None and len(points) > 2:
            area = self.pygame.draw.polygon(surface, fill, points)
        return _union(area, self._path(surface, points, a, closed=False))

    def _polygon(self, surface: Any, element: Element) -> None:
        a = element.attributes
        points = _points(a["points"])
        fill = self._colour(a.get("fill", "#000"))
        area = None
        if fill is not None:
            area = self.pygame.draw.polygon(surface, fill, points)
        return _union(area, self._path(surface, points, a, closed=True))

    def _path(self, surface: Any, points: list, attributes: dict[str, object], closed: bool):
        """The stroke along ``points``: solid or dashed, with round caps and joins if asked;
        returns the area it covered."""
        stroke, line = self._stroke(attributes)
        if stroke is None:
            return None
        pygame, width = self.pygame, max(1, round(line))
        dashes = attributes.get("stroke_dasharray")
        area = None
        if dashes:
            for start, end in _dashed(points + points[:1] if closed else points, str(dashes)):
                area = _union(area, pygame.draw.line(surface, stroke, start, end, width))
            return area
        area = pygame.draw.lines(surface, stroke, closed, points, width)
        if width < 3:
            return area
        round_ends = attributes.get("stroke_linecap") == "round" and not closed
        joints = points if attributes.get("stroke_linejoin") == "round" else []
        for point in joints or (points[:: len(points) - 1] if round_ends else []):
            area = area.union(pygame.draw.circle(surface, stroke, point, line / 2))
        return area

    def _text(self, surface: Any, element: Element) -> None:
        a = element.attributes
        size = round(float(a.get("font_size", 16)) / DEFAULT_FONT_SCALE)
        bold = a.get("font_weight") == "bold"
        font = self._fonts.get((size, bold))
        if font is None:
            font = self._fonts[(size, bold)] = self.pygame.font.Font(None, size)
            font.set_bold(bold)
        picture = font.render(element.text or "", True, self._colour(a.get("fill", "#000")))
        x = float(a.get("x", 0))
        anchor = a.get("text_anchor", "start")
        if anchor == "middle":
            x -= picture.get_width() / 2
        elif anchor == "end":
            x -= picture.get_width()
        top = round(float(a.get("y", 0)) - font.get_ascent())
        return surface.blit(picture, (round(x), top))


_SHAPES = {
    "rect": Painter._rect,
    "circle": Painter._circle,
    "line": Painter._line,
    "polyline": Painter._polyline,
    "polygon": Painter._polygon,
    "text": Painter._text,
}


def _union(area: Any, other: Any) -> Any:
    """The smallest ``Rect`` holding both (either may be ``None``: nothing drawn)."""
    if area is None:
        return other
    return area if other is None else area.union(other)


def _box(x: float, y: float, width: float, height: float) -> tuple[int, int, int, int]:
    left, top = round(x), round(y)
    return left, top, round(x + width) - left, round(y + height) - top


def _points(value: object) -> list[tuple[float, float]]:
    if isinstance(value, str):
        pairs = (pair.split(",") for pair in value.split())
        return [(float(x), float(y)) for x, y in pairs]
    return [(float(x), float(y)) for x, y in value]  # type: ignore[union-attr]


def _dashed(points: list[tuple[float, float]], pattern: str):
    """The ``(start, end)`` dashes of the path through ``points`` for a dash ``pattern``."""
    lengths = [float(v) for v in pattern.replace(",", " ").split()]
    if len(lengths) % 2:
        lengths *= 2
    index, left, on = 0, lengths[0], True
    for (x0, y0), (x1, y1) in itertools.pairwise(points):
        segment = math.hypot(x1 - x0, y1 - y0)
        done = 0.0
        while done < segment:
            step = min(left, segment - done)
            if on:
                t0, t1 = done / segment, (done + step) / segment
                yield (
                    (x0 + (x1 - x0) * t0, y0 + (y1 - y0) * t0),
                    (x0 + (x1 - x0) * t1, y0 + (y1 - y0) * t1),
                )
            done += step
            left -= step
            if left <= 0:
                index = (index + 1) % len(lengths)
                left, on = lengths[index], not on
