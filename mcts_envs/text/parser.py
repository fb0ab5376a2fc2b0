"""Finding a move in free text: the answer tag, else the last legal move string the text names.

The rules (also in docs/guides/text.md):

1. ``<move>...</move>`` (any case): when the text has one or more answer tags, the content of
   the **last** one is the move, read by ``game.string_to_action`` (case and spacing ignored,
   the game's abbreviations accepted, e.g. Pentago Twist's ``c4tlr``). Nothing else in the text
   counts, so a bad tag is an invalid answer even if a legal move appears elsewhere.
2. Otherwise the text is searched for the legal moves' canonical names
   (``game.action_to_string``), case ignored and runs of whitespace read as one space; the
   occurrence that **ends last** wins (the longest one if two end at the same place). A name
   that begins (ends) with a letter or digit only counts where the text has no letter or digit
   just before (after) it, so ``c5`` is not found inside the jump ``a7c5`` or in ``c55``.
3. No move found, or a tag naming no legal move: :class:`IllegalActionError` saying why.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import numpy as np

from mcts_envs.core.errors import ActionTypeError, IllegalActionError

#: The answer tag; its content is the move.
MOVE_TAG = re.compile(r"<move>(.*?)</move>", re.IGNORECASE | re.DOTALL)
#: Longest prefix of an answer quoted in an error message.
ANSWER_QUOTE_LIMIT = 80


def legal_move_names(game: Any, state: np.ndarray) -> dict[str, int]:
    """``{move string: action}`` of the legal moves of the player to move, in action order."""
    return {game.action_to_string(state, int(a)): int(a) for a in game.legal_actions(state)}


def normalise_text(text: str) -> str:
    """``text`` lowercased with every run of whitespace made one space (ends stripped)."""
    return " ".join(text.lower().split())


def find_last_move(text: str, names: Mapping[str, int]) -> str | None:
    """The move name (a key of ``names``) that ends last in ``text`` by rule 2 above, or ``None``."""
    haystack = normalise_text(text)
    best: tuple[int, int, str] | None = None
    for name in names:
        needle = normalise_text(name)
        if not needle:
            continue
        start = haystack.find(needle)
        while start >= 0:
            end = start + len(needle)
            before_ok = not (needle[0].isalnum() and start > 0 and haystack[start - 1].isalnum())
            after_ok = not (
                needle[-1].isalnum() and end < len(haystack) and haystack[end].isalnum()
            )
            if before_ok and after_ok and (best is None or (end, len(needle)) > best[:2]):
                best = (end, len(needle), name)
            start = haystack.find(needle, start + 1)
    return None if best is None else best[2]


def parse_move(
    game: Any, state: np.ndarray, text: object, names: Mapping[str, int] | None = None
) -> int:
    """The legal action that the free-text answer ``text`` names (rules in the module docstring).

    Args:
        game: the game.
        state: a state where a player is to move.
        text: the answer.
        names: ``legal_move_names(game, state)`` if the caller has it already.

    Raises:
        ActionTypeError: if ``text`` is not a str.
        IllegalActionError: if the text names no legal move; the message says why, how moves are
            written and how to answer.
    """
    if not isinstance(text, str):
        raise ActionTypeError(f"an answer is a str, got {type(text).__name__}")
    tags = MOVE_TAG.findall(text)
    if tags:
        return game.string_to_action(state, tags[-1].strip())
    if names is None:
        names = legal_move_names(game, state)
    found = find_last_move(text, names)
    if found is None:
        shown = text.strip()[:ANSWER_QUOTE_LIMIT]
        more = "..." if len(text.strip()) > ANSWER_QUOTE_LIMIT else ""
        listed = ", ".join(list(names)[:20]) + (
            f", ... ({len(names)} in all)" if len(names) > 20 else ""
        )
        raise IllegalActionError(
            f"{game.info.name}: no legal move found in the answer {shown + more!r}; write the "
            f"move as <move>MOVE</move> ({game.notation}); legal here: {listed or 'none'}"
        )
    return names[found]
