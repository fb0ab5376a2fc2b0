"""The registry of games and their envs, behind ``mcts_envs.make`` and ``mcts_envs.list_games``.

A game enters through one door. The games shipped with the package are the lines of
:data:`BUILTIN_GAMES` (name, title, env version): the name is the game package
(``mcts_envs/games/<name>/``, whose Game class declares what else it provides: batched kernels,
symmetries, SVG board, JSON view) and the env module (``mcts_envs/envs/<name>_v<N>.py``, whose
opening docstring is the game card). Everything that lists games reads this tuple: the
``mcts_envs.<name>_v<N>`` modules and ``mcts_envs``'s exports, PettingZoo's and Gymnasium's ids,
the docs pages, their navigation and the README's games table (checked by
``tests/docs/test_game_door.py``), the board pictures.

Each env module registers its game on import with :func:`register_game`, which also registers
the env with PettingZoo as ``mcts_envs/<game>-v0``. The built-in env modules are imported on first
use of their game (:func:`get_entry`), so ``import mcts_envs`` and :func:`list_games` import no
game (and no numba); importing ``mcts_envs`` registers them with PettingZoo by name
(:func:`register_builtin_envs`). The registry holds only constant entries, never per-run state.
"""

from __future__ import annotations

import ast
import difflib
import importlib
import inspect
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from mcts_envs.core.errors import UnknownGameError


def pettingzoo_id(name: str, version: int | str) -> str:
    """The id under which PettingZoo's registry knows version ``version`` of game ``name``'s
    env, e.g. ``"mcts_envs/tictactoe-v0"``."""
    return f"mcts_envs/{name}-v{version}"


@dataclass(frozen=True)
class RegistryEntry:
    """How to build one game and its env.

    Attributes:
        name: the game's name, e.g. ``"tictactoe"``.
        version: env version number (the env id is ``f"{name}_v{version}"``).
        game_factory: ``(**game_kwargs) -> Game``.
        env_factory: ``(**kwargs) -> AECEnv`` wrapped with the safety layer (``env()``).
        raw_env_factory: ``(**kwargs) -> AECEnv`` without wrappers (``raw_env()``).
        env_module: the import path of the env module, whose opening docstring is the game
            card (:attr:`card`); ``""`` for an env without one.
    """

    name: str
    version: int
    game_factory: Callable[..., Any]
    env_factory: Callable[..., Any]
    raw_env_factory: Callable[..., Any]
    env_module: str = ""

    @property
    def env_name(self) -> str:
        """The env's name with version, e.g. ``"tictactoe_v0"``."""
        return f"{self.name}_v{self.version}"

    @property
    def pettingzoo_id(self) -> str:
        """The id under which PettingZoo's registry knows the env (:func:`pettingzoo_id`)."""
        return pettingzoo_id(self.name, self.version)

    @property
    def card(self) -> str:
        """The game card: the opening docstring of :attr:`env_module` (``""`` if none; read from
        the source when Python runs without docstrings, ``-OO``).

        The text env's rules summary and the docs page are read from it.
        """
        if not self.env_module:
            return ""
        module = sys.modules.get(self.env_module) or importlib.import_module(self.env_module)
        card = inspect.getdoc(module) or ast.get_docstring(ast.parse(inspect.getsource(module)))
        return card or ""


@dataclass(frozen=True)
class BuiltinGame:
    """One game shipped with the package: its line in :data:`BUILTIN_GAMES`.

    Attributes:
        name: the registry name, also the game package ``mcts_envs/games/<name>/``.
        title: the game's name for people (docs pages, navigation, the README's table).
        version: the env version: the env module is ``mcts_envs/envs/<name>_v<version>.py``,
            imported as ``mcts_envs.<name>_v<version>``.
    """

    name: str
    title: str
    version: int = 0

    @property
    def env_name(self) -> str:
        """The env's name with version, e.g. ``"tictactoe_v0"``."""
        return f"{self.name}_v{self.version}"

    @property
    def env_module(self) -> str:
        """The env module's import path, e.g. ``"mcts_envs.envs.tictactoe_v0"``."""
        return f"mcts_envs.envs.{self.env_name}"


#: The games shipped with the package, one line each, in the order of the docs.
BUILTIN_GAMES: tuple[BuiltinGame, ...] = (
    BuiltinGame("tictactoe", "Tic-Tac-Toe"),
    BuiltinGame("ultimate_tictactoe", "Ultimate Tic-Tac-Toe"),
    BuiltinGame("pentago_twist", "Pentago Twist"),
    BuiltinGame("ataxx", "Ataxx"),
    BuiltinGame("tantrix", "Tantrix"),
    BuiltinGame("connect_four", "Connect Four"),
)

