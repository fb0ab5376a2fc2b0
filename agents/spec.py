"""Build agents from spec strings: ``"random"``, ``"alphabeta:depth=4"``, ``"mcts:iterations=800"``.

A spec is an agent kind, optionally followed by ``:`` and comma-separated ``key=value`` options.
Each kind maps to a class (imported lazily, so ``make_agent("random")`` never compiles the MCTS).
The options are the fields of the class's ``config_class`` (a frozen dataclass that checks itself,
e.g. :class:`~mcts_envs.agents.mcts.config.MCTSConfig`: the agent is built as
``cls(config_class(**options), seed=seed)``, and a value the config refuses raises the config's own
error), or else the keyword arguments of the class constructor. Option strings are converted by
the type hints (``int``, ``float``, ``bool``, ``str``, ``None``, ``Literal``, unions of these),
falling back to the type of the default. Every mistake raises an error that names what is allowed.

The ``seed`` is not a spec option: it is passed separately (``make_agent(spec, seed=...)``) so an
arena can give each game its own seed derived from one master seed.
"""

from __future__ import annotations

import contextlib
import dataclasses
import difflib
import functools
import importlib
import inspect
import math
import os
import sys
import textwrap
import types
import typing
from dataclasses import dataclass
from typing import Any

from mcts_envs.core.errors import InvalidOptionError
from mcts_envs.records import bounded, quote

#: Agent kinds: spec name -> ``"module:Class"``. Classes are imported only when first used.
AGENT_KINDS: dict[str, str] = {
    "random": "mcts_envs.agents.players.random_agent:RandomAgent",
    "minimax2": "mcts_envs.agents.players.minimax:Minimax2Agent",
    "alphabeta": "mcts_envs.agents.players.alphabeta:AlphaBetaAgent",
    "mcts": "mcts_envs.agents.mcts:MCTSAgent",
    "ppo": "mcts_envs.agents.learned.adapters:SavedPPOAgent",
    "uai": "mcts_envs.agents.players.uai_agent:UAIAgent",  # runs the command of its cmd option (an Ataxx engine)
    "perfect": "mcts_envs.agents.players.perfect:PerfectAgent",
    "oliver": "mcts_envs.agents.players.oliver:OliverAgent",  # Tantrix: alpha-beta over the line-length forecast
    "llm": "mcts_envs.agents.players.llm_agent:LLMAgent",  # an OpenAI-compatible chat endpoint (base_url, model)
}

#: Entry-point group through which other packages add agent kinds: each entry point is named
#: after the kind and points to the class (``mykind = "mypackage.agents:MyAgent"``).
ENTRY_POINT_GROUP = "mcts_envs.agents"

#: Parameters of agent constructors that are not spec options.
RESERVED_PARAMETERS = ("seed",)

_NONE_WORDS = ("none", "null")
_TRUE_WORDS = ("true", "yes", "on", "1")
_FALSE_WORDS = ("false", "no", "off", "0")
#: Longest prefix of a spec (or of one of its parts) quoted in an error message.
SPEC_QUOTE_LIMIT = 100


def _quoted(value: object) -> str:
    """``value`` quoted for an error message, cut to :data:`SPEC_QUOTE_LIMIT` characters (a spec
    can come from a file or a peer: a megabyte of it must not fill the terminal or a log)."""
    return quote(value, SPEC_QUOTE_LIMIT)


class UnknownAgentError(InvalidOptionError):
    """An agent kind that is not in :data:`AGENT_KINDS` (the message lists the known kinds)."""


@dataclass(frozen=True)
class ParameterInfo:
    """One spec option of an agent kind.

    Attributes:
        name: keyword argument (or config field) name.
        annotation: the type hint as text (``"int | None"``), or ``""`` if none.
        default: the default value (``inspect.Parameter.empty`` if required).
        help: what the option means (a config field's ``help``), or ``""``.
    """

    name: str
    annotation: str
    default: Any
    help: str = ""

    @property
    def required(self) -> bool:
        """Whether the option has no default."""
        return self.default is inspect.Parameter.empty

    def __str__(self) -> str:
        hint = f": {self.annotation}" if self.annotation else ""
        default = " (required)" if self.required else f" = {self.default!r}"
        return f"{self.name}{hint}{default}"


def list_agents() -> list[str]:
    """Names of all agent kinds (entry points of installed packages included), sorted."""
    _add_entry_points()
    return sorted(AGENT_KINDS)


