"""A game enters through one door: the registry's ``BUILTIN_GAMES``. What is not generated from it
is checked against it here, and a failure names what is missing and the line to add."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

import mcts_envs
from mcts_envs.core.registry import BUILTIN_GAMES

ROOT = Path(__file__).resolve().parents[2]


def games_nav() -> list:
    """The entries of the docs navigation's "Games" section."""
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    for entry in config["nav"]:
        if isinstance(entry, dict) and "Games" in entry:
            return entry["Games"]
    raise AssertionError("mkdocs.yml's nav has no Games section")


def test_the_registry_lists_every_game_once_and_the_package_exports_each():
    names = [game.name for game in BUILTIN_GAMES]
    assert len(set(names)) == len(names)
    assert sorted(names) == mcts_envs.list_games()
    for game in BUILTIN_GAMES:
        assert game.env_name in mcts_envs.__all__ and game.env_name in mcts_envs.ENV_MODULES
        assert mcts_envs.get_entry(game.name).card.startswith(game.title.split()[0])


def test_every_game_has_its_short_env_module():
    """``mcts_envs/<game>_v<N>.py`` re-exports the env module (as PettingZoo's ``classic``
    modules do), so ``import mcts_envs.<game>_v<N>`` resolves for IDEs and type checkers too."""
    import importlib

    missing = []
    for game in BUILTIN_GAMES:
        path = ROOT / "mcts_envs" / f"{game.env_name}.py"
        if not path.is_file():
            missing.append(
                f"{path.relative_to(ROOT)}: from {game.env_module} import __doc__, env, raw_env"
            )
            continue
        short = importlib.import_module(f"mcts_envs.{game.env_name}")
        full = importlib.import_module(game.env_module)
        assert short.env is full.env and short.raw_env is full.raw_env, path
        assert short.__doc__ == full.__doc__, f"{path}: the game card is the module's doc"
    assert not missing, "short env modules missing:\n" + "\n".join(missing)


def test_the_docs_navigation_lists_every_game_page_in_registry_order():
    wanted = [{game.title: f"games/{game.name}.md"} for game in BUILTIN_GAMES]
    pages = [entry for entry in games_nav() if isinstance(entry, dict) and "Rules" not in entry]
    missing = [
        f"      - {title}: {page}"
        for line in wanted
        for title, page in line.items()
        if line not in pages
    ]
    assert not missing, "mkdocs.yml's Games nav lacks:\n" + "\n".join(missing)
    assert pages == wanted, f"mkdocs.yml's Games nav is not in registry order: {pages}"


def readme_table_rows(path: Path, heading: str) -> list[str]:
    """The rows of the first table after ``heading`` in ``path`` (header rows left out)."""
    text = path.read_text(encoding="utf-8")
    after = text.split(heading, 1)[1]
    rows = [line for line in after.splitlines() if line.startswith("|")]
    table = []
    for line in after.splitlines()[after.splitlines().index(rows[0]) :]:
        if not line.startswith("|"):
            break
        table.append(line)
    return table[2:]


def test_the_readme_games_table_has_a_row_per_game_in_registry_order():
    rows = readme_table_rows(ROOT / "README.md", "## Games")
    problems = []
    found = []
    for game in BUILTIN_GAMES:
        actions = mcts_envs.make_game(game.name).info.num_actions
        expected = (
            f'| <img src="docs/images/{game.name}.png" height="48"> | {game.title} | '
            f"`{game.env_name}` | `Discrete({actions})` | "
            f"[{game.env_name}.py](mcts_envs/envs/{game.env_name}.py) |"
        )
        row = next((r for r in rows if f"`{game.env_name}`" in r), None)
        if row is None:
            problems.append(f"no row for {game.name}; add: {expected}")
            continue
        found.append(rows.index(row))
        for piece in (
            f'<img src="docs/images/{game.name}.png"',
            f"| {game.title}",
            f"`Discrete({actions})`",
            f"(mcts_envs/envs/{game.env_name}.py)",
        ):
            if piece not in row:
                problems.append(
                    f"the row of {game.name} lacks {piece!r}; expected like: {expected}"
                )
    assert not problems, "README.md's games table:\n" + "\n".join(problems)
    assert found == sorted(found), "README.md's games table is not in registry order"
    assert len(rows) == len(BUILTIN_GAMES), "README.md's games table has rows for no game"


def test_the_games_index_page_has_a_row_per_game():
    rows = readme_table_rows(ROOT / "docs" / "games" / "index.md", "# Games")
    missing = [
        f"[{game.title}]({game.name}.md) with `{game.env_name}`"
        for game in BUILTIN_GAMES
        if not any(f"]({game.name}.md)" in row and f"`{game.env_name}`" in row for row in rows)
    ]
    assert not missing, "docs/games/index.md's table lacks rows for: " + "; ".join(missing)


def test_every_game_has_its_picture_and_a_rules_section():
    rules = (ROOT / "docs" / "RULES.md").read_text(encoding="utf-8")
    headings = re.findall(r"^## \d+\. (.+)$", rules, flags=re.MULTILINE)
    for game in BUILTIN_GAMES:
        picture = ROOT / "docs" / "images" / f"{game.name}.png"
        assert picture.is_file(), (
            f"no {picture.relative_to(ROOT)}: run docs/_scripts/make_boards_png.py"
        )
        assert any(h.startswith(game.title) for h in headings), (
            f"docs/RULES.md has no section '## N. {game.title}' (sections: {headings})"
        )
