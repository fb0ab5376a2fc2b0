"""SVG boards (:mod:`mcts_envs.svg`): well-formed XML, highlights that match the legal moves,
click paths checked by their effect on the board (each path names the action it claims to),
the last move marked, and the notebook hook."""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree

import numpy as np
import pytest

import mcts_envs
from mcts_envs import svg
from mcts_envs.core.errors import IllegalActionError
from mcts_envs.core.game import CHANCE
from mcts_envs.core.svg import advance, first_targets, next_targets, resolve
from mcts_envs.games.pentago_twist.game import split_action

NS = "{http://www.w3.org/2000/svg}"
GAMES = ("tictactoe", "ultimate_tictactoe", "pentago_twist", "ataxx", "tantrix", "connect_four")


def _positions(name: str, count: int, seed: int = 0):
    """Decision states (with the action that led to each) along seeded random games."""
    game = mcts_envs.make_game(name)
    rng = np.random.default_rng(seed)
    found = []
    while len(found) < count:
        state, last = game.initial_state(), None
        while not game.is_terminal(state):
            if game.current_player(state) == CHANCE:
                outcomes, probabilities = game.chance_outcomes(state)
                state = game.apply(state, int(rng.choice(outcomes, p=probabilities)))
                continue
            found.append((state, last))
            last = int(rng.choice(game.legal_actions(state)))
            state = game.apply(state, last)
        found.append((state, last))  # the final position too
    picks = rng.choice(len(found), size=count, replace=False)
    return game, [found[i] for i in sorted(picks)]


def _parse(text: str) -> ElementTree.Element:
    root = ElementTree.fromstring(text)
    assert root.tag == f"{NS}svg"
    assert root.get("viewBox") and float(root.get("width")) > 0 and float(root.get("height")) > 0
    return root


def _highlighted(root: ElementTree.Element) -> set[str]:
    return {
        element.get("data-target")
        for element in root.iter()
        if "target" in (element.get("class") or "").split()
    }