def _add_entry_points() -> None:
    """Add the agent kinds of the :data:`ENTRY_POINT_GROUP` entry points not yet known."""
    from importlib.metadata import entry_points

    for point in entry_points(group=ENTRY_POINT_GROUP):
        AGENT_KINDS.setdefault(point.name, point.value)


def import_agent_module(module: str) -> None:
    """Import ``module`` so that its ``register_agent(...)`` calls take effect.

    The current folder is importable first, as ``python -m`` makes it: ``--agent-module
    my_agents`` finds ``./my_agents.py`` (and worker processes, which start in the same folder,
    find it too).

    Raises:
        InvalidOptionError: if the module cannot be imported (the message says why).
    """
    folder = os.getcwd()
    if folder not in sys.path:
        sys.path.insert(0, folder)
        importlib.invalidate_caches()
    try:
        importlib.import_module(module)
    except ImportError as error:
        raise InvalidOptionError(
            f"cannot import agent module {_quoted(module)} ({bounded(str(error))}); give a "
            "module name importable from the current folder, sys.path or PYTHONPATH (e.g. "
            "my_agents for ./my_agents.py) that calls mcts_envs.agents.spec.register_agent"
        ) from None


def register_agent(name: str, target: str | type) -> None:
    """Add an agent kind: ``target`` is ``"module:Class"`` or a class taking keyword options.

    Raises:
        InvalidOptionError: if ``name`` is not a lowercase identifier.
    """
    if not isinstance(name, str) or not name.replace("_", "a").isalnum() or name != name.lower():
        raise InvalidOptionError(
            f"an agent kind is a lowercase name of letters, digits and '_', got {_quoted(name)}"
        )
    if isinstance(target, type):
        _REGISTERED_CLASSES[name] = target
        AGENT_KINDS[name] = f"{target.__module__}:{target.__qualname__}"
    else:
        _REGISTERED_CLASSES.pop(name, None)
        AGENT_KINDS[name] = target


_REGISTERED_CLASSES: dict[str, type] = {}


