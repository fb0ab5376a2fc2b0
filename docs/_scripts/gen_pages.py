"""Generate docs pages at build time (run by the mkdocs-gen-files plugin, see ``mkdocs.yml``).

* ``games/<game>.md`` for every game: the game card (the opening docstring of
  ``mcts_envs/envs/<game>_v0.py``, as PettingZoo generates its env pages), its board picture
  (``docs/images/<game>.png``, drawn by ``docs/_scripts/make_boards_png.py``) and its MCTS defaults
  (``GAME_DEFAULTS`` of ``agents/mcts/defaults.py``), so a page cannot drift from the code.
* ``benchmarks.md``, ``experiments.md`` and ``changelog.md`` from the repository's
  ``benchmarks/README.md``, ``experiments/README.md`` and ``CHANGELOG.md``, with their links
  rewritten for the site and the stored result files they link copied in.

Nothing here imports numba code: the cards are read with ``ast``, and the defaults table
(``mcts_envs.agents.mcts.defaults``) imports none.
"""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import mkdocs_gen_files

ROOT = Path(__file__).resolve().parents[2]

#: Game name -> title, in the order of the docs' navigation.
GAMES = {
    "tictactoe": "Tic-Tac-Toe",
    "ultimate_tictactoe": "Ultimate Tic-Tac-Toe",
    "pentago_twist": "Pentago Twist",
    "ataxx": "Ataxx",
    "tantrix": "Tantrix",
}


def game_card(name: str) -> str:
    """The opening docstring of ``mcts_envs/envs/<name>_v0.py``."""
    source = (ROOT / "mcts_envs" / "envs" / f"{name}_v0.py").read_text(encoding="utf-8")
    docstring = ast.get_docstring(ast.parse(source), clean=True)
    if not docstring:
        raise RuntimeError(f"mcts_envs/envs/{name}_v0.py has no game card docstring")
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


def game_page(name: str, title: str, defaults) -> str:
    """The page of one game: card, picture, defaults."""
    card = game_card(name)
    first, _, rest = card.partition("\n")
    rest = re.sub(r"^### ", "## ", rest, flags=re.MULTILINE)
    rest = rest.replace("docs/RULES.md", "[the rules](../RULES.md)")
    return "\n".join(
        [
            f"# {title} (`{name}_v0`)",
            "",
            f"![{title} board](../images/{name}.png)",
            "",
            f"*{first.strip()}* This page is generated from the game card, the opening docstring "
            f"of `mcts_envs/envs/{name}_v0.py`.",
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
    for name, title in GAMES.items():
        with mkdocs_gen_files.open(f"games/{name}.md", "w") as handle:
            handle.write(game_page(name, title, defaults))
    copy_page(ROOT / "benchmarks" / "README.md", "benchmarks.md", docs_link)
    copy_page(ROOT / "experiments" / "README.md", "experiments.md", experiments_link)
    copy_page(ROOT / "CHANGELOG.md", "changelog.md", changelog_link)


main()
