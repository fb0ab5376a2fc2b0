"""Alpha-beta's named sets of options (no compiled code: cheap to import, e.g. by the ladder).

* :data:`MINIMAX_EQUIVALENT`: the options under which the search's values are those of plain
  depth-limited expectiminimax on the game's heuristic (what tests and mistake labels compare
  with);
* :data:`PLAIN_SEARCH`: the search as it was before principal variation search and the parts
  after it, every such part off (the shipped ladders' alpha-beta anchors, the base of
  ``experiments/alphabeta_additions.py``).
"""

from __future__ import annotations

from typing import Any

#: Options under which the search's values are those of plain depth-limited expectiminimax on
#: the game's heuristic (what tests and the mistake labels compare with).
MINIMAX_EQUIVALENT = {
    "evaluation": "heuristic",
    "lmr": False,
    "late_move_pruning": False,
    "internal_reduction": False,
    "futility": 0.0,
    "null_move": False,
    "quiescence": 0,
    "deeper_table": False,
}
#: Plain alpha-beta on the heuristic with iterative deepening, a table that answers at the depth
#: it searched, heuristic move ordering, the deadline cutting the last iteration.
PLAIN_SEARCH = {
    **MINIMAX_EQUIVALENT,
    "pvs": False,
    "aspiration": 0.0,
    "killers": False,
    "history": False,
    "iteration_stop": False,
}


def options_text(options: dict[str, Any]) -> str:
    """``options`` as spec text (``lmr=false,futility=0``), in their order."""
    return ",".join(f"{name}={_spec_word(value)}" for name, value in options.items())


def _spec_word(value: Any) -> str:
    """One option value as a spec writes it (``true``, ``0.5``, ``heuristic``)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return f"{value:g}" if isinstance(value, float) else str(value)


def plain_spec(depth: int) -> str:
    """The spec of the plain search (:data:`PLAIN_SEARCH`, every option written out) at
    ``depth`` plies: what ``alphabeta:depth=N`` meant before these parts, whatever the defaults
    become."""
    return f"alphabeta:depth={depth},{options_text(PLAIN_SEARCH)}"
