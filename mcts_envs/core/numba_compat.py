"""Every use of numba internals in the package, in one place, checked when it is imported.

Three speed-ups and one repair rely on numba details that are not public API:

* **Stable dispatcher identities** (:func:`pin_identity`). Compiled generic code (searches,
  playout batches) takes a game's kernel dispatchers as arguments, so numba's on-disk cache keys
  contain them. Numba identifies a dispatcher across processes by a UUID it draws at random when
  the dispatcher is first pickled (numba issue 6264), so every new process would miss the cache
  and recompile. We set a UUID derived from the module, qualified name and bytecode through the
  private ``_set_uuid`` / ``_MemoMixin__uuid``. If those names change, :data:`CAN_PIN` is False
  and a warning says what it costs: every process recompiles the searches.
* **Direct entry points** (:func:`entry_point`): calling the compiled code of one signature
  skips numba's dispatch, which types every argument on every call (tens of microseconds with
  kernels as arguments). Skipping it also skips numba's checks, so the returned
  :class:`EntryPoint` checks each argument against the signature itself (dtype, dimensions,
  contiguity, writability; the same kernels; scalar types) and raises ``TypeError`` instead of
  computing garbage.
* **Borrowed views** (:func:`borrow`): array views without a reference-counted owner, so calls
  inside the MCTS loop skip atomic reference counting (three quarters of the time on
  Tic-Tac-Toe). Setting the environment variable ``MCTS_ENVS_NO_BORROW=1`` before the first
  import turns them into plain arrays (slower, no numba internals; compiled code then lives in
  its own cache directory so the two builds never mix).

* **A cache index that survives vanished dispatchers** (:data:`CAN_GUARD_INDEX`): numba's save
  of a cache index no longer fails on an entry whose key names a dispatcher that no longer
  exists (see :func:`_save_index_of_live_entries`); the entry is dropped.
* **One writer at a time per cache index** (:data:`CAN_LOCK_INDEX`): numba saves a compiled
  function by reading its cache index, picking a free data-file name and writing the index back,
  with no lock. Two processes compiling signatures of one function at once (tournament workers,
  Ray workers, parallel tests) could both pick the same data file, and one process's index then
  named the other's code: a lost entry at best, the wrong compiled code loaded later at worst.
  Each save now holds an exclusive ``fcntl`` lock on a ``.lock`` file beside the index
  (:func:`_save_under_index_lock`); loads take no lock (numba replaces files atomically).

Supported numba versions are bounded in ``pyproject.toml`` to the tested range.
"""

from __future__ import annotations

import ctypes
import hashlib
import marshal
import os
import sys
import types as types_module
import warnings
from typing import Any

import numba
import numpy as np
from numba import types
from numba.core import caching
from numba.core.dispatcher import Dispatcher

from mcts_envs.core.numba_cache import NO_BORROW_VARIABLE, njit

#: Whether borrowed views are in use in this process.
USE_BORROW = os.environ.get(NO_BORROW_VARIABLE, "").strip().lower() not in ("1", "true", "yes")


def _probe_pinning() -> bool:
    @njit
    def probe(x):  # pragma: no cover - never compiled
        return x

    return hasattr(probe, "_set_uuid") and getattr(probe, "_MemoMixin__uuid", "missing") is None


#: Whether numba's private dispatcher-identity hooks exist in the installed numba.
CAN_PIN = _probe_pinning()
if not CAN_PIN:
    warnings.warn(
        f"numba {numba.__version__} lacks the private dispatcher-identity hooks mcts-envs uses "
        "(Dispatcher._set_uuid): compiled searches cannot be loaded from numba's disk cache and "
        "will be recompiled in every new process (seconds to tens of seconds before the first "
        "decision of each game). Install a numba version in the range pyproject.toml allows.",
        RuntimeWarning,
        stacklevel=2,
    )