_ENTRIES: dict[str, RegistryEntry] = {}
#: Built-in game name -> its line.
_BUILTIN_GAMES = {game.name: game for game in BUILTIN_GAMES}
#: Built-in env name (``"tictactoe_v0"``) -> its line.
_BUILTIN_ENVS = {game.env_name: game for game in BUILTIN_GAMES}
#: The env modules' short names (``mcts_envs.<game>_v<N>``), in the order of the docs.
BUILTIN_ENV_MODULES = tuple(_BUILTIN_ENVS)


def builtin_game(name: str) -> BuiltinGame | None:
    """The line of built-in game ``name`` (a game or env name), or ``None``."""
    return _BUILTIN_GAMES.get(name) or _BUILTIN_ENVS.get(name)


def _register_with_pettingzoo(pettingzoo_id: str, entry_point: str) -> None:
    try:
        import pettingzoo

        register = getattr(pettingzoo, "register", None)
        if register is not None and pettingzoo_id not in getattr(pettingzoo, "aec_registry", {}):
            register("aec", pettingzoo_id, entry_point=entry_point)
    except ImportError:  # pragma: no cover - pettingzoo is a core dependency
        pass


def register_builtin_envs() -> None:
    """Register the built-in envs with PettingZoo by entry point (imports none of them)."""
    for game in BUILTIN_GAMES:
        _register_with_pettingzoo(pettingzoo_id(game.name, game.version), f"{game.env_module}:env")


def env_name(name: str) -> str:
    """The env name with version of game ``name`` (``"tictactoe"`` -> ``"tictactoe_v0"``),
    without importing a built-in game.

    Raises:
        UnknownGameError: if no game has that name.
    """
    if name in _BUILTIN_GAMES and name not in _ENTRIES:
        return _BUILTIN_GAMES[name].env_name
    return get_entry(name).env_name


def register_game(entry: RegistryEntry, entry_point: str) -> None:
    """Add ``entry`` to the registry and register its env with PettingZoo.

    Args:
        entry: the game's registry entry.
        entry_point: ``"module:function"`` of the env factory, for PettingZoo's registry.
    """
    _ENTRIES[entry.name] = entry
    _register_with_pettingzoo(entry.pettingzoo_id, entry_point)


def list_games() -> list[str]:
    """Names of all registered games, sorted (e.g. ``["tictactoe", "ultimate_tictactoe"]``)."""
    return sorted(set(_ENTRIES) | set(_BUILTIN_GAMES))


def get_entry(name: str) -> RegistryEntry:
    """The registry entry of ``name`` (a game name or env name like ``"tictactoe_v0"``).

    Raises:
        UnknownGameError: if no game has that name; the message lists the known names.
    """
    if not isinstance(name, str):
        raise UnknownGameError(
            f"a game name is a string, got {name!r}; known games: {list_games()}"
        )
    key = name.strip().lower().replace("-", "_")
    for prefix in ("mcts_envs/",):
        key = key.removeprefix(prefix.replace("-", "_"))
    builtin = builtin_game(key)
    if builtin is not None and builtin.name not in _ENTRIES:
        importlib.import_module(builtin.env_module)  # registers the game (first use)
    if key in _ENTRIES:
        return _ENTRIES[key]
    for entry in _ENTRIES.values():
        if key == entry.env_name:
            return entry
    known = list_games()
    close = difflib.get_close_matches(key, known + [env_name(k) for k in known], n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    raise UnknownGameError(f"unknown game {name!r}{hint}; known games: {', '.join(known)}")


def make_game(name: str, **game_kwargs: Any) -> Any:
    """Build the :class:`~mcts_envs.core.game.Game` called ``name`` with its options."""
    return get_entry(name).game_factory(**game_kwargs)


def make(name: str, *, raw: bool = False, **kwargs: Any) -> Any:
    """Build the PettingZoo AEC env of game ``name`` (``"tictactoe"`` or ``"tictactoe_v0"``).

    Args:
        name: game or env name; see :func:`list_games`.
        raw: return the unwrapped ``raw_env`` (illegal actions raise) instead of ``env()``.
        **kwargs: env options (``render_mode``, ``max_moves``) and game options.

    Raises:
        UnknownGameError: if ``name`` is not registered.
    """
    entry = get_entry(name)
    return (entry.raw_env_factory if raw else entry.env_factory)(**kwargs)
