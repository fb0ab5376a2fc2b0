"""What played: an agent resolved for a game, as game records name it.

A spec names an agent only together with the defaults of the day (``mcts:iterations=1000`` means
whatever the game's row of MCTS defaults says). :func:`resolved_agent` writes down what it means
now: ``{"kind", "options", "identity"}``, the agent kind, every option after per-game defaults
(the agent's own ``resolved_options(game)`` where it has one, as MCTS resolves its game's row;
else every constructor option read back from the agent's attribute of the same name; ``seed``
left out, records keep seeds apart) and what options do not say about what runs (the agent's
``identity()`` where it has one: a UAI engine's ``id name`` and ``id author``). Values are JSON:
numbers, strings, booleans and ``None`` as they are, anything else (a callable, an evaluator) by
its qualified name.

:func:`resolved_label` writes the kind and options as one line (options sorted), the key that
ratings, resume and the experiments compare: two records of one spec with different labels were
played by different agents.
"""

from __future__ import annotations

import inspect
import json
import math
from typing import Any

from mcts_envs.agents.spec import parse_spec

#: What :func:`resolved_agent` writes for a constructor option the agent does not keep.
NOT_KEPT = "<not kept>"


def jsonable(value: Any) -> Any:
    """``value`` as JSON can hold it: numbers (finite), strings, booleans and ``None`` as they
    are, lists and dicts item by item, anything else by its qualified name or ``repr``."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else repr(value)
    if isinstance(value, list | tuple):
        return [jsonable(item) for item in value]
    if isinstance(value, dict):
        return {str(key): jsonable(item) for key, item in value.items()}
    if hasattr(value, "item") and callable(value.item) and getattr(value, "shape", None) == ():
        return jsonable(value.item())  # a NumPy scalar
    name = getattr(value, "__qualname__", None)
    module = getattr(value, "__module__", None)
    if name and module:
        return f"{module}.{name}"
    return repr(value)


def constructor_options(agent: Any) -> dict[str, Any]:
    """Every keyword option of the agent's constructor (``seed`` and ``**options`` left out)
    with the value the agent keeps under that name (:data:`NOT_KEPT` if it keeps none)."""
    options = {}
    for name, parameter in inspect.signature(type(agent).__init__).parameters.items():
        if name in ("self", "seed") or parameter.kind in (
            inspect.Parameter.VAR_POSITIONAL,
            inspect.Parameter.VAR_KEYWORD,
        ):
            continue
        options[name] = getattr(agent, name, NOT_KEPT)
    return options


def resolved_agent(agent: Any, game: Any, spec: str) -> dict[str, Any]:
    """``{"kind", "options", "identity"}`` of ``agent`` (built from ``spec``) for ``game``; see
    the module docstring."""
    kind, _ = parse_spec(spec)
    own = getattr(agent, "resolved_options", None)
    options = own(game) if callable(own) else constructor_options(agent)
    identity = getattr(agent, "identity", None)
    return {
        "kind": kind,
        "options": jsonable(dict(sorted(options.items()))),
        "identity": jsonable(identity() if callable(identity) else {}),
    }


def resolved_label(resolved: dict[str, Any]) -> str:
    """The kind and options of a :func:`resolved_agent` as one line: ``kind:`` then
    ``name=value`` sorted by name, values as JSON (``alphabeta:depth=4,evaluation="game"``)."""
    options = resolved.get("options") or {}
    text = ",".join(
        f"{name}={json.dumps(options[name], sort_keys=True)}" for name in sorted(options)
    )
    return f"{resolved.get('kind')}:{text}"


def option_differences(old: dict[str, Any], new: dict[str, Any]) -> str:
    """The options of two :func:`resolved_agent` results that differ, as ``name=old`` (``old``
    only) and ``name=new`` (``new``) lists: ``"lmr=false, futility=0 (against lmr=true,
    futility=2)"``; the kinds if they differ."""
    if old.get("kind") != new.get("kind"):
        return f"{old.get('kind')} (against {new.get('kind')})"
    before, after = old.get("options") or {}, new.get("options") or {}
    names = sorted(
        name
        for name in {*before, *after}
        if before.get(name, NOT_KEPT) != after.get(name, NOT_KEPT)
    )

    def listed(options: dict[str, Any]) -> str:
        return ", ".join(f"{name}={json.dumps(options.get(name, NOT_KEPT))}" for name in names)

    return f"{listed(before)} (against {listed(after)})"
