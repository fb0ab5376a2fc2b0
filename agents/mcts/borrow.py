"""Borrowed array views for the compiled search loop (see :mod:`mcts_envs.core.numba_compat`,
where the numba internals they need are kept and checked, and ``MCTS_ENVS_NO_BORROW`` turns
them off)."""

from __future__ import annotations

from mcts_envs.core.numba_compat import USE_BORROW, borrow

__all__ = ["USE_BORROW", "borrow"]
