"""Shared pieces of the SVG boards: an element writer, click paths, and the highlight marks.

Each game draws its board in ``mcts_envs/games/<game>/svg.py`` with two functions:

* ``move_paths(game, state) -> dict[tuple[str, ...], int]``: every legal action as the sequence
  of *targets* (short ids such as ``"c4"``) a person clicks to make it, mapped to the action.
  No complete path is a prefix of another, so a sequence of clicks names at most one action.
* ``draw(game, state, marks) -> Canvas``: the picture; an element a person can click carries
  ``data-target="<id>"``, the highlighted ones (legal next clicks) also ``class="target"``.

:func:`next_targets`, :func:`resolve` and :func:`advance` implement click-by-click move entry on
top of the paths, the same way for every game (used by notebooks and by ``mcts-envs serve``).
The output has no scripts, no external references and no fonts beyond the generic families, so
it renders the same in a notebook, a browser and an SVG-to-PNG converter.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple
from xml.sax.saxutils import escape, quoteattr

from mcts_envs.core.errors import IllegalActionError

#: Colours shared by the boards (CSS hex), chosen to match the pygame pictures.
INK = "#282828"
PAPER = "#f5f5f0"
X_COLOUR = "#c82828"
O_COLOUR = "#1e50c8"
TARGET_FILL = "#ffe98a"
TARGET_DOT = "#2e9e4f"
LAST_MOVE = "#ff8c00"
SELECTED = "#8a2be2"
FONT = "font-family:sans-serif"

Paths = Mapping[tuple[str, ...], int]


class Marks(NamedTuple):
    """What a board highlights besides the position itself.

    Attributes:
        last_action: the action that led to the drawn state (drawn in the last-move colour), or
            ``None``.
        selection: the targets clicked so far towards the next move (drawn as selected).
        targets: ids highlighted as legal next clicks (``class="target"``).
        clickable: ids that get ``data-target`` (targets, the selection, and first clicks that
            start a new selection); empty for a picture that is not meant to be clicked.
    """

    last_action: int | None = None
    selection: tuple[str, ...] = ()
    targets: frozenset[str] = frozenset()
    clickable: frozenset[str] = frozenset()


def fmt(value: float) -> str:
    """A coordinate with at most two decimals and no trailing zeros (compact, stable output)."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


class Element(NamedTuple):
    """One entry of a :class:`Canvas`: an element, or the opening or closing of a container.

    Attributes:
        kind: ``"element"`` (a complete element), ``"open"`` or ``"close"`` (a container ``g``).
        tag: the SVG tag (``rect``, ``circle``, ``line``, ``polyline``, ``polygon``, ``text``,
            ``g``).
        attributes: the attributes as given to :meth:`Canvas.add` (Python spelling:
            ``stroke_width``, ``class_``; ``None`` values kept, left out when written).
        text: the text content (``text`` elements), else ``None``.
    """

    kind: str
    tag: str
    attributes: dict[str, object]
    text: str | None = None