def _save_index_of_live_entries(cache_file: Any, overloads: dict) -> None:
    """numba's ``IndexDataCacheFile._save_index``, but entries whose key names a dispatcher
    that no longer exists in this process are dropped instead of failing the compile.

    Generic compiled code takes kernels as arguments, so its cache index keys hold dispatcher
    types; loading the index rebuilds the dispatchers of other processes' entries (a game's
    kernel whose code has changed since, a user's game defined in a script), which nothing keeps
    alive, and numba's save of the index then raised ``ReferenceError: underlying object has
    vanished`` from the compile of an unrelated function. A dropped entry only costs the
    process that needs it a compile (it is added back then)."""
    try:
        _SAVE_INDEX(cache_file, overloads)
    except ReferenceError:
        live = {}
        for key, name in overloads.items():
            try:
                cache_file._dump(key)
            except ReferenceError:
                continue
            live[key] = name
        _SAVE_INDEX(cache_file, live)


_INDEX_FILE = getattr(caching, "IndexDataCacheFile", None)
_SAVE_INDEX = getattr(_INDEX_FILE, "_save_index", None)
#: Whether the cache-index guard (:func:`_save_index_of_live_entries`) is installed: numba's
#: private ``IndexDataCacheFile._save_index`` and ``_dump`` exist in the installed numba.
CAN_GUARD_INDEX = _SAVE_INDEX is not None and hasattr(_INDEX_FILE, "_dump")
if CAN_GUARD_INDEX:
    _INDEX_FILE._save_index = _save_index_of_live_entries

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: numba's own unlocked save
    fcntl = None

_SAVE = getattr(_INDEX_FILE, "save", None)
#: Whether saves of numba cache entries take a per-index file lock (see the module docstring):
#: POSIX, and numba's private ``IndexDataCacheFile.save`` and ``_index_path`` exist.
CAN_LOCK_INDEX = fcntl is not None and _SAVE is not None


def _save_under_index_lock(cache_file: Any, key: Any, data: Any) -> None:
    """numba's ``IndexDataCacheFile.save`` (read the index, choose the entry's data file, write
    both) while holding an exclusive lock on ``<index>.lock``: concurrent writers of one index
    take turns, so each sees the entries the others saved and picks a free data file."""
    with open(f"{cache_file._index_path}.lock", "a") as lock:
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
        try:
            _SAVE(cache_file, key, data)
        finally:
            fcntl.flock(lock.fileno(), fcntl.LOCK_UN)


if CAN_LOCK_INDEX:
    _INDEX_FILE.save = _save_under_index_lock


def _without_paths(code: types_module.CodeType) -> types_module.CodeType:
    """``code`` and its nested code objects with ``co_filename`` blanked."""
    constants = tuple(
        _without_paths(item) if isinstance(item, types_module.CodeType) else item
        for item in code.co_consts
    )
    return code.replace(co_filename="", co_consts=constants)


def code_bytes(code: types_module.CodeType) -> bytes:
    """The bytes of ``code`` that identify it wherever the package lives: marshal version 2 of
    the code with every ``co_filename`` (the absolute path of the source) blanked.

    marshal version 2 writes no back-references or interning flags, so its bytes depend on the
    code alone (the default version's depend on reference counts, which compiling changes)."""
    return marshal.dumps(_without_paths(code), 2)


def pin_identity(dispatcher: Any) -> Any:
    """Give a numba dispatcher a stable identity (see module docstring); returns it.

    Closures and functions defined inside functions keep numba's random identity, as does a
    dispatcher already pickled in this process, and every dispatcher when :data:`CAN_PIN` is
    False.
    """
    py_func = getattr(dispatcher, "py_func", None)
    if (
        not CAN_PIN
        or py_func is None
        or py_func.__closure__ is not None
        or "<locals>" in py_func.__qualname__
        or getattr(dispatcher, "_MemoMixin__uuid", "unset") is not None
    ):
        return dispatcher
    code = hashlib.sha256(code_bytes(py_func.__code__)).hexdigest()[:16]
    dispatcher._set_uuid(f"{py_func.__module__}.{py_func.__qualname__}:{code}")
    return dispatcher


def _expectation(value: Any) -> Any:
    """What later arguments in the place of ``value`` must match (see :class:`EntryPoint`)."""
    if isinstance(value, np.ndarray):
        return ("array", value.dtype, value.ndim, value.flags.c_contiguous, value.flags.writeable)
    if isinstance(value, Dispatcher):
        return ("same", value)
    if isinstance(value, tuple):
        return ("tuple", type(value), tuple(_expectation(item) for item in value))
    if isinstance(value, (bool, np.bool_)):
        return ("scalar", (bool, np.bool_))
    if isinstance(value, (int, np.integer)):
        return ("scalar", (int, np.integer))
    if isinstance(value, (float, np.floating)):
        return ("scalar", (float, np.floating, int))
    return ("any",)


