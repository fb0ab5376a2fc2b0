"""Hand-built Tantrix positions, one per rule of docs/RULES.md section 5, legal and illegal side by side.

Positions are text records (see ``mcts_envs.games.tantrix.game``); placements are named as
``(q, r, tile_number, orientation)``. The "endgame" variant of a position is the same position
with the bag emptied, which lifts the restrictions of rule 11 (rule 12).
"""

from __future__ import annotations

import numpy as np
import pytest

from mcts_envs.core.errors import IllegalActionError, InvalidOptionError, InvalidRecordError
from mcts_envs.core.game import CHANCE, TERMINAL
from mcts_envs.games.tantrix import kernels as k
from mcts_envs.games.tantrix.game import Tantrix
from mcts_envs.games.tantrix.tiles import TILE_EDGE_COLOURS

GAME = Tantrix()
HEAD = "colors=RY first=highest status=decide"
RESTRICTION_A = "restriction (a): an empty cell would have three links of one colour"
RESTRICTION_BC = "restriction (b)/(c): a four-sided space now or once forced spaces are filled"


def position(text: str) -> np.ndarray:
    return GAME.from_text(f"{HEAD} {text}")


def endgame(state: np.ndarray) -> np.ndarray:
    """The same position with an empty bag (test-only surgery on the documented layout: the
    bag's tiles vanish, so the checked Game API refuses it; see :func:`kernel_is_legal`)."""
    emptied = state.copy()
    emptied[k.BAG_BITS] = 0
    emptied[k.BAG_COUNT] = 0
    return emptied


def action(state: np.ndarray, q: int, r: int, tile: int, orientation: int) -> int:
    return GAME.action_for(state, q, r, tile, orientation)


def is_legal(state: np.ndarray, move: int) -> bool:
    return bool(GAME.action_mask(state)[move])


def kernel_is_legal(state: np.ndarray, move: int) -> bool:
    """:func:`is_legal` by the compiled move generator (unchecked), for :func:`endgame` states."""
    buffer = np.empty(k.MAX_LEGAL_ACTIONS, np.int64)
    return move in buffer[: k.legal_actions(state, buffer)]


def play_draw(state: np.ndarray, tile: int | None = None) -> np.ndarray:
    """Resolves a pending draw with ``tile`` (default: the lowest tile in the bag)."""
    assert GAME.current_player(state) == CHANCE
    outcomes, probabilities = GAME.chance_outcomes(state)
    assert np.allclose(probabilities, 1 / len(outcomes))
    return GAME.apply(state, int(outcomes[0]) if tile is None else tile - 1)


# -- rules 3-6: options, deal, first player, first tile --------------------------------------
def test_colour_options():
    game = Tantrix(colors=("blue", "G"))
    assert game.colours == (2, 3)
    with pytest.raises(InvalidOptionError, match="must differ"):
        Tantrix(colors=("red", "red"))
    with pytest.raises(InvalidOptionError, match="allowed"):
        Tantrix(colors=("red", "purple"))
    with pytest.raises(InvalidOptionError, match="first_player"):
        Tantrix(first_player="youngest")


