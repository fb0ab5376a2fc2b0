"""MCTS: exact values on explicit trees (turn order, chance), crafted positions, solver,
determinism, root parallelism, time budget, tree reuse, evaluators and rollout policies."""

from __future__ import annotations

import dataclasses
import time
from functools import cache

import numpy as np
import pytest
from numba import njit

import mcts_envs
from mcts_envs.agents.mcts import MCTSAgent
from mcts_envs.agents.mcts.defaults import GENERIC
from mcts_envs.agents.mcts.driver import run_search
from mcts_envs.agents.mcts.tree import BYTES_PER_NODE, ROOT, VISITS, Tree
from mcts_envs.core.seeding import rng_below
from mcts_envs.games.tictactoe.kernels import apply_action as tictactoe_apply
from tests.agents.oracles import winning_moves
from tests.agents.toy_games import (
    ALL_TREES,
    CHANCE_GAME,
    DOUBLE_MOVE,
    FORCED_REPLY,
    TreeGame,
    expectimax,
)

TICTACTOE = mcts_envs.make_game("tictactoe")
ULTIMATE = mcts_envs.make_game("ultimate_tictactoe")


def exact_action_values(game, state):
    player = game.current_player(state)
    values = {int(a): expectimax(game, game.apply(state, a)) for a in game.legal_actions(state)}
    return player, values


# -- explicit trees: backup by the player to move, chance nodes --------------------------------


@pytest.mark.parametrize("tree", [DOUBLE_MOVE, FORCED_REPLY], ids=["double_move", "forced_reply"])
@pytest.mark.parametrize("solver", [True, False])
def test_backup_follows_the_player_to_move_when_turns_repeat(tree, solver):
    game = TreeGame(ALL_TREES.index(tree))
    state = game.initial_state()
    _, values = exact_action_values(game, state)
    best = max(values, key=values.get)
    agent = MCTSAgent(seed=1, iterations=3000, solver=solver, win_check=False)
    probs, value = agent.policy(game, state)
    assert agent.act_state(game, state) == best
    assert value == pytest.approx(expectimax(game, state), abs=0.1)
    assert probs[best] > 0.5


STOCHASTIC = [
    ALL_TREES.index(CHANCE_GAME),
    *range(ALL_TREES.index(CHANCE_GAME) + 1, len(ALL_TREES)),
]


@pytest.mark.parametrize("index", STOCHASTIC)
def test_mcts_agrees_with_expectimax_on_stochastic_trees(index):
    game = TreeGame(index)
    state = game.initial_state()
    if game.current_player(state) < 0:
        state = game.apply(state, 0)  # start below a chance root
    player, values = exact_action_values(game, state)
    ranked = sorted(values.values(), reverse=player == 0)
    agent = MCTSAgent(seed=3, iterations=20000, win_check=False)
    _, value = agent.policy(game, state)
    exact = expectimax(game, state)
    assert value == pytest.approx(exact if player == 0 else -exact, abs=0.1)
    if len(ranked) == 1 or abs(ranked[0] - ranked[1]) >= 0.15:
        assert values[agent.act_state(game, state)] == ranked[0]


def test_chance_children_are_sampled_by_probability():
    game = TreeGame(ALL_TREES.index(CHANCE_GAME))
    config = dataclasses.replace(
        GENERIC, iterations=20000, c=1.4, solver=False, dirichlet_fraction=0.0
    )
    tree = Tree()
    run_search(game, tree, game.initial_state(), config, seed=5)
    probabilities = {0: (0.5, 0.5), 1: (0.7, 0.3), 2: (0.25, 0.75)}
    for child in tree.children(ROOT):
        action = int(tree.links[child, 4])
        outcomes = tree.children(int(child))
        visits = tree.links[outcomes, VISITS].astype(float)
        if visits.sum() < 200:
            continue
        assert np.allclose(visits / visits.sum(), probabilities[action], atol=0.06)


# -- Tic-Tac-Toe: crafted positions and the solver against a pure-Python minimax ---------------


@cache
def ttt_value(cells: str, mover: str) -> int:
    """Exact value (+1/0/-1) of a Tic-Tac-Toe board for ``mover`` (slow, obvious negamax)."""
    lines = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]
    other = "o" if mover == "x" else "x"
    if any(all(cells[i] == other for i in line) for line in lines):
        return -1
    if "." not in cells:
        return 0
    return max(
        -ttt_value(cells[:i] + mover + cells[i + 1 :], other) for i in range(9) if cells[i] == "."
    )


