"""Run a module or code and say how many functions numba compiled meanwhile.

``python scripts/count_compiles.py [--max N] -m MODULE ARGS...`` or ``... -c CODE``: runs it as
``python -m`` / ``python -c`` would, listening to numba's ``numba:compile`` event (broadcast for
every real compile, cached or not, never for a load from the disk cache), then prints
``numba compiled K functions: name, ...`` to stderr. Exits with the command's status, or 3 when
``--max`` is given and K exceeds it (``--max 0``: fail if anything compiled).
"""

from __future__ import annotations

import runpy
import sys

USAGE = "usage: count_compiles.py [--max N] (-m MODULE | -c CODE) [ARGS...]"


def main(argv: list[str]) -> int:
    limit = None
    if argv[:1] == ["--max"]:
        limit, argv = int(argv[1]), argv[2:]
    if len(argv) < 2 or argv[0] not in ("-m", "-c"):
        print(USAGE, file=sys.stderr)
        return 2
    from numba.core import event

    compiled: list[str] = []

    class Listener(event.Listener):
        def on_start(self, ev: event.Event) -> None:
            dispatcher = (ev.data or {}).get("dispatcher")
            function = getattr(dispatcher, "py_func", None)
            compiled.append(getattr(function, "__qualname__", repr(dispatcher)))

        def on_end(self, ev: event.Event) -> None:
            pass

    event.register("numba:compile", Listener())
    kind, target, *rest = argv
    status = 0
    sys.argv = [target if kind == "-m" else "-c", *rest]
    try:
        if kind == "-m":
            runpy.run_module(target, run_name="__main__", alter_sys=True)
        else:
            exec(compile(target, "<string>", "exec"), {"__name__": "__main__"})
    except SystemExit as stop:
        status = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
    names = ", ".join(dict.fromkeys(compiled))
    print(
        f"numba compiled {len(compiled)} functions" + (f": {names}" if names else ""),
        file=sys.stderr,
    )
    if limit is not None and len(compiled) > limit:
        return 3
    return status


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
