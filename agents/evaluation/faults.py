"""Faults that lose games, and when they stop a run.

A game lost by a fault keeps ``forfeit`` in its record (:meth:`mcts_envs.agents.base.ForfeitError.
forfeit`) with the kind of fault in ``forfeit["fault"]``:

* ``"agent"``: the agent's own play: an invalid or illegal answer, a timeout, a crash. It is a
  result like any other (cutechess counts it so).
* ``"infrastructure"``: the agent's server or engine could not be reached or did not answer
  properly (a refused connection, an HTTP error, a malformed response). Nothing about its play:
  a wrong port looks exactly like this, so summaries count these apart.

Records written before the field existed read as ``"agent"``.

A run stops loudly when an agent's infrastructure keeps failing: :class:`FaultWatch` sees each new
record and, once an agent has lost ``limit`` games in a row to infrastructure faults (default
:data:`DEFAULT_FAULT_LIMIT`), raises :class:`InfrastructureError` with one line naming the agent
and the cause; the command line prints it and exits with status 1. ``limit=None`` (``--keep-going``)
plays on.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from mcts_envs.agents.base import AGENT_FAULT, INFRASTRUCTURE_FAULT
from mcts_envs.core.errors import InvalidOptionError, MctsEnvsError

__all__ = [
    "DEFAULT_FAULT_LIMIT",
    "FaultWatch",
    "InfrastructureError",
    "check_fault_limit",
    "fault_summary",
    "forfeit_of",
]

#: Games in a row an agent may lose to infrastructure faults before the run stops.
DEFAULT_FAULT_LIMIT = 3


class InfrastructureError(MctsEnvsError, RuntimeError):
    """An agent's server or engine failed several games in a row: the run stopped."""


def check_fault_limit(limit: int | None) -> int | None:
    """``limit`` if it is ``None`` or an int >= 1.

    Raises:
        InvalidOptionError: otherwise.
    """
    if limit is None or (isinstance(limit, int) and not isinstance(limit, bool) and limit >= 1):
        return limit
    raise InvalidOptionError(f"the fault limit must be an int >= 1 or None, got {limit!r}")


def forfeit_of(record: dict[str, Any]) -> tuple[str, str] | None:
    """``(the agent that forfeited, the kind of fault)`` of a record lost by a fault, else
    ``None``. The agent is the record's player in the forfeiting seat."""
    forfeit = record.get("forfeit")
    players = record.get("players")
    if not isinstance(forfeit, dict) or not isinstance(players, list):
        return None
    seat = forfeit.get("seat")
    if seat not in (0, 1) or len(players) != 2:
        return None
    kind = INFRASTRUCTURE_FAULT if forfeit.get("fault") == INFRASTRUCTURE_FAULT else AGENT_FAULT
    return str(players[seat]), kind


#: How a summary names each kind of fault.
FAULT_NAMES = {AGENT_FAULT: "own play", INFRASTRUCTURE_FAULT: "server or engine failing"}


def fault_summary(records: Any, labels: dict[str, str] | None = None) -> str:
    """One line counting the games each agent lost by each kind of fault, ``""`` when none:
    ``"lost by faults: A 2 (own play) + 10 (server or engine failing)"``.

    Args:
        records: game records.
        labels: how to name each agent (default: its spec), e.g. ``{spec_a: "A"}``.
    """
    counts: dict[str, Counter] = {}
    for record in records:
        found = forfeit_of(record)
        if found is not None:
            counts.setdefault(found[0], Counter())[found[1]] += 1
    parts = [
        f"{(labels or {}).get(agent, agent)} "
        + " + ".join(f"{tally[kind]} ({name})" for kind, name in FAULT_NAMES.items() if tally[kind])
        for agent, tally in counts.items()
    ]
    return "lost by faults: " + ", ".join(parts) if parts else ""


class FaultWatch:
    """Counts, per agent, the games in a row it lost to infrastructure faults, and stops the run
    when one reaches ``limit``.

    Args:
        limit: games in a row; ``None`` never stops.
    """

    def __init__(self, limit: int | None = DEFAULT_FAULT_LIMIT) -> None:
        self.limit = check_fault_limit(limit)
        self.in_a_row: Counter = Counter()
        self.last_message: dict[str, str] = {}

    def update(self, record: dict[str, Any]) -> None:
        """Take a new record (in the order games end).

        Raises:
            InfrastructureError: when an agent has lost ``limit`` games in a row to
                infrastructure faults.
        """
        found = forfeit_of(record)
        failed = found[0] if found is not None and found[1] == INFRASTRUCTURE_FAULT else None
        for agent in set(map(str, record.get("players") or ())):
            if agent == failed:
                self.in_a_row[agent] += 1
                self.last_message[agent] = str(record["forfeit"].get("message") or "")
            else:
                self.in_a_row[agent] = 0
        if failed is not None and self.limit is not None and self.in_a_row[failed] >= self.limit:
            raise InfrastructureError(self.explain(failed))

    def explain(self, agent: str) -> str:
        """The one line that stops the run for ``agent``."""
        cause = " ".join(self.last_message.get(agent, "").split())
        if cause.startswith(f"{agent}: "):
            cause = cause[len(agent) + 2 :]
        return (
            f"{agent} lost {self.in_a_row[agent]} games in a row to faults of its server or "
            f"engine, not of its play (last: {cause}); stopped (--keep-going plays on)"
        )