def ttt_move_values(text: str) -> dict[int, int]:
    rows, mover = text.split()
    cells = rows.replace("/", "")
    other = "o" if mover == "x" else "x"
    return {
        i: -ttt_value(cells[:i] + mover + cells[i + 1 :], other)
        for i in range(9)
        if cells[i] == "."
    }


VARIANTS = [
    {},
    {"expand": "all"},
    {"scores": "fractional"},
    {"final": "mean"},
    {"solver": False},
    {"rollout": "minimax2"},
    {"reuse_tree": False, "c": 0.5},
    {"rollout_cutoff": 0},
    {"rollout_cutoff": 2, "rollout": "minimax2"},
]


@pytest.mark.parametrize(
    "variant", VARIANTS, ids=lambda v: ",".join(f"{k}={x}" for k, x in v.items()) or "default"
)
@pytest.mark.parametrize("win_check", [True, False])
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("xx./oo./... x", {2}),  # win in one (also a block): take it
        ("xx./o.x/..o o", {2}),  # loss in one: block it
        ("o.x/.x./... o", {6}),  # block the diagonal
        ("x.o/.o./x.. x", {3}),  # win in one on the column
    ],
)
def test_tictactoe_crafted_positions(text, expected, win_check, variant):
    state = TICTACTOE.from_text(text)
    assert {
        a for a, v in ttt_move_values(text).items() if v == max(ttt_move_values(text).values())
    } >= expected
    agent = MCTSAgent(seed=7, iterations=300, win_check=win_check, **variant)
    assert agent.act_state(TICTACTOE, state) in expected


def random_ttt_positions(count: int, seed: int):
    generator = np.random.default_rng(seed)
    positions = []
    while len(positions) < count:
        state = TICTACTOE.initial_state()
        for _ in range(int(generator.integers(2, 6))):
            if TICTACTOE.is_terminal(state):
                break
            state = TICTACTOE.apply(state, generator.choice(TICTACTOE.legal_actions(state)))
        if not TICTACTOE.is_terminal(state):
            positions.append(state)
    return positions


@pytest.mark.parametrize("position", range(12))
def test_solver_proves_exact_tictactoe_values(position):
    state = random_ttt_positions(12, seed=11)[position]
    values = ttt_move_values(TICTACTOE.to_text(state))
    agent = MCTSAgent(seed=position, iterations=20000, win_check=False)
    _, value = agent.policy(TICTACTOE, state)
    assert value == max(values.values())
    assert values[agent.act_state(TICTACTOE, state)] == max(values.values())


# -- Ultimate Tic-Tac-Toe: win in one taken, loss in one blocked --------------------------------


def ultimate_positions(kind: str, count: int, seed: int = 0):
    """Positions from seeded random games: mover can win at once ("win"), or must avoid
    moves after which the opponent wins at once while safe moves exist ("block")."""
    generator = np.random.default_rng(seed)
    found = []
    while len(found) < count:
        state = ULTIMATE.initial_state()
        while not ULTIMATE.is_terminal(state):
            legal = ULTIMATE.legal_actions(state)
            if kind == "win" and winning_moves(ULTIMATE, state):
                found.append(state)
                break
            if kind == "block" and not winning_moves(ULTIMATE, state):
                safe = {
                    int(a) for a in legal if not winning_moves(ULTIMATE, ULTIMATE.apply(state, a))
                }
                if safe and len(safe) < len(legal):
                    found.append((state, safe))
                    break
            state = ULTIMATE.apply(state, generator.choice(legal))
    return found


@pytest.mark.parametrize("win_check", [True, False])
def test_ultimate_win_in_one_is_taken(win_check):
    for index, state in enumerate(ultimate_positions("win", 4)):
        agent = MCTSAgent(seed=index, iterations=500, win_check=win_check)
        assert agent.act_state(ULTIMATE, state) in winning_moves(ULTIMATE, state)


