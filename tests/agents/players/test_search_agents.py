"""minimax2 and alpha-beta: crafted positions, exact values against a plain minimax reference."""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

import mcts_envs
from mcts_envs.agents import make_agent
from mcts_envs.agents.players.alphabeta import HEURISTIC_SCALE, MATE_STEP, MINIMAX_EQUIVALENT
from mcts_envs.core.errors import IllegalActionError
from mcts_envs.core.game import CHANCE, TERMINAL, GameInfo, GameKernels, KernelGame
from tests.agents.oracles import winning_moves

# -- crafted positions --------------------------------------------------------------------------

# (game, text, winning moves): the side to move wins at once with any of the moves given.
WIN_IN_ONE = [
    ("tictactoe", "xx./oo./... x", {2}),
    ("tictactoe", "x.o/xo./... x", {6}),
    (
        "ultimate_tictactoe",
        "xxxxxxxx./........./........./oo.oo.oo./........./........./oo......./........./"
        "......... x 2",
        {20},
    ),
]
# (game, text, losing moves): every move in the set lets the opponent win at once, the others
# do not (checked below by brute force).
LOSS_IN_ONE = [
    ("tictactoe", "xx./o../... o", set(range(9)) - {0, 1, 2, 3}),
    ("tictactoe", "o.x/.x./... o", {1, 3, 5, 7, 8}),
    (
        "ultimate_tictactoe",
        "xxxxxxxx./........./........./oo.....oo/........./........./oo.o...../........./"
        "......... o 4",
        {36, 37, 38},
    ),
]


@pytest.mark.parametrize(("game_name", "text", "winning"), WIN_IN_ONE)
def test_crafted_win_in_one_is_as_described(game_name, text, winning):
    game = mcts_envs.make_game(game_name)
    state = game.from_text(text)
    assert winning_moves(game, state) == winning


@pytest.mark.parametrize(("game_name", "text", "losing"), LOSS_IN_ONE)
def test_crafted_loss_in_one_is_as_described(game_name, text, losing):
    game = mcts_envs.make_game(game_name)
    state = game.from_text(text)
    legal = {int(a) for a in game.legal_actions(state)}
    assert not winning_moves(game, state)
    actual = {int(a) for a in legal if winning_moves(game, game.apply(state, a))}
    assert actual == losing & legal
    assert legal - actual, "a position with a saving move"


@pytest.mark.parametrize("spec", ["alphabeta:depth=2", "alphabeta:seconds=0.2", "minimax2"])
@pytest.mark.parametrize(("game_name", "text", "winning"), WIN_IN_ONE)
def test_win_in_one_taken(spec, game_name, text, winning):
    game = mcts_envs.make_game(game_name)
    state = game.from_text(text)
    for seed in range(3):
        assert make_agent(spec, seed=seed).act_state(game, state) in winning


@pytest.mark.parametrize("spec", ["alphabeta:depth=3", "minimax2"])
@pytest.mark.parametrize(("game_name", "text", "losing"), LOSS_IN_ONE)
def test_loss_in_one_blocked(spec, game_name, text, losing):
    game = mcts_envs.make_game(game_name)
    state = game.from_text(text)
    for seed in range(3):
        assert make_agent(spec, seed=seed).act_state(game, state) not in losing


def test_alphabeta_proves_tictactoe_a_draw():
    game = mcts_envs.make_game("tictactoe")
    # late moves are searched shallower (lmr), so the proof takes iterations deeper than the
    # game's nine plies; deepening stops once the root is solved
    agent = make_agent("alphabeta:depth=20", seed=0)
    result = agent.search(game, game.initial_state())
    assert result.solved and result.depth < 20
    assert result.value == 0.0
    # every reply to the best first move is a draw too, and a corner opening loses to an edge reply
    state = game.apply(game.initial_state(), 0)
    lost = agent.search(game, game.apply(state, 1))  # X to move after O's edge reply: X wins
    assert lost.solved and lost.value > 0.99


def test_alphabeta_prefers_the_quicker_win():
    game = mcts_envs.make_game("tictactoe")
    # X wins at once at 2, and also (later) after 0, 1, 3 or 4: the immediate win is chosen
    state = game.from_text(".../..x/oox x")
    result = make_agent("alphabeta:depth=9", seed=1).search(game, state)
    assert result.action == 2
    assert result.value == pytest.approx(1.0 - MATE_STEP)