def agent_class(name: str) -> type:
    """The class of agent kind ``name`` (imports its module on first use).

    Raises:
        UnknownAgentError: if ``name`` is not a known agent kind.
    """
    key = name.strip().lower() if isinstance(name, str) else name
    if key not in AGENT_KINDS:
        _add_entry_points()
    if key not in AGENT_KINDS:
        known = list_agents()
        close = difflib.get_close_matches(str(key)[:SPEC_QUOTE_LIMIT], known, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise UnknownAgentError(
            f"unknown agent {_quoted(name)}{hint}; known agents: {', '.join(known)}"
        )
    if key in _REGISTERED_CLASSES:
        return _REGISTERED_CLASSES[key]
    module_name, _, class_name = AGENT_KINDS[key].partition(":")
    module = importlib.import_module(module_name)
    return getattr(module, class_name)


@functools.cache
def _init_signature(cls: type) -> inspect.Signature:
    """The constructor's signature (read once per class: ``make_agent`` runs per game)."""
    return inspect.signature(cls.__init__)


def config_class(cls: type) -> type | None:
    """The frozen dataclass of ``cls``'s options (its ``config_class`` attribute, set by the class
    whose constructor takes that config), or ``None`` for a class whose options are its
    constructor's keywords (a subclass with a constructor of its own among them)."""
    owner = next((k for k in cls.__mro__ if "config_class" in vars(k)), None)
    if owner is None or cls.__init__ is not owner.__init__:
        return None
    config = vars(owner)["config_class"]
    return config if dataclasses.is_dataclass(config) else None


@functools.cache
def _hints(cls: type) -> dict[str, Any]:
    """The options' resolved type hints (once per class; callers only read them)."""
    try:
        return typing.get_type_hints(config_class(cls) or cls.__init__)
    except Exception:  # unresolvable forward references: fall back to the defaults' types
        return {}


def _annotation_text(parameter: inspect.Parameter) -> str:
    annotation = parameter.annotation
    if annotation is inspect.Parameter.empty:
        return ""
    if isinstance(annotation, str):
        return annotation
    return inspect.formatannotation(annotation)


def agent_parameters(name: str) -> list[ParameterInfo]:
    """The spec options of agent kind ``name``: the fields of its ``config_class`` (with their
    help), or else its constructor keywords except ``seed``."""
    cls = agent_class(name)
    config = config_class(cls)
    if config is not None:
        return [
            ParameterInfo(
                option.name,
                option.type
                if isinstance(option.type, str)
                else inspect.formatannotation(option.type),
                option.default,
                option.metadata.get("help", ""),
            )
            for option in dataclasses.fields(config)
        ]
    signature = _init_signature(cls)
    options = []
    for parameter in list(signature.parameters.values())[1:]:
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            continue
        if parameter.name in RESERVED_PARAMETERS:
            continue
        options.append(
            ParameterInfo(parameter.name, _annotation_text(parameter), parameter.default)
        )
    return options


def describe_agent(name: str) -> str:
    """A human-readable description of agent kind ``name``: its doc, its options and defaults."""
    cls = agent_class(name)
    doc = inspect.getdoc(cls) or ""
    summary = doc.split("\n\n")[0].replace("\n", " ") if doc else "(no description)"
    lines = [f"{name}: {summary}"]
    options = agent_parameters(name)
    if options:
        lines.append("  options:")
        for option in options:
            lines.append(f"    {option}")
            if option.help:
                lines += textwrap.wrap(
                    option.help, 96, initial_indent=" " * 8, subsequent_indent=" " * 8
                )
    else:
        lines.append("  options: none")
    notes = getattr(cls, "describe_defaults", None)  # e.g. MCTS: the per-game defaults
    if callable(notes):
        lines.append(notes())
    return "\n".join(lines)


def parse_spec(spec: str) -> tuple[str, dict[str, str]]:
    """Split ``"name:key=value,key=value"`` into the name and the raw option strings.

    Raises:
        InvalidOptionError: on empty names, options without ``=``, or repeated keys.
    """
    if not isinstance(spec, str):
        raise InvalidOptionError(
            f"an agent spec is a string like 'mcts:iterations=800', got {_quoted(spec)}"
        )
    name, _, rest = spec.strip().partition(":")
    name = name.strip().lower()
    if not name:
        raise InvalidOptionError(
            f"empty agent name in spec {_quoted(spec)}; known agents: {', '.join(list_agents())}"
        )
    options: dict[str, str] = {}
    if rest.strip():
        for item in rest.split(","):
            key, equals, value = item.partition("=")
            key = key.strip()
            if not equals or not key:
                raise InvalidOptionError(
                    f"agent spec {_quoted(spec)}: option {_quoted(item.strip())} is not of the "
                    "form key=value (options are comma-separated, e.g. 'mcts:iterations=800,c=0.5')"
                )
            if key in options:
                raise InvalidOptionError(
                    f"agent spec {_quoted(spec)}: option {_quoted(key)} is given twice"
                )
            options[key] = value.strip()
    return name, options


def _convert_to(value: str, target: Any, finite: bool = True) -> Any:
    """Convert ``value`` to type ``target`` or raise ``ValueError`` (``finite``: refuse ``nan``
    and ``inf`` for a float)."""
    origin = typing.get_origin(target)
    if origin is typing.Union or origin is types.UnionType:
        members = typing.get_args(target)
        # None first only for the words that mean None; then the most specific types first.
        order = sorted(members, key=lambda t: {type(None): 0, bool: 1, int: 2, float: 3}.get(t, 4))
        problems = []
        for member in order:
            try:
                return _convert_to(value, member, finite)
            except (ValueError, TypeError) as error:
                problems.append(str(error))
        unbounded = [problem for problem in problems if "finite" in problem]
        raise ValueError(
            unbounded[0] if unbounded else f"not one of {inspect.formatannotation(target)}"
        )
    if origin is typing.Literal:
        allowed = typing.get_args(target)
        for candidate in allowed:
            if str(candidate).lower() == value.lower():
                return candidate
        raise ValueError(f"not one of {', '.join(repr(a) for a in allowed)}")
    if target is type(None) or target is None:
        if value.lower() in _NONE_WORDS:
            return None
        raise ValueError("not None")
    if target is bool:
        if value.lower() in _TRUE_WORDS:
            return True
        if value.lower() in _FALSE_WORDS:
            return False
        raise ValueError("not a bool (true/false)")
    if target is int:
        try:
            return int(value.replace("_", ""))
        except ValueError:
            number = float(value)  # accept "1e3" when it is a whole number
            if math.isfinite(number) and number.is_integer():
                return int(number)
            raise ValueError("not an integer") from None
    if target is float:
        number = float(value)
        if finite and not math.isfinite(number):
            raise ValueError("not a finite number (inf and nan are not allowed)")
        return number
    if target is str:
        return value
    if target is Any:
        return _convert_untyped(value)
    raise TypeError(f"options of type {target!r} cannot be given in a spec string")


def _convert_untyped(value: str) -> Any:
    for target in (type(None), bool, int, float):
        try:
            return _convert_to(value, target)
        except (ValueError, TypeError):
            continue
    return value


def _config_value(value: str, hint: Any) -> Any:
    """The option string ``value`` as a value of a config field of type ``hint``: words and
    numbers converted (``nan`` and ``inf`` too), anything else left as the text; the config
    checks the result and says what is allowed."""
    try:
        return _convert_to(value, hint, finite=False) if hint is not None else value
    except (ValueError, TypeError):
        return value


def convert_option(value: str, hint: Any, default: Any) -> Any:
    """Convert the option string ``value`` by the type ``hint`` (or the default's type).

    Raises:
        ValueError: if ``value`` does not fit.
    """
    if hint is not None:
        return _convert_to(value, hint)
    if default is inspect.Parameter.empty or default is None:
        return _convert_untyped(value)
    return _convert_to(value, type(default))


def make_agent(spec: str, seed: int | None = None) -> Any:
    """Build the agent described by ``spec`` (``"name"`` or ``"name:key=value,..."``) with ``seed``.

    Args:
        spec: agent kind and options, e.g. ``"alphabeta:depth=4"``; see :func:`list_agents` and
            :func:`describe_agent`.
        seed: the agent's seed (``None`` for an unseeded agent); same seeds, same games.

    Returns:
        An object implementing the :class:`~mcts_envs.agents.base.Agent` protocol; its ``name`` is the
        canonical spec (kind plus the options given, normalised).

    Raises:
        UnknownAgentError: if the kind is unknown (the message lists the known kinds).
        InvalidOptionError: if an option is unknown, repeated or of the wrong type (the message
            lists the options with their defaults), or the constructor rejects a value.
    """
    name, raw_options = parse_spec(spec)
    cls = agent_class(name)
    config = config_class(cls)
    parameters = {p.name: p for p in agent_parameters(name)}
    hints = _hints(cls)
    allowed = "; ".join(str(p) for p in parameters.values()) or "none"
    kwargs: dict[str, Any] = {}
    for key, value in raw_options.items():
        if key in RESERVED_PARAMETERS:
            raise InvalidOptionError(
                f"agent spec {_quoted(spec)}: {_quoted(key)} is not a spec option; agent seeds "
                f"are passed separately (make_agent(spec, seed=...), or --seed in the CLI)"
            )
        if key not in parameters:
            close = difflib.get_close_matches(key[:SPEC_QUOTE_LIMIT], list(parameters), n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise InvalidOptionError(
                f"agent spec {_quoted(spec)}: unknown option {_quoted(key)}{hint} for "
                f"{name!r}; options: {allowed}"
            )
        parameter = parameters[key]
        if config is not None:  # the config checks every value itself, with its own message
            kwargs[key] = _config_value(value, hints.get(key))
            continue
        try:
            kwargs[key] = convert_option(value, hints.get(key), parameter.default)
        except (ValueError, TypeError) as error:
            expected = parameter.annotation or type(parameter.default).__name__
            raise InvalidOptionError(
                f"agent spec {_quoted(spec)}: option {key}={_quoted(value)} is invalid "
                f"({bounded(str(error))}); "
                f"expected {expected}, default {parameter.default!r}"
            ) from None
    missing = [p.name for p in parameters.values() if p.required and p.name not in kwargs]
    if missing:
        raise InvalidOptionError(
            f"agent spec {_quoted(spec)}: missing required option(s) {', '.join(missing)}; "
            f"options: {allowed}"
        )
    accepts_seed = "seed" in _init_signature(cls).parameters
    try:
        if config is not None:
            agent = cls(config(**kwargs), seed=seed)
        else:
            agent = cls(seed=seed, **kwargs) if accepts_seed else cls(**kwargs)
    except InvalidOptionError:
        raise
    except (ValueError, TypeError) as error:
        raise InvalidOptionError(f"agent spec {_quoted(spec)}: {bounded(str(error))}") from error
    canonical = name + (":" + ",".join(f"{k}={v}" for k, v in kwargs.items()) if kwargs else "")
    with contextlib.suppress(AttributeError):  # a read-only name: keep the agent's own
        agent.name = canonical
    return agent
