"""A newcomer finds every guide: each page of docs/guides/ is in the site's navigation and in the
"Next" list of Getting started, which also names ``mcts-envs warmup``."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GUIDES = sorted(path.name for path in (ROOT / "docs" / "guides").glob("*.md"))


def test_every_guide_is_in_the_navigation():
    navigation = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    assert GUIDES and all(f"guides/{name}" in navigation for name in GUIDES)


def test_getting_started_names_every_guide_and_the_warmup():
    page = (ROOT / "docs" / "getting-started.md").read_text(encoding="utf-8")
    following = page.split("\n## Next\n", 1)[1].split("\n## ", 1)[0]
    linked = set(re.findall(r"\]\(guides/([\w-]+\.md)", following))
    assert linked == set(GUIDES), set(GUIDES) ^ linked
    assert "`mcts-envs warmup`" in following
