"""Rewrite the ladder tables at the end of ``docs/guides/ladder.md`` from the shipped ladder files
(``agents/data/ladders/<game>.json``); run after rebuilding a ladder::

    python docs/_scripts/ladder_tables.py

``tests/agents/evaluation/test_ladder.py`` checks that the page shows every shipped ladder as its file has it.
"""

from __future__ import annotations

from pathlib import Path

from mcts_envs import BUILTIN_GAMES
from mcts_envs.agents.evaluation.ladder import LADDER_DIR, load_ladder

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "guides" / "ladder.md"
MARKER = (
    "<!-- ladder tables: generated from agents/data/ladders/*.json (a test checks they agree) -->\n"
)


def main() -> None:
    """Replace everything after the marker line with one section per shipped ladder."""
    head = PAGE.read_text(encoding="utf-8").split(MARKER)[0]
    sections = [
        load_ladder(game).docs_section()
        for game in (builtin.name for builtin in BUILTIN_GAMES)
        if (LADDER_DIR / f"{game}.json").exists()
    ]
    PAGE.write_text(head + MARKER + "\n" + "\n".join(sections), encoding="utf-8")


if __name__ == "__main__":
    main()
