"""Regression tests of issue 16: records and states the kernels cannot play are refused.

Cases that crashed the process before the fix (segfaults in compiled code) run in a child
process, so a regression fails the test instead of killing pytest.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import mcts_envs
from mcts_envs.core.errors import IllegalActionError, InvalidRecordError
from mcts_envs.core.game import CHANCE, TERMINAL
from mcts_envs.core.registry import make_game
from mcts_envs.games.tantrix import kernels as k
from mcts_envs.games.tantrix.game import Tantrix

ROOT = Path(__file__).resolve().parents[2]
TANTRIX = Tantrix()
#: The record of the issue: player 1 "draws" with six tiles in hand.
ISSUE_RECORD = (
    "colors=RY first=highest status=draw mover=1 phase=free last=- "
    "hands=1.2.3.4.5/6.7.8.9.10.11 board=0,0:56@0"
)


def run_child(code: str) -> list:
    """Run ``code`` (which prints JSON lines) in a fresh interpreter; fail on a crash."""
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])
    )
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, (
        f"the child process died with code {result.returncode}:\n{result.stdout[-2000:]}\n"
        f"{result.stderr[-2000:]}"
    )
    return [json.loads(line) for line in result.stdout.splitlines() if line.strip()]


def tiles_of(state: np.ndarray) -> list[int]:
    """Every tile on the board, in the hands and in the bag (each of 1..56 exactly once)."""
    board = [tile for tile, _ in TANTRIX.board(state).values()]
    hands = TANTRIX.hands(state)
    return sorted(board + hands[0] + hands[1] + TANTRIX.bag(state))


def endgame_record(seed: int) -> str:
    """A decision with an empty bag, reached by seeded random play."""
    rng = np.random.default_rng(seed)
    state = TANTRIX.initial_state()
    while not (TANTRIX.current_player(state) >= 0 and int(state[k.BAG_COUNT]) == 0):
        if TANTRIX.current_player(state) == CHANCE:
            outcomes, _ = TANTRIX.chance_outcomes(state)
            state = TANTRIX.apply(state, int(rng.choice(outcomes)))
        elif TANTRIX.current_player(state) == TERMINAL:
            state = TANTRIX.initial_state()
        else:
            state = TANTRIX.apply(state, int(rng.choice(TANTRIX.legal_actions(state))))
    return TANTRIX.to_text(state)


# -- Tantrix: chance nodes the kernels cannot play (item 1) ---------------------------------------
@pytest.mark.parametrize(
    "record, problem",
    [
        (ISSUE_RECORD, "at most 5 tiles"),
        (ISSUE_RECORD.replace("status=draw", "status=deal"), "board is empty"),
        (
            "colors=RY first=highest status=deal mover=0 phase=forced last=- "
            "hands=1.2/3.4.5 board=-",
            "hands differ by at most one",
        ),
        (
            "colors=RY first=highest status=deal mover=0 phase=forced last=3:0 hands=1.2/3 board=-",
            "last one went to player 0",
        ),
        (
            "colors=RY first=highest status=decide mover=0 phase=free last=1:0 "
            "hands=2.3.4.5.6.7/8.9.10.11.12.13 board=-",
            "still be in the bag",
        ),
        (
            "colors=RY first=highest status=deadlock mover=0 phase=free last=- "
            "hands=1.2.3.4.5.6/7.8.9.10.11.12 board=-",
            "has a legal placement",
        ),
        (
            "colors=RY first=highest status=draw mover=0 phase=free last=- hands=-/- board=-",
            "follows a placement",
        ),
    ],
)
def test_tantrix_records_the_kernels_cannot_play_are_rejected(record, problem):
    with pytest.raises(InvalidRecordError, match=problem):
        TANTRIX.from_text(record)


def test_tantrix_six_tiles_of_the_drawer_are_rejected():
    record = (
        "colors=RY first=highest status=draw mover=0 phase=forced_after last=- "
        "hands=1.2.3.4.5.6/7.8.9.10.11 board=0,0:56@0"
    )
    with pytest.raises(InvalidRecordError, match="at most 5 tiles"):
        TANTRIX.from_text(record)


def test_tantrix_draw_with_an_empty_bag_is_rejected():
    decide = endgame_record(seed=3)
    assert "status=decide" in decide
    TANTRIX.from_text(decide)  # the position itself is fine
    with pytest.raises(InvalidRecordError, match="bag is empty"):
        TANTRIX.from_text(decide.replace("status=decide", "status=draw"))


def test_the_issue_records_are_refused_and_the_valid_draw_plays_in_a_child_process():
    # Before the fix the issue's record segfaulted random_playout (seeds 1, 2, 4, 5, 6, 8) and the
    # checked apply loop; six tiles at a draw duplicated tiles. Play them where a crash is contained.
    records = [
        ISSUE_RECORD,
        ISSUE_RECORD.replace("hands=1.2.3.4.5/", "hands=1.2.3.4.5.12/").replace(
            "mover=1", "mover=0"
        ),
        ISSUE_RECORD.replace("mover=1", "mover=0"),  # valid: player 0 placed and draws (5 tiles)
    ]
    code = f"""
        import json
        import numpy as np
        from mcts_envs.core.errors import InvalidRecordError
        from mcts_envs.games.tantrix.game import Tantrix
        g = Tantrix()
        def tiles(s):
            board = [t for t, _ in g.board(s).values()]
            h = g.hands(s)
            return sorted(board + h[0] + h[1] + g.bag(s))
        for record in {records!r}:
            try:
                state = g.from_text(record)
            except InvalidRecordError:
                print(json.dumps("rejected"), flush=True)
                continue
            finals = []
            for seed in range(1, 9):
                final = g.random_playout(state, seed)
                finals.append(g.to_text(final))
                assert tiles(final) == list(range(1, 57)), final
                rng = np.random.default_rng(seed)
                s = state
                while g.current_player(s) != -2:
                    if g.current_player(s) == -1:
                        s = g.apply(s, int(rng.choice(g.chance_outcomes(s)[0])))
                    else:
                        s = g.apply(s, int(rng.choice(g.legal_actions(s))))
                    assert tiles(s) == list(range(1, 57))
                g.validate_state(s)
            print(json.dumps(["played", len(finals)]), flush=True)
    """
    assert run_child(code) == ["rejected", "rejected", ["played", 8]]


# -- compiled kernels raise instead of corrupting memory -----------------------------------------
def test_kernels_refuse_out_of_range_actions_and_corrupt_states_in_a_child_process():
    code = """
        import json
        import numpy as np
        import mcts_envs
        from mcts_envs.core.registry import make_game
        from mcts_envs.games.tantrix import kernels as k
        for name in mcts_envs.list_games():
            game = make_game(name)
            state = game.initial_state()
            while game.current_player(state) == -1:
                state = game.apply(state, int(game.chance_outcomes(state)[0][0]))
            for action in (-1, game.info.num_actions, 2**40):
                try:
                    game.apply_unchecked(state, action)
                    print(json.dumps([name, action, "no error"]), flush=True)
                except Exception as error:
                    print(json.dumps([name, action, type(error).__name__]), flush=True)
        g = make_game("tantrix")
        # a decision whose mover holds no tile: the playout has no move to pick
        s = g.from_text("colors=RY first=highest status=decide mover=0 phase=free last=- "
                        "hands=1.2.3.4.5.6/7.8.9.10.11.12 board=-")
        s[k.HAND_COUNT_0] = 0
        try:
            g.random_playout(s, 1)
            print(json.dumps(["tantrix", "empty hand", "no error"]), flush=True)
        except Exception as error:
            print(json.dumps(["tantrix", "empty hand", type(error).__name__]), flush=True)
        # a draw into a full hand (the issue's corruption), made by surgery on the array
        s = g.from_text("colors=RY first=highest status=draw mover=0 phase=forced_after last=- "
                        "hands=1.2.3.4.5/7.8.9.10.11.12 board=0,0:56@0")
        s[k.HAND_0 + 5] = 5
        s[k.HAND_COUNT_0] = 6
        s[k.BAG_BITS] &= ~(1 << 5)
        s[k.BAG_COUNT] -= 1
        try:
            g.apply_unchecked(s, int(g.chance_outcomes(s)[0][0]))
            print(json.dumps(["tantrix", "full hand", "no error"]), flush=True)
        except Exception as error:
            print(json.dumps(["tantrix", "full hand", type(error).__name__]), flush=True)
    """
    results = run_child(code)
    games = mcts_envs.list_games()
    assert len(results) == 3 * len(games) + 2
    for name, action, outcome in results[:-2]:
        assert outcome == "IllegalActionError", (name, action, outcome)
    # refused at the API boundary now (InvalidStateError, an InvalidRecordError), before the
    # kernels' own guards
    assert results[-2:] == [
        ["tantrix", "empty hand", "InvalidStateError"],
        ["tantrix", "full hand", "InvalidStateError"],
    ]


def test_tantrix_chance_outcome_outside_the_bag_raises():
    state = TANTRIX.initial_state()
    with pytest.raises(IllegalActionError):
        TANTRIX.apply_unchecked(state, 56)
    state = TANTRIX.apply(state, 0)
    with pytest.raises(IllegalActionError):
        TANTRIX.apply_unchecked(state, 0)  # tile 1 was dealt already


# -- wrong exception types and unbounded messages (item 5) ----------------------------------------
BAD_TANTRIX_NUMBERS = ["²", "①", "٣", "１", "57", "0", "9" * 5000, str(2**64), "+1", "1_0", ""]


@pytest.mark.parametrize("tile", BAD_TANTRIX_NUMBERS)
@pytest.mark.parametrize("where", ["hand", "board", "last"])
def test_tantrix_tile_numbers_must_be_ascii_1_to_56(tile, where):
    hands, board, last = "1.2.3.4.5.6/7.8.9.10.11.12", "-", "-"
    if where == "hand":
        hands = hands.replace("12", tile)
    elif where == "board":
        hands, board = "1.2.3.4.5.6/7.8.9.10.11", f"0,0:{tile}@0"
    else:
        last = f"{tile}:1"
    record = (
        f"colors=RY first=highest status=decide mover=0 phase=free last={last} "
        f"hands={hands} board={board}"
    )
    with pytest.raises(InvalidRecordError) as caught:
        TANTRIX.from_text(record)
    assert len(str(caught.value)) < 1000


@pytest.mark.parametrize(
    "q, r", [("9" * 30, "0"), ("0", str(-(2**63) - 1)), ("9" * 5000, "1"), ("١", "0"), ("+1", "0")]
)
def test_tantrix_coordinates_outside_int64_or_not_ascii_are_rejected(q, r):
    record = (
        "colors=RY first=highest status=draw mover=0 phase=forced_after last=- "
        f"hands=1.2.3.4.5/6.7.8.9.10.11 board=0,0:56@0;{q},{r}:55@0"
    )
    with pytest.raises(InvalidRecordError) as caught:
        TANTRIX.from_text(record)
    assert len(str(caught.value)) < 1000


@pytest.mark.parametrize("clock", ["9" * 5000, "0" * 5000 + "1", "1" + "0" * 4400, "٣", "²"])
@pytest.mark.parametrize("field", [2, 3])
def test_ataxx_clocks_with_thousands_of_digits_or_unicode_are_invalid_records(clock, field):
    parts = ["x5o/7/7/7/7/7/o5x", "x", "0", "1"]
    parts[field] = clock
    game = make_game("ataxx")
    if clock == "0" * 5000 + "1":
        state = game.from_text(" ".join(parts))  # leading zeros: the number is 1
        assert int(state[3 + field - 2]) == 1
        return
    with pytest.raises(InvalidRecordError) as caught:
        game.from_text(" ".join(parts))
    assert len(str(caught.value)) < 1000


@pytest.mark.parametrize("name", mcts_envs.list_games())
def test_a_ten_megabyte_record_gives_a_short_message(name):
    game = make_game(name)
    record = game.to_text(game.initial_state())
    for huge in (
        record + " " + "9" * 10_000_000,
        "x" * 10_000_000,
        record.replace(" ", "\x1b" * 10**6, 1),
    ):
        with pytest.raises(InvalidRecordError) as caught:
            game.from_text(huge)
        assert len(str(caught.value)) < 1000
    with pytest.raises(InvalidRecordError) as caught:
        game.from_text(b"x" * 10_000_000)
    assert len(str(caught.value)) < 1000


# -- Ultimate Tic-Tac-Toe: the winner moved last (item 6) ----------------------------------------
def uttt_record(boards: list[str], side: str) -> str:
    boards = boards + ["........."] * (9 - len(boards))
    grid = [["."] * 9 for _ in range(9)]
    for board, marks in enumerate(boards):
        for cell, char in enumerate(marks):
            grid[(board // 3) * 3 + cell // 3][(board % 3) * 3 + cell % 3] = char
    return "/".join("".join(row) for row in grid) + f" {side} -"


def test_ultimate_tictactoe_rejects_a_win_the_winner_did_not_move_last():
    game = make_game("ultimate_tictactoe")
    x_row = ["xxx......"] * 3  # X holds the top row of boards (9 X marks)
    # 9 O marks more: O moved last, yet X has won
    with pytest.raises(InvalidRecordError, match="winner of the game must have made the last"):
        game.from_text(uttt_record([*x_row, "oo.oo....", "oo.oo....", "o"], "x"))
    # 8 O marks: X moved last and won
    state = game.from_text(uttt_record([*x_row, "oo.oo....", "oo.oo...."], "o"))
    assert game.is_terminal(state) and tuple(game.returns(state)) == (1.0, -1.0)
    o_row = ["ooo......"] * 3
    with pytest.raises(InvalidRecordError, match="winner of the game must have made the last"):
        game.from_text(uttt_record([*o_row, "xx.xx....", "xx.xx....", "xx"], "o"))
    state = game.from_text(uttt_record([*o_row, "xx.xx....", "xx.xx....", "x"], "x"))
    assert game.is_terminal(state) and tuple(game.returns(state)) == (-1.0, 1.0)


def test_ultimate_tictactoe_accepts_every_end_of_random_play():
    game = make_game("ultimate_tictactoe")
    for seed in range(200):
        final = game.random_playout(game.initial_state(), seed)
        assert np.array_equal(game.from_text(game.to_text(final)), final)


# -- validate_state: arrays from outside -----------------------------------------------------------
def test_validate_state_accepts_played_states_and_refuses_corrupt_ones():
    state = TANTRIX.from_text(ISSUE_RECORD.replace("mover=1", "mover=0"))
    assert TANTRIX.validate_state(state) is state
    corrupt = state.copy()
    corrupt[k.HAND_COUNT_1] = 7  # the issue's overflowing hand
    with pytest.raises(InvalidRecordError):
        TANTRIX.validate_state(corrupt)
    corrupt = state.copy()
    corrupt[k.BAG_BITS] |= 1  # tile 1 both in a hand and in the bag
    with pytest.raises(InvalidRecordError, match="the bag"):
        TANTRIX.validate_state(corrupt)
    corrupt = state.copy()
    corrupt[k.NUM_PLACED] = 10**12
    with pytest.raises(InvalidRecordError):
        TANTRIX.validate_state(corrupt)
    with pytest.raises(TypeError):
        TANTRIX.validate_state(state[:-1])
    for name in mcts_envs.list_games():
        game = make_game(name)
        final = game.random_playout(game.initial_state(), 7)
        game.validate_state(final)
        broken = final.copy()
        broken[0] = -1
        with pytest.raises(InvalidRecordError):
            game.validate_state(broken)


def test_observation_and_heuristic_refuse_a_player_that_would_index_out_of_bounds():
    # Before: Tantrix wrote ``relative[own]`` with an arbitrary colour word (a segfault), so the
    # calls run in a child process.
    code = """
        import json
        import numpy as np
        import mcts_envs
        from mcts_envs.core.registry import make_game
        for name in mcts_envs.list_games():
            game = make_game(name)
            state = game.random_playout(game.initial_state(), 1)
            for player in (-1, 2, 5, 2**40, True, 0.0, "0"):
                for method in (game.observation, game.heuristic):
                    try:
                        method(state, player)
                        outcome = "no error"
                    except Exception as error:
                        outcome = f"{type(error).__name__}: {error}"
                    print(json.dumps([name, repr(player), outcome]), flush=True)
            for good in (0, 1, np.int64(1)):
                assert game.observation(state, good).shape == game.info.observation_shape
    """
    results = run_child(code)
    assert len(results) == len(mcts_envs.list_games()) * 7 * 2
    for name, player, outcome in results:
        assert outcome.startswith("InvalidOptionError") and "a player is 0 or 1" in outcome, (
            name,
            player,
            outcome,
        )


def test_replay_of_a_crafted_record_file_fails_cleanly(tmp_path):
    # Before: ``mcts-envs replay`` on this file exited 139 (a segfault in the draw).
    from mcts_envs.records import dumps, make_record

    # the issue record's checked apply loop with numpy seed 5 (it segfaulted on the last draw)
    actions = [
        40, 61576, 11, 63654, 31, 61606, 38, 59539, 23, 57433, 54, 55315, 22, 61542, 36, 63636,
        28, 59456, 16, 55299, 12, 57382, 14, 57324, 53, 55320, 20, 59449, 42, 63772, 24, 57296,
        33, 57483, 52, 55373, 49, 59406, 45, 55282, 47, 53258, 29, 55299, 32, 55401, 41, 67885,
        15, 65746, 51, 65811, 35, 67917, 21, 65844, 48, 67881, 18, 67851, 13,
    ]  # fmt: skip
    chance = list(range(0, len(actions), 2))
    record = make_record(
        "tantrix", ISSUE_RECORD, actions, chance, ["a", "b"], None, ISSUE_RECORD, seed=1
    )
    path = tmp_path / "crafted.jsonl"
    path.write_text(dumps(record) + "\n")
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])
    )
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "mcts_envs.agents.frontends.cli",
            "replay",
            str(path),
            "--delay",
            "0",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode > 0, (result.returncode, result.stderr[-2000:])
    assert "at most 5 tiles" in result.stderr + result.stdout
    assert "Traceback" not in result.stderr
