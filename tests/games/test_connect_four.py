"""Connect Four against independent facts: the published position counts (OEIS A212693) from a
slow reference written here, the move sets of PettingZoo's, OpenSpiel's and pgx's
implementations over random games, and the hand-written positions of docs/RULES.md section 6."""

from __future__ import annotations

import numpy as np
import pytest

from mcts_envs import TERMINAL, IllegalActionError, InvalidRecordError, make, make_game
from mcts_envs.games.connect_four import kernels as k

GAME = make_game("connect_four")
COLUMNS, ROWS = 7, 6
#: OEIS A212693: distinct positions after n plies, n = 0..8 (a won game is not continued).
A212693 = [1, 7, 49, 238, 1120, 4263, 16422, 54859, 184275]


# -- the slow reference: columns as strings from the bottom, lines found by walking --------------


def reference_wins(columns: tuple[str, ...], column: int) -> bool:
    """Whether the stone on top of ``column`` lies in four of its colour in a line."""
    row = len(columns[column]) - 1
    stone = columns[column][row]

    def at(c: int, r: int) -> str | None:
        return columns[c][r] if 0 <= c < COLUMNS and 0 <= r < len(columns[c]) else None

    for d_column, d_row in ((1, 0), (0, 1), (1, 1), (1, -1)):
        run = 1
        for sign in (1, -1):
            c, r = column + sign * d_column, row + sign * d_row
            while at(c, r) == stone:
                run += 1
                c, r = c + sign * d_column, r + sign * d_row
        if run >= 4:
            return True
    return False


def reference_children(columns: tuple[str, ...], ply: int):
    """``(column, child columns, won)`` for every column that is not full."""
    for column in range(COLUMNS):
        if len(columns[column]) < ROWS:
            child = list(columns)
            child[column] += "xo"[ply % 2]
            child = tuple(child)
            yield column, child, reference_wins(child, column)


def reference_record(columns: tuple[str, ...], ply: int) -> str:
    rows = []
    for row in reversed(range(ROWS)):
        rows.append("".join(c[row] if row < len(c) else "." for c in columns))
    return "/".join(rows) + " " + "xo"[ply % 2]


def test_reference_counts_the_published_positions_after_n_plies():
    level = {(("",) * COLUMNS, False)}
    counts = [1]
    for ply in range(8):
        level = {
            (child, won)
            for columns, over in level
            if not over
            for _, child, won in reference_children(columns, ply)
        }
        counts.append(len(level))
    assert counts == A212693


def test_the_kernels_count_the_published_positions_after_n_plies():
    legal = np.empty(COLUMNS, np.int64)
    level = {GAME.initial_state().tobytes()}
    counts = [1]
    for _ in range(8):
        following = set()
        for key in level:
            state = np.frombuffer(key, np.int64)
            for column in legal[: k.legal_actions(state, legal)]:
                child = state.copy()
                k.apply_action(child, column)
                following.add(child.tobytes())
        level = following
        counts.append(len(level))
    assert counts == A212693


def test_random_games_agree_with_the_reference_move_by_move():
    rng = np.random.default_rng(3)
    for _ in range(200):
        columns, state, ply, won = ("",) * COLUMNS, GAME.initial_state(), 0, False
        while not won and ply < COLUMNS * ROWS:
            children = list(reference_children(columns, ply))
            assert [c for c, _, _ in children] == GAME.legal_actions(state).tolist()
            assert GAME.to_text(state) == reference_record(columns, ply)
            column, columns, won = children[rng.integers(len(children))]
            state = GAME.apply(state, column)
            ply += 1
        assert GAME.is_terminal(state)
        mover = (ply - 1) % 2
        expected = np.zeros(2) if not won else np.where(np.arange(2) == mover, 1.0, -1.0)
        np.testing.assert_array_equal(GAME.returns(state), expected)


# -- the peers -----------------------------------------------------------------------------------