def test_policy_is_one_hot_with_value():
    game = mcts_envs.make_game("tictactoe")
    state = game.from_text("xx./oo./... x")
    for spec in ("alphabeta:depth=3", "minimax2"):
        probs, value = make_agent(spec, seed=0).policy(game, state)
        assert probs.shape == (9,) and probs[2] == 1.0 and probs.sum() == 1.0
        assert value > 0.99


def test_search_agents_refuse_terminal_states():
    game = mcts_envs.make_game("tictactoe")
    state = game.from_text("xxx/oo./... o")
    for spec in ("alphabeta", "minimax2"):
        with pytest.raises(IllegalActionError):
            make_agent(spec).act_state(game, state)


def test_agents_act_inside_an_env_loop_and_same_seeds_give_the_same_game():
    def play(seed):
        env = mcts_envs.make("ultimate_tictactoe")
        env.reset(seed=3)
        agents = {
            "player_0": make_agent("alphabeta:depth=2", seed=seed),
            "player_1": make_agent("minimax2", seed=seed + 1),
        }
        actions = []
        for name in env.agent_iter():
            _, _, terminated, truncated, _ = env.last()
            action = None if terminated or truncated else agents[name].act(env)
            actions.append(action)
            env.step(action)
        return actions

    first = play(5)
    assert first == play(5)
    assert len(first) > 10


# -- a synthetic game tree: alpha-beta against a plain (expecti)minimax reference ---------------

FIELDS = 5  # per node: player, first child, number of children, value, weight
PLAYER, FIRST, COUNT, VALUE, WEIGHT = range(FIELDS)
MAX_CHILDREN = 3


@njit
def tree_current_player(state):
    return state[1 + FIELDS * state[0] + PLAYER]


@njit
def tree_legal_actions(state, out):
    base = 1 + FIELDS * state[0]
    if state[base + PLAYER] == TERMINAL:
        return 0
    for i in range(state[base + COUNT]):
        out[i] = i
    return state[base + COUNT]


@njit
def tree_apply_action(state, action):
    state[0] = state[1 + FIELDS * state[0] + FIRST] + action


@njit
def tree_chance_outcomes(state, outcomes, probabilities):
    base = 1 + FIELDS * state[0]
    first, count = state[base + FIRST], state[base + COUNT]
    total = 0.0
    for i in range(count):
        total += state[1 + FIELDS * (first + i) + WEIGHT]
    for i in range(count):
        outcomes[i] = i
        probabilities[i] = state[1 + FIELDS * (first + i) + WEIGHT] / total
    return count


@njit
def tree_returns(state, out):
    value = state[1 + FIELDS * state[0] + VALUE]
    out[0] = value
    out[1] = -value


@njit
def tree_score(state, out):
    tree_returns(state, out)
    out[0] = (out[0] + 1.0) * 0.5
    out[1] = (out[1] + 1.0) * 0.5


@njit
def tree_heuristic(state, player):
    base = 1 + FIELDS * state[0]
    if state[base + PLAYER] == TERMINAL:
        value = (state[base + VALUE] + 1.0) * 0.5
    else:
        value = state[base + VALUE] / 100.0
    return value if player == 0 else 1.0 - value


@njit
def tree_random_playout(state, rng):
    while tree_current_player(state) != TERMINAL:
        state[0] = state[1 + FIELDS * state[0] + FIRST]


class TreeGame(KernelGame):
    """A game whose whole tree is stored in the state; actions are child indices."""

    kernels = GameKernels(
        tree_current_player, tree_legal_actions, tree_apply_action, tree_chance_outcomes,
        tree_returns, tree_score, tree_heuristic, tree_random_playout,
    )  # fmt: skip

    def __init__(self, table):
        self.table = table
        self.info = GameInfo(
            name="tree", num_actions=MAX_CHILDREN, max_game_length=10, has_chance=True,
            observation_shape=(1,), state_size=len(table), max_legal_actions=MAX_CHILDREN,
            max_chance_outcomes=MAX_CHILDREN,
        )  # fmt: skip

    def initial_state(self):
        return self.table.copy()


