"""No page of the docs holds a paragraph cut mid-sentence (:mod:`tests.docs.prose`): README.md,
docs/, the READMEs and changelog the site copies in, and the game cards its game pages are
generated from."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.docs.prose import cut_paragraphs

ROOT = Path(__file__).resolve().parents[2]


def pages() -> dict[str, str]:
    """Every text that becomes a page of the site (or the front page), by path."""
    files = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    files += [ROOT / "benchmarks" / "README.md", ROOT / "experiments" / "README.md"]
    files.append(ROOT / "CHANGELOG.md")
    texts = {str(path.relative_to(ROOT)): path.read_text(encoding="utf-8") for path in files}
    for card in sorted((ROOT / "mcts_envs" / "envs").glob("*_v0.py")):
        docstring = ast.get_docstring(ast.parse(card.read_text(encoding="utf-8")))
        texts[str(card.relative_to(ROOT))] = docstring or ""
    return texts


@pytest.mark.parametrize(("name", "text"), list(pages().items()), ids=list(pages()))
def test_no_paragraph_is_cut_mid_sentence(name, text):
    assert cut_paragraphs(text) == [], name


def test_the_lint_finds_both_halves_of_a_cut_sentence():
    head = "Intro.\n\nEvery env follows the conventions: agents `player_0`; observations\n"
    tail = "## Environments\n\nan all-zero mask for the agent not on move; rewards at the end.\n"
    (cut,) = cut_paragraphs(head)
    assert cut.line == 3 and "ends without punctuation" in cut.problem
    (cut,) = cut_paragraphs(tail)
    assert cut.line == 3 and "starts with a lowercase word" in cut.problem


def test_the_lint_leaves_lists_code_tables_and_links_alone():
    text = "\n".join(
        [
            "A list follows:",
            "",
            "- an item that runs on",
            "  over a second line without a stop",
            "1. numbered, also open",
            "",
            "```bash",
            "mcts-envs list",
            "```",
            "",
            "| a | b |",
            "| --- | --- |",
            "",
            "::: mcts_envs.records",
            "",
            "mcts-envs plays matches. More in the guide → [Evaluation](guides/evaluation.md)",
            "",
            "<!-- fragment",
            "a comment -->",
            "**Setup**",
        ]
    )
    assert cut_paragraphs(text) == []