def test_move_sets_observations_and_rewards_equal_pettingzoos_connect_four_v3():
    from pettingzoo.classic import connect_four_v3

    rng = np.random.default_rng(7)
    for seed in range(60):
        theirs, ours = connect_four_v3.env(), make("connect_four")
        theirs.reset(seed=seed)
        ours.reset(seed=seed)
        while True:
            _, _, done, _, _ = theirs.last()
            assert ours.terminations == theirs.terminations
            assert ours.agent_selection == theirs.agent_selection
            for agent in ("player_0", "player_1"):
                mine, peer = ours.observe(agent), theirs.observe(agent)
                np.testing.assert_array_equal(mine["observation"], peer["observation"])
                if not done:  # after the end PettingZoo's mask still lists the open columns
                    np.testing.assert_array_equal(mine["action_mask"], peer["action_mask"])
            if done:
                assert ours.rewards == theirs.rewards
                assert ours._cumulative_rewards == theirs._cumulative_rewards
                break
            legal = np.flatnonzero(theirs.observe(theirs.agent_selection)["action_mask"])
            action = int(rng.choice(legal))
            theirs.step(action)
            ours.step(action)


def test_move_sets_and_returns_equal_openspiels_connect_four():
    pyspiel = pytest.importorskip("pyspiel")
    peer_game = pyspiel.load_game("connect_four")
    rng = np.random.default_rng(11)
    for _ in range(200):
        peer, state = peer_game.new_initial_state(), GAME.initial_state()
        while not peer.is_terminal():
            assert peer.current_player() == GAME.current_player(state)
            assert peer.legal_actions() == GAME.legal_actions(state).tolist()
            action = int(rng.choice(peer.legal_actions()))
            peer.apply_action(action)
            state = GAME.apply(state, action)
        assert GAME.current_player(state) == TERMINAL
        np.testing.assert_array_equal(GAME.returns(state), peer.returns())


def test_move_sets_and_rewards_equal_pgxs_connect_four():
    pgx = pytest.importorskip("pgx")
    jax = pytest.importorskip("jax")
    env = pgx.make("connect_four")
    step = jax.jit(env.step)
    rng = np.random.default_rng(5)
    for seed in range(20):
        peer = jax.jit(env.init)(jax.random.PRNGKey(seed))
        first = int(peer.current_player)  # pgx draws who moves first; our x is that player
        state = GAME.initial_state()
        while not bool(peer.terminated):
            np.testing.assert_array_equal(
                np.asarray(peer.legal_action_mask), GAME.action_mask(state) == 1
            )
            ours_to_move = GAME.current_player(state)
            assert int(peer.current_player) == (first if ours_to_move == 0 else 1 - first)
            np.testing.assert_array_equal(
                np.asarray(peer.observation), GAME.observation(state, ours_to_move)
            )
            action = int(rng.choice(GAME.legal_actions(state)))
            peer = step(peer, action)
            state = GAME.apply(state, action)
        assert GAME.is_terminal(state)
        returns = GAME.returns(state)
        rewards = np.asarray(peer.rewards)
        assert rewards[first] == returns[0] and rewards[1 - first] == returns[1]


# -- docs/RULES.md section 6, by hand ----------------------------------------------------------


def play(moves: str, state=None):
    """The state after the columns ``moves`` (the notation, e.g. ``"4453"``)."""
    state = GAME.initial_state() if state is None else state
    for move in moves:
        state = GAME.apply(state, GAME.string_to_action(state, move))
    return state


@pytest.mark.parametrize(
    ("start", "moves", "winner"),
    [
        (None, "1213141", 0),  # four up column 1
        (None, "1122334", 0),  # four across the bottom row
        (None, "71122334", 1),  # o's four across, after x's first stone in column 7
        ("......./......./......./..xo.../.xox.../xoxo..o x", "4", 0),  # rising diagonal
        ("......./......./......./...ox../...xox./o..oxox x", "4", 0),  # falling diagonal
        ("......./......./......./.x...../.x....x/xxooo.o o", "6", 1),  # five across: still one win
    ],
)
def test_four_in_a_line_wins_at_once(start, moves, winner):
    before = play(moves[:-1], None if start is None else GAME.from_text(start))
    assert not GAME.is_terminal(before)
    state = play(moves[-1], before)
    assert GAME.is_terminal(state) and GAME.legal_actions(state).size == 0
    assert GAME.returns(state)[winner] == 1.0 and GAME.returns(state)[1 - winner] == -1.0
    assert np.array_equal(GAME.from_text(GAME.to_text(state)), state)


