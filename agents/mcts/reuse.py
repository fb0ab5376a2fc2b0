"""Tree reuse: the search tree an agent keeps between decisions, and the game followed since.

The agent reports every move and chance outcome played (:meth:`KeptTree.inform`) or a position
reached otherwise (:meth:`KeptTree.restart`); the next decision re-roots the kept tree at the
child the informed actions lead to, without looking for the position, if they reach it.
"""

from __future__ import annotations

import time

import numpy as np

from mcts_envs.agents.mcts.tree import GROWTH_SECONDS_PER_NODE, NO_NODE, ROOT, Tree


class KeptTree:
    """The tree of the last decision, its root state and the actions played since.

    Args:
        reuse: keep the tree between decisions (else every decision starts a new tree, on the
            kept arrays when they are large enough).
    """

    def __init__(self, reuse: bool) -> None:
        self.reuse = bool(reuse)
        #: The tree of the last decision (None before one, or after :meth:`forget`).
        self.tree: Tree | None = None
        self._game: type | None = None
        self._root_state: np.ndarray | None = None
        self._followed: list[int] = []
        #: ``(player, value)`` of the last decision (the fallback value of a forced move).
        self.estimate: tuple[int, float] | None = None

    def forget(self) -> None:
        """Drop the tree (a new game, another game, an immediate win)."""
        self.tree = None
        self._game = None
        self._root_state = None
        self._followed = []
        self.estimate = None

    def inform(self, action: int) -> None:
        """``action`` (a move or chance outcome) was played from the position last searched or
        informed."""
        if self.reuse and self.tree is not None:
            self._followed.append(int(action))

    def restart(self, state: np.ndarray) -> None:
        """The next decision starts from ``state``, not reached by :meth:`inform`: the tree is
        dropped unless ``state`` is its root."""
        if self._root_state is None or not np.array_equal(self._root_state, state):
            self.forget()
        self._followed = []

    def take(
        self, game, state: np.ndarray, capacity: int, deadline: float | None
    ) -> tuple[Tree, bool]:
        """``(tree, reused)``: the tree to search ``state`` with. The kept tree re-rooted at the
        position the informed actions reached (if they reach ``state``), else a new one: the
        kept arrays cleared if they hold ``capacity`` slots, else ``capacity`` new slots.
        Re-rooting copies the subtree; if that would take more than half the time left before
        ``deadline``, a new tree is cheaper."""
        tree = self.tree
        node = NO_NODE
        if (
            self.reuse
            and tree is not None
            and self._game is type(game)
            and self._root_state is not None
            and self._root_state.shape == state.shape
        ):
            node = self._followed_node(game, tree, state)
        if node not in (NO_NODE, ROOT) and deadline is not None:
            cost = tree.subtree_estimate(node) * GROWTH_SECONDS_PER_NODE
            if cost > 0.5 * (deadline - time.perf_counter()):
                node = NO_NODE
        if node != NO_NODE:
            tree.reroot(node)
        elif tree is not None and tree.capacity >= capacity:
            tree.clear()  # the kept arrays, pages already mapped
        else:
            tree = Tree(capacity)
        self.tree = tree
        self._game = type(game)
        self._root_state = state.copy()
        self._followed = []
        return tree, node != NO_NODE

    def _followed_node(self, game, tree: Tree, state: np.ndarray) -> int:
        """The node the informed actions lead to from the kept root, if they reach ``state``."""
        expected = self._root_state.copy()
        node = ROOT
        for action in self._followed:
            node = tree.child(node, action)
            if node == NO_NODE:
                return NO_NODE
            game.kernels.apply_action(expected, action)
        return node if np.array_equal(expected, state) else NO_NODE
