"""The compile notice: printed only when numba really compiles, ending with the seconds."""

from __future__ import annotations

import io
import re

import numpy as np
import pytest
from numba import njit

from mcts_envs.agents.evaluation.games import GameRules, prepare_agents
from mcts_envs.core.compiling import compile_notice
from mcts_envs.vector import VectorGame

FINISHED = re.compile(r"^compiled (.+) in \d+\.\d s$")


def test_notice_only_when_something_compiles_and_ends_with_seconds():
    @njit  # defined here: a new dispatcher, so its first call really compiles
    def twice(x):
        return 2 * x

    lines: list[str] = []
    with compile_notice("twice", lines.append) as status:
        assert twice(3) == 6
    assert lines[0] == "compiling twice (first use; cached afterwards)..."
    assert FINISHED.match(lines[1]) and len(lines) == 2
    assert status["compiled"] >= 1 and status["seconds"] > 0
    lines.clear()
    with compile_notice("twice", lines.append) as status:  # compiled already: silent
        assert twice(4) == 8
    assert lines == [] and status["compiled"] == 0


def test_no_notice_without_announce_and_errors_pass_through():
    @njit
    def fails(x):
        return x[0]

    with compile_notice("x", None) as status:
        assert fails(np.ones(1)) == 1.0
    assert status["compiled"] == 0  # not listening without an announce
    lines: list[str] = []
    with pytest.raises(KeyError, match="boom"), compile_notice("x", lines.append):
        raise KeyError("boom")
    assert lines == []


def test_match_preparation_announces_nothing_once_compiled():
    lines: list[str] = []
    prepare_agents("tictactoe", ["mcts:iterations=20", "random"], announce=lines.append)
    assert all(line.startswith("compiling ") or FINISHED.match(line) for line in lines)
    lines.clear()
    prepare_agents("tictactoe", ["mcts:iterations=20", "random"], announce=lines.append)
    assert lines == []  # the old code announced mcts on every call


def test_tournament_preparation_announces_nothing_once_compiled():
    import io

    rules = GameRules(game="tictactoe")
    out = io.StringIO()

    def announce(text):
        print(text, file=out)

    prepare_agents(rules.game, ["random"], announce=announce)
    out = io.StringIO()
    prepare_agents(rules.game, ["random", "random"], announce=announce)
    assert out.getvalue() == ""  # the old code announced every spec on every call


def test_vector_game_is_silent_once_compiled(capfd):
    for _ in range(2):
        vector = VectorGame("tictactoe", 2, seed=0)
        vector.reset()
        vector.step(vector.random_actions())
        err = capfd.readouterr().err
        assert all(
            line.startswith("compiling ") or FINISHED.match(line) for line in err.splitlines()
        )
    assert err == ""  # compiled (or loaded) by the first vector: nothing to announce


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_terminal_gets_a_live_line_naming_what_compiles():
    @njit
    def thrice(x):
        return 3 * x

    terminal, lines = _Terminal(), []
    with compile_notice("thrice", lines.append, progress=terminal):
        assert thrice(2) == 6
    shown = terminal.getvalue()
    assert "compiling thrice:" in shown and "elapsed" in shown and "(thrice)" in shown
    assert len(lines) == 1 and FINISHED.match(lines[0])  # the live line replaces the first notice


def test_a_stream_that_is_not_a_terminal_gets_the_two_notices():
    @njit
    def four_times(x):
        return 4 * x

    stream, lines = io.StringIO(), []
    with compile_notice("four_times", lines.append, progress=stream):
        assert four_times(2) == 8
    assert stream.getvalue() == ""
    assert lines[0].startswith("compiling four_times") and FINISHED.match(lines[1])
