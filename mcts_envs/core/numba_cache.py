"""Where the package's compiled code is kept: one cache per machine, keyed by source content.

numba keeps the code of a ``cache=True`` function in a cache directory chosen by a *locator*; its
own locators put it beside the source (``__pycache__``) or under a folder named after the source's
absolute path, so a new clone, a copy at another path or a fresh install starts cold. The
package's functions are decorated with :func:`njit` from here instead of ``numba.njit``, which
installs :class:`PackageCacheLocator` first for the package's own modules (everything under
``mcts_envs``, ``mcts_envs.agents`` included; other code keeps numba's locators):

* **Location**: ``<root>/<numba version>/<module>-<key>/``, where ``root`` is
  ``$MCTS_ENVS_CACHE_DIR`` or the user cache folder (``~/.cache/mcts-envs`` on Linux, numba's
  ``appdirs`` elsewhere), and a temporary folder when neither can be written. When no folder at
  all can be written (a read-only home, package and temporary folder), the code compiles in
  every process without a disk cache, with one :class:`NoCacheWarning` (never an import error).
* **Key**: a hash of the module's source and of the source of every package module it imports at
  module level, transitively (:func:`module_key`). Compiled code calls the kernels it imports, so
  an edit to a callee in another file gives its callers a new key: nothing stale is loaded, only
  what changed compiles again, and clones or installs with the same sources share the code.
* **Shipped code**: a wheel built by ``scripts/build_wheel.py`` carries the cache of every game
  and agent under ``mcts_envs/_compiled/<numba version>/``; the first use of a module copies its
  folder into the user cache (so read-only installs hit too). A wheel built for another numba
  version is not used: the code compiles here, with the progress bar of
  :func:`mcts_envs.core.compiling.compile_notice`.
* **CPU**: code is compiled for a portable CPU (:data:`PORTABLE_CPU`: ``x86-64-v2`` on x86-64,
  ``generic`` elsewhere), the same on every machine, so that shipped code loads everywhere.
  numba reads the CPU from ``NUMBA_CPU_NAME``: this module sets it (and ``NUMBA_CPU_FEATURES``)
  in ``os.environ`` when it is imported before numba compiles anything, so worker processes
  inherit it. ``MCTS_ENVS_HOST_CPU=1``, or a ``NUMBA_CPU_NAME`` of your own, keeps numba's
  choice (host-tuned code, compiled locally).
"""

from __future__ import annotations

import ast
import hashlib
import os
import platform
import shutil
import sys
import tempfile
import warnings
from pathlib import Path
from typing import Any

import numba
from numba.core import caching, config
from numba.core.registry import cpu_target

__all__ = [
    "CACHE_DIR_VARIABLE",
    "HOST_CPU_VARIABLE",
    "NO_BORROW_VARIABLE",
    "PORTABLE_CPU",
    "NoCacheWarning",
    "PackageCacheLocator",
    "cache_root",
    "module_key",
    "njit",
    "shipped_root",
    "uses_portable_cpu",
]

#: Environment variable naming the cache root (default: the user cache folder).
CACHE_DIR_VARIABLE = "MCTS_ENVS_CACHE_DIR"
#: Environment variable that turns borrowed views off (:mod:`mcts_envs.core.numba_compat`).
NO_BORROW_VARIABLE = "MCTS_ENVS_NO_BORROW"
#: Environment variable that keeps numba's host-tuned CPU target (``1``).
HOST_CPU_VARIABLE = "MCTS_ENVS_HOST_CPU"
#: The CPU the package compiles for unless told otherwise: x86-64-v2 (SSE4.2 and POPCNT, every
#: x86-64 CPU since 2009-2011) on x86-64, numba's ``generic`` elsewhere.
PORTABLE_CPU = "x86-64-v2" if platform.machine().lower() in ("x86_64", "amd64") else "generic"
#: Top-level package whose modules this locator serves.
PACKAGE = "mcts_envs"
#: Folder of the package holding the shipped cache (wheels built by scripts/build_wheel.py).
SHIPPED_FOLDER = "_compiled"

_TRUE = ("1", "true", "yes")


def _codegen_started() -> bool:
    """Whether numba has created its CPU code generator (the CPU is then fixed)."""
    return "_toplevel_target_context" in vars(cpu_target)


