"""Render modes shared by every env: ``ansi`` text, ``rgb_array`` pictures and a ``human`` window.

A game supplies a *board renderer* (in ``games/<game>/render.py``) with:

* ``text(state) -> str``: the ``ansi`` picture;
* ``size -> (width, height)``: the picture size in pixels;
* ``draw(surface, state, pygame) -> None``: paints the state on a pygame ``Surface``.

pygame is an optional dependency (extra ``render``), imported only when a picture is needed.
"""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np

from mcts_envs.core.errors import require_optional


class BoardRenderer(Protocol):
    """What a game's render module provides (see module docstring)."""

    size: tuple[int, int]

    def text(self, state: np.ndarray) -> str: ...

    def draw(self, surface: Any, state: np.ndarray, pygame: Any) -> None: ...


class Renderer:
    """Turns a board renderer into the three render modes; owns the window in ``human`` mode."""

    def __init__(self, board: BoardRenderer, mode: str, fps: int, title: str):
        self.board = board
        self.mode = mode
        self.fps = fps
        self.title = title
        self._pygame = None
        self._surface = None
        self._window = None
        self._clock = None

    def _canvas(self):
        if self._pygame is None:
            self._pygame = require_optional("pygame", "render")
        pygame = self._pygame
        if self.mode == "human" and self._window is None:
            pygame.display.init()
            self._window = pygame.display.set_mode(self.board.size)
            pygame.display.set_caption(self.title)
            self._clock = pygame.time.Clock()
        if self._surface is None:
            pygame.font.init()
            self._surface = pygame.Surface(self.board.size)
        return pygame, self._surface

    def render(self, state: np.ndarray) -> str | np.ndarray | None:
        """Render ``state`` in this renderer's mode."""
        if self.mode == "ansi":
            return self.board.text(state)
        pygame, surface = self._canvas()
        self.board.draw(surface, state, pygame)
        if self.mode == "rgb_array":
            return np.transpose(pygame.surfarray.array3d(surface), (1, 0, 2)).astype(np.uint8)
        pygame.event.pump()
        self._window.blit(surface, (0, 0))
        pygame.display.flip()
        self._clock.tick(self.fps)
        return None

    def close(self) -> None:
        """Close the window (``human`` mode)."""
        if self._window is not None and self._pygame is not None:
            self._pygame.display.quit()
        self._window = None
        self._surface = None


def load_font(pygame: Any, size: int) -> Any:
    """pygame's default font at ``size`` pixels."""
    return pygame.font.Font(None, size)
