"""Tantrix on seeded random games, checked against slow pure-Python references written here.

The references work on ``{(q, r): (tile, orientation)}`` dictionaries and read tile colours
straight from the CSV: legal placements by brute force over every cell next to the board, the
restrictions by their literal wording (rule 11, closure treating one cell at a time in sorted
order), and scores by union-find over tile paths (rule 15).
"""

from __future__ import annotations

import csv
import io
from importlib import resources

import numpy as np
import pytest

from mcts_envs.core.game import CHANCE, TERMINAL
from mcts_envs.core.seeding import make_rng
from mcts_envs.games.tantrix import kernels as k
from mcts_envs.games.tantrix.game import Tantrix

GAME = Tantrix()
STEPS = [(1, -1), (1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1)]
EDGES = [
    row["edges"]
    for row in csv.DictReader(
        io.StringIO(
            resources.files("mcts_envs.games.tantrix").joinpath("tiles.csv").read_text("utf-8")
        )
    )
]


# -- the reference ----------------------------------------------------------------------------
def colour(tile: int, orientation: int, edge: int) -> str:
    """Colour letter at ``edge`` of tile number ``tile`` turned ``orientation``."""
    return EDGES[tile - 1][(edge - orientation) % 6]


def neighbours(cell):
    q, r = cell
    return [(q + dq, r + dr) for dq, dr in STEPS]


def links(board, cell):
    """Colours leading into ``cell`` from its placed neighbours."""
    return [colour(*board[n], (d + 3) % 6) for d, n in enumerate(neighbours(cell)) if n in board]


def fits(board, cell, tile, orientation):
    return all(
        colour(tile, orientation, d) == colour(*board[n], (d + 3) % 6)
        for d, n in enumerate(neighbours(cell))
        if n in board
    )


def restriction_a_ok(board, cells):
    """No empty cell among ``cells`` has three links of one colour."""
    for cell in cells:
        if cell not in board:
            found = links(board, cell)
            if any(found.count(c) >= 3 for c in "RYBG"):
                return False
    return True


def closure_ok(occupied):
    """Rule 11 (b)+(c) literally: treat one ready cell at a time; fail on a four-sided cell."""
    filled = set(occupied)
    while True:
        empty = {n for c in filled for n in neighbours(c)} - filled
        counts = {e: sum(n in filled for n in neighbours(e)) for e in empty}
        if any(v >= 4 for v in counts.values()):
            return False
        ready = sorted(e for e, v in counts.items() if v >= 3)
        if not ready:
            return True
        filled.add(ready[0])


def reference_placements(board, hand, forced_only, restricted):
    """Set of ``(cell, tile, orientation)`` placements allowed by rules 6, 7, 9-12."""
    if not board:
        return set() if forced_only else {((0, 0), t, o) for t in hand for o in range(6)}
    cells = {n for c in board for n in neighbours(c)} - set(board)
    if forced_only:
        cells = {c for c in cells if sum(n in board for n in neighbours(c)) >= 3}
    found = set()
    for cell in cells:
        space_ok = None
        for tile in hand:
            for orientation in range(6):
                if not fits(board, cell, tile, orientation):
                    continue
                if restricted:
                    after = dict(board)
                    after[cell] = (tile, orientation)
                    # only the cells next to the new tile gain links
                    if not restriction_a_ok(after, neighbours(cell)):
                        continue
                    if space_ok is None:
                        space_ok = closure_ok(set(board) | {cell})
                    if not space_ok:
                        continue
                found.add((cell, tile, orientation))
    return found


