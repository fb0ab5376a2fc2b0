"""Every grid board drawn as text (``render_mode="ansi"``, ``play``, ``replay``) carries the
coordinates of its move notation: the square the picture labels ``b2`` shows the stone that the
game holds on the square ``game.action_to_string`` calls ``b2``.

The picture is read back by a parser written here (file letters above the board, rank numbers at
the start of each row), and compared with the game's own board arrays on positions reached by
seeded random play.
"""

from __future__ import annotations

import importlib
import re

import numpy as np
import pytest

import mcts_envs
from mcts_envs.core.board_text import labelled_grid
from mcts_envs.games.ataxx.game import square_name

#: Game -> the symbols of an empty square, player_0's stone and player_1's in its picture.
GRID_GAMES = {
    "tictactoe": ".XO",
    "ultimate_tictactoe": ".XO",
    "pentago_twist": ".WB",
    "ataxx": ".xo",
}


def read_picture(text: str) -> dict[str, str]:
    """``{square: symbol}`` read off a labelled board: the first line holds the file letters, each
    row starts with its rank."""
    lines = text.splitlines()
    files = {match.start(): match.group() for match in re.finditer(r"[a-z]", lines[0])}
    squares = {}
    for line in lines[1:]:
        rank = re.match(r"\s*(\d+) ", line)
        if rank is None:
            continue
        for column, letter in files.items():
            squares[f"{letter}{rank.group(1)}"] = line[column]
    return squares


def board_rows(game, state) -> np.ndarray:
    """The game's own board array (0 empty, 1 player_0, 2 player_1), rows from the top."""
    return game.grid(state) if game.info.name == "ultimate_tictactoe" else game.board(state)


def square_of_cell(game, state, row: int, col: int) -> str:
    """The square the move notation gives the cell at (row, col) of :func:`board_rows`."""
    name = game.info.name
    if name == "tictactoe":
        return game.action_to_string(state, row * 3 + col)
    if name == "ultimate_tictactoe":
        board, cell = (row // 3) * 3 + col // 3, (row % 3) * 3 + col % 3
        return game.action_to_string(state, board * 9 + cell)
    if name == "pentago_twist":  # cell * 8 + quadrant * 2 + op: the square comes first
        return game.action_to_string(state, (row * 6 + col) * 8).split()[0]
    return square_name(row * 7 + col)  # ataxx: the name a copy to the square is written with


def positions(game, count: int, seed: int):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        state = game.initial_state()
        for _ in range(int(rng.integers(0, 40))):
            if game.is_terminal(state):
                break
            state = game.apply(state, int(rng.choice(game.legal_actions(state))))
        yield state


@pytest.mark.parametrize("name", list(GRID_GAMES))
def test_the_picture_labels_each_square_as_the_notation_names_it(name):
    env = mcts_envs.make(name, raw=True, render_mode="ansi")
    env.reset(seed=0)
    game = env.unwrapped.game
    symbols = GRID_GAMES[name]
    checked = 0
    for state in positions(game, 12, seed=1):
        env.reset(seed=0)
        env.unwrapped.set_game_state(state)
        text = env.render()
        picture = read_picture(text)
        rows = board_rows(game, state)
        assert len(picture) == rows.size, text
        for (row, col), value in np.ndenumerate(rows):
            assert picture[square_of_cell(game, state, row, col)] == symbols[value], text
            checked += 1
    assert checked >= 12 * 9


def test_the_files_and_ranks_frame_the_board_on_every_side():
    lines = labelled_grid(["X.O", ".X.", "..."], block=1)
    assert lines == [
        "    a   b   c",
        "  +---+---+---+",
        "3 | X | . | O | 3",
        "  +---+---+---+",
        "2 | . | X | . | 2",
        "  +---+---+---+",
        "1 | . | . | . | 1",
        "  +---+---+---+",
        "    a   b   c",
    ]


def test_walls_between_blocks_line_up_with_the_separators():
    # Pentago Twist's quadrants: the '+' of each wall line sits under the '|' of every row
    env = mcts_envs.make("pentago_twist", render_mode="ansi")
    env.reset(seed=0)
    env.step(87)
    lines = env.render().splitlines()
    rows = [line for line in lines if re.match(r"\d ", line)]
    walls = [line for line in lines if line.strip().startswith("+")]
    assert len(rows) == 6 and len(walls) == 3
    bars = {i for i, char in enumerate(rows[0]) if char == "|"}
    assert all({i for i, char in enumerate(line) if char == "|"} == bars for line in rows)
    assert all({i for i, char in enumerate(line) if char == "+"} == bars for line in walls)
    assert "quadrants: tl a4-c6, tr d4-f6, bl a1-c3, br d1-f3" in lines


def test_ultimate_tictactoe_names_the_target_board_by_its_squares():
    env = mcts_envs.make("ultimate_tictactoe", render_mode="ansi")
    env.reset(seed=0)
    game = env.unwrapped.game
    env.step(game.string_to_action(env.unwrapped.game_state, "d4"))  # board 4, cell 6
    assert "to move: O in the local board a1-c3 (board 6)" in env.render()
    state = env.unwrapped.game_state
    legal = {game.action_to_string(state, a) for a in game.legal_actions(state)}
    assert legal == {f"{file}{rank}" for file in "abc" for rank in "123"}


def test_tantrix_lists_every_tile_as_the_notation_writes_it():
    env = mcts_envs.make("tantrix", render_mode="ansi")
    env.reset(seed=4)
    game = env.unwrapped.game
    played = []
    rng = np.random.default_rng(0)
    for _ in range(12):
        state = env.unwrapped.game_state
        action = int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])))
        played.append(game.action_to_string(state, action))
        env.step(action)
    text = env.render()
    tiles = text.split("tiles: ", 1)[1].splitlines()[0].split("; ")
    assert tiles == played  # every placement, in order, as the notation wrote it
    assert "cells are axial (q,r)" in text


@pytest.mark.parametrize("name", mcts_envs.list_games())
def test_each_game_card_shows_its_board_as_rendered(name):
    """The docs page of a game (its card) shows the text board of a position, drawn by the game
    itself: the card's picture is what ``render()`` draws for the card's record today."""
    card = importlib.import_module(f"mcts_envs.envs.{name}_v0").__doc__
    section = card.split("### Board\n", 1)[1].split("\n### ", 1)[0]
    assert "move notation" in section
    record = re.search(r"The position\s+`([^`]+)`", section).group(1)
    picture = re.search(r"```text\n(.*?)\n```", section, re.DOTALL).group(1)
    env = mcts_envs.make(name, raw=True, render_mode="ansi")
    env.reset(seed=0)
    env.unwrapped.set_game_state(env.unwrapped.game.from_text(record))
    assert picture == env.render()
    assert "### Move notation" in card
