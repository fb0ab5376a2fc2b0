"""Stable identities and direct entry points for numba dispatchers (public names).

The implementations, which rely on numba internals, live in :mod:`mcts_envs.core.numba_compat`
with the checks made when it is imported; this module keeps the names the rest of the package
and its users import.
"""

from __future__ import annotations

from mcts_envs.core.numba_compat import CAN_PIN, EntryPoint, entry_point, pin_identity

__all__ = ["CAN_PIN", "EntryPoint", "entry_point", "pin_identity"]