def _choose_cpu() -> bool:
    """Set numba's CPU to :data:`PORTABLE_CPU` unless opted out; returns whether it is used."""
    if os.environ.get(HOST_CPU_VARIABLE, "").strip().lower() in _TRUE:
        return False
    if "NUMBA_CPU_NAME" in os.environ:
        return os.environ["NUMBA_CPU_NAME"] == PORTABLE_CPU
    if _codegen_started():  # numba compiled something before the package was imported
        return False
    os.environ["NUMBA_CPU_NAME"] = PORTABLE_CPU
    os.environ["NUMBA_CPU_FEATURES"] = ""
    config.CPU_NAME = PORTABLE_CPU
    config.CPU_FEATURES = ""
    return True


_PORTABLE = _choose_cpu()


def uses_portable_cpu() -> bool:
    """Whether this process compiles for :data:`PORTABLE_CPU` (the code a wheel ships)."""
    return _PORTABLE


def _variant() -> str:
    """The cache folder of this numba build: its version, and ``-no-borrow`` when borrowed
    views are off (``MCTS_ENVS_NO_BORROW``: other compiled code, never mixed)."""
    no_borrow = os.environ.get(NO_BORROW_VARIABLE, "").strip().lower() in _TRUE
    return f"numba-{numba.__version__}" + ("-no-borrow" if no_borrow else "")


def cache_root() -> Path:
    """The folder holding every numba version's cache (``$MCTS_ENVS_CACHE_DIR`` or the user
    cache folder)."""
    chosen = os.environ.get(CACHE_DIR_VARIABLE, "").strip()
    if chosen:
        return Path(chosen).expanduser()
    if sys.platform.startswith("linux"):
        base = os.environ.get("XDG_CACHE_HOME", "").strip() or os.path.expanduser("~/.cache")
        return Path(base) / "mcts-envs"
    from numba.misc.appdirs import AppDirs

    return Path(AppDirs(appname="mcts-envs", appauthor=False).user_cache_dir)


def shipped_root() -> Path:
    """The folder of this numba build's shipped cache inside the installed package (it exists
    only in a wheel built with compiled code)."""
    return Path(__file__).resolve().parents[1] / SHIPPED_FOLDER / _variant()


# -- the key: a module's source and its package imports, transitively -------------------------

_FILE_IMPORTS: dict[Path, tuple[str, ...]] = {}
_KEYS: dict[str, str] = {}


def _module_file(name: str) -> Path | None:
    """The source file of package module ``name``, found from its imported parents (nothing is
    imported here); None when it is not a module of the package."""
    parts = name.split(".")
    if parts[0] != PACKAGE:
        return None
    for end in range(len(parts), 0, -1):
        parent = sys.modules.get(".".join(parts[:end]))
        if parent is None:
            continue
        search = getattr(parent, "__path__", None)
        if end == len(parts):
            file = getattr(parent, "__file__", None)
            return Path(file) if file else None
        if not search:
            return None
        base = Path(next(iter(search))).joinpath(*parts[end:])
        for candidate in (base / "__init__.py", base.with_suffix(".py")):
            if candidate.is_file():
                return candidate
        return None
    return None


