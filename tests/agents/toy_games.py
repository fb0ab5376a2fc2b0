"""Tiny explicit game trees as KernelGames, for testing search agents against exact values.

Every game shares one table of nodes (module constants, so the njit kernels compile once); a game
is a root node in it. The state is ``int64[1]``: the current node id. Action ``i`` (or chance
outcome ``i``) leads to child ``i`` of the node. Turn order is free: a node's player is stored in
the table, so one player may move several times in a row.

Trees are written as nested tuples:

* ``("T", value)``: terminal; ``value`` is player 0's return (+1, 0 or -1).
* ``(player, child, child, ...)``: player 0 or 1 chooses a child.
* ``("C", (probability, child), ...)``: a chance node.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mcts_envs.core.game import CHANCE, TERMINAL, GameInfo, GameKernels, KernelGame
from mcts_envs.core.seeding import rng_below, rng_uniform

#: Player 0 moves twice in a row at the root; an alternating backup would pick action 1.
DOUBLE_MOVE = (
    0,
    (0, (1, ("T", 1), ("T", 1)), (1, ("T", -1), ("T", -1))),
    (0, (1, ("T", 0), ("T", 0)), (1, ("T", 0), ("T", 0))),
)

#: Player 1 moves twice in a row after player 0 (a forced play, as in Tantrix).
FORCED_REPLY = (
    0,
    (1, (1, ("T", 1), ("T", 1)), (1, ("T", -1), ("T", 1))),
    (1, (1, ("T", 0), ("T", 1)), (1, ("T", 0), ("T", 1))),
)

#: Expectimax: action 2 is worth 0.5, action 0 is worth 0 and action 1 is worth -0.4.
CHANCE_GAME = (
    0,
    ("C", (0.5, ("T", 1)), (0.5, ("T", -1))),
    ("C", (0.7, (1, ("T", 1), ("T", -1))), (0.3, ("T", 1))),
    ("C", (0.25, ("T", -1)), (0.75, (0, ("T", 0), ("T", 1)))),
)


def random_tree(generator: np.random.Generator, depth: int, chance: bool) -> tuple:
    """A random tree: random player to move at each node (turns need not alternate)."""
    if depth == 0:
        return ("T", int(generator.integers(-1, 2)))
    if chance and generator.random() < 0.3:
        count = int(generator.integers(2, 4))
        weights = generator.integers(1, 5, size=count)
        probabilities = weights / weights.sum()
        return (
            "C",
            *((float(p), random_tree(generator, depth - 1, chance)) for p in probabilities),
        )
    count = int(generator.integers(2, 4))
    player = int(generator.integers(0, 2))
    return (player, *(random_tree(generator, depth - 1, chance) for _ in range(count)))


_GENERATOR = np.random.default_rng(12345)
#: Random stochastic trees of depth 4 (solved by :func:`expectimax` in the tests).
RANDOM_TREES = tuple(random_tree(_GENERATOR, 4, True) for _ in range(6))

MAX_CHILDREN = 3


def _build(trees):
    """Flatten the trees into node tables; children of a node get contiguous ids."""
    players, firsts, counts, probabilities, values = [], [], [], [], []

    def reserve(probability):
        players.append(TERMINAL)
        firsts.append(-1)
        counts.append(0)
        probabilities.append(probability)
        values.append(0)
        return len(players) - 1

    def fill(slot, tree):
        if tree[0] == "T":
            values[slot] = tree[1]
            return
        if tree[0] == "C":
            players[slot] = CHANCE
            children = list(tree[1:])
        else:
            players[slot] = tree[0]
            children = [(1.0, child) for child in tree[1:]]
        slots = [reserve(p) for p, _ in children]
        firsts[slot] = slots[0]
        counts[slot] = len(slots)
        for child_slot, (_, child) in zip(slots, children, strict=True):
            fill(child_slot, child)

    roots = []
    for tree in trees:
        roots.append(reserve(1.0))
        fill(roots[-1], tree)
    return (
        np.array(players, np.int64),
        np.array(firsts, np.int64),
        np.array(counts, np.int64),
        np.array(probabilities, np.float64),
        np.array(values, np.int64),
        roots,
    )


ALL_TREES = (DOUBLE_MOVE, FORCED_REPLY, CHANCE_GAME, *RANDOM_TREES)
NODE_PLAYER, NODE_FIRST, NODE_COUNT, NODE_PROBABILITY, NODE_VALUE, ROOTS = _build(ALL_TREES)


@njit(cache=True)
def current_player(state):
    return NODE_PLAYER[state[0]]


@njit(cache=True)
def legal_actions(state, out):
    node = state[0]
    if NODE_PLAYER[node] == TERMINAL:
        return 0
    for i in range(NODE_COUNT[node]):
        out[i] = i
    return NODE_COUNT[node]


@njit(cache=True)
def apply_action(state, action):
    state[0] = NODE_FIRST[state[0]] + action


@njit(cache=True)
def chance_outcomes(state, outcomes, probabilities):
    node = state[0]
    if NODE_PLAYER[node] != CHANCE:
        return 0
    for i in range(NODE_COUNT[node]):
        outcomes[i] = i
        probabilities[i] = NODE_PROBABILITY[NODE_FIRST[node] + i]
    return NODE_COUNT[node]


@njit(cache=True)
def returns(state, out):
    value = NODE_VALUE[state[0]] if NODE_PLAYER[state[0]] == TERMINAL else 0
    out[0] = value
    out[1] = -value


@njit(cache=True)
def score(state, out):
    returns(state, out)
    out[0] = (out[0] + 1.0) * 0.5
    out[1] = (out[1] + 1.0) * 0.5


@njit(cache=True)
def heuristic(state, player):
    if NODE_PLAYER[state[0]] == TERMINAL:
        value = NODE_VALUE[state[0]] if player == 0 else -NODE_VALUE[state[0]]
        return (value + 1.0) * 0.5
    return 0.5


@njit(cache=True)
def random_playout(state, rng):
    while NODE_PLAYER[state[0]] != TERMINAL:
        node = state[0]
        if NODE_PLAYER[node] == CHANCE:
            u = rng_uniform(rng)
            pick = NODE_COUNT[node] - 1
            acc = 0.0
            for i in range(NODE_COUNT[node] - 1):
                acc += NODE_PROBABILITY[NODE_FIRST[node] + i]
                if u < acc:
                    pick = i
                    break
        else:
            pick = rng_below(rng, NODE_COUNT[node])
        state[0] = NODE_FIRST[node] + pick


class TreeGame(KernelGame):
    """One of the explicit trees above as a game (state: the current node id)."""

    kernels = GameKernels(
        current_player=current_player,
        legal_actions=legal_actions,
        apply_action=apply_action,
        chance_outcomes=chance_outcomes,
        returns=returns,
        score=score,
        heuristic=heuristic,
        random_playout=random_playout,
    )

    def __init__(self, index: int) -> None:
        self.index = index
        self.info = GameInfo(
            name=f"tree_game_{index}",
            num_actions=MAX_CHILDREN,
            max_game_length=8,
            has_chance=True,
            observation_shape=(len(NODE_PLAYER),),
            state_size=1,
            max_legal_actions=MAX_CHILDREN,
            max_chance_outcomes=MAX_CHILDREN,
        )

    def initial_state(self) -> np.ndarray:
        return np.array([ROOTS[self.index]], np.int64)

    def observation(self, state: np.ndarray, player: int) -> np.ndarray:
        planes = np.zeros(len(NODE_PLAYER), np.int8)
        planes[state[0]] = 1
        return planes

    def __reduce__(self):
        return (TreeGame, (self.index,))


def expectimax(game: TreeGame, state: np.ndarray) -> float:
    """Exact value for player 0 (slow and obvious recursion over the game API)."""
    player = game.current_player(state)
    if player == TERMINAL:
        return float(game.returns(state)[0])
    if player == CHANCE:
        outcomes, probabilities = game.chance_outcomes(state)
        return sum(
            p * expectimax(game, game.apply(state, o))
            for o, p in zip(outcomes, probabilities, strict=True)
        )
    values = [expectimax(game, game.apply(state, a)) for a in game.legal_actions(state)]
    return max(values) if player == 0 else min(values)