def _mismatch(expected: Any, value: Any) -> str | None:
    kind = expected[0]
    if kind == "array":
        _, dtype, ndim, contiguous, writeable = expected
        if not isinstance(value, np.ndarray):
            return f"expected an array, got {type(value).__name__}"
        if value.dtype != dtype or value.ndim != ndim:
            return f"expected {dtype}[{ndim}d], got {value.dtype}[{value.ndim}d]"
        if contiguous and not value.flags.c_contiguous:
            return "expected a C-contiguous array"
        if writeable and not value.flags.writeable:
            return "expected a writable array"
        return None
    if kind == "same":
        return None if value is expected[1] else f"expected the kernel {expected[1]}"
    if kind == "tuple":
        if type(value) is not expected[1] or len(value) != len(expected[2]):
            return f"expected a {expected[1].__name__} of {len(expected[2])} items"
        for index, (item_expected, item) in enumerate(zip(expected[2], value, strict=True)):
            problem = _mismatch(item_expected, item)
            if problem is not None:
                return f"item {index}: {problem}"
        return None
    if kind == "scalar":
        ok = isinstance(value, expected[1]) and not (
            expected[1][0] is not bool and isinstance(value, (bool, np.bool_))
        )
        return None if ok else f"expected {expected[1][0].__name__}, got {type(value).__name__}"
    return None


class EntryPoint:
    """The compiled code of one signature, called directly, with the arguments checked.

    Attributes:
        compiled: numba's compiled function (no checks; for callers that checked already).
    """

    def __init__(
        self, dispatcher: Any, sample_args: tuple[Any, ...], persistent: tuple[int, ...] = ()
    ) -> None:
        for arg in sample_args:  # dispatchers in the arguments are in the cache key
            _pin_dispatchers(arg)
        signature = tuple(dispatcher.typeof_pyval(arg) for arg in sample_args)
        self.compiled = dispatcher.compile(signature)
        self.name = getattr(dispatcher, "__name__", repr(dispatcher))
        self._expected = tuple(_expectation(arg) for arg in sample_args)
        # Long-lived argument objects that passed (kernels, cached work buffers), by position:
        # checked once. Only positions the caller names as persistent are remembered, so no
        # short-lived array (a search tree) is kept alive here.
        self._passed: dict[int, Any] = {}
        self._persistent = tuple(sorted(set(self._kernel_positions) | set(persistent)))

    def check(self, args: tuple[Any, ...], persistent: tuple[int, ...] = ()) -> None:
        """Raise ``TypeError`` if ``args`` do not have the types the code was compiled for.

        ``persistent``: positions whose objects live for the whole process and are never
        changed in type (numba dispatchers, cached work buffers); each is checked once.
        """
        if len(args) != len(self._expected):
            raise TypeError(f"{self.name}: expected {len(self._expected)} arguments")
        passed = self._passed
        for index, (expected, value) in enumerate(zip(self._expected, args, strict=True)):
            if index in passed and passed[index] is value:
                continue
            problem = _mismatch(expected, value)
            if problem is not None:
                raise TypeError(f"{self.name}: argument {index}: {problem}")
            if index in persistent:
                passed[index] = value

    def __call__(self, *args: Any) -> Any:
        self.check(args, self._persistent)
        return self.compiled(*args)

    @property
    def _kernel_positions(self) -> tuple[int, ...]:
        """Positions holding dispatchers or tuples of dispatchers only (long-lived)."""

        def kernels_only(expected: Any) -> bool:
            if expected[0] == "same":
                return True
            return expected[0] == "tuple" and all(kernels_only(e) for e in expected[2])

        return tuple(i for i, e in enumerate(self._expected) if kernels_only(e))


def _pin_dispatchers(value: Any) -> None:
    """:func:`pin_identity` on ``value`` if it is a dispatcher, or on those in a (named) tuple."""
    if isinstance(value, Dispatcher):
        pin_identity(value)
    elif isinstance(value, tuple):
        for item in value:
            _pin_dispatchers(item)


