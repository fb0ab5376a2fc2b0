"""The shell blocks of the docs (```` ```bash ````, ``sh``, ``shell``, ``console``), read as a
newcomer copies them, and what the docs tests do with each.

A block runs as written (``bash -e``: every command must succeed), with three exceptions, each
visible or checked:

* **Commands the tests never run**, by kind (:data:`NEVER_RUN`): installs (the tests run in the
  environment they make; every extra they name must exist in ``pyproject.toml``), building the
  wheel, the test suite itself, servers that run until stopped, and the CI scripts. The other
  commands of the block still run.
* **Templates**: a block with placeholders written ``<LIKE_THIS>`` is a template. The paragraph
  just before it starts with ``Template:`` (so a reader sees it), and a template must hold a
  placeholder, so a runnable block cannot hide behind the word.
* **Markers** in an HTML comment on the line before the block: ``<!-- slow -->`` runs the block
  only with ``pytest -m slow``; ``<!-- not run: REASON -->`` skips it, and the reason must name an
  existing test file (``tests/...py``) that runs the same program in small.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import NamedTuple

__all__ = [
    "NEVER_RUN",
    "PLACEHOLDER",
    "SHELL_LANGUAGES",
    "Command",
    "ShellBlock",
    "commands",
    "shell_blocks",
    "untagged_command_blocks",
]

#: Fence languages that hold commands to run.
SHELL_LANGUAGES = ("bash", "sh", "shell", "console")
#: A placeholder of a template: ``<MODEL_FILE>``, ``<HEAD_IP>``.
PLACEHOLDER = re.compile(r"<[A-Z][A-Za-z0-9_.]*>")
#: Commands never run by the docs tests (a regex matched at the start of a command) -> why.
NEVER_RUN = {
    r"pip install\b": "installs packages: the tests run in the environment it makes",
    r"apt-get\b": "installs system packages",
    r"python scripts/build_wheel\.py\b": "builds the wheel (.ci/package-check runs it)",
    r"python -m pytest\b": "the test suite itself (tests/docs/test_ci.py checks the command)",
    r"mcts-envs serve\b": "a web server that runs until stopped (tests/web starts it)",
    r"mkdocs serve\b": "a docs server that runs until stopped (.ci/run builds the site)",
    r"\.ci/": "a CI script: it builds virtual environments of its own",
    r"ray (start|stop)\b": "starts or stops a Ray cluster that outlives the command",
    r"llama-server\b": "a model server that runs until stopped",
}

_FENCE = re.compile(r"^(?P<indent>[ \t]*)```(?P<language>[\w-]*)[ \t]*\n(?P<body>.*?)^(?P=indent)```[ \t]*$",
                    re.MULTILINE | re.DOTALL)  # fmt: skip
_MARKER = re.compile(r"^<!--\s*(?P<kind>slow|not run)\s*(?::\s*(?P<reason>.*?))?\s*-->$")


class Command(NamedTuple):
    """One command of a block (continuation lines joined; ``a && b`` is two commands)."""

    text: str
    never_run: str | None  # why the tests do not run it, or None


class ShellBlock(NamedTuple):
    """A shell block of a Markdown file.

    Attributes:
        path: the file.
        line: the line of its opening fence (1-based).
        code: its text, indentation removed.
        marker: ``"slow"``, ``"not run"`` or ``None``.
        reason: the reason of a ``not run`` marker.
        template_note: the paragraph before the block when it starts with ``Template:``.
    """

    path: Path
    line: int
    code: str
    marker: str | None
    reason: str | None
    template_note: str | None


def _paragraph_before(lines: list[str]) -> str:
    """The paragraph that ends just before the fence (its lines joined), or ``""``."""
    paragraph: list[str] = []
    for line in reversed(lines):
        if not line.strip():
            if paragraph:
                break
            continue
        paragraph.insert(0, line.strip())
    return " ".join(paragraph)


def shell_blocks(path: Path) -> list[ShellBlock]:
    """The shell blocks of the Markdown file ``path``, with their markers."""
    text = path.read_text(encoding="utf-8")
    found = []
    for match in _FENCE.finditer(text):
        if match.group("language") not in SHELL_LANGUAGES:
            continue
        before = text[: match.start()].rstrip("\n").split("\n")
        marker = _MARKER.match(before[-1].strip()) if before else None
        note = _paragraph_before(before)
        indent = match.group("indent")
        code = "\n".join(line.removeprefix(indent) for line in match.group("body").split("\n"))
        found.append(
            ShellBlock(
                path,
                text.count("\n", 0, match.start()) + 1,
                code,
                marker.group("kind") if marker else None,
                marker.group("reason") if marker else None,
                note if note.lstrip("*_").startswith("Template:") else None,
            )
        )
    return found


def untagged_command_blocks(path: Path) -> list[int]:
    """Lines of fences without a language whose first line is a command (``mcts-envs``,
    ``python``, ``pip``): such a block would escape the tests, so it must be tagged."""
    text = path.read_text(encoding="utf-8")
    return [
        text.count("\n", 0, match.start()) + 1
        for match in _FENCE.finditer(text)
        if not match.group("language")
        and re.match(r"\s*(\$ )?(mcts-envs|python|pip)\b", match.group("body"))
    ]


def commands(code: str) -> list[Command]:
    """The commands of a block: lines with their ``\\`` continuations joined, split at ``&&``,
    comments and blank lines dropped, each with the reason it is never run (or ``None``)."""
    logical: list[str] = []
    pending = ""
    for line in code.split("\n"):
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1] + " "
            continue
        logical.append(pending + line)
        pending = ""
    found = []
    for line in logical:
        line = re.sub(r"\s+#.*$", "", line).strip()
        if not line or line.startswith("#"):
            continue
        for part in line.split("&&"):
            part = part.strip()
            reason = next((why for start, why in NEVER_RUN.items() if re.match(start, part)), None)
            found.append(Command(part, reason))
    return found