@pytest.mark.parametrize("win_check", [True, False])
def test_ultimate_loss_in_one_is_blocked(win_check):
    for index, (state, safe) in enumerate(ultimate_positions("block", 4)):
        agent = MCTSAgent(seed=index, iterations=1000, win_check=win_check)
        assert agent.act_state(ULTIMATE, state) in safe


# -- determinism, parallelism, time, reuse ------------------------------------------------------


def self_play(game, make, plies: int):
    agents = [make(), make()]
    state = game.initial_state()
    actions = []
    for _ in range(plies):
        if game.is_terminal(state):
            break
        action = agents[game.current_player(state)].act_state(game, state)
        actions.append(action)
        state = game.apply(state, action)
    return actions


def test_same_seeds_give_the_same_game():
    def make():
        return MCTSAgent(seed=42, iterations=200)

    first = self_play(ULTIMATE, make, 30)
    assert first == self_play(ULTIMATE, make, 30)
    assert len(first) == 30


def test_root_parallel_is_deterministic_and_merges_visits():
    state = TICTACTOE.from_text("x../.o./... x")
    results = []
    for _ in range(2):
        agent = MCTSAgent(seed=9, iterations=400, workers=2, solver=False)
        probs, value = agent.policy(TICTACTOE, state)
        assert agent.last_search["simulations"] == 800
        results.append((agent.act_state(TICTACTOE, state), probs, value))
        agent.close()
    assert results[0][0] == results[1][0]
    np.testing.assert_array_equal(results[0][1], results[1][1])
    assert results[0][2] == results[1][2]


def test_time_budget_is_honoured():
    agent = MCTSAgent(seed=0, iterations=None, seconds=0.5)
    agent.act_state(ULTIMATE, ULTIMATE.apply(ULTIMATE.initial_state(), 40))  # warm up
    agent.reset()
    start = time.perf_counter()
    agent.act_state(ULTIMATE, ULTIMATE.initial_state())
    elapsed = time.perf_counter() - start
    assert 0.45 <= elapsed <= 0.55
    assert agent.last_search["simulations"] > 1000


def test_a_full_tree_grows_only_if_the_copy_fits_in_the_time_left():
    from mcts_envs.agents.mcts.driver import _grow_in_time
    from mcts_envs.agents.mcts.tree import Tree

    tree = Tree(1 << 16)
    tree.count[0] = tree.capacity - 4
    # Copying 65,532 nodes is estimated at about 8 ms: not with 1 ms left, fine with a second.
    assert not _grow_in_time(tree, 16, time.perf_counter() + 0.001)
    assert tree.capacity == 1 << 16
    assert _grow_in_time(tree, 16, time.perf_counter() + 1.0)
    assert tree.capacity == 1 << 17
    tree.count[0] = tree.capacity - 4
    assert _grow_in_time(tree, 16, None)  # no time budget: always grow
    assert tree.capacity == 1 << 18
    assert _grow_in_time(tree, 16, time.perf_counter())  # room left: nothing to copy


def test_iterations_and_seconds_together_stop_at_the_first():
    agent = MCTSAgent(seed=0, iterations=50, seconds=5.0)
    start = time.perf_counter()
    agent.act_state(ULTIMATE, ULTIMATE.initial_state())
    assert time.perf_counter() - start < 1.0
    assert agent.last_search["simulations"] == 50


def test_tree_is_reused_after_two_moves():
    agent = MCTSAgent(seed=0, iterations=2000)
    state = ULTIMATE.initial_state()
    action = agent.act_state(ULTIMATE, state)
    assert not agent.last_search["reused"]
    tree = agent._tree
    child = next(c for c in tree.children(ROOT) if tree.links[c, 4] == action)
    reply = max(tree.children(int(child)), key=lambda c: tree.links[c, VISITS])
    kept = int(tree.links[reply, VISITS])
    state = ULTIMATE.apply(ULTIMATE.apply(state, action), int(tree.links[reply, 4]))
    agent.inform(action)
    agent.inform(int(tree.links[reply, 4]))
    agent.act_state(ULTIMATE, state)
    assert agent.last_search["reused"]
    assert agent._tree.links[ROOT, VISITS] == kept + 2000
    agent.reset()
    agent.act_state(ULTIMATE, state)
    assert not agent.last_search["reused"]


