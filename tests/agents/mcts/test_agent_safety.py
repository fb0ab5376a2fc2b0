"""Bad numbers never reach a search: spec-time range checks, and guarded compiled indexing.

Regression tests for issue 16 items 1 and 5 (agent half): ``c=nan`` used to segfault MCTS on
Ultimate Tic-Tac-Toe (selection returned -1, used as a row index); ``seconds=inf`` never
returned; ``iterations=1e20`` / ``rollout_cutoff=1e20`` overflowed at act time;
``minimax2:depth=1e20`` dumped a numba error; ``alphabeta:table_size=1e12`` failed with a
MemoryError at act time; an evaluator output of the wrong shape gave a raw reshape error.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import mcts_envs
from mcts_envs.agents import make_agent
from mcts_envs.agents.mcts import MCTSAgent
from mcts_envs.agents.mcts.driver import run_search
from mcts_envs.agents.mcts.tree import Tree
from mcts_envs.core.errors import InvalidOptionError, SearchError

ULTIMATE = mcts_envs.make("ultimate_tictactoe").unwrapped.game


@pytest.mark.parametrize(
    ("spec", "allowed"),
    [
        ("mcts:seconds=inf", "finite"),
        ("mcts:seconds=nan", "finite"),
        ("mcts:c=nan", "finite"),
        ("mcts:c=-1", "[0, 1e+06]"),
        ("mcts:iterations=1e20", "[1, 1000000000000]"),
        ("mcts:rollout_cutoff=1e20", "[0, 1000000000]"),
        ("mcts:batch_size=0", "[1, 65536]"),
        ("mcts:dirichlet_fraction=1.5", "[0, 1]"),
        ("mcts:workers=100000", "[1, 256]"),
        ("minimax2:depth=1e20", "[1, 32]"),
        ("alphabeta:depth=1e20", "[1, 1000]"),
        ("alphabeta:seconds=inf", "finite"),
        ("alphabeta:table_size=1e12", "[1, 16777216]"),
    ],
)
def test_out_of_range_options_are_rejected_at_spec_time(spec, allowed):
    with pytest.raises(InvalidOptionError) as error:
        make_agent(spec)
    assert allowed in str(error.value)


def test_constructors_check_ranges_too():
    with pytest.raises(InvalidOptionError, match="seconds"):
        MCTSAgent(seconds=float("inf"), iterations=None)
    with pytest.raises(InvalidOptionError, match="c must be a finite number"):
        MCTSAgent(c=float("nan"))
    with pytest.raises(InvalidOptionError, match="iterations"):
        MCTSAgent(iterations=True)


def test_valid_edge_values_are_accepted():
    assert make_agent("mcts:iterations=1e3,c=0,rollout_cutoff=0").config.iterations == 1000
    assert make_agent("alphabeta:table_size=16777216").table_size == 1 << 24
    assert make_agent("minimax2:depth=1").depth == 1


def test_nan_exploration_constant_raises_instead_of_corrupting_memory():
    # The config refuses nan, so force it into a config as a buggy caller could.
    config = MCTSAgent(iterations=300, seed=1).config
    object.__setattr__(config, "c", float("nan"))
    with pytest.raises(SearchError, match="no child to select"):
        run_search(ULTIMATE, Tree(4096), ULTIMATE.initial_state(), config, seed=1)


def test_nan_exploration_constant_does_not_crash_the_process():
    # The original failure was a segfault: run it in a child process so a regression shows as
    # a failed test, not a dead test runner.
    code = (
        "import dataclasses, mcts_envs\n"
        "from mcts_envs.agents.mcts import MCTSAgent\n"
        "from mcts_envs.agents.mcts.driver import run_search\n"
        "from mcts_envs.agents.mcts.tree import Tree\n"
        "from mcts_envs.core.errors import SearchError\n"
        "g = mcts_envs.make('ultimate_tictactoe').unwrapped.game\n"
        "s = dataclasses.replace(MCTSAgent(iterations=300).config, expand='all')\n"
        "object.__setattr__(s, 'c', float('nan'))  # past the config's check\n"
        "try:\n"
        "    run_search(g, Tree(4096), g.initial_state(), s, seed=2)\n"
        "except SearchError:\n"
        "    print('raised')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "raised" in done.stdout


def _constant_evaluator(priors_shape, value):
    def evaluate(observations, masks):
        batch = len(observations)
        shape = tuple(batch if d is None else d for d in priors_shape)
        return np.ones(shape), np.full(batch, value)

    return evaluate


@pytest.mark.parametrize(
    ("evaluator", "message"),
    [
        (_constant_evaluator((None, 81), np.nan), "NaN or infinity"),
        (_constant_evaluator((None, 81), np.inf), "NaN or infinity"),
        (_constant_evaluator((None, 80), 0.0), r"priors of shape \(1, 80\)"),
        (lambda observations, masks: np.ones(81), "must return"),
    ],
)
def test_bad_evaluator_output_gets_a_clear_error(evaluator, message):
    agent = MCTSAgent(iterations=50, seed=0, evaluator=evaluator, win_check=False)
    with pytest.raises(SearchError, match=message):
        agent.act_state(ULTIMATE, ULTIMATE.initial_state())
