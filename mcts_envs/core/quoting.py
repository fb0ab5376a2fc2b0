"""Quoting user input in error messages: bounded, printable, never the whole of a huge value."""

from __future__ import annotations

import re
import reprlib

__all__ = ["QUOTE_LIMIT", "bounded", "printable", "quote"]

#: Longest prefix of a bad value quoted in an error message.
QUOTE_LIMIT = 60

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def quote(value: object, limit: int = QUOTE_LIMIT) -> str:
    """``repr(value)`` cut to ``limit`` characters, for error messages about user input.

    Never fails and never takes long, whatever ``value`` is: an integer too long to print is
    named by its number of digits, containers are shown a few levels and items deep, and a value
    whose ``repr`` fails is named by its type."""
    text = repr(value[: limit + 1]) if isinstance(value, str) else _short_repr(value, limit)
    return text if len(text) <= limit else text[:limit] + "..."


def _short_repr(value: object, limit: int) -> str:
    """A bounded ``repr`` of a value that is not a str (see :func:`quote`)."""
    if isinstance(value, int) and value.bit_length() > 4 * limit:
        digits = int(value.bit_length() * 0.30103) + 1  # log10(2) digits per bit
        return f"<an integer of about {digits} digits>"
    shown = reprlib.Repr()
    shown.maxlevel, shown.maxstring, shown.maxother = 3, limit, limit
    shown.maxlist = shown.maxtuple = shown.maxdict = shown.maxset = 8
    try:
        return shown.repr(value)
    except Exception:  # an integer too long inside a container, a failing __repr__, ...
        return f"<a {type(value).__name__}>"


def bounded(message: str, limit: int = 400) -> str:
    """``message`` cut to ``limit`` characters (errors that quote user input stay short)."""
    return message if len(message) <= limit else message[:limit] + f"... ({len(message)} chars)"


def printable(text: str) -> str:
    """``text`` with terminal control characters (escape sequences included) removed."""
    return _CONTROL.sub("", text)