def test_policy_is_a_distribution_over_legal_actions():
    state = ULTIMATE.apply(ULTIMATE.initial_state(), 40)
    probs, value = MCTSAgent(seed=0, iterations=500).policy(ULTIMATE, state)
    assert probs.shape == (81,)
    assert probs.sum() == pytest.approx(1.0)
    assert set(np.flatnonzero(probs)) <= set(ULTIMATE.legal_actions(state).tolist())
    assert -1.0 <= value <= 1.0


def test_act_reads_the_env_without_copying():
    env = mcts_envs.make("tictactoe_v0")
    env.reset(seed=0)
    agent = MCTSAgent(seed=0, iterations=100)
    before = env.unwrapped.game_state.copy()
    action = agent.act(env)
    np.testing.assert_array_equal(env.unwrapped.game_state, before)
    assert env.observe(env.agent_selection)["action_mask"][action] == 1


# -- evaluators (PUCT) and rollout policies -----------------------------------------------------


class CountingEvaluator:
    """Uniform priors and value 0, recording every batch it sees."""

    def __init__(self, game):
        self.game = game
        self.batches = []

    def __call__(self, observations, masks):
        self.batches.append((observations.shape, masks.copy()))
        assert observations.shape[1:] == self.game.info.observation_shape
        assert masks.shape[1] == self.game.info.num_actions
        return np.ones(masks.shape, np.float32), np.zeros(len(masks))


@pytest.mark.parametrize("text", ["xx./oo./... x", "xx./o.x/..o o"])
def test_puct_with_an_evaluator_finds_the_tactic(text):
    evaluator = CountingEvaluator(TICTACTOE)
    agent = MCTSAgent(
        seed=0,
        iterations=400,
        evaluator=evaluator,
        win_check=False,
        dirichlet_fraction=0.0,
        solver=False,
    )
    assert agent.act_state(TICTACTOE, TICTACTOE.from_text(text)) == 2
    assert evaluator.batches
    assert all(shape[0] <= 8 for shape, _ in evaluator.batches)
    assert sum(shape[0] for shape, _ in evaluator.batches) > 8


class FileRecordingEvaluator:
    """Uniform priors and value 0; appends each batch size to a file (a record that survives
    worker processes)."""

    def __init__(self, path):
        self.path = str(path)

    def __call__(self, observations, masks):
        with open(self.path, "a") as out:
            out.write(f"{len(observations)}\n")
        return np.ones(masks.shape, np.float32), np.zeros(len(masks))


def test_search_result_reports_this_searchs_evaluator_calls_and_leaves():
    evaluator = CountingEvaluator(ULTIMATE)
    agent = MCTSAgent(seed=4, iterations=300, evaluator=evaluator, batch_size=8)
    state = ULTIMATE.initial_state()
    for _ in range(2):  # the second search reuses the tree: counts are this search's only
        seen = len(evaluator.batches)
        result = agent.search(ULTIMATE, state)
        sizes = [shape[0] for shape, _ in evaluator.batches[seen:]]
        assert result.evaluator_calls == len(sizes) > 0
        assert result.evaluated_leaves == sum(sizes)
        assert result.mean_batch == pytest.approx(sum(sizes) / len(sizes))
        assert max(sizes) <= 8 and result.evaluated_leaves <= result.simulations
        agent.inform(result.action)
        state = ULTIMATE.apply(state, result.action)
    assert agent.config.evaluator is evaluator  # counted by the engine, not replaced
    # Without an evaluator, and for an immediate win, there is nothing to count.
    plain = MCTSAgent(seed=4, iterations=100).search(ULTIMATE, ULTIMATE.initial_state())
    assert (plain.evaluator_calls, plain.evaluated_leaves, plain.mean_batch) == (0, 0, 0.0)
    win = agent.search(TICTACTOE, TICTACTOE.from_text("xx./oo./... x"))
    assert win.immediate and (win.evaluator_calls, win.evaluated_leaves) == (0, 0)


def test_root_parallel_search_sums_the_workers_evaluator_calls(tmp_path):
    log = tmp_path / "batches.txt"
    agent = MCTSAgent(
        seed=6, iterations=200, workers=2, evaluator=FileRecordingEvaluator(log), batch_size=4
    )
    try:
        result = agent.search(TICTACTOE, TICTACTOE.initial_state())
    finally:
        agent.close()
    sizes = [int(line) for line in log.read_text().split()]
    assert result.evaluator_calls == len(sizes) > 0
    assert result.evaluated_leaves == sum(sizes)