def _module_level_imports(path: Path, name: str) -> tuple[str, ...]:
    """Modules named by the import statements at module level of ``path`` (module ``name``):
    ``from a import b`` names ``a.b`` and ``a``; relative imports are resolved."""
    found = _FILE_IMPORTS.get(path)
    if found is not None:
        return found
    tree = ast.parse(path.read_bytes())
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    names: list[str] = []
    stack: list[ast.AST] = list(tree.body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            names.append(base)
            names.extend(f"{base}.{alias.name}" for alias in node.names)
        elif isinstance(node, (ast.If, ast.Try)):  # imports under module-level if / try
            for field in ("body", "orelse", "finalbody", "handlers"):
                stack.extend(getattr(node, field, []) or [])
        elif isinstance(node, ast.ExceptHandler):
            stack.extend(node.body)
    found = tuple(sorted({n for n in names if n.split(".")[0] == PACKAGE}))
    _FILE_IMPORTS[path] = found
    return found


def module_key(name: str) -> str:
    """A hex digest of the source of package module ``name`` and of every package module it
    imports at module level, transitively (raises ``LookupError`` for a module not found)."""
    key = _KEYS.get(name)
    if key is not None:
        return key
    root = _module_file(name)
    if root is None:
        raise LookupError(f"no source file for {name}")
    files: dict[str, Path] = {name: root}
    pending = [name]
    while pending:
        current = pending.pop()
        for imported in _module_level_imports(files[current], current):
            if imported in files:
                continue
            path = _module_file(imported)
            if path is not None and path.suffix == ".py":
                files[imported] = path
                pending.append(imported)
    digest = hashlib.sha256()
    for module in sorted(files):
        digest.update(module.encode() + b"\0" + files[module].read_bytes() + b"\0")
    key = _KEYS[name] = digest.hexdigest()[:20]
    return key


# -- the locator --------------------------------------------------------------------------


_WARNED: list[bool] = []


def _warn_other_numba() -> None:
    """Say once per process that the shipped code is for another numba build."""
    shipped = shipped_root().parent
    if _WARNED or shipped_root().is_dir() or not shipped.is_dir():
        return
    _WARNED.append(True)
    builds = ", ".join(sorted(path.name for path in shipped.iterdir())) or "none"
    warnings.warn(
        f"mcts-envs: this install carries compiled code for {builds}, not for "
        f"{_variant()}: it compiles here on first use (cached afterwards). Install the numba "
        "version the wheel was built with to skip this.",
        RuntimeWarning,
        stacklevel=2,
    )


def _seed_from_shipped(folder: str, target: Path) -> None:
    """Copy the shipped cache folder ``folder`` to ``target`` if there is one and ``target``
    does not exist yet (copied beside it, then renamed: readers never see half a folder)."""
    source = shipped_root() / folder
    if target.exists():
        return
    if not source.is_dir():
        _warn_other_numba()
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{folder}-", dir=target.parent))
    try:
        shutil.copytree(source, staging, dirs_exist_ok=True)
        os.replace(staging, target)
    except OSError:  # another process seeded it first, or the copy failed: compile as usual
        shutil.rmtree(staging, ignore_errors=True)


class PackageCacheLocator(caching._CacheLocator):
    """numba cache locator for the package's modules (see the module docstring)."""

    def __init__(self, py_func: Any, folder: Path, key: str) -> None:
        self._lineno = py_func.__code__.co_firstlineno
        self._folder = folder
        self._key = key

    def get_cache_path(self) -> str:
        return str(self._folder)

    def get_source_stamp(self) -> str:
        return self._key

    def get_disambiguator(self) -> str:
        return str(self._lineno)

    @classmethod
    def from_function(cls, py_func: Any, py_file: str) -> PackageCacheLocator | None:
        module = getattr(py_func, "__module__", None) or ""
        if module.split(".")[0] != PACKAGE:
            return None
        try:
            key = module_key(module)
        except (LookupError, OSError, SyntaxError):
            return None
        folder = f"{module}-{key}"
        for root in (cache_root, _temporary_root):
            try:
                target = root() / _variant() / folder
                _seed_from_shipped(folder, target)
                locator = cls(py_func, target, key)
                locator.ensure_cache_path()
            except OSError:  # (no usable temporary folder is a FileNotFoundError)
                continue
            return locator
        return None


def _temporary_root() -> Path:
    """The fallback cache root: a folder of this user's in the temporary folder."""
    return Path(tempfile.gettempdir()) / f"mcts-envs-{_user()}"


class NoCacheWarning(RuntimeWarning):
    """No folder can hold compiled code: it compiles in every process (see the module
    docstring)."""


def njit(*args: Any, **options: Any) -> Any:
    """``numba.njit``; importing it from here installs :class:`PackageCacheLocator` first.

    With ``cache=True`` and no writable cache folder anywhere (numba then refuses to decorate
    the function), the function is compiled without a disk cache instead, with one
    :class:`NoCacheWarning` per process.
    """
    if not options.get("cache") or (args and callable(args[0])):
        return numba.njit(*args, **options)
    decorate = numba.njit(*args, **options)

    def decorate_or_uncached(function: Any) -> Any:
        try:
            return decorate(function)
        except RuntimeError as error:
            if "no locator available" not in str(error):
                raise
            _warn_no_cache(error)
            return numba.njit(*args, **{**options, "cache": False})(function)

    return decorate_or_uncached


def _warn_no_cache(error: RuntimeError) -> None:
    """Say once per process that compiled code cannot be kept."""
    if _NO_CACHE_WARNED:
        return
    _NO_CACHE_WARNED.append(True)
    warnings.warn(
        f"mcts-envs: no folder can hold compiled code ({error}); it compiles in every process. "
        f"Set {CACHE_DIR_VARIABLE} to a writable folder to keep it.",
        NoCacheWarning,
        stacklevel=3,
    )


_NO_CACHE_WARNED: list[bool] = []


def _user() -> str:
    try:
        return str(os.getuid())
    except AttributeError:  # Windows
        return os.environ.get("USERNAME", "user")


if PackageCacheLocator not in caching.CacheImpl._locator_classes:
    caching.CacheImpl._locator_classes.insert(0, PackageCacheLocator)