@pytest.mark.parametrize("first_player", ["highest_tile", "player_0"])
def test_deal_is_chance_and_first_player(first_player):
    game = Tantrix(first_player=first_player)
    state = game.initial_state()
    deal = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 56]  # tile 56 goes to player_1 (12th card)
    for tile in deal:
        assert game.current_player(state) == CHANCE
        outcomes, probabilities = game.chance_outcomes(state)
        assert len(outcomes) == 56 - deal.index(tile) and np.isclose(probabilities.sum(), 1)
        state = game.apply(state, tile - 1)
    assert game.hands(state) == ([1, 3, 5, 7, 9, 11], [2, 4, 6, 8, 10, 56])
    assert game.current_player(state) == (1 if first_player == "highest_tile" else 0)
    assert len(game.bag(state)) == 44
    legal = game.legal_actions(state)
    assert len(legal) == 36  # the origin only: six orientations of six tiles
    assert {game.axial_of_cell(state, a // 36) for a in legal} == {(0, 0)}


# -- rule 7: golden rule and adjacency --------------------------------------------------------
def test_golden_rule_and_touching():
    # tile 1 BRBRYY at orientation 0 shows red on its east edge; tile 2 BRRBYY turned 2 shows
    # red on its west edge, turned 0 yellow.
    state = position("mover=1 phase=free last=- hands=3.4.5.6.7.8/2.9.10.11.12.13 board=0,0:1@0")
    match, mismatch = action(state, 1, 0, 2, 2), action(state, 1, 0, 2, 0)
    assert TILE_EDGE_COLOURS[1, 2, 4] == TILE_EDGE_COLOURS[0, 0, 1] != TILE_EDGE_COLOURS[1, 0, 4]
    assert is_legal(state, match) and not is_legal(state, mismatch)
    assert GAME.placement_problem(state, mismatch).startswith("golden rule")
    far = action(state, 2, 0, 2, 2)
    assert not is_legal(state, far)
    assert GAME.placement_problem(state, far) == "not touching any tile"
    with pytest.raises(IllegalActionError, match="not a legal"):
        GAME.apply(state, far)
    cells = {GAME.axial_of_cell(state, a // 36) for a in GAME.legal_actions(state)}
    assert cells <= {(1, -1), (1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1)}


# -- rule 11: restrictions before the endgame, lifted after it (rule 12) ---------------------
def test_restriction_a_free_move():
    state = position(
        "mover=0 phase=free last=10:1 hands=2.11.12.22.30.50/5.7.10.15.27.33 "
        "board=0,0:46@3;-1,1:45@0"
    )
    bad, good = action(state, -2, 1, 2, 2), action(state, -2, 1, 11, 0)
    assert is_legal(state, good) and not is_legal(state, bad)
    assert GAME.placement_problem(state, bad) == RESTRICTION_A
    assert kernel_is_legal(endgame(state), bad)


def test_restriction_a_rejects_a_forced_fill():
    state = position(
        "mover=1 phase=forced_after last=8:1 hands=2.11.12.22.30.42/5.7.8.10.15.27 "
        "board=0,0:46@3;-1,1:45@0;1,-1:50@1;-2,1:33@3"
    )
    assert GAME.forced_spaces(state) == [(-1, 0)]
    bad, good = action(state, -1, 0, 10, 4), action(state, -1, 0, 5, 4)
    assert is_legal(state, good) and not is_legal(state, bad)
    assert GAME.placement_problem(state, bad) == RESTRICTION_A
    assert kernel_is_legal(endgame(state), bad)


def test_restriction_b_four_sided_space():
    state = position(
        "mover=0 phase=free last=41:1 hands=9.16.25.26.29.54/20.21.37.40.41.56 "
        "board=0,0:31@2;1,-1:38@1;1,-2:19@4"
    )
    assert GAME.forced_spaces(state) == [(0, -1)]  # a hole: three neighbours, nobody can fill it
    bad = action(state, -1, 0, 9, 0)  # would give (0, -1) a fourth neighbour
    assert not is_legal(state, bad)
    assert GAME.placement_problem(state, bad) == RESTRICTION_BC
    assert len(GAME.legal_actions(state)) > 0
    assert kernel_is_legal(endgame(state), bad)


def test_restriction_c_controlled_sides():
    state = position(
        "mover=1 phase=free last=6:0 hands=6.9.25.26.29.54/20.21.37.40.41.56 "
        "board=0,0:31@2;1,-1:38@1;1,-2:19@4;1,-3:16@3"
    )
    bad = action(state, 0, -3, 21, 0)
    # no empty cell gets four placed neighbours right away: only the closure finds one
    board = set(GAME.board(state)) | {(0, -3)}
    steps = [(1, -1), (1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1)]
    around = {(q + dq, r + dr) for q, r in board for dq, dr in steps} - board
    assert max(sum((q + dq, r + dr) in board for dq, dr in steps) for q, r in around) == 3
    assert not is_legal(state, bad)
    assert GAME.placement_problem(state, bad) == RESTRICTION_BC
    assert kernel_is_legal(endgame(state), bad)


# -- rule 10: forced spaces and the three-phase turn -----------------------------------------
COMPULSORY = (
    "mover=0 phase=forced last=30:1 hands=5.18.28.38.42.48/3.15.30.36.47.53 "
    "board=0,0:1@3;1,0:12@5;1,1:34@2"
)


def test_compulsory_forced_fill():
    state = position(COMPULSORY)
    assert GAME.forced_spaces(state) == [(0, 1)]
    free, fill = action(state, -1, 0, 18, 0), action(state, 0, 1, 48, 0)
    assert list(GAME.legal_actions(state)) == [fill]
    assert GAME.placement_problem(state, free).startswith("a forced space must be filled")
    # the fill stays compulsory in the endgame (rule 12)
    assert not kernel_is_legal(endgame(state), free)
    # once filled (and drawn), the free move becomes available
    after = play_draw(GAME.apply(state, fill))
    assert GAME.phase_name(after) == "free" and GAME.current_player(after) == 0
    assert is_legal(after, action(after, -1, 0, 18, 0))


def test_forced_fill_creating_a_forced_space_is_filled_in_the_same_turn():
    state = position(
        "mover=1 phase=forced_after last=8:1 hands=2.11.12.22.30.42/5.7.8.10.15.27 "
        "board=0,0:46@3;-1,1:45@0;1,-1:50@1;-2,1:33@3"
    )
    before = set(GAME.forced_spaces(state))
    after = play_draw(GAME.apply(state, action(state, -1, 0, 5, 4)))
    new = set(GAME.forced_spaces(after)) - before
    assert new
    assert GAME.current_player(after) == 1 and GAME.phase_name(after) == "forced_after"
    fills = {GAME.axial_of_cell(after, a // 36) for a in GAME.legal_actions(after)}
    assert fills and fills <= new | before


def test_forced_space_the_mover_cannot_fill_is_left_for_the_opponent():
    board = "board=0,0:49@2;1,-1:13@4;2,-2:4@5;2,-3:48@5;1,-2:6@4"
    hands = "hands=2.3.29.32.35.52/10.19.24.28.53.56"
    mover_view = position(f"mover=1 phase=free last=24:1 {hands} {board}")
    forced = GAME.forced_spaces(mover_view)
    assert forced
    # player_1 is in the free phase: no fill was possible for them
    cells = {GAME.axial_of_cell(mover_view, a // 36) for a in GAME.legal_actions(mover_view)}
    assert not cells & set(forced)
    opponent_view = position(f"mover=0 phase=forced last=24:1 {hands} {board}")
    fills = {GAME.axial_of_cell(opponent_view, a // 36) for a in GAME.legal_actions(opponent_view)}
    assert fills and fills <= set(forced)


# -- rule 13: empty hands, deadlock ----------------------------------------------------------
SKIP = (
    "mover=1 phase=free last=33:0 hands=-/44.55 board=0,0:1@3;1,0:12@5;1,1:34@2;0,1:48@0;"
    "2,0:28@1;3,-1:53@4;2,-1:40@1;1,-1:30@1;4,-1:5@0;3,0:2@1;5,-2:45@2;4,-2:36@5;3,-2:23@2;"
    "2,-2:3@4;-1,0:18@0;0,-1:29@2;1,-2:42@1;-1,1:51@4;0,-2:26@5;-1,-1:10@1;-2,-1:8@2;"
    "-1,-2:32@4;2,1:6@5;-2,0:43@5;3,1:15@0;4,0:24@1;5,-1:7@4;0,-3:11@0;1,-3:47@2;2,-3:4@2;"
    "6,-1:41@3;5,0:52@0;7,-1:17@4;2,2:21@2;1,2:39@4;0,2:37@1;6,0:16@4;1,-4:38@3;2,-4:27@0;"
    "-2,1:54@1;-3,1:46@2;-3,0:50@0;8,-1:14@2;7,0:13@0;4,1:33@4;5,1:35@1;6,1:20@4;3,2:19@1;"
    "4,2:22@1;6,-3:49@5;5,2:31@3;5,3:9@0;-2,2:56@2;1,-5:25@3"
)


def test_empty_hand_is_skipped():
    state = position(SKIP)
    assert GAME.bag(state) == [] and GAME.hands(state)[0] == []
    skipped = 0
    listed = np.empty(k.MAX_LEGAL_ACTIONS, np.int64)
    scratch = np.empty(k.APPLY_AND_LIST_SCRATCH, np.int64)
    for move in GAME.legal_actions(state):
        after = GAME.apply(state, int(move))  # bag empty: no draw
        if GAME.phase_name(after) == "free":
            # player_1's turn ended, player_0 (empty hand) was skipped: player_1 again
            assert GAME.current_player(after) == 1
            skipped += 1
        # the vector's step lists the skipping player's moves as it finds them
        stepped = state.copy()
        count = k.apply_and_list(stepped, int(move), listed, scratch)
        assert (stepped == after).all()
        assert list(listed[:count]) == list(GAME.legal_actions(after))
    assert skipped > 0
    final = GAME.random_playout(state, 0)
    assert GAME.current_player(final) == TERMINAL and len(GAME.board(final)) == 56


DEADLOCK_BEFORE = (
    "mover=0 phase=free last=8:1 hands=12.17.25.26.29.30/2.5.6.8.24.28 board=0,0:48@1;"
    "0,-1:50@4;-1,1:27@3;0,-2:31@1;1,-3:3@0;1,-2:51@0;1,-1:47@4;2,-1:18@4;2,-2:16@4;1,0:37@3;"
    "3,-1:7@0;2,0:32@1;2,-3:43@3;0,1:40@0;3,-2:39@5;-1,0:56@1;-1,-1:10@5;-1,2:36@2;3,-3:46@0;"
    "2,-4:1@3;3,-4:23@1;1,-4:21@5;-2,0:53@2;1,-5:45@5;2,-5:52@2;0,-3:19@3;0,-4:22@2;"
    "3,-5:20@1;3,-6:54@1;4,-5:33@4;4,-4:44@3"
)


def test_deadlock_is_a_draw():
    state = position(DEADLOCK_BEFORE)
    after = play_draw(GAME.apply(state, action(state, 5, -5, 17, 1)), tile=9)
    assert GAME.current_player(after) == TERMINAL and GAME.phase_name(after) == "deadlock"
    # the vector's step: nothing is listed at the draw nor at the deadlock it reaches
    stepped = state.copy()
    listed = np.empty(k.MAX_LEGAL_ACTIONS, np.int64)
    scratch = np.empty(k.APPLY_AND_LIST_SCRATCH, np.int64)
    assert k.apply_and_list(stepped, action(state, 5, -5, 17, 1), listed, scratch) == -1
    assert k.apply_and_list(stepped, 9 - 1, listed, scratch) == -1
    assert (stepped == after).all()
    assert int(after[k.MOVER]) == 1 and len(GAME.hands(after)[1]) == 6
    assert len(GAME.bag(after)) > 0 and len(GAME.board(after)) == 32
    assert list(GAME.returns(after)) == [0.0, 0.0]
    # player_1 holds six tiles; each placement next to the board breaks a rule
    stuck = after.copy()
    stuck[k.STATUS] = k.DECIDE
    assert k.generate(stuck, np.empty(k.MAX_LEGAL_ACTIONS, np.int64), False, False) == 0
    record = GAME.to_text(after)
    assert "status=deadlock" in record and (GAME.from_text(record) == after).all()


# -- rule 15: scoring -----------------------------------------------------------------------
RED, YELLOW = 0, 1


def find_tile(wanted: dict[int, int], exclude: set[int]) -> tuple[int, int]:
    """A tile and orientation showing colour ``wanted[edge]`` at each listed edge."""
    for tile in range(56):
        for orientation in range(6):
            colours = TILE_EDGE_COLOURS[tile, orientation]
            if tile not in exclude and all(colours[e] == c for e, c in wanted.items()):
                return tile, orientation
    raise AssertionError(f"no tile shows {wanted}")


def build(cells: list[tuple[tuple[int, int], dict[int, int]]]) -> str:
    used: set[int] = set()
    items = []
    for (q, r), wanted in cells:
        tile, orientation = find_tile(wanted, used)
        used.add(tile)
        items.append(f"{q},{r}:{tile + 1}@{orientation}")
    return ";".join(items)


# three red corners around the vertex shared by (0, 0), (1, 0) and (0, 1) close a red loop
LOOP = [((0, 0), {1: RED, 2: RED}), ((1, 0), {3: RED, 4: RED}), ((0, 1), {5: RED, 0: RED})]


def board_state(game: Tantrix, board: str) -> np.ndarray:
    # a draw node is a convenient container for a board with empty hands
    letters = "".join("RYBG"[c] for c in game.colours)
    return game.from_text(
        f"colors={letters} first=highest status=draw mover=0 phase=free last=- "
        f"hands=-/- board={board}"
    )


def test_loop_scores_double_and_once():
    state = board_state(GAME, build(LOOP))
    lines = GAME.best_lines(state)
    assert lines[0]["loop"] and lines[0]["score"] == 6  # 3 tiles x 2, counted once
    assert sorted(lines[0]["cells"]) == [(0, 0), (0, 1), (1, 0)]
    other = lines[1]["score"]
    assert GAME.scores(state) == (6, other) and other <= 3
    assert np.allclose(GAME.score(state), [6 / (6 + other), other / (6 + other)])


def test_line_through_a_loops_tiles_is_counted_once():
    # yellow leaves (0, 0) by its NE edge, runs through a tile at (1, -1) (a yellow corner on
    # its SE/SW edges) and enters (1, 0) by its NW edge: one yellow line through two tiles of
    # the red loop; every tile counts once, and the red loop still scores 6.
    cells = [
        ((0, 0), {1: RED, 2: RED, 0: YELLOW}),
        ((1, 0), {3: RED, 4: RED, 5: YELLOW}),
        ((0, 1), {5: RED, 0: RED}),
        ((1, -1), {2: YELLOW, 3: YELLOW}),
    ]
    game = Tantrix(colors=("red", "yellow"))
    state = board_state(game, build(cells))
    red, yellow = game.best_lines(state)
    assert red["loop"] and red["score"] == 6
    assert not yellow["loop"]
    assert {(0, 0), (1, -1), (1, 0)} <= set(yellow["cells"])
    assert yellow["score"] == len(yellow["cells"]) == len(set(yellow["cells"])) <= 4


def test_bad_records_raise_clear_errors():
    with pytest.raises(InvalidRecordError, match="golden rule"):
        GAME.from_text(f"{HEAD} mover=1 phase=free last=- hands=-/- board=0,0:1@0;1,0:2@0")
    with pytest.raises(InvalidRecordError, match="first tile"):
        GAME.from_text(f"{HEAD} mover=1 phase=free last=- hands=-/- board=1,0:1@0")
    with pytest.raises(InvalidRecordError, match="tile numbers"):
        GAME.from_text(f"{HEAD} mover=1 phase=free last=- hands=57/- board=-")
