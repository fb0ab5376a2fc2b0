"""The parts of alpha-beta that go beyond minimax: Ataxx's search knowledge against slow references
over the board text (evaluation terms, material gain, null move), quiescence against a plain
capture search written here, the placeholders of games without such knowledge, and the options'
checks."""

from __future__ import annotations

import numpy as np
import pytest

import mcts_envs
from mcts_envs.agents.players.alphabeta import (
    HEURISTIC_SCALE,
    MATE_STEP,
    MINIMAX_EQUIVALENT,
    AlphaBetaAgent,
    _predicted,
)
from mcts_envs.agents.players.alphabeta_search import CAPTURE_GAIN
from mcts_envs.core.errors import InvalidOptionError
from mcts_envs.core.game import TERMINAL
from mcts_envs.core.search_kernels import SearchKernels
from mcts_envs.games.ataxx import search as ataxx_search
from tests.core.test_game_laws import random_states

ATAXX = mcts_envs.make_game("ataxx")


def board(state) -> tuple[list[list[str]], str, int, int]:
    """The board of an Ataxx state read from its FEN: rows a7..g7 first, ``"x"``, ``"o"`` or
    ``"."``; the side to move, halfmove clock and fullmove number."""
    ranks, side, halfmove, fullmove = ATAXX.to_text(state).split()
    rows = []
    for rank in ranks.split("/"):
        row = []
        for char in rank:
            row.extend("." * int(char) if char.isdigit() else char)
        rows.append(row)
    return rows, side, int(halfmove), int(fullmove)


def around(row: int, col: int, reach: int):
    """The squares at Chebyshev distance 1..``reach`` of ``(row, col)`` on the 7x7 board."""
    for r in range(row - reach, row + reach + 1):
        for c in range(col - reach, col + reach + 1):
            if (r, c) != (row, col) and 0 <= r < 7 and 0 <= c < 7:
                yield r, c


def reference_terms(state, player: int) -> list[float]:
    """Material, mobility, holes, stability and tempo of ``player`` minus the opponent's,
    counted square by square as the module docstring states them."""
    rows, side, _, _ = board(state)
    marks = "xo"

    def side_terms(own: str, other: str) -> list[int]:
        material = mobility = holes = stability = 0
        for r in range(7):
            for c in range(7):
                near = [rows[rr][cc] for rr, cc in around(r, c, 1)]
                if rows[r][c] == own:
                    material += 1
                    stability += "." not in near
                elif rows[r][c] == ".":
                    mobility += own in near
                    reachable = any(rows[rr][cc] == other for rr, cc in around(r, c, 2))
                    if own in near and reachable:
                        holes += near.count(own)
        return [material, mobility, holes, stability]

    mine = side_terms(marks[player], marks[1 - player])
    theirs = side_terms(marks[1 - player], marks[player])
    tempo = 1.0 if marks.index(side) == player else -1.0
    return [float(a - b) for a, b in zip(mine, theirs, strict=True)] + [tempo]


def stone_lead(state, player: int) -> int:
    rows, _, _, _ = board(state)
    flat = [mark for row in rows for mark in row]
    return flat.count("xo"[player]) - flat.count("xo"[1 - player])


def ataxx_positions(count_games: int = 6, seed: int = 7) -> list[np.ndarray]:
    """Every position with a player to move of a few seeded random Ataxx games."""
    positions = []
    for game_seed in range(seed, seed + count_games):
        positions += [s for s in random_states(ATAXX, game_seed) if ATAXX.current_player(s) >= 0]
    return positions


def test_ataxx_evaluation_terms_and_value_match_a_square_by_square_count():
    terms = np.empty(len(ataxx_search.TERMS))
    for state in ataxx_positions()[::5]:
        for player in (0, 1):
            ataxx_search.evaluation_terms(state, player, terms)
            expected = reference_terms(state, player)
            assert terms.tolist() == expected, ATAXX.to_text(state)
            value = ataxx_search.evaluation(state, player)
            weighted = float(np.dot(ataxx_search.WEIGHTS, expected)) / ataxx_search.EVALUATION_RANGE
            assert value == pytest.approx(weighted, abs=1e-12)
            assert -1.0 <= value <= 1.0
        assert ataxx_search.evaluation(state, 0) == pytest.approx(
            -ataxx_search.evaluation(state, 1), abs=1e-12
        )


def test_ataxx_material_gain_is_the_change_of_the_movers_stone_lead():
    captures = 0
    for state in ataxx_positions()[::7]:
        player = ATAXX.current_player(state)
        before = stone_lead(state, player)
        for action in ATAXX.legal_actions(state):
            gain = ataxx_search.material_gain(state, int(action))
            assert gain == stone_lead(ATAXX.apply(state, int(action)), player) - before
            captures += gain >= CAPTURE_GAIN
    assert captures > 100  # the positions hold plenty of capturing moves


