"""Agent specs from people who may not run programs: the safe kinds and their plain options.

A spec from the command line is the user's own, so :func:`mcts_envs.agents.spec.make_agent` builds
whatever it names (``uai:cmd=...`` starts a program, ``ppo:path=...`` unpickles a file). Specs
that arrive over a protocol (a browser's request to ``mcts-envs serve``, a ``setoption name Agent``
sent to ``mcts-envs uai`` by a GUI or a tournament manager) must not have that power: they are
checked by :func:`check_safe_spec`, which allows only the kinds of :data:`ALLOWED_OPTIONS`, with
only the options listed (numbers and switches: no callables, no worker processes, nothing that
names a program or a file), in a spec of at most :data:`MAX_SPEC_LENGTH` characters.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from mcts_envs.agents.spec import make_agent, parse_spec
from mcts_envs.core.errors import InvalidOptionError
from mcts_envs.records import quote

#: Agent kinds a spec from a protocol peer may name, with the spec options it may set.
ALLOWED_OPTIONS: dict[str, tuple[str, ...]] = {
    "random": (),
    "minimax2": ("depth",),
    "alphabeta": ("depth", "seconds", "table_size", "keep_table"),
    "mcts": (
        "iterations",
        "seconds",
        "c",
        "expand",
        "rollout",
        "scores",
        "final",
        "win_check",
        "reuse_tree",
        "solver",
        "rollout_cutoff",
    ),
}
#: Longest spec accepted from a protocol peer.
MAX_SPEC_LENGTH = 200


class SafeSpec(NamedTuple):
    """A spec that passed :func:`check_safe_spec`.

    Attributes:
        kind: the agent kind (a key of :data:`ALLOWED_OPTIONS`).
        options: the raw option strings (keys among the kind's allowed options).
        probe: the agent built from the spec (seed 0): every value converted and checked.
    """

    kind: str
    options: dict[str, str]
    probe: Any


def check_safe_spec(
    spec: object, what: str = "opponent", where: str = "here", hint: str = ""
) -> SafeSpec:
    """Check a spec from a protocol peer: a short spec of a safe kind with plain options.

    Args:
        spec: the spec text (anything: it comes from outside).
        what: what the spec chooses, for the messages (``"opponent"``, ``"agent"``).
        where: where it was sent, for the messages (``"here"``, ``"over UAI"``).
        hint: added to the messages refusing a kind, an option or the length (e.g. how to
            allow more).

    Returns:
        The kind, the raw options and the agent built from the spec.

    Raises:
        InvalidOptionError: for anything but a spec of at most :data:`MAX_SPEC_LENGTH`
            characters, of a kind of :data:`ALLOWED_OPTIONS` with only its allowed options and
            well-typed values; the message names what is allowed.
    """
    if not isinstance(spec, str) or not spec.strip():
        raise InvalidOptionError(f"the {what} is an agent spec such as 'mcts:iterations=2000'")
    if len(spec) > MAX_SPEC_LENGTH:
        raise InvalidOptionError(
            f"the {what} spec is longer than {MAX_SPEC_LENGTH} characters: {quote(spec)}{hint}"
        )
    kind, raw = parse_spec(spec)
    if kind not in ALLOWED_OPTIONS:
        raise InvalidOptionError(
            f"{what} {kind!r} is not offered {where}; choose one of "
            f"{', '.join(ALLOWED_OPTIONS)}{hint}"
        )
    allowed = ALLOWED_OPTIONS[kind]
    for key in raw:
        if key not in allowed:
            raise InvalidOptionError(
                f"option {key!r} of {kind!r} cannot be set {where}; allowed: "
                + (", ".join(allowed) or "none")
                + hint
            )
    return SafeSpec(kind, raw, make_agent(spec, seed=0))