def entry_point(
    dispatcher: Any, sample_args: tuple[Any, ...], persistent: tuple[int, ...] = ()
) -> Any:
    """The compiled code of ``dispatcher`` for the argument types of ``sample_args`` (compiled,
    or loaded from numba's disk cache, now), as a checked :class:`EntryPoint`.

    Every dispatcher among the arguments (kernels passed to generic code, also inside tuples)
    is given a stable identity first (:func:`pin_identity`), so the code loads from the disk
    cache in a new process.

    ``persistent``: positions, besides those holding only dispatchers, whose argument objects
    live as long as the caller and never change type (its own work buffers, settings); a call
    that passes the same object there again skips its check.

    Calling it skips numba's per-call dispatch; each call checks that the arguments have the
    sample's types (dtypes, dimensions, C-contiguity and writability of arrays, the very same
    dispatchers, ``int`` / ``float`` / ``bool`` scalars) and raises ``TypeError`` otherwise.
    Callables that are not numba dispatchers are returned unchanged.
    """
    if not hasattr(dispatcher, "overloads"):
        return dispatcher
    return EntryPoint(dispatcher, sample_args, persistent)


if USE_BORROW:
    from numba.core import cgutils
    from numba.extending import intrinsic
    from numba.np.arrayobj import make_array

    def _borrowable(value: Any) -> bool:
        if isinstance(value, types.Array):
            return True
        return isinstance(value, types.BaseTuple) and all(_borrowable(item) for item in value)

    def _borrowed(context, builder, value_type, value):
        if isinstance(value_type, types.Array):
            view = make_array(value_type)(context, builder, value=value)
            view.meminfo = cgutils.get_null_value(view.meminfo.type)
            return view._getvalue()
        for index, item_type in enumerate(value_type):
            item = _borrowed(context, builder, item_type, builder.extract_value(value, index))
            value = builder.insert_value(value, item, index)
        return value

    @intrinsic
    def borrow(typingctx, value):
        """The same array data and shape, not reference-counted (see module docstring); a tuple
        or named tuple of arrays gives the same tuple of borrowed views. Valid only while the
        original arrays are alive: use it inside the function holding them."""
        if not _borrowable(value):
            return None

        def codegen(context, builder, signature, args):
            return _borrowed(context, builder, value, args[0])

        return value(value), codegen

else:

    @njit(inline="always")
    def borrow(value):
        """Borrowed views are off (``MCTS_ENVS_NO_BORROW``): the array (or tuple) itself."""
        return value


#: libc's ``clock_gettime`` as an external symbol: compiled code calls it by name (linked when
#: the code is loaded), so functions using it can be cached on disk, unlike a ctypes function
#: pointer (an address that differs per process, which numba refuses to cache).
_clock_gettime = types.ExternalFunction("clock_gettime", types.int32(types.int32, types.voidptr))
#: The id of the monotonic clock (``time.perf_counter``'s on Linux and macOS); None elsewhere.
_CLOCK_ID = {"linux": 1, "darwin": 6}.get(sys.platform)


def _libc_has_clock_gettime() -> bool:
    """Whether this process's C library exports ``clock_gettime`` (where the compiled code's
    call to it is linked)."""
    try:
        return hasattr(ctypes.CDLL(None), "clock_gettime")
    except (OSError, TypeError):  # no C library to open by None (Windows)
        return False


#: Whether compiled code can read the clock (:func:`clock_seconds`).
HAS_CLOCK = _CLOCK_ID is not None and _libc_has_clock_gettime()

if HAS_CLOCK:

    @njit(cache=True, nogil=True)
    def clock_seconds(buffer):
        """``time.perf_counter()`` from compiled code (``buffer``: ``int64[2]`` scratch); cached
        on disk like any other kernel."""
        _clock_gettime(_CLOCK_ID, buffer.ctypes)
        return buffer[0] + buffer[1] * 1e-9

else:

    @njit(cache=True, nogil=True)
    def clock_seconds(buffer):
        """No clock on this platform: -1 (searches rely on their node limits alone)."""
        return -1.0
