"""The MCTS search tree as preallocated arrays with integer node ids (no Python object per node).

Node ``ROOT`` (0) is the root. The children of a node occupy one contiguous block of ids,
``first_child .. first_child + num_children - 1``, allocated when the node is first expanded
(all legal actions, or all chance outcomes, at once); a child whose ``visits`` is 0 has not been
reached yet. States are not stored: a search replays the edge actions from the root state, which
keeps a node at :data:`BYTES_PER_NODE` bytes whatever the game.

Per node:

=================  ==========  ==============================================================
 ``links[n, F]``    int32       ``PARENT``, ``FIRST_CHILD``, ``NUM_CHILDREN``, ``NUM_EXPANDED``
                                (children in the tree, "one" expansion), ``ACTION`` (edge from
                                the parent: an action or a chance outcome), ``VISITS``
 ``flags[n, F]``    int8        ``PLAYER`` to move (0, 1, ``CHANCE``, ``TERMINAL`` or
                                ``UNKNOWN_PLAYER`` until reached), ``PROVEN`` (solver value)
 ``value_sum[n]``   float64     sum of simulation results **from player 0's view**, in [0, 1]
                                per simulation; player 1's mean is ``1 - value_sum / visits``
 ``prior[n]``       float32     prior of the edge (PUCT; uniform otherwise) or, below a chance
                                node, the outcome's probability
=================  ==========  ==============================================================

and, only in a tree that tracks implicit minimax values (``minimax_weight > 0``, see
:meth:`Tree.track_minimax`; otherwise the array is empty and costs nothing):

=================  ==========  ==============================================================
 ``minimax[n]``     float32     implicit minimax value **from player 0's view**: the leaf
                                evaluation of the node's state while it is a leaf, then the
                                best of its visited children for the player to move there
                                (at a chance node, their probability-weighted mean); written
                                when the node is first evaluated, read only once visited
=================  ==========  ==============================================================

Storing values from one fixed view makes the backup independent of the turn order: every node on
the path adds the same number, and selection converts it to the view of the player to move at the
parent (``current_player`` of the parent state), so a player may move several times in a row.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from mcts_envs.core.numba_cache import njit

#: Id of the root node.
ROOT = 0
#: "No node": the parent of the root, the first child of a node not yet expanded.
NO_NODE = -1

# Columns of ``links``.
PARENT, FIRST_CHILD, NUM_CHILDREN, NUM_EXPANDED, ACTION, VISITS = 0, 1, 2, 3, 4, 5
NUM_LINKS = 6
# Columns of ``flags``.
PLAYER, PROVEN = 0, 1
NUM_FLAGS = 2

#: ``flags[n, PLAYER]`` of a node whose state has not been computed yet.
UNKNOWN_PLAYER = -3

# Solver values (absolute, not relative to a player).
UNPROVEN, PROVEN_WIN_0, PROVEN_WIN_1, PROVEN_DRAW = 0, 1, 2, 3

#: Memory of one node in bytes.
BYTES_PER_NODE = NUM_LINKS * 4 + NUM_FLAGS * 1 + 8 + 4
#: Bytes the implicit minimax value adds to a node of a tree that tracks it.
MINIMAX_BYTES_PER_NODE = 4
#: Bytes one node slot may cost at the peak: its arrays, the second set of arrays re-rooting
#: keeps (:meth:`Tree.reroot`) and the ``int64`` id buffer of that copy. A memory bound of ``B``
#: bytes allows ``B // MEMORY_PER_NODE`` slots, so the tree, its spare and a copy in progress
#: all fit in ``B`` (growing holds the old and the new arrays at once: at most two sets too).
MEMORY_PER_NODE = 2 * BYTES_PER_NODE + 8
#: Estimated seconds per node in use to copy a tree (growing or re-rooting it; copying at 0.3
#: GB/s, below the 0.5-0.8 GB/s measured with fresh pages on the development machine).
GROWTH_SECONDS_PER_NODE = BYTES_PER_NODE / 0.3e9


#: Attributes of :class:`Tree` holding one entry per node slot.
_NODE_ARRAYS = ("links", "flags", "value_sum", "prior", "minimax")


class TreeArrays(NamedTuple):
    """The arrays of a tree as one argument of the compiled functions (see the table above;
    ``count[0]`` is the number of node slots in use)."""

    links: np.ndarray
    flags: np.ndarray
    value_sum: np.ndarray
    prior: np.ndarray
    count: np.ndarray
    minimax: np.ndarray  # empty unless the tree tracks implicit minimax values


class Tree:
    """The arrays of one search tree plus its node count (``count[0]`` nodes in use).

    Args:
        capacity: number of nodes allocated up front; :meth:`ensure` grows the arrays.
    """

    def __init__(self, capacity: int = 4096) -> None:
        capacity = max(int(capacity), 16)
        self.links = np.empty((capacity, NUM_LINKS), np.int32)
        self.flags = np.empty((capacity, NUM_FLAGS), np.int8)
        self.value_sum = np.empty(capacity, np.float64)
        self.prior = np.empty(capacity, np.float32)
        self.count = np.zeros(1, np.int64)
        self.minimax = np.empty(0, np.float32)  # see track_minimax
        self._spare: Tree | None = None
        self.clear()

    @property
    def tracks_minimax(self) -> bool:
        """Whether the tree holds implicit minimax values (:meth:`track_minimax`)."""
        return len(self.minimax) > 0

    def track_minimax(self) -> None:
        """Give every node slot an implicit minimax value (``minimax_weight > 0``); kept by
        :meth:`ensure` and :meth:`reroot` from then on. Nodes already visited start from their
        mean result (a tree searched without the values), unvisited ones from 0.5."""
        if len(self.minimax) == self.capacity:
            return
        used = self.num_nodes
        self.minimax = np.empty(self.capacity, np.float32)
        visits = self.links[:used, VISITS]
        self.minimax[:used] = np.where(
            visits > 0, self.value_sum[:used] / np.maximum(visits, 1), 0.5
        )
        self._spare = None

    @property
    def capacity(self) -> int:
        """Number of node slots allocated."""
        return len(self.value_sum)

    @property
    def num_nodes(self) -> int:
        """Number of node slots in use (allocated children included)."""
        return int(self.count[0])

    def clear(self) -> None:
        """Drop every node and make a fresh, unexpanded root."""
        self.count[0] = 1
        init_node(self.links, self.flags, self.value_sum, self.prior, ROOT, NO_NODE, -1, 1.0)

    def ensure(self, free: int, limit: int | None = None) -> bool:
        """Grow the arrays (doubling, to at most ``limit`` slots) so that at least ``free``
        node slots are unused.

        Returns:
            Whether ``free`` slots are unused now; False (and the arrays untouched) when that
            needs more than ``limit`` slots in all.
        """
        needed = self.num_nodes + int(free)
        if needed <= self.capacity:
            return True
        if limit is not None and needed > limit:
            return False
        capacity = self.capacity
        while capacity < needed:
            capacity *= 2
        if limit is not None:
            capacity = min(capacity, int(limit))
        used = self.num_nodes
        self._spare = None
        for name in _NODE_ARRAYS:
            old = getattr(self, name)
            if len(old) == 0:  # minimax values not tracked
                continue
            new = np.empty((capacity, *old.shape[1:]), old.dtype)
            new[:used] = old[:used]
            setattr(self, name, new)
        return True

    def nbytes(self) -> int:
        """Bytes of the node arrays this tree holds (the spare set of :meth:`reroot` included)."""
        sets = [self] if self._spare is None else [self, self._spare]
        return sum(getattr(t, name).nbytes for t in sets for name in _NODE_ARRAYS)

    def arrays(self) -> TreeArrays:
        """``(links, flags, value_sum, prior, count, minimax)`` for the compiled functions."""
        return TreeArrays(
            self.links, self.flags, self.value_sum, self.prior, self.count, self.minimax
        )

    def children(self, node: int = ROOT) -> np.ndarray:
        """Ids of the allocated children of ``node`` (empty if not expanded)."""
        first = int(self.links[node, FIRST_CHILD])
        if first == NO_NODE:
            return np.empty(0, np.int64)
        return np.arange(first, first + int(self.links[node, NUM_CHILDREN]), dtype=np.int64)

    def child(self, node: int, action: int) -> int:
        """The child of ``node`` reached by ``action`` (or chance outcome), or ``NO_NODE``."""
        first = int(self.links[node, FIRST_CHILD])
        if first == NO_NODE:
            return NO_NODE
        size = int(self.links[node, NUM_CHILDREN])
        found = np.flatnonzero(self.links[first : first + size, ACTION] == action)
        return first + int(found[0]) if len(found) else NO_NODE

    def subtree_estimate(self, node: int) -> int:
        """About how many nodes the subtree under ``node`` holds (its share of the visits)."""
        root_visits = max(int(self.links[ROOT, VISITS]), 1)
        return int(self.num_nodes * min(1.0, int(self.links[node, VISITS]) / root_visits)) + 1

    def reroot(self, node: int) -> None:
        """Keep only the subtree under ``node``, which becomes the root (ids are compacted).

        The subtree is copied into a second set of arrays kept from the previous re-rooting
        (allocated on first use; untouched pages cost nothing), so repeated re-rooting writes
        into memory already mapped instead of faulting in fresh pages every move.
        """
        if node == ROOT:
            return
        spare = self._spare
        if spare is None or len(spare.value_sum) != self.capacity:
            spare = Tree(self.capacity)
            if self.tracks_minimax:
                spare.track_minimax()
        spare.count[0] = copy_subtree(self.arrays(), node, spare.arrays())
        for name in (*_NODE_ARRAYS, "count"):
            mine, theirs = getattr(self, name), getattr(spare, name)
            setattr(self, name, theirs)
            setattr(spare, name, mine)
        self._spare = spare

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        state["_spare"] = None  # scratch memory, not part of the tree
        return state


@njit(cache=True, inline="always")
def init_node(links, flags, value_sum, prior, node, parent, action, edge_prior):
    """Reset slot ``node`` to an unreached, unexpanded node under ``parent``."""
    links[node, PARENT] = parent
    links[node, FIRST_CHILD] = NO_NODE
    links[node, NUM_CHILDREN] = 0
    links[node, NUM_EXPANDED] = 0
    links[node, ACTION] = action
    links[node, VISITS] = 0
    flags[node, PLAYER] = UNKNOWN_PLAYER
    flags[node, PROVEN] = UNPROVEN
    value_sum[node] = 0.0
    prior[node] = edge_prior


@njit(cache=True, inline="always")
def attach_children(t, node, actions, priors, size, num_expanded):
    """Give ``node`` a new block of ``size`` children (``actions[i]`` with edge prior
    ``priors[i]``), allocated at the end of the tree ``t`` (:class:`TreeArrays`);
    ``num_expanded`` of them count as in the tree already ("one" expansion enters the others
    one per simulation)."""
    first = t.count[0]
    for i in range(size):
        init_node(t.links, t.flags, t.value_sum, t.prior, first + i, node, actions[i], priors[i])
    t.count[0] = first + size
    t.links[node, FIRST_CHILD] = first
    t.links[node, NUM_CHILDREN] = size
    t.links[node, NUM_EXPANDED] = num_expanded


@njit(cache=True)
def copy_subtree(t, top, new):
    """Copy the subtree under ``top`` of tree ``t`` into the arrays of ``new`` (both
    :class:`TreeArrays`; breadth first, ``top`` -> 0; minimax values when ``t`` tracks them).

    Children blocks stay contiguous. Returns the number of nodes written.
    """
    links, flags, value_sum, prior = t.links, t.flags, t.value_sum, t.prior
    new_links, new_flags, new_value, new_prior = new.links, new.flags, new.value_sum, new.prior
    minimax = t.minimax.shape[0] > 0
    if minimax:
        new.minimax[0] = t.minimax[top]
    new_links[0, :] = links[top, :]
    new_flags[0, :] = flags[top, :]
    new_value[0] = value_sum[top]
    new_prior[0] = prior[top]
    new_links[0, PARENT] = NO_NODE
    new_links[0, ACTION] = -1
    old_ids = np.empty(len(new_value), np.int64)
    old_ids[0] = top
    count = 1
    head = 0
    while head < count:
        old = old_ids[head]
        first = links[old, FIRST_CHILD]
        if first != NO_NODE:
            size = links[old, NUM_CHILDREN]
            new_links[head, FIRST_CHILD] = count
            for i in range(size):
                child = first + i
                new_links[count, :] = links[child, :]
                new_flags[count, :] = flags[child, :]
                new_value[count] = value_sum[child]
                new_prior[count] = prior[child]
                if minimax:
                    new.minimax[count] = t.minimax[child]
                new_links[count, PARENT] = head
                old_ids[count] = child
                count += 1
        head += 1
    return count