def test_the_ataxx_null_move_passes_only_where_being_on_move_is_no_burden():
    applied = refused = 0
    for state in ataxx_positions()[::3]:
        rows, side, halfmove, fullmove = board(state)
        empty = sum(row.count(".") for row in rows)
        can_copy = any(
            rows[r][c] == "." and side in [rows[rr][cc] for rr, cc in around(r, c, 1)]
            for r in range(7)
            for c in range(7)
        )
        child = state.copy()
        passed = ataxx_search.null_move(child)
        assert passed == (empty > ataxx_search.NULL_MOVE_MIN_EMPTY and can_copy)
        if not passed:
            assert np.array_equal(child, state)
            refused += 1
            continue
        applied += 1
        after_rows, after_side, after_halfmove, after_fullmove = board(child)
        assert after_rows == rows and after_side != side
        assert after_halfmove == halfmove + 1
        assert after_fullmove == fullmove + (side == "o")
    assert applied > 20 and refused > 5


def test_games_without_search_knowledge_get_the_placeholders():
    for name in mcts_envs.list_games():
        kernels = mcts_envs.make_game(name).search_kernels
        assert isinstance(kernels, SearchKernels)
        knows = name == "ataxx"
        assert (kernels.has_evaluation, kernels.has_captures, kernels.has_null_move) == (
            knows,
            knows,
            knows,
        )
        assert (kernels.material_unit > 0) == knows


def quiescence_reference(state, depth: int, ply: int, plies: int) -> float:
    """``player_0``'s value of a depth-limited minimax on the heuristic whose leaves are
    searched on by capturing moves only (material gain >= 2, the mover may stand pat on the
    heuristic), ``plies`` plies at most: the search's documented quiescence."""
    player = ATAXX.current_player(state)
    if player == TERMINAL:
        value = float(ATAXX.returns(state)[0])
        return value - np.sign(value) * MATE_STEP * ply
    sign = 1.0 if player == 0 else -1.0
    if depth <= 0:
        stand = HEURISTIC_SCALE * (ATAXX.heuristic(state, 0) - ATAXX.heuristic(state, 1))
        if depth <= -plies:
            return stand
        values = [sign * stand] + [
            sign * quiescence_reference(ATAXX.apply(state, int(a)), depth - 1, ply + 1, plies)
            for a in ATAXX.legal_actions(state)
            if ataxx_search.material_gain(state, int(a)) >= CAPTURE_GAIN
        ]
        return sign * max(values)
    values = [
        sign * quiescence_reference(ATAXX.apply(state, int(a)), depth - 1, ply + 1, plies)
        for a in ATAXX.legal_actions(state)
    ]
    return sign * max(values)


def test_quiescence_values_equal_a_plain_capture_search():
    # positions near the end (few empty squares) keep the plain search small
    positions = [
        s for s in ataxx_positions(12, seed=40) if 3 <= sum(r.count(".") for r in board(s)[0]) <= 6
    ][::4][:8]
    assert len(positions) >= 5
    differs = 0
    for index, state in enumerate(positions):
        sign = 1.0 if ATAXX.current_player(state) == 0 else -1.0
        for depth, plies in ((1, 1), (1, 2), (2, 1)):
            expected = quiescence_reference(state, depth, 0, plies)
            options = {**MINIMAX_EQUIVALENT, "quiescence": plies}
            result = AlphaBetaAgent(seed=index, depth=depth, **options).search(ATAXX, state)
            assert sign * result.value == pytest.approx(expected, abs=1e-12), ATAXX.to_text(state)
            plain = AlphaBetaAgent(seed=index, depth=depth, **MINIMAX_EQUIVALENT)
            differs += plain.search(ATAXX, state).value != result.value
    assert differs > 0  # quiescence changed some values


def test_the_next_iteration_is_predicted_from_the_growth_of_the_last_two():
    assert _predicted([]) == 0.0
    assert _predicted([0.01]) == pytest.approx(0.03)  # assumed growth 3 before two are timed
    assert _predicted([0.01, 0.05]) == pytest.approx(0.25)  # measured growth 5
    assert _predicted([0.1, 0.1]) == pytest.approx(0.15)  # growth kept >= 1.5
    assert _predicted([0.001, 0.1]) == pytest.approx(1.0)  # and <= 10


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"evaluation": "share"}, "evaluation must be one of game, heuristic"),
        ({"pvs": "yes"}, "pvs must be true or false"),
        ({"aspiration": -0.1}, "aspiration must be a finite number in"),
        ({"futility": float("nan")}, "futility must be a finite number in"),
    ],
)
def test_bad_options_are_refused_naming_what_is_allowed(options, message):
    with pytest.raises(InvalidOptionError, match=message):
        AlphaBetaAgent(**options)


def test_every_game_is_searched_with_every_part_on():
    options = {"quiescence": 2, "aspiration": 0.01}
    for name in mcts_envs.list_games():
        game = mcts_envs.make_game(name)
        states = [s for s in random_states(game, 3) if game.current_player(s) >= 0][:6]
        # depth 3 of Tantrix (tile draws between the plies) is 180 million nodes, minutes a state
        depth = 2 if game.info.has_chance else 3
        agent = AlphaBetaAgent(seed=0, depth=depth, **options)
        for state in states:
            result = agent.search(game, state)
            assert result.action in game.legal_actions(state)
            assert -1.0 <= result.value <= 1.0
