"""Quoting user input in error messages: bounded, printable, never the whole of a huge value."""

from __future__ import annotations

import re

__all__ = ["QUOTE_LIMIT", "bounded", "printable", "quote"]

#: Longest prefix of a bad value quoted in an error message.
QUOTE_LIMIT = 60

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def quote(value: object, limit: int = QUOTE_LIMIT) -> str:
    """``repr(value)`` cut to ``limit`` characters, for error messages about user input."""
    text = repr(value) if not isinstance(value, str) else repr(value[: limit + 1])
    return text if len(text) <= limit else text[:limit] + "..."


def bounded(message: str, limit: int = 400) -> str:
    """``message`` cut to ``limit`` characters (errors that quote user input stay short)."""
    return message if len(message) <= limit else message[:limit] + f"... ({len(message)} chars)"


def printable(text: str) -> str:
    """``text`` with terminal control characters (escape sequences included) removed."""
    return _CONTROL.sub("", text)
