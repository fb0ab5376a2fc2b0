"""Rewrite the table of MCTS options in ``docs/agents.md`` from the fields of
:class:`mcts_envs.agents.mcts.config.MCTSConfig` (name, default, meaning); run after changing an
option::

    python docs/_scripts/mcts_options.py

``tests/agents/mcts/test_mcts_config.py`` checks that the page shows the table this writes.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from mcts_envs.agents.mcts.config import PER_GAME, MCTSConfig
from mcts_envs.agents.mcts.defaults import GENERIC

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "agents.md"
BEGIN = (
    "<!-- mcts options: generated from MCTSConfig's fields by docs/_scripts/mcts_options.py -->\n"
)
END = "<!-- end of the mcts options -->\n"


def _text(value: object) -> str:
    return f"`{'none' if value is None else value}`"


def options_table() -> str:
    """The options as a Markdown table: name, default (``per game`` with the generic value),
    meaning."""
    lines = ["| option | default | meaning |", "| --- | --- | --- |"]
    for option in dataclasses.fields(MCTSConfig):
        if option.default is PER_GAME:
            default = f"per game (generic {_text(getattr(GENERIC, option.name))})"
        else:
            default = _text(option.default)
        lines.append(f"| `{option.name}` | {default} | {option.metadata['help']} |")
    return "\n".join(lines) + "\n"


def page_table(text: str) -> str:
    """The table between the markers of the page ``text`` (blank lines around it left out)."""
    return text.split(BEGIN, 1)[1].split(END, 1)[0].strip("\n") + "\n"


def main() -> None:
    """Replace the table between the markers with :func:`options_table`."""
    text = PAGE.read_text(encoding="utf-8")
    head, rest = text.split(BEGIN, 1)
    tail = rest.split(END, 1)[1]
    PAGE.write_text(head + BEGIN + "\n" + options_table() + "\n" + END + tail, encoding="utf-8")


if __name__ == "__main__":
    main()
