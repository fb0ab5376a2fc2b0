"""SVG pictures of every game's board, for notebooks, web pages and files (no dependencies).

Example (in a notebook the returned object shows itself as the picture)::

    import mcts_envs
    from mcts_envs import svg

    game = mcts_envs.make_game("ataxx")
    state = game.apply(game.initial_state(), 0)
    svg.board(game, state, last_action=0, highlight_legal=True)

Highlights: the last move (orange), the legal next clicks (yellow cells or green dots, carrying
``class="target"`` and ``data-target="<id>"``), and the targets clicked so far (``selection``,
purple). A move is a short sequence of clicks; :func:`move_paths` maps every legal action to its
clicks (Tic-Tac-Toe: the cell; Ataxx: a destination for a copy, or a stone then a square two
away for a jump; Pentago Twist: a cell then a quadrant twist; Tantrix: a hand tile, a cell, then
one of the turns that fit). Each game's drawing lives in ``mcts_envs/games/<game>/svg.py``.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from mcts_envs.core.game import Game
from mcts_envs.core.svg import Marks, Paths, make_marks, next_targets, resolve

__all__ = ["SvgBoard", "board", "move_paths", "next_targets", "resolve"]


class SvgBoard:
    """An SVG picture of a board; shows itself in Jupyter (``_repr_svg_``).

    Attributes:
        svg: the SVG document (text).
        marks: what was highlighted (:class:`~mcts_envs.core.svg.Marks`).
    """

    def __init__(self, svg: str, marks: Marks):
        self.svg = svg
        self.marks = marks

    def _repr_svg_(self) -> str:
        return self.svg

    def __str__(self) -> str:
        return self.svg

    def __repr__(self) -> str:
        return f"<SvgBoard {len(self.svg)} characters, {len(self.marks.targets)} targets>"

    def save(self, path: str | Path) -> Path:
        """Write the SVG to ``path`` (UTF-8) and return the path."""
        path = Path(path)
        path.write_text(self.svg, encoding="utf-8")
        return path


def game_module(game: Game) -> ModuleType:
    """The module that draws ``game``: the one its class declares as ``svg_module`` (every
    built-in game: ``mcts_envs.games.<name>.svg``).

    Raises:
        NotImplementedError: for a game that declares no SVG module.
    """
    name = getattr(game, "svg_module", None)
    if not name:
        raise NotImplementedError(
            f"no SVG board for the game {game.info.name!r}: its class declares no svg_module"
        )
    return importlib.import_module(name)


def _game_and_state(game: Any, state: np.ndarray | None) -> tuple[Game, np.ndarray]:
    if state is None:
        unwrapped = getattr(game, "unwrapped", None)
        if unwrapped is None or not hasattr(unwrapped, "game_state"):
            raise TypeError("pass a game and a state, or an mcts_envs env: board(game, state)")
        return unwrapped.game, unwrapped.game_state
    return game, game.check_state(state) if hasattr(game, "check_state") else state


def move_paths(game: Game, state: np.ndarray) -> dict[tuple[str, ...], int]:
    """Every legal action of ``state`` as the clicks that make it: ``{(target, ...): action}``.

    Empty at terminal states and chance nodes.
    """
    return game_module(game).move_paths(game, state)


def board(
    game: Any,
    state: np.ndarray | None = None,
    *,
    last_action: int | None = None,
    highlight_legal: bool = True,
    selection: tuple[str, ...] = (),
    paths: Paths | None = None,
) -> SvgBoard:
    """Draw ``state`` of ``game`` as SVG.

    Args:
        game: a :class:`~mcts_envs.core.game.Game`, or an mcts_envs env (then leave ``state`` out:
            the env's ``unwrapped.game_state`` is drawn).
        state: the state to draw.
        last_action: the action that led to ``state`` (highlighted), or ``None``.
        highlight_legal: highlight the legal next clicks and make them clickable
            (``data-target``); ``False`` for a plain picture.
        selection: the targets clicked so far towards a move (see :func:`move_paths`).
        paths: :func:`move_paths` of ``state`` if already known (saves computing them again).

    Raises:
        IllegalActionError: if ``selection`` starts no legal move.
        NotImplementedError: for a game without an SVG module.
    """
    game, state = _game_and_state(game, state)
    module = game_module(game)
    if paths is None:
        paths = module.move_paths(game, state) if (highlight_legal or selection) else {}
    marks = make_marks(paths, last_action, tuple(selection), highlight_legal)
    return SvgBoard(module.draw(game, state, marks).to_string(), marks)
