"""A lint for prose cut in two: a Markdown paragraph that ends on a bare word (no closing
punctuation), or one that starts with a lowercase letter, is the tail or the head of a sentence
that lost its other half (``...agents `player_0` / `player_1`; observations`` at the end of one
page, ``an all-zero mask for the agent not on move; ...`` opening a section of another).

Only running text is checked: headings, lists (with their continuation lines), tables, code,
admonitions, HTML comments, images and mkdocstrings directives (``::: module``) are left alone.
"""

from __future__ import annotations

import re
from typing import NamedTuple

__all__ = ["LOWERCASE_NAMES", "Cut", "cut_paragraphs", "paragraphs"]

#: Words that may open a paragraph although they are lowercase: the names of the package and of
#: its command.
LOWERCASE_NAMES = ("mcts-envs", "mcts_envs")

#: Lines that are not running text (they end the paragraph before them).
_BLOCK_START = re.compile(r"(#|\||!!!|!\[|<|>|:::|\$ )")
#: A list item: ``-``, ``*`` or ``+`` bullets, ``1.`` / ``13a.`` numbers.
_LIST_ITEM = re.compile(r"([-*+]|\d+[a-z]?\.) ")
#: How a complete paragraph may end: sentence punctuation, or closing markup after it (a link,
#: a code span, emphasis, a bracket).
_COMPLETE_END = re.compile(r"[.:;?!)\]`*_\"']$")


class Cut(NamedTuple):
    """A paragraph that looks cut: where it starts (1-based line) and what is wrong with it."""

    line: int
    problem: str


def paragraphs(text: str) -> list[tuple[int, str]]:
    """``(first line, text joined by spaces)`` of each paragraph of running text in ``text``."""
    found: list[tuple[int, str]] = []
    current: list[str] = []
    start = 0
    fence = None  # the fence that opened the code block we are in
    in_comment = in_list = False

    def close() -> None:
        if current:
            found.append((start, " ".join(current)))
            current.clear()

    for number, line in enumerate(text.split("\n"), 1):
        stripped = line.strip()
        if fence is not None:
            if stripped.startswith(fence):
                fence = None
            continue
        fenced = re.match(r"(`{3,}|~{3,})", stripped)
        if fenced:
            close()
            fence = fenced.group(1)
            continue
        if in_comment or stripped.startswith("<!--"):
            close()
            in_comment = "-->" not in stripped
            continue
        if not stripped:
            close()
            in_list = False
            continue
        if _LIST_ITEM.match(stripped) or (in_list and line[:1] in " \t"):
            close()
            in_list = True
            continue
        if in_list or line.startswith(("    ", "\t")) or _BLOCK_START.match(stripped):
            close()
            continue
        if not current:
            start = number
        current.append(stripped)
    close()
    return found


def cut_paragraphs(text: str) -> list[Cut]:
    """The paragraphs of ``text`` that look cut mid-sentence, with the reason."""
    cuts = []
    for line, paragraph in paragraphs(text):
        first = paragraph.split(maxsplit=1)[0]
        if paragraph[0].islower() and first not in LOWERCASE_NAMES:
            cuts.append(Cut(line, f"starts with a lowercase word: {paragraph[:60]!r}"))
        elif not _COMPLETE_END.search(paragraph):
            cuts.append(Cut(line, f"ends without punctuation: ...{paragraph[-60:]!r}"))
    return cuts