def reference_scores(board, colours):
    """Best line per colour by union-find over (cell, colour) path nodes."""
    parent = {}

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    joins = {}
    for cell, (tile, _) in board.items():
        for c in set(EDGES[tile - 1]):
            parent[(cell, c)] = (cell, c)
    for cell, (tile, orientation) in board.items():
        for d, n in enumerate(neighbours(cell)):
            if n in board and d < 3:
                c = colour(tile, orientation, d)
                assert c == colour(*board[n], d + 3)  # golden rule on every shared edge
                a, b = find((cell, c)), find((n, c))
                parent[a] = b
                joins[(cell, n, c)] = True
    sizes, edges = {}, {}
    for node in parent:
        root = find(node)
        sizes[root] = sizes.get(root, 0) + 1
    for cell, _, c in joins:
        root = find((cell, c))
        edges[root] = edges.get(root, 0) + 1
    best = {}
    for root, size in sizes.items():
        value = 2 * size if edges.get(root, 0) == size else size  # a cycle: as many joins as tiles
        letter = root[1]
        best[letter] = max(best.get(letter, 0), value)
    return tuple(best.get("RYBG"[c], 0) for c in colours)


def connected(cells):
    cells = set(cells)
    seen, todo = set(), [next(iter(cells))]
    while todo:
        cell = todo.pop()
        if cell not in seen:
            seen.add(cell)
            todo.extend(n for n in neighbours(cell) if n in cells)
    return seen == cells


def as_reference(game, state):
    board = game.board(state)
    mover = int(state[k.MOVER])
    hand = game.hands(state)[mover]
    return board, hand


def check_final(game, state):
    board = game.board(state)
    status = int(state[k.STATUS])
    assert status in (k.FINISHED, k.DEADLOCK)
    if status == k.FINISHED:
        assert len(board) == 56 and game.bag(state) == [] and game.hands(state) == ([], [])
    else:
        assert len(board) < 56
    assert connected(board) and (0, 0) in board
    assert game.scores(state) == reference_scores(board, game.colours)
    scores = game.scores(state)
    returns = game.returns(state)
    assert returns.sum() == 0
    if status == k.DEADLOCK or scores[0] == scores[1]:
        assert list(returns) == [0, 0]
    else:
        assert returns[0] == (1 if scores[0] > scores[1] else -1)


# -- tests ------------------------------------------------------------------------------------
def play_checked(seed: int, compare_every: int) -> np.ndarray:
    """Plays a random game through ``Game.apply``, checking every placement made with a non-empty
    bag against the restrictions, and the whole legal set against the reference at every
    ``compare_every``-th decision."""
    rng = np.random.default_rng(seed)
    state = GAME.initial_state()
    decision = 0
    while True:
        player = GAME.current_player(state)
        if player == TERMINAL:
            return state
        if player == CHANCE:
            outcomes, _ = GAME.chance_outcomes(state)
            assert list(outcomes) == [t - 1 for t in GAME.bag(state)]
            state = GAME.apply(state, int(rng.choice(outcomes)))
            continue
        legal = GAME.legal_actions(state)
        board, hand = as_reference(GAME, state)
        restricted = len(GAME.bag(state)) > 0
        forced_phase = GAME.phase_name(state) != "free"
        if decision % compare_every == 0:
            expected = reference_placements(board, hand, forced_phase, restricted)
            got = set()
            for move in legal:
                cell, orientation, slot = GAME.decode_action(int(move))
                got.add((GAME.axial_of_cell(state, cell), hand[slot], orientation))
            assert got == expected, (seed, GAME.to_text(state))
            if not forced_phase:  # compulsory fills: the free phase starts only when none is left
                assert not reference_placements(board, hand, True, restricted)
            if restricted:  # rule 11 note: (b)/(c) never reject a fill of a forced space
                for cell in {n for c in board for n in neighbours(c)} - set(board):
                    if sum(n in board for n in neighbours(cell)) >= 3:
                        assert closure_ok(set(board) | {cell})
        move = int(legal[rng.integers(len(legal))])
        cell, orientation, slot = GAME.decode_action(move)
        where = GAME.axial_of_cell(state, cell)
        tile = hand[slot]
        assert fits(board, where, tile, orientation)
        if restricted:
            after = dict(board)
            after[where] = (tile, orientation)
            around = {n for c in after for n in neighbours(c)} - set(after)
            assert restriction_a_ok(after, around)
            assert closure_ok(set(after))
        state = GAME.apply(state, move)
        decision += 1


@pytest.mark.parametrize("seed", range(6))
def test_legal_sets_equal_the_reference_at_every_decision(seed):
    check_final(GAME, play_checked(seed, compare_every=1))


