"""The Ataxx (7x7) :class:`~mcts_envs.core.game.Game` (rules in :mod:`.kernels`).

Text record: the FEN of the Ataxx engines (libataxx, UAI), e.g. the start position
``"x5o/7/7/7/7/7/o5x x 0 1"``: ranks 7 to 1 separated by ``/``, each rank written from file a
to g with ``x`` (``player_0``), ``o`` (``player_1``) and digits 1-7 for runs of empty squares;
then the side to move (``x``/``o``), the halfmove clock and the fullmove number.

Move strings follow UAI: a copy is its destination (``"b6"``), a jump its origin and destination
(``"a7c5"``), the pass ``"0000"``.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from mcts_envs.core.errors import ActionTypeError, IllegalActionError, InvalidRecordError
from mcts_envs.core.game import (
    GameInfo,
    GameKernels,
    KernelGame,
    VectorKernels,
    check_action_type,
    describe_actions,
    parse_error,
)
from mcts_envs.core.search_kernels import SearchKernels
from mcts_envs.games.ataxx import kernels as k
from mcts_envs.games.ataxx import search
from mcts_envs.records import quote

TEXT_FORMAT = (
    "an Ataxx FEN such as 'x5o/7/7/7/7/7/o5x x 0 1': 7 ranks (7 to 1) of x/o/digits 1-7 "
    "separated by '/', the side to move (x or o), the halfmove clock (>= 0) and the fullmove "
    "number (>= 1), space-separated"
)
UAI_FORMAT = (
    "a UAI move: the destination of a copy ('b6'), origin and destination of a jump ('a7c5'), "
    "or '0000' to pass"
)
FILES = "abcdefg"
#: Largest clock value accepted in a FEN (keeps every field far from int64 overflow).
MAX_CLOCK = k.MAX_FULLMOVE

_UAI_MOVE = re.compile(r"^([a-g][1-7])([a-g][1-7])?$")
_CLOCK = re.compile(r"^[0-9]+$")


def square_name(square: int) -> str:
    """The algebraic name of a square index (0 is ``a7``, 48 is ``g1``)."""
    row, col = divmod(int(square), k.BOARD_SIZE)
    return f"{FILES[col]}{k.BOARD_SIZE - row}"


def square_index(name: str) -> int:
    """The index of a square name such as ``"c5"`` (no checks: use on validated names)."""
    return (k.BOARD_SIZE - int(name[1])) * k.BOARD_SIZE + FILES.index(name[0])


class Ataxx(KernelGame):
    """Ataxx on a 7x7 board: copy and jump moves, captures by adjacency, ``Discrete(834)``.

    Actions: ``0..48`` copy to a square, ``49 + from * 16 + offset`` jump (offsets in
    :data:`~mcts_envs.games.ataxx.kernels.JUMP_OFFSETS`), ``833`` pass. Squares are row-major
    from a7 (0) to g1 (48).
    """

    info = GameInfo(
        name="ataxx",
        num_actions=k.NUM_ACTIONS,
        max_game_length=k.MAX_GAME_LENGTH,
        has_chance=False,
        observation_shape=(7, 7, 4),
        state_size=k.STATE_SIZE,
        max_legal_actions=k.MAX_LEGAL_ACTIONS,
    )
    kernels = GameKernels.from_module(k)
    vector_kernels = VectorKernels.from_module(k)
    search_kernels = SearchKernels.from_module(search)
    svg_module = "mcts_envs.games.ataxx.svg"
    json_module = "mcts_envs.games.ataxx.json_state"
    symmetry_module = "mcts_envs.games.ataxx.symmetry"
    state_problem = staticmethod(k.state_problem)
    state_problems = k.STATE_PROBLEMS

    def initial_state(self) -> np.ndarray:
        return k.initial_state()

    def observation(self, state: np.ndarray, player: int) -> np.ndarray:
        """``int8[7, 7, 4]`` from ``player``'s view (row 0 is rank 7, column 0 is file a).

        Planes: 0 ``player``'s stones, 1 the opponent's, 2 empty squares, 3 empty squares that
        ``player`` could move to (by copy or jump).
        """
        planes = np.empty((7, 7, 4), np.int8)
        k.observation_planes(self.check_state(state), self.check_player(player), planes)
        return planes

    def board(self, state: np.ndarray) -> np.ndarray:
        """``int8[7, 7]``: 0 empty, 1 ``x`` (``player_0``), 2 ``o``; row 0 is rank 7."""
        self.check_state(state)
        cells = np.zeros(k.NUM_SQUARES, np.int8)
        for player in (0, 1):
            bits = int(state[player])
            for square in range(k.NUM_SQUARES):
                if (bits >> square) & 1:
                    cells[square] = player + 1
        return cells.reshape(k.BOARD_SIZE, k.BOARD_SIZE)

    def stone_counts(self, state: np.ndarray) -> tuple[int, int]:
        """The number of stones of ``player_0`` and ``player_1`` (of any int64 state array: the
        env's ``infos`` call this after every step, so only the type is checked)."""
        self._check_state_type(state)
        return bin(int(state[k.X_BOARD])).count("1"), bin(int(state[k.O_BOARD])).count("1")

    def moves_played(self, state: np.ndarray) -> int:
        """From the FEN's clocks: ``2 * (fullmove_number - 1)``, plus 1 with ``o`` to move
        (passes are decisions and count)."""
        self.check_state(state)
        return 2 * (int(state[k.FULLMOVE]) - 1) + int(state[k.SIDE])

    # -- moves as text ------------------------------------------------------------------------
    def move_to_uai(self, state: np.ndarray, action: int) -> str:
        """The UAI string of a legal ``action`` in ``state`` (``"b6"``, ``"a7c5"`` or ``"0000"``).

        Raises:
            ActionTypeError: if ``action`` is not an integer.
            IllegalActionError: if ``action`` is not legal in ``state``.
        """
        self.check_state(state)
        action = check_action_type(action)
        legal = self.legal_actions(state)
        if action not in legal:
            if not 0 <= action < k.NUM_ACTIONS:
                problem = f"action {action} is outside the action space 0..{k.NUM_ACTIONS - 1}"
            else:
                problem = f"action {action} is not legal here"
            raise IllegalActionError(f"ataxx: {problem}; legal here: {describe_actions(legal)}")
        if action < k.FIRST_JUMP:
            return square_name(action)
        if action == k.PASS:
            return "0000"
        origin, offset = divmod(action - k.FIRST_JUMP, k.NUM_JUMP_OFFSETS)
        return square_name(origin) + square_name(int(k.JUMP_TARGETS[origin, offset]))

    def uai_to_move(self, state: np.ndarray, text: str) -> int:
        """The action of the UAI move string ``text`` in ``state``.

        A copy may also be written with an origin at distance 1 (``"a7b6"``), as some engines
        do; it names the same action as ``"b6"``.

        Raises:
            InvalidRecordError: if ``text`` is not a UAI move string.
            IllegalActionError: if the move is well formed but not legal in ``state``.
        """
        self.check_state(state)
        if not isinstance(text, str):
            raise parse_error(
                "ataxx", text, f"a move is a str, not {type(text).__name__}", UAI_FORMAT
            )
        if text == "0000":
            action = k.PASS
        else:
            match = _UAI_MOVE.fullmatch(text)
            if match is None:
                raise parse_error("ataxx", text, "not a UAI move string", UAI_FORMAT)
            target = square_index(match.group(2) or match.group(1))
            if match.group(2) is None:
                action = target
            else:
                origin = square_index(match.group(1))
                distance = max(abs(origin // 7 - target // 7), abs(origin % 7 - target % 7))
                if distance == 1:
                    if not (int(state[int(state[k.SIDE])]) >> origin) & 1:
                        raise IllegalActionError(
                            f"ataxx: illegal move {text!r}: {match.group(1)} holds no stone of "
                            "the side to move"
                        )
                    action = target
                elif distance == 2:
                    offset = int(k.JUMP_OFFSET_INDEX[origin, target])
                    action = k.FIRST_JUMP + origin * k.NUM_JUMP_OFFSETS + offset
                else:
                    raise parse_error(
                        "ataxx",
                        text,
                        f"the squares are {distance} apart (a copy spans 1, a jump 2)",
                        UAI_FORMAT,
                    )
        legal = self.legal_actions(state)
        if action not in legal:
            names = ", ".join(self.move_to_uai(state, int(a)) for a in legal[:20])
            more = f", ... ({len(legal)} in all)" if len(legal) > 20 else ""
            reason = "the game is over" if len(legal) == 0 else f"legal here: {names}{more}"
            raise IllegalActionError(f"ataxx: illegal move {text!r}; {reason}")
        return int(action)

    notation = "a UAI move: the destination of a copy ('b6'), origin and destination of a jump ('a7c5'), or '0000' to pass"

    def action_to_string(self, state: np.ndarray, action: int) -> str:
        """The UAI string of ``action`` (see :meth:`move_to_uai`)."""
        return self.move_to_uai(state, action)

    def string_to_action(self, state: np.ndarray, text: str) -> int:
        """The action of a UAI move string, any case, spaces around ignored (see
        :meth:`uai_to_move`).

        Raises:
            ActionTypeError: if ``text`` is not a str.
            IllegalActionError: if ``text`` names no legal move here, well formed or not (as
                every game's ``string_to_action``; the message says how moves are written).
        """
        self.check_state(state)
        if not isinstance(text, str):
            raise ActionTypeError(f"a move is a str, got {type(text).__name__}")
        try:
            return self.uai_to_move(state, text.strip().lower())
        except InvalidRecordError as error:  # not a move string: an illegal move all the same
            legal = [self.move_to_uai(state, int(a)) for a in self.legal_actions(state)]
            listed = ", ".join(legal[:20]) + (
                f", ... ({len(legal)} in all)" if len(legal) > 20 else ""
            )
            raise IllegalActionError(f"{error}; legal here: {listed or 'none'}") from None

    def step_info(self, state: np.ndarray) -> dict[str, Any] | None:
        """Stone counts (``player_0``, ``player_1``) and the halfmove clock."""
        return {"stones": self.stone_counts(state), "halfmove_clock": int(state[k.HALFMOVE])}

    # -- positions as text --------------------------------------------------------------------
    def to_text(self, state: np.ndarray) -> str:
        """The FEN of ``state``, e.g. ``"x5o/7/7/7/7/7/o5x x 0 1"``."""
        board = self.board(self.check_state(state))
        ranks = []
        for row in board:
            rank, run = "", 0
            for value in row:
                if value == 0:
                    run += 1
                    continue
                if run:
                    rank += str(run)
                    run = 0
                rank += ".xo"[value]
            ranks.append(rank + (str(run) if run else ""))
        side = "xo"[int(state[k.SIDE])]
        return f"{'/'.join(ranks)} {side} {int(state[k.HALFMOVE])} {int(state[k.FULLMOVE])}"

    def from_text(self, text: str) -> np.ndarray:
        """Parse an Ataxx FEN (see the module docstring).

        Raises:
            InvalidRecordError: naming what is wrong: field count, rank count or length,
                characters other than ``x``, ``o`` and digits 1-7, the side to move, a clock
                that is negative, not an integer or above ``10**9``, a fullmove number below 1.
        """

        def fail(problem: str) -> InvalidRecordError:
            return parse_error("ataxx", text, problem, TEXT_FORMAT)

        if not isinstance(text, str):
            raise fail(f"a record is a str, not {type(text).__name__}")
        fields = text.split()
        if len(fields) != 4:
            raise fail(f"found {len(fields)} space-separated fields instead of 4")
        board_text, side, halfmove, fullmove = fields
        ranks = board_text.split("/")
        if len(ranks) != k.BOARD_SIZE:
            raise fail(f"found {len(ranks)} ranks instead of 7")
        state = np.zeros(k.STATE_SIZE, np.int64)
        for row, rank in enumerate(ranks):
            name = f"rank {k.BOARD_SIZE - row} ({quote(rank)})"
            col = 0
            previous_digit = False
            for char in rank:
                if col > 2 * k.BOARD_SIZE:
                    break  # far too long already (no need to read megabytes of it)
                if char in "1234567":
                    if previous_digit:
                        raise fail(f"{name} has two digits in a row")
                    col += int(char)
                    previous_digit = True
                    continue
                previous_digit = False
                if char == "-":
                    raise fail(
                        f"{name} has a blocked square '-', which 7x7 Ataxx without gaps lacks"
                    )
                if char not in "xo":
                    raise fail(
                        f"{name} has the bad character {quote(char)} (allowed: x, o, digits 1-7)"
                    )
                if col < k.BOARD_SIZE:
                    state["xo".index(char)] |= 1 << (row * k.BOARD_SIZE + col)
                col += 1
            if col != k.BOARD_SIZE:
                covers = f"{col} squares" if col <= 2 * k.BOARD_SIZE else "over 14 squares"
                raise fail(f"{name} covers {covers} instead of 7")
        if side not in ("x", "o"):
            raise fail(f"bad side to move {quote(side)} (allowed: x, o)")
        state[k.SIDE] = "xo".index(side)
        clocks = []
        for label, value, lowest in (
            ("halfmove clock", halfmove, 0),
            ("fullmove number", fullmove, 1),
        ):
            if value.startswith("-") and _CLOCK.fullmatch(value[1:]):
                raise fail(f"the {label} {quote(value)} is negative")
            if not _CLOCK.fullmatch(value):
                raise fail(f"the {label} {quote(value)} is not a non-negative integer")
            digits = value.lstrip("0") or "0"  # no int() of thousands of digits (ValueError)
            if len(digits) > len(str(MAX_CLOCK)) or int(digits) > MAX_CLOCK:
                raise fail(f"the {label} {quote(value)} is above {MAX_CLOCK}")
            if int(digits) < lowest:
                raise fail(f"the {label} must be at least {lowest}, got {value}")
            clocks.append(int(digits))
        state[k.HALFMOVE], state[k.FULLMOVE] = clocks
        k.update_status(state)
        return state
