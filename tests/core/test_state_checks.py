"""``Game.check_state``: the cheap range check every public method runs on a state array."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import mcts_envs
from mcts_envs import InvalidRecordError, InvalidStateError, MctsEnvsError, StateTypeError

GAMES = mcts_envs.list_games()


def test_the_reported_crash_now_raises_a_package_error():
    """Issue 28: this exited with -11 (segfault); it must end with a clear error instead."""
    code = (
        "import numpy as np, mcts_envs\n"
        "g = mcts_envs.make_game('tictactoe')\n"
        "try:\n"
        "    g.legal_actions(np.array([1 << 40, 0, 0, 0], np.int64))\n"
        "except mcts_envs.InvalidStateError as error:\n"
        "    print('refused:', error)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "refused: tictactoe: not a state of this game: a bitboard" in done.stdout


@pytest.mark.parametrize("name", GAMES)
def test_out_of_range_words_are_refused_by_every_public_method(name):
    game = mcts_envs.make_game(name)
    state = game.initial_state()
    assert game.check_state(state) is state
    bad = np.full_like(state, np.iinfo(np.int64).min)
    calls = {
        "current_player": lambda s: game.current_player(s),
        "legal_actions": lambda s: game.legal_actions(s),
        "action_mask": lambda s: game.action_mask(s),
        "apply": lambda s: game.apply(s, 0),
        "apply_unchecked": lambda s: game.apply_unchecked(s, 0),
        "chance_outcomes": lambda s: game.chance_outcomes(s),
        "returns": lambda s: game.returns(s),
        "score": lambda s: game.score(s),
        "heuristic": lambda s: game.heuristic(s, 0),
        "observation": lambda s: game.observation(s, 1),
        "key": lambda s: game.key(s),
        "hash": lambda s: game.hash(s),
        "to_text": lambda s: game.to_text(s),
        "random_playout": lambda s: game.random_playout(s, 1),
        "validate_state": lambda s: game.validate_state(s),
    }
    for method, call in calls.items():
        with pytest.raises(InvalidStateError, match=f"{name}: not a state of this game") as caught:
            call(bad)
        # a ValueError, and an InvalidRecordError as validate_state raised before
        assert isinstance(caught.value, (ValueError, InvalidRecordError)), method


@pytest.mark.parametrize("name", GAMES)
def test_wrong_dtype_or_shape_is_a_package_error_and_a_type_error(name):
    game = mcts_envs.make_game(name)
    state = game.initial_state()
    for bad in (state.astype(np.int32), state.astype(np.float64), state[:-1].copy(), None):
        for call in (game.validate_state, game.check_state, game.legal_actions):
            with pytest.raises(StateTypeError, match="int64 array of shape") as caught:
                call(bad)
            assert isinstance(caught.value, TypeError)
            assert isinstance(caught.value, MctsEnvsError)


def test_problem_messages_name_the_word():
    game = mcts_envs.make_game("ataxx")
    state = game.initial_state()
    state[3] = 100  # a game that goes on with the halfmove clock at the 100-ply draw
    with pytest.raises(
        InvalidStateError, match=r"halfmove clock \(word 3\) is not 0\.\.1000000000"
    ):
        game.legal_actions(state)
    uttt = mcts_envs.make_game("ultimate_tictactoe")
    state = uttt.initial_state()
    state[21] = 9  # target board
    with pytest.raises(InvalidStateError, match="target board"):
        uttt.apply(state, 0)