@pytest.mark.parametrize("seed", range(6, 36))
def test_restrictions_hold_and_sampled_legal_sets_match(seed):
    check_final(GAME, play_checked(seed, compare_every=9))


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(100, 300))
def test_restrictions_and_legal_sets_many_games(seed):
    check_final(GAME, play_checked(seed, compare_every=3))


def final_states(count: int, first_seed: int = 0):
    start = GAME.initial_state()
    for seed in range(first_seed, first_seed + count):
        state = start.copy()
        GAME.kernels.random_playout(state, make_rng(seed))
        yield state


def test_invariants_of_compiled_playouts():
    finished = 0
    for state in final_states(300):
        check_final(GAME, state)
        finished += int(state[k.STATUS]) == k.FINISHED
    assert finished >= 295  # deadlock is rare (about 1 game in 10,000)


@pytest.mark.slow
def test_invariants_of_thousands_of_playouts():
    statuses = []
    for state in final_states(5000, first_seed=1000):
        check_final(GAME, state)
        statuses.append(int(state[k.STATUS]))
    assert statuses.count(k.FINISHED) >= 4990


def test_same_seed_and_actions_give_same_draws():
    from mcts_envs import tantrix_v0

    def run(seed):
        env = tantrix_v0.env()
        env.reset(seed=seed)
        draws, rng = [], np.random.default_rng(5)
        for _agent in env.agent_iter():
            observation, _, termination, truncation, info = env.last()
            if termination or truncation:
                env.step(None)
                continue
            draws.append(info.get("last_drawn"))
            legal = np.flatnonzero(observation["action_mask"])
            env.step(int(legal[rng.integers(len(legal))]))
            if len(draws) == 25:
                break
        return draws, env.unwrapped.game.to_text(env.unwrapped.game_state)

    assert run(3) == run(3)
    assert run(3) != run(4)


def test_state_holds_the_bag_as_a_set():
    state = GAME.initial_state()
    GAME.kernels.random_playout(state, make_rng(1))  # anything deterministic
    mid = GAME.initial_state()
    rng = np.random.default_rng(0)
    while GAME.current_player(mid) != TERMINAL and len(GAME.board(mid)) < 20:
        if GAME.current_player(mid) == CHANCE:
            outcomes, probabilities = GAME.chance_outcomes(mid)
            assert np.allclose(probabilities, 1 / len(outcomes))
            mid = GAME.apply(mid, int(rng.choice(outcomes)))
        else:
            legal = GAME.legal_actions(mid)
            mid = GAME.apply(mid, int(legal[0]))
    bag = set(GAME.bag(mid))
    placed = {t for t, _ in GAME.board(mid).values()}
    hands = set(GAME.hands(mid)[0]) | set(GAME.hands(mid)[1])
    assert bag | placed | hands == set(range(1, 57)) and not bag & (placed | hands)
    assert int(mid[k.BAG_COUNT]) == len(bag)
    # two different futures from one state: only sampling decides the draw
    if GAME.current_player(mid) != CHANCE:
        mid = GAME.apply(mid, int(GAME.legal_actions(mid)[0]))
    if GAME.current_player(mid) == CHANCE:
        outcomes, _ = GAME.chance_outcomes(mid)
        a, b = GAME.apply(mid, int(outcomes[0])), GAME.apply(mid, int(outcomes[-1]))
        assert not np.array_equal(a, b)


def test_records_round_trip_through_a_game():
    rng = np.random.default_rng(11)
    state = GAME.initial_state()
    while GAME.current_player(state) != TERMINAL:
        assert np.array_equal(GAME.from_text(GAME.to_text(state)), state)
        if GAME.current_player(state) == CHANCE:
            state = GAME.apply(state, int(rng.choice(GAME.chance_outcomes(state)[0])))
        else:
            legal = GAME.legal_actions(state)
            state = GAME.apply(state, int(legal[rng.integers(len(legal))]))
    assert np.array_equal(GAME.from_text(GAME.to_text(state)), state)