class Canvas:
    """A picture built element by element: written out as SVG by :meth:`to_string` (attribute
    values and text escaped), or painted by :func:`mcts_envs.envs.rendering.paint` for the
    ``rgb_array`` and ``human`` render modes. One drawing serves both.

    Args:
        width: picture width in user units (also the default pixel width).
        height: picture height in user units.
        title: accessible title (``<title>``), escaped.
        background: fill of the whole picture.
    """

    def __init__(self, width: float, height: float, title: str, background: str = PAPER):
        self.width = width
        self.height = height
        self.title = title
        #: everything drawn, in order (the background rect first)
        self.elements: list[Element] = []
        self.add("rect", x=0, y=0, width=width, height=height, fill=background)

    @staticmethod
    def _attributes(attributes: Mapping[str, object]) -> str:
        parts = []
        for key, value in attributes.items():
            if value is None:
                continue
            name = key.rstrip("_").replace("_", "-")
            if isinstance(value, float):
                text = fmt(value)
            elif isinstance(value, list):
                text = points_text(value)
            else:
                text = str(value)
            parts.append(f" {name}={quoteattr(text)}")
        return "".join(parts)

    def add(self, tag: str, text: str | None = None, **attributes: object) -> None:
        """Append ``<tag ...>`` (with escaped ``text`` content if given).

        Attribute names use ``_`` for ``-`` (``stroke_width``), a trailing ``_`` for keywords
        (``class_``); ``None`` values are left out; floats are written by :func:`fmt`, a list
        of ``(x, y)`` points (``points``) by :func:`points_text`.
        """
        self.elements.append(Element("element", tag, attributes, text))

    def open(self, tag: str, **attributes: object) -> None:
        """Open a container element (``g``); close it with :meth:`close`."""
        self.elements.append(Element("open", tag, attributes))

    def close(self, tag: str) -> None:
        """Close the container opened last with ``tag``."""
        self.elements.append(Element("close", tag, {}))

    def text(self, x: float, y: float, content: str, size: float = 16, **attributes: object):
        """Text with its baseline at ``y`` (``text_anchor``, ``fill`` etc. as attributes)."""
        attributes.setdefault("fill", INK)
        self.add(
            "text", content, x=float(x), y=float(y), font_size=float(size), style=FONT, **attributes
        )

    def polygon(self, points: list[tuple[float, float]], **attributes: object) -> None:
        """A closed polygon through ``points``."""
        self.add("polygon", points=list(points), **attributes)

    def polyline(self, points: list[tuple[float, float]], **attributes: object) -> None:
        """An open line through ``points``."""
        self.add("polyline", points=list(points), **attributes)

    def target_region(self, target: str, marks: Marks, classes: str = "") -> dict[str, object]:
        """The attributes of the element a person clicks for ``target``: ``data-target`` when
        it is clickable, ``class="target"`` when highlighted, plus the given ``classes``."""
        names = [*classes.split(), *(["target"] if target in marks.targets else [])]
        attributes: dict[str, object] = {"class_": " ".join(names) or None}
        if target in marks.clickable:
            attributes["data_target"] = target
        return attributes

    def to_string(self) -> str:
        """The finished SVG document."""
        width, height = fmt(self.width), fmt(self.height)
        parts = [
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" role="img">',
            f"<title>{escape(self.title)}</title>",
            "<style>.target{cursor:pointer}[data-target]{cursor:pointer}</style>",
        ]
        for kind, tag, attributes, text in self.elements:
            if kind == "close":
                parts.append(f"</{tag}>")
            elif kind == "open" or text is None:
                end = ">" if kind == "open" else "/>"
                parts.append(f"<{tag}{self._attributes(attributes)}{end}")
            else:
                parts.append(f"<{tag}{self._attributes(attributes)}>{escape(text)}</{tag}>")
        return "".join(parts) + "</svg>"


def points_text(points: list[tuple[float, float]]) -> str:
    """``"x1,y1 x2,y2 ..."`` for ``polygon`` and ``polyline``."""
    return " ".join(f"{fmt(x)},{fmt(y)}" for x, y in points)


def next_targets(paths: Paths, selection: tuple[str, ...]) -> frozenset[str]:
    """The targets that extend ``selection`` towards at least one legal action."""
    depth = len(selection)
    return frozenset(
        path[depth] for path in paths if len(path) > depth and path[:depth] == selection
    )


def first_targets(paths: Paths) -> frozenset[str]:
    """The targets that start a move."""
    return frozenset(path[0] for path in paths if path)


def resolve(paths: Paths, selection: tuple[str, ...]) -> int | None:
    """The action whose complete path is ``selection``, or ``None`` if it is not complete."""
    return paths.get(tuple(selection))


def advance(paths: Paths, selection: tuple[str, ...], target: str) -> tuple[str, ...]:
    """The selection after a click on ``target``.

    A target that extends the selection is appended; a click on the last selected target takes
    it back; a target that starts a move starts a new selection (e.g. another stone to move).

    Raises:
        IllegalActionError: if ``target`` does none of these (the message lists what does).
    """
    selection = tuple(selection)
    if target in next_targets(paths, selection):
        return (*selection, target)
    if selection and target == selection[-1]:
        return selection[:-1]
    if target in first_targets(paths):
        return (target,)
    allowed = sorted(next_targets(paths, selection) | first_targets(paths))
    shown = ", ".join(allowed[:20]) + (
        f", ... ({len(allowed)} in all)" if len(allowed) > 20 else ""
    )
    raise IllegalActionError(
        f"{target!r} is not a legal click here"
        + (f" after {', '.join(selection)}" if selection else "")
        + f"; legal: {shown or 'nothing (no move to make)'}"
    )


def make_marks(
    paths: Paths,
    last_action: int | None,
    selection: tuple[str, ...],
    highlight_legal: bool,
) -> Marks:
    """The marks of a board: next targets highlighted when ``highlight_legal``, clickable ids.

    Raises:
        IllegalActionError: if ``selection`` is not the start of any legal action's path.
    """
    selection = tuple(selection)
    targets = next_targets(paths, selection)
    if selection and not targets and resolve(paths, selection) is None:
        raise IllegalActionError(f"the clicks {', '.join(selection)} start no legal move")
    clickable = targets | first_targets(paths) | frozenset(selection[-1:])
    return Marks(
        last_action=last_action,
        selection=selection,
        targets=targets if highlight_legal else frozenset(),
        clickable=clickable if highlight_legal else frozenset(),
    )