def random_tree(generator, max_depth):
    """A random layered game DAG (with transpositions) stored as a table.

    Level ``l + 1`` nodes are shared by the level ``l`` nodes: each node's children are a random
    window of the next level, so one position is reached along several paths (always at the same
    ply). Movers are chosen at random (turns need not alternate); some nodes are chance nodes.
    """
    levels = [[0]]
    count = 1
    for _ in range(max_depth):
        size = int(generator.integers(2, 7))
        levels.append(list(range(count, count + size)))
        count += size
    nodes = [[0, 0, 0, 0, int(generator.integers(1, 5))] for _ in range(count)]
    for depth, level in enumerate(levels):
        for node in level:
            if depth == max_depth or (depth > 1 and generator.random() < 0.15):
                nodes[node][PLAYER] = TERMINAL
                nodes[node][VALUE] = int(generator.integers(-1, 2))
                continue
            roll = generator.random()
            nodes[node][PLAYER] = CHANCE if depth > 0 and roll < 0.25 else int(roll * 2 % 2)
            nodes[node][VALUE] = int(generator.integers(0, 101))  # heuristic for player 0, in %
            below = levels[depth + 1]
            width = int(generator.integers(1, min(MAX_CHILDREN, len(below)) + 1))
            start = int(generator.integers(0, len(below) - width + 1))
            nodes[node][FIRST] = below[start]
            nodes[node][COUNT] = width
    table = [0]
    for node in nodes:
        table.extend(node)
    return np.array(table, np.int64)


def reference_value(table, node, depth, ply):
    """Plain expectiminimax, player 0's view, with alpha-beta's documented leaf conventions."""
    base = 1 + FIELDS * node
    player, first, count, value = table[base : base + 4]
    if player == TERMINAL:
        return value - np.sign(value) * MATE_STEP * ply
    if depth <= 0:
        h0 = value / 100.0
        return HEURISTIC_SCALE * (h0 - (1.0 - h0))
    if player == CHANCE:
        weights = [table[1 + FIELDS * (first + i) + WEIGHT] for i in range(count)]
        return sum(
            w / sum(weights) * reference_value(table, first + i, depth, ply + 1)
            for i, w in enumerate(weights)
        )
    values = [reference_value(table, first + i, depth - 1, ply + 1) for i in range(count)]
    return max(values) if player == 0 else min(values)


def test_random_tree_generator_makes_valid_trees():
    table = random_tree(np.random.default_rng(0), 4)
    game = TreeGame(table)
    state = game.initial_state()
    # every path reaches a terminal node; chance probabilities sum to 1
    stack = [state]
    while stack:
        current = stack.pop()
        player = game.current_player(current)
        if player == CHANCE:
            outcomes, probabilities = game.chance_outcomes(current)
            assert probabilities.sum() == pytest.approx(1.0)
            stack.extend(game.apply(current, o) for o in outcomes)
        elif player != TERMINAL:
            stack.extend(game.apply(current, a) for a in game.legal_actions(current))


#: The options under which alpha-beta's values are plain minimax's, as a spec's text.
EXACT = ",".join(f"{key}={value}" for key, value in MINIMAX_EQUIVALENT.items())


@pytest.mark.parametrize("chunk", range(8))
def test_alphabeta_equals_plain_minimax_on_random_trees(chunk):
    # many trees: transposition-table mistakes show up only where paths meet in a narrow window
    for tree_seed in range(chunk * 40, chunk * 40 + 40):
        generator = np.random.default_rng(tree_seed)
        table = random_tree(generator, max_depth=int(generator.integers(3, 7)))
        game = TreeGame(table)
        state = game.initial_state()
        if game.current_player(state) < 0:
            continue
        sign = 1.0 if game.current_player(state) == 0 else -1.0
        agent = make_agent(f"alphabeta:depth=1,{EXACT}", seed=tree_seed)
        for depth in (1, 2, 3, 6):
            expected = reference_value(table, 0, depth, 0)
            agent.depth = depth  # the same agent: its table is kept between searches
            result = agent.search(game, state)
            assert sign * result.value == pytest.approx(expected, abs=1e-12), (tree_seed, depth)
            # the chosen action is worth the root value
            first = table[1 + FIELDS * 0 + FIRST]
            chosen = reference_value(table, first + result.action, depth - 1, 1)
            assert chosen == pytest.approx(expected, abs=1e-12), (tree_seed, depth)


def test_random_trees_include_chance_nodes_and_repeated_movers():
    chance_trees = repeated = 0
    for tree_seed in range(40):
        table = random_tree(np.random.default_rng(tree_seed), 3)
        players = table[1::FIELDS][: (len(table) - 1) // FIELDS]
        chance_trees += CHANCE in players
        for node, player in enumerate(players):
            if player in (0, 1):
                base = 1 + FIELDS * node
                children = range(table[base + FIRST], table[base + FIRST] + table[base + COUNT])
                repeated += any(players[c] == player for c in children)
    assert chance_trees >= 5 and repeated >= 5