def test_a_full_board_without_four_is_a_draw():
    full = GAME.from_text("xxoxooo/oxxoxxx/xooxoxo/oxxooxo/xoxxxox/ooxooxo x")
    assert GAME.is_terminal(full) and GAME.returns(full).tolist() == [0.0, 0.0]
    assert GAME.moves_played(full) == 42
    assert GAME.heuristic(full, 0) == 0.5


def test_a_stone_falls_to_the_lowest_empty_cell_and_a_full_column_is_illegal():
    state = play("444444")
    assert GAME.to_text(state).split()[0] == "/".join(
        ["...o..."] + ["...x...", "...o..."] * 2 + ["...x..."]
    )
    assert 3 not in GAME.legal_actions(state)
    with pytest.raises(IllegalActionError, match="not a legal"):
        GAME.apply(state, 3)
    env = make("connect_four", raw=True)
    env.reset(seed=0)
    for action in (3,) * 6:
        env.step(action)
    with pytest.raises(IllegalActionError):
        env.step(3)


def test_notation_is_the_column_number_from_the_left():
    state = GAME.initial_state()
    assert [GAME.action_to_string(state, a) for a in range(7)] == list("1234567")
    assert GAME.string_to_action(state, " 4 ") == 3
    with pytest.raises(IllegalActionError, match="1 to 7"):
        GAME.string_to_action(state, "d")


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("......./......./......./......./...x.../....... o", "above an empty cell"),
        ("......./......./......./......./......./xx..... o", "cannot happen"),
        ("......./......./......./......./......./x...... x", "side to move is 'o'"),
        ("......./......./......./......./oo.o.../xxxx..o x", "winner must have made the last"),
        ("......./......./......./......./......./x...... y", "bad side"),
        ("......./......./......./......./......./xxx.ooo. o", "6 rows of 7"),
        ("......./......./......./......./......./...z... o", "bad character"),
        ("......./......./x....../xoo..../xooo.../xooxxxx o", "ended earlier"),
        ("......./......./......./......./......./x...... o extra", "3 space-separated"),
    ],
)
def test_malformed_records_are_rejected(text, problem):
    with pytest.raises(InvalidRecordError, match=problem):
        GAME.from_text(text)


def test_check_state_refuses_floating_stones_the_kernels_never_make():
    state = GAME.initial_state()
    state[0] = 1 << 1  # a stone in row 1 of column 0 over an empty cell
    with pytest.raises(ValueError, match="above an empty cell"):
        GAME.legal_actions(state)


def test_heuristic_prefers_open_lines_and_is_exact_at_the_end():
    centre, edge = play("4"), play("1")
    assert GAME.heuristic(centre, 0) > GAME.heuristic(edge, 0) > 0.5
    assert GAME.heuristic(centre, 0) + GAME.heuristic(centre, 1) == pytest.approx(1.0)
    won = play("1213141")
    assert GAME.heuristic(won, 0) == 1.0 and GAME.heuristic(won, 1) == 0.0


def test_observation_planes_put_row_0_at_the_top():
    state = play("4")
    planes = GAME.observation(state, 0)
    assert planes.shape == (6, 7, 2) and planes[5, 3, 0] == 1 and planes.sum() == 1
    assert GAME.observation(state, 1)[5, 3, 1] == 1


def test_the_kernel_tables_match_their_definitions():
    assert len(k.WINDOWS) == 69 and all(bin(int(w)).count("1") == 4 for w in k.WINDOWS)
    assert bin(k.FULL_BOARD).count("1") == 42 and k.FULL_BOARD & (k.BOTTOM_ROW << 6) == 0
    every_cell = 0
    for mask in k.COLUMN_MASKS:
        every_cell |= int(mask)
    assert every_cell == k.FULL_BOARD


def test_the_text_prompt_shows_the_board_with_the_columns_numbered_as_the_notation():
    from mcts_envs.text import TextEnv

    env = TextEnv("connect_four")
    env.reset(seed=0)
    env.step("<move>4</move>")
    prompt = env.observe(env.agent_selection)
    assert "  1 2 3 4 5 6 7" in prompt and "| . . . x . . . |" in prompt
    assert "Record: ......./......./......./......./......./...x... o" in prompt