def _oracle_first_clicks(name: str, game, state) -> set[str]:
    """The first clicks of the legal moves, from the board alone (not from the action codes)."""
    if game.is_terminal(state):
        return set()
    if name in ("tictactoe", "ultimate_tictactoe"):
        return {f"c{int(a)}" for a in game.legal_actions(state)}
    if name == "pentago_twist":
        return {f"c{cell}" for cell in range(36) if game.board(state).reshape(-1)[cell] == 0}
    if name == "connect_four":  # the columns whose top cell is empty
        return {f"c{column}" for column in range(7) if game.board(state)[0, column] == 0}
    if name == "ataxx":
        board = game.board(state).reshape(-1)
        mine = game.current_player(state) + 1
        clicks = set()
        for a in range(49):
            for b in range(49):
                distance = max(abs(a // 7 - b // 7), abs(a % 7 - b % 7))
                if board[a] == mine and board[b] == 0 and distance in (1, 2):
                    clicks.add(f"s{a}")  # a stone that can move
                    if distance == 1:
                        clicks.add(f"s{b}")  # a copy destination
        return clicks or {"pass"}
    hand = game.hands(state)[game.current_player(state)]
    slots = {game.decode_action(int(a))[2] for a in game.legal_actions(state)}
    assert slots <= set(range(len(hand)))
    return {f"h{slot}" for slot in slots}


def _check_effect(name: str, game, state, path: tuple[str, ...], action: int) -> None:
    """``action`` does what its clicks say."""
    after = game.apply(state, action)
    mover = game.current_player(state)
    if name == "tictactoe":
        (cell,) = path
        assert game.board(after).reshape(-1)[int(cell[1:])] == mover + 1
    elif name == "ultimate_tictactoe":
        (cell,) = path
        board, local = divmod(int(cell[1:]), 9)
        row, col = (board // 3) * 3 + local // 3, (board % 3) * 3 + local % 3
        assert game.grid(after)[row, col] == mover + 1
    elif name == "ataxx":
        before_board, after_board = game.board(state).reshape(-1), game.board(after).reshape(-1)
        if path == ("pass",):
            assert (before_board == after_board).all()
            return
        destination = int(path[-1][1:])
        assert before_board[destination] == 0 and after_board[destination] == mover + 1
        if len(path) == 2:
            origin = int(path[0][1:])
            distance = max(abs(origin // 7 - destination // 7), abs(origin % 7 - destination % 7))
            assert after_board[origin] == (0 if distance == 2 else mover + 1)
    elif name == "connect_four":  # one new stone, the lowest empty cell of the clicked column
        (column,) = path
        changed = np.argwhere(game.board(after) != game.board(state))
        assert len(changed) == 1 and changed[0][1] == int(column[1:])
        row = changed[0][0]
        assert game.board(after)[row, changed[0][1]] == mover + 1
        assert row == 5 or game.board(state)[row + 1, changed[0][1]] != 0
    elif name == "pentago_twist":
        cell, twist = path
        row, col, quadrant, op = split_action(action)
        assert (row * 6 + col, quadrant * 2 + op) == (int(cell[1:]), int(twist[1:]))
        assert game.board(state).reshape(-1)[row * 6 + col] == 0
    else:
        slot, where, turn = path
        tile = game.hands(state)[mover][int(slot[1:])]
        q, r = (int(v) for v in where[1:].split("_"))
        assert game.board(after)[(q, r)] == (tile, int(turn[1:]))


@pytest.mark.parametrize("name", GAMES)
def test_boards_are_xml_and_highlight_exactly_the_legal_first_clicks(name):
    game, positions = _positions(name, 6 if name == "tantrix" else 12, seed=3)
    for state, last in positions:
        picture = svg.board(game, state, last_action=last)
        root = _parse(picture.svg)
        assert _highlighted(root) == _oracle_first_clicks(name, game, state)
        if last is not None:
            assert any("last" in (e.get("class") or "").split() for e in root.iter())
        plain = _parse(svg.board(game, state, highlight_legal=False).svg)
        assert not _highlighted(plain)
        assert not any(e.get("data-target") for e in plain.iter())


@pytest.mark.parametrize("name", GAMES)
def test_click_paths_name_every_legal_action_by_its_effect(name):
    game, positions = _positions(name, 3 if name == "tantrix" else 8, seed=4)
    for state, _ in positions:
        paths = svg.move_paths(game, state)
        assert set(paths.values()) == {int(a) for a in game.legal_actions(state)}
        for path, action in paths.items():
            assert not any(path == other[: len(path)] for other in paths if other != path)
            _check_effect(name, game, state, path, action)


@pytest.mark.parametrize("name", GAMES)
def test_clicking_through_a_path_highlights_each_next_step_and_plays_the_action(name):
    game, positions = _positions(name, 3, seed=5)
    rng = np.random.default_rng(6)
    for state, _ in positions:
        paths = svg.move_paths(game, state)
        if not paths:
            continue
        path = list(paths)[int(rng.integers(len(paths)))]
        selection: tuple[str, ...] = ()
        for step, target in enumerate(path):
            picture = svg.board(game, state, selection=selection, paths=paths)
            root = _parse(picture.svg)
            assert _highlighted(root) == set(next_targets(paths, selection))
            assert target in _highlighted(root)
            clickable = {e.get("data-target") for e in root.iter() if e.get("data-target")}
            assert set(next_targets(paths, selection)) <= clickable
            selection = advance(paths, selection, target)
            assert len(selection) == step + 1
        assert resolve(paths, selection) == paths[path]


def test_advance_refuses_clicks_that_start_no_move_and_restarts_on_a_first_click():
    game = mcts_envs.make_game("ataxx")
    state = game.initial_state()
    paths = svg.move_paths(game, state)
    with pytest.raises(IllegalActionError, match="not a legal click"):
        advance(paths, (), "s24")  # the empty centre: no stone is near it
    stone = sorted(first_targets(paths) & {"s0", "s6", "s42", "s48"})[0]
    selected = advance(paths, (), stone)
    assert advance(paths, selected, stone) == ()  # clicking it again takes it back
    other = sorted((first_targets(paths) & {"s0", "s6", "s42", "s48"}) - {stone})[0]
    assert advance(paths, selected, other) == (other,)
    with pytest.raises(IllegalActionError):
        svg.board(game, state, selection=("s24",))


def test_notebook_hook_and_env_form():
    env = mcts_envs.make("tictactoe", render_mode="rgb_array")
    env.reset(seed=0)
    env.step(4)
    picture = svg.board(env, last_action=4)
    assert picture._repr_svg_() == picture.svg == str(picture)
    root = _parse(picture.svg)
    assert _highlighted(root) == {f"c{a}" for a in range(9) if a != 4}
    frame = env.render()  # rgb_array paints the same board (tests/envs/test_render_modes.py)
    assert frame.shape == (int(root.get("height")), int(root.get("width")), 3)
    assert frame.dtype == np.uint8
    env.close()
