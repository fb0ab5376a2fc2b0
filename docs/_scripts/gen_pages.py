"""Generate docs pages at build time (run by the mkdocs-gen-files plugin, see ``mkdocs.yml``).

* ``games/<game>.md`` for every game of the registry (``BUILTIN_GAMES`` of
  ``mcts_envs/core/registry.py``; ``tests/docs/test_game_door.py`` checks that the navigation
  lists the same pages): the game card (the opening docstring of
  ``mcts_envs/envs/<game>_v<N>.py``, as PettingZoo generates its env pages), its board picture
  (``docs/images/<game>.png``, drawn by ``docs/_scripts/make_boards_png.py``) and its MCTS defaults
  (``GAME_DEFAULTS`` of ``agents/mcts/defaults.py``), so a page cannot drift from the code.
* ``benchmarks.md``, ``experiments.md`` and ``changelog.md`` from the repository's
  ``benchmarks/README.md``, ``experiments/README.md`` and ``CHANGELOG.md``, with their links
  rewritten for the site and the stored result files they link copied in.

Nothing here imports numba code: the registry imports no game, the cards are read with ``ast``,
and the defaults table (``mcts_envs.agents.mcts.defaults``) imports none.
"""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import mkdocs_gen_files

from mcts_envs.core.registry import BUILTIN_GAMES, BuiltinGame

ROOT = Path(__file__).resolve().parents[2]


def game_card(game: BuiltinGame) -> str:
    """The opening docstring of the game's env module (``mcts_envs/envs/<name>_v<N>.py``)."""
    path = ROOT / "mcts_envs" / "envs" / f"{game.env_name}.py"
    docstring = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")), clean=True)
    if not docstring:
        raise RuntimeError(f"mcts_envs/envs/{game.env_name}.py has no game card docstring")
    return docstring


def load_defaults():
    """The per-game MCTS defaults module (it imports no numba)."""
    return importlib.import_module("mcts_envs.agents.mcts.defaults")


def defaults_section(name: str, defaults) -> str:
    """The game's MCTS defaults as a Markdown section."""
    row = defaults.defaults_for(name)
    changed = defaults.spec_options(row, only_changed=True) or "(none: the generic values)"
    lines = [
        "## MCTS defaults",
        "",
        f"An `mcts` agent on this game takes these options when its spec leaves them out "
        f"(`agents/mcts/defaults.py`; an explicit option always wins): `{changed}`. "
        "The full row:",
        "",
        "| option | this game | generic |",
        "| --- | --- | --- |",
    ]
    for key, value in row.per_game_options().items():
        generic = getattr(defaults.GENERIC, key)
        lines.append(f"| `{key}` | `{value}` | `{generic}` |")
    lines += [
        "",
        "How the row was chosen: [Per-game MCTS defaults](../experiments.md#per-game-mcts-defaults).",
    ]
    return "\n".join(lines)


def game_page(game: BuiltinGame, defaults) -> str:
    """The page of one game: card, picture, defaults."""
    name, title = game.name, game.title
    card = game_card(game)
    first, _, rest = card.partition("\n")
    rest = re.sub(r"^### ", "## ", rest, flags=re.MULTILINE)
    rest = rest.replace("docs/RULES.md", "[the rules](../RULES.md)")
    return "\n".join(
        [
            f"# {title} (`{game.env_name}`)",
            "",
            f"![{title} board](../images/{name}.png)",
            "",
            f"*{first.strip()}* This page is generated from the game card, the opening docstring "
            f"of `mcts_envs/envs/{game.env_name}.py`.",
            rest,
            "",
            defaults_section(name, defaults),
            "",
        ]
    )


LINK = re.compile(r"\]\(([^)#\s]+)(#[^)\s]*)?\)")


def copy_page(source: Path, target: str, rewrite) -> None:
    """Copy ``source`` (Markdown) to the site as ``target``, rewriting each relative link with
    ``rewrite(link) -> new link or None`` (None: leave as is)."""
    text = source.read_text(encoding="utf-8")

    def replace(match: re.Match) -> str:
        link, anchor = match.group(1), match.group(2) or ""
        if "://" in link:
            return match.group(0)
        new = rewrite(link)
        return match.group(0) if new is None else f"]({new}{anchor})"

    with mkdocs_gen_files.open(target, "w") as handle:
        handle.write(LINK.sub(replace, text))


def copy_file(path: Path, target: str) -> None:
    """Copy a repository file into the site (binary-safe)."""
    with mkdocs_gen_files.open(target, "wb") as handle:
        handle.write(path.read_bytes())


def docs_link(link: str) -> str | None:
    """A link from a repository README to ``docs/...``, as seen from the site root."""
    if link.startswith("../docs/"):
        return link[len("../docs/") :]
    if link == "../CHANGELOG.md":
        return "changelog.md"
    return None


def experiments_link(link: str) -> str | None:
    """Links of ``experiments/README.md``: results files are copied in under ``experiments/``."""
    if link.startswith("results/"):
        path = ROOT / "experiments" / link
        if path.is_file():
            target = f"experiments/{link}"  # stored tables (.md) become pages of their own
            copy_file(path, target)
            return target
        return None
    return docs_link(link)


def changelog_link(link: str) -> str | None:
    return {"benchmarks/README.md": "benchmarks.md", "experiments/README.md": "experiments.md"}.get(
        link
    )


def main() -> None:
    defaults = load_defaults()
    for game in BUILTIN_GAMES:
        with mkdocs_gen_files.open(f"games/{game.name}.md", "w") as handle:
            handle.write(game_page(game, defaults))
    copy_page(ROOT / "benchmarks" / "README.md", "benchmarks.md", docs_link)
    copy_page(ROOT / "experiments" / "README.md", "experiments.md", experiments_link)
    copy_page(ROOT / "CHANGELOG.md", "changelog.md", changelog_link)


main()
