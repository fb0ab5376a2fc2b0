"""A game defined outside ``mcts_envs/games/`` gets the fast paths and the picture it declares
(``vector_kernels`` and ``svg_module`` on its class), not the slow paths of a guessed module."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from mcts_envs import svg
from mcts_envs.core import registry
from mcts_envs.core.game import VectorKernels
from mcts_envs.games.tictactoe import kernels as tictactoe_kernels
from mcts_envs.games.tictactoe.game import TicTacToe
from mcts_envs.vector import VectorGame, mask_kernel, random_action_kernel


class OutsideTicTacToe(TicTacToe):
    """Tic-Tac-Toe as a user would define a game in their own module (this test module)."""

    info = dataclasses.replace(TicTacToe.info, name="outside_tictactoe")
    vector_kernels = VectorKernels.from_module(tictactoe_kernels)
    svg_module = "mcts_envs.games.tictactoe.svg"
    json_module = "mcts_envs.games.tictactoe.json_state"


class UndeclaredTicTacToe(TicTacToe):
    """A game that declares no vector kernels and no picture."""

    info = dataclasses.replace(TicTacToe.info, name="undeclared_tictactoe")
    vector_kernels = VectorKernels()
    svg_module = None
    json_module = None


@pytest.fixture
def outside_game():
    entry = registry.get_entry("tictactoe")
    outside = dataclasses.replace(entry, name="outside_tictactoe", game_factory=OutsideTicTacToe)
    registry._ENTRIES[outside.name] = outside
    try:
        yield OutsideTicTacToe()
    finally:
        del registry._ENTRIES[outside.name]


def test_a_game_from_another_module_gets_the_fast_paths_it_declares(outside_game):
    assert OutsideTicTacToe.__module__ == __name__  # no kernels module to guess beside it
    assert mask_kernel(outside_game) is tictactoe_kernels.legal_mask
    assert random_action_kernel(outside_game) is tictactoe_kernels.random_action
    batch = VectorGame("outside_tictactoe", 4, seed=1).reset()
    legal = np.flatnonzero(batch.legal_action_mask[0])
    reference = outside_game.legal_actions(outside_game.initial_state())
    assert legal.tolist() == reference.tolist()


def test_a_game_from_another_module_draws_the_board_it_declares(outside_game):
    picture = svg.board(outside_game, outside_game.initial_state())
    assert str(picture).startswith("<svg")


def test_a_game_from_another_module_has_the_json_view_it_declares(outside_game):
    state = outside_game.apply(outside_game.initial_state(), 4)
    obj = outside_game.to_json(state)
    assert obj["board"] == ["...", ".x.", "..."]
    np.testing.assert_array_equal(outside_game.from_json(obj), state)


def test_a_game_that_declares_nothing_gets_no_fast_path_and_a_clear_answer():
    game = UndeclaredTicTacToe()
    assert mask_kernel(game) is None and random_action_kernel(game) is None
    with pytest.raises(NotImplementedError, match="declares no svg_module"):
        svg.board(game, game.initial_state())
    with pytest.raises(NotImplementedError, match="declares no json_module"):
        game.to_json(game.initial_state())