def test_puct_root_noise_changes_the_search_but_stays_seeded():
    state = ULTIMATE.initial_state()

    def policy(seed, fraction):
        agent = MCTSAgent(
            seed=seed,
            iterations=200,
            evaluator=CountingEvaluator(ULTIMATE),
            dirichlet_fraction=fraction,
        )
        return agent.policy(ULTIMATE, state)[0]

    np.testing.assert_array_equal(policy(1, 0.25), policy(1, 0.25))
    assert not np.array_equal(policy(1, 0.25), policy(2, 0.25))
    np.testing.assert_array_equal(policy(1, 0.0), policy(2, 0.0))


@njit(cache=True)
def first_legal_playout(state, rng):
    """A user rollout kernel: the lowest legal cell, with an occasional random one."""
    while state[3] == 0:
        occupied = state[0] | state[1]
        skip = rng_below(rng, 2)
        for cell in range(9):
            if not (occupied >> cell) & 1:
                if skip == 0:
                    tictactoe_apply(state, cell)
                    break
                skip -= 1
        else:
            for cell in range(9):
                if not (occupied >> cell) & 1:
                    tictactoe_apply(state, cell)
                    break


def python_rollout(game, state):
    return int(game.legal_actions(state)[0])


@pytest.mark.parametrize("rollout", [first_legal_playout, python_rollout], ids=["njit", "python"])
@pytest.mark.parametrize("expand", ["one", "all"])
def test_user_rollouts(rollout, expand):
    agent = MCTSAgent(seed=0, iterations=300, rollout=rollout, win_check=False, expand=expand)
    assert agent.act_state(TICTACTOE, TICTACTOE.from_text("xx./o.x/..o o")) == 2


def test_bad_parameters_are_rejected_with_the_allowed_values():
    with pytest.raises(ValueError, match="'one', 'all'"):
        MCTSAgent(expand="some")
    with pytest.raises(ValueError, match="'random', 'minimax2'"):
        MCTSAgent(rollout="greedy")
    with pytest.raises(ValueError, match="budget"):
        MCTSAgent(iterations=None)
    with pytest.raises(ValueError, match="'visits', 'mean'"):
        MCTSAgent(final="best")
    with pytest.raises(ValueError, match="player to move"):
        MCTSAgent().act_state(TICTACTOE, TICTACTOE.from_text("xxx/oo./... o"))


def test_bytes_per_node_matches_the_arrays():
    tree = Tree(100)
    per_node = sum(a[0].nbytes if a.ndim > 1 else a.itemsize for a in tree.arrays()[:4])
    assert per_node == BYTES_PER_NODE


@pytest.mark.parametrize(
    "tree", [DOUBLE_MOVE, FORCED_REPLY, CHANCE_GAME], ids=["double", "forced", "chance"]
)
def test_puct_backs_up_by_the_player_to_move_and_through_chance(tree):
    game = TreeGame(ALL_TREES.index(tree))
    state = game.initial_state()
    _, values = exact_action_values(game, state)

    def uninformed(observations, masks):
        return np.ones(masks.shape), np.zeros(len(masks))

    agent = MCTSAgent(
        seed=0, iterations=5000, evaluator=uninformed, dirichlet_fraction=0.0, win_check=False
    )
    _, value = agent.policy(game, state)
    assert agent.act_state(game, state) == max(values, key=values.get)
    assert value == pytest.approx(expectimax(game, state), abs=0.1)


def test_the_tree_stops_growing_at_the_path_limit(monkeypatch):
    import mcts_envs.agents.mcts.driver as driver

    monkeypatch.setattr(driver, "max_depth", lambda game: 3)
    config = dataclasses.replace(GENERIC, iterations=3000, c=1.4, dirichlet_fraction=0.0)
    tree = Tree()
    stats = run_search(TICTACTOE, tree, TICTACTOE.initial_state(), config, seed=0)
    assert stats.simulations == 3000
    for child in tree.children(ROOT):
        for grandchild in tree.children(int(child)):
            assert tree.links[grandchild, 1] == -1  # depth 2 is never expanded
