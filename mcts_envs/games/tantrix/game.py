"""The two-player Tantrix :class:`~mcts_envs.core.game.Game` (rules in :mod:`.kernels`).

Text record: space-separated ``key=value`` fields, tiles by their official numbers (1-56)::

    colors=RY first=highest status=decide mover=1 phase=free last=41:1
    hands=3.9.17.22.40.51/2.5.8.30.41.44 board=0,0:56@2;1,0:12@0

(one line in a record; wrapped here).

``colors`` the two players' colour letters (R, Y, B, G); ``first`` ``highest`` or ``player_0``;
``status`` ``deal``, ``draw``, ``decide``, ``finished`` or ``deadlock``; ``phase`` ``forced``
(first forced phase), ``free`` or ``forced_after``; ``last`` the tile last dealt or drawn and
who got it (or ``-``); ``hands`` both hands (``.``-separated, ``/`` between players, ``-`` for an
empty hand); ``board`` the placed tiles in placement order as ``q,r:tile@orientation`` (axial
coordinates, ``-`` for none). The bag is every tile not on the board or in a hand.

Move notation (:meth:`Tantrix.action_to_string`, read back by ``string_to_action``): a placement
is the tile number, ``@``, its orientation (0-5, steps of 60 degrees clockwise) and the axial cell,
``"#12@3 at (1,0)"``; typed moves may drop ``#``, ``at`` and the brackets: ``12@3 1,0``. Chance
outcomes are written ``"draw #12"``.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from mcts_envs.core.errors import InvalidOptionError
from mcts_envs.core.game import GameInfo, GameKernels, KernelGame, VectorKernels, parse_error
from mcts_envs.games.tantrix import hexgrid as hx
from mcts_envs.games.tantrix import kernels as k
from mcts_envs.games.tantrix.scoring import best_line, trace_line
from mcts_envs.games.tantrix.tiles import COLOUR_LETTERS, COLOUR_NAMES, NUM_TILES, TILE_ONE_HOT
from mcts_envs.records import quote

TEXT_FORMAT = (
    "key=value fields colors=RY first=highest|player_0 status=deal|draw|decide|finished|deadlock "
    "mover=0|1 phase=forced|free|forced_after last=TILE:PLAYER|- hands=T.T.../T.T... "
    "board=q,r:TILE@ORIENTATION;... (placement order, first at 0,0)"
)
STATUS_NAMES = ("deal", "draw", "decide", "finished", "deadlock")
PHASE_NAMES = ("forced", "free", "forced_after")
FIRST_PLAYER_OPTIONS = ("highest_tile", "player_0")
_PLACEMENT = re.compile(r"^#?\s*(\d+)\s*@\s*(\d+)\s*(?:at)?\s*\(?\s*(-?\d+)\s*,\s*(-?\d+)\s*\)?$")


def parse_colour(value: object) -> int:
    """Colour index of a colour name (``"red"``) or letter (``"R"``); raises on anything else."""
    if isinstance(value, str):
        text = value.strip().lower()
        for index, name in enumerate(COLOUR_NAMES):
            if text in (name, COLOUR_LETTERS[index].lower()):
                return index
    raise InvalidOptionError(
        f"unknown Tantrix colour {value!r}; allowed: {', '.join(COLOUR_NAMES)} (or R, Y, B, G)"
    )


class Tantrix(KernelGame):
    """Two-player Tantrix with chance draws, forced plays, restrictions and the endgame.

    Args:
        colors: the colours of ``player_0`` and ``player_1`` (names or letters; must differ).
        first_player: ``"highest_tile"`` (the holder of the highest-numbered tile starts, the
            official rule) or ``"player_0"``.

    Raises:
        InvalidOptionError: for an unknown colour, equal colours or an unknown first-player rule.
    """

    kernels = GameKernels.from_module(k)
    vector_kernels = VectorKernels.from_module(k)
    svg_module = "mcts_envs.games.tantrix.svg"
    json_module = "mcts_envs.games.tantrix.json_state"
    symmetry_module = "mcts_envs.games.tantrix.symmetry"
    state_problem = staticmethod(k.state_problem)
    state_problems = k.STATE_PROBLEMS

    def __init__(
        self,
        colors: tuple[str, str] = ("red", "yellow"),
        first_player: str = "highest_tile",
    ):
        if isinstance(colors, str) or len(tuple(colors)) != 2:
            raise InvalidOptionError(f"colors must be a pair of colours, got {colors!r}")
        self.colours = tuple(parse_colour(colour) for colour in colors)
        if self.colours[0] == self.colours[1]:
            raise InvalidOptionError(f"the two players' colours must differ, got {colors!r}")
        if first_player not in FIRST_PLAYER_OPTIONS:
            raise InvalidOptionError(
                f"first_player must be one of {FIRST_PLAYER_OPTIONS}, got {first_player!r}"
            )
        self.first_player = first_player
        self.info = GameInfo(
            name="tantrix",
            num_actions=k.NUM_ACTIONS,
            max_game_length=NUM_TILES,
            has_chance=True,
            observation_shape=(hx.WINDOW, hx.WINDOW, k.NUM_CHANNELS),
            state_size=k.STATE_SIZE,
            max_legal_actions=k.MAX_LEGAL_ACTIONS,
            max_chance_outcomes=k.MAX_CHANCE_OUTCOMES,
        )

    def __repr__(self) -> str:
        names = tuple(COLOUR_NAMES[c] for c in self.colours)
        return f"Tantrix(colors={names!r}, first_player={self.first_player!r})"

    # -- protocol -----------------------------------------------------------------------------
    def initial_state(self) -> np.ndarray:
        state = np.zeros(k.STATE_SIZE, np.int64)
        rule = k.FIRST_HIGHEST_TILE if self.first_player == "highest_tile" else k.FIRST_PLAYER_0
        k.init_state(state, self.colours[0], self.colours[1], rule)
        return state

    def observation(self, state: np.ndarray, player: int) -> np.ndarray:
        planes = np.zeros(self.info.observation_shape, np.int8)
        k.observation_planes(self.check_state(state), self.check_player(player), planes)
        return planes

    # -- readable views -----------------------------------------------------------------------
    def axial_of_cell(self, state: np.ndarray, cell: int) -> tuple[int, int]:
        """Axial ``(q, r)`` of window cell ``cell`` in ``state``."""
        self.check_state(state)
        index = int(hx.grid_index(cell))
        return int(state[k.BASE_Q]) + index // hx.SIDE, int(state[k.BASE_R]) + index % hx.SIDE

    def cell_of_axial(self, state: np.ndarray, q: int, r: int) -> int:
        """Window cell of axial ``(q, r)``; raises ``ValueError`` outside the window."""
        self.check_state(state)
        a, b = q - int(state[k.BASE_Q]), r - int(state[k.BASE_R])
        if not (1 <= a <= hx.WINDOW and 1 <= b <= hx.WINDOW):
            raise ValueError(f"cell ({q}, {r}) is outside the current window")
        return (a - 1) * hx.WINDOW + (b - 1)

    def _axial_of_index(self, state: np.ndarray, index: int) -> tuple[int, int]:
        return int(state[k.BASE_Q]) + index // hx.SIDE, int(state[k.BASE_R]) + index % hx.SIDE

    def board(self, state: np.ndarray) -> dict[tuple[int, int], tuple[int, int]]:
        """``{(q, r): (tile_number, orientation)}`` in placement order (tile numbers 1-56)."""
        self.check_state(state)
        result = {}
        for p in range(int(state[k.NUM_PLACED])):
            index = int(state[k.PLACED + p])
            code = int(state[k.GRID + index]) & hx.CODE_MASK
            result[self._axial_of_index(state, index)] = ((code - 1) // 6 + 1, (code - 1) % 6)
        return result

    def moves_played(self, state: np.ndarray) -> int:
        """The tiles on the board (every decision places one; the deal and the draws are
        chance outcomes)."""
        return int(self.check_state(state)[k.NUM_PLACED])

    def hands(self, state: np.ndarray) -> tuple[list[int], list[int]]:
        """Both hands as lists of tile numbers (1-56), in slot order."""
        self.check_state(state)
        return tuple(
            [int(state[k.HAND_0 + 6 * p + s]) + 1 for s in range(int(state[k.HAND_COUNT_0 + p]))]
            for p in (0, 1)
        )

    def bag(self, state: np.ndarray) -> list[int]:
        """Tile numbers still in the bag (a set, listed in increasing order)."""
        self.check_state(state)
        bits = int(state[k.BAG_BITS])
        return [t + 1 for t in range(NUM_TILES) if (bits >> t) & 1]

    def forced_spaces(self, state: np.ndarray) -> list[tuple[int, int]]:
        """Axial cells of the forced spaces (empty, three or more placed neighbours)."""
        self.check_state(state)
        return [
            self._axial_of_index(state, int(state[k.FORCED + i]))
            for i in range(int(state[k.FORCED_COUNT]))
        ]

    def phase_name(self, state: np.ndarray) -> str:
        """``deal``/``draw``/``finished``/``deadlock``, or the turn phase at a decision."""
        return self._phase_name(self.check_state(state))

    def _phase_name(self, state: np.ndarray) -> str:
        status = int(state[k.STATUS])
        if status != k.DECIDE:
            return STATUS_NAMES[status]
        return PHASE_NAMES[int(state[k.PHASE])]

    def scores(self, state: np.ndarray) -> tuple[int, int]:
        """Both players' best-line scores (rule 15)."""
        out = np.zeros(2, np.float64)
        k.line_scores(self.check_state(state), out)
        return int(out[0]), int(out[1])

    def best_lines(self, state: np.ndarray) -> list[dict[str, Any]]:
        """Per player: ``{"score", "loop", "cells"}`` of the best line (cells axial, in order)."""
        return self._best_lines(self.check_state(state))

    def _best_lines(self, state: np.ndarray) -> list[dict[str, Any]]:
        grid = state[k.GRID : k.GRID + hx.GRID_CELLS]
        placed = state[k.PLACED : k.PLACED + NUM_TILES]
        result = []
        for player in (0, 1):
            colour = int(state[k.COLOUR_0 + player])
            value, start, _, loop = best_line(grid, placed, int(state[k.NUM_PLACED]), colour)
            cells: list[tuple[int, int]] = []
            if start >= 0:
                buffer = np.empty(NUM_TILES, np.int64)
                length, _ = trace_line(grid, start, colour, buffer)
                cells = [self._axial_of_index(state, int(i)) for i in buffer[:length]]
            result.append({"score": int(value), "loop": bool(loop), "cells": cells})
        return result

    def decode_action(self, action: int) -> tuple[int, int, int]:
        """``(window_cell, orientation, hand_slot)`` of a placement action."""
        action = int(action)
        return action // 36, (action // 6) % 6, action % 6

    def action_for(self, state: np.ndarray, q: int, r: int, tile: int, orientation: int) -> int:
        """The action placing tile number ``tile`` (in the mover's hand) at ``(q, r)``.

        Raises:
            ValueError: if the mover does not hold ``tile`` or the cell is outside the window.
        """
        self.check_state(state)
        mover = int(state[k.MOVER])
        hand = self.hands(state)[mover]
        if tile not in hand:
            raise ValueError(f"player {mover} does not hold tile {tile} (hand: {hand})")
        cell = self.cell_of_axial(state, q, r)
        return (cell * 6 + orientation) * 6 + hand.index(tile)

    def placement_problem(self, state: np.ndarray, action: int) -> str:
        """Why ``action`` is illegal here (``"legal"`` if it is), from ``kernels.PROBLEM_NAMES``."""
        return k.PROBLEM_NAMES[int(k.placement_problem(self.check_state(state), int(action)))]

    def action_to_string(self, state: np.ndarray, action: int) -> str:
        self.check_state(state)
        if int(state[k.STATUS]) in (k.DEAL, k.DRAW):
            return f"draw #{int(action) + 1}"
        cell, orientation, slot = self.decode_action(action)
        q, r = self.axial_of_cell(state, cell)
        mover = int(state[k.MOVER])
        hand = self.hands(state)[mover]
        tile = f"#{hand[slot]}" if slot < len(hand) else f"slot {slot}"
        return f"{tile}@{orientation} at ({q},{r})"

    notation = (
        "tile@orientation and the axial cell q,r, e.g. '12@3 1,0' (tile 12 turned 3 steps "
        "clockwise on cell (1,0))"
    )

    def normalise_move_text(self, text: str) -> str:
        """The canonical spelling (``"#12@3 at (1,0)"``) of a placement typed as ``12@3 1,0``."""
        plain = " ".join(text.lower().split())
        match = _PLACEMENT.match(plain)
        if match is None:
            return plain
        tile, orientation, q, r = (int(group) for group in match.groups())
        return f"#{tile}@{orientation} at ({q},{r})"

    def step_info(self, state: np.ndarray) -> dict[str, Any]:
        """The env's ``infos``: the same keys at every step, each an int or two ints (by seat),
        so RL libraries can batch them (names of the codes: :data:`STATUS_NAMES`,
        :data:`PHASE_NAMES`)."""
        self.check_state(state)  # once (the env calls this after every step)
        last = int(state[k.LAST_DRAWN])
        lines = self._best_lines(state)
        return {
            "status": int(state[k.STATUS]),
            "phase": int(state[k.PHASE]),
            "scores": [int(lines[0]["score"]), int(lines[1]["score"])],
            "loops": [int(lines[0]["loop"]), int(lines[1]["loop"])],
            "last_drawn": 0 if last < 0 else last + 1,
            "drawn_by": -1 if last < 0 else int(state[k.LAST_DRAWER]),
            "bag_count": int(state[k.BAG_COUNT]),
            "forced_spaces": int(state[k.FORCED_COUNT]),
        }

    # -- records ------------------------------------------------------------------------------
    def to_text(self, state: np.ndarray) -> str:
        self.check_state(state)
        colours = "".join(COLOUR_LETTERS[int(state[k.COLOUR_0 + p])] for p in (0, 1))
        first = "highest" if int(state[k.FIRST_RULE]) == k.FIRST_HIGHEST_TILE else "player_0"
        last = int(state[k.LAST_DRAWN])
        last_text = "-" if last < 0 else f"{last + 1}:{int(state[k.LAST_DRAWER])}"
        hands = "/".join(".".join(map(str, hand)) or "-" for hand in self.hands(state))
        board = ";".join(
            f"{q},{r}:{tile}@{orientation}"
            for (q, r), (tile, orientation) in self.board(state).items()
        )
        return (
            f"colors={colours} first={first} status={STATUS_NAMES[int(state[k.STATUS])]} "
            f"mover={int(state[k.MOVER])} phase={PHASE_NAMES[int(state[k.PHASE])]} "
            f"last={last_text} hands={hands} board={board or '-'}"
        )

    def from_text(self, text: str) -> np.ndarray:
        """Parse a record (see the module docstring) into a state the kernels can play.

        Every accepted record satisfies the invariants the kernels rely on (checked in
        :func:`invariant_problem`): at most six tiles per hand, each tile once, a connected
        board that obeys the golden rule, a chance node only with tiles in the bag and a hand
        with room for the tile, a decision only when the mover can place a tile.

        Raises:
            InvalidRecordError: naming what is wrong (the record is quoted up to a bounded length).
        """

        def fail(problem: str):
            return parse_error("tantrix", text, problem, TEXT_FORMAT)

        if not isinstance(text, str):
            raise fail(f"a record is a str, not {type(text).__name__}")
        fields: dict[str, str] = {}
        for token in text.split():
            key, sep, value = token.partition("=")
            if not sep or key in fields:
                raise fail(f"bad or repeated field {quote(token)}")
            fields[key] = value
        needed = ("colors", "first", "status", "mover", "phase", "last", "hands", "board")
        missing = [key for key in needed if key not in fields]
        extra = [quote(key) for key in fields if key not in needed]
        if missing or extra:
            raise fail(f"missing fields {missing} / unknown fields [{', '.join(extra[:8])}]")
        colours = fields["colors"]
        if (
            len(colours) != 2
            or any(c not in COLOUR_LETTERS for c in colours)
            or colours[0] == colours[1]
        ):
            raise fail(f"colors must be two different letters of RYBG, got {quote(colours)}")
        rules = {"highest": k.FIRST_HIGHEST_TILE, "player_0": k.FIRST_PLAYER_0}
        if fields["first"] not in rules:
            raise fail(f"first must be 'highest' or 'player_0', got {quote(fields['first'])}")
        if fields["status"] not in STATUS_NAMES:
            raise fail(f"unknown status {quote(fields['status'])}")
        if fields["mover"] not in ("0", "1"):
            raise fail(f"mover must be 0 or 1, got {quote(fields['mover'])}")
        if fields["phase"] not in PHASE_NAMES:
            raise fail(f"unknown phase {quote(fields['phase'])}")

        def tile_number(value: str) -> int:
            if not _TILE_NUMBER.fullmatch(value) or not 1 <= int(value) <= NUM_TILES:
                raise fail(f"tile numbers are 1..56 (ASCII digits), got {quote(value)}")
            return int(value)

        hand_texts = fields["hands"].split("/")
        if len(hand_texts) != 2:
            raise fail("hands must be two lists separated by '/'")
        hand_items = [[] if h == "-" else h.split(".") for h in hand_texts]
        if any(len(items) > k.HAND_SIZE for items in hand_items):
            raise fail("a hand holds at most 6 tiles")
        hands = [[tile_number(t) for t in items] for items in hand_items]
        placements = []
        if fields["board"] != "-":
            items = fields["board"].split(";")
            if len(items) > NUM_TILES:
                raise fail(f"the board holds at most {NUM_TILES} tiles, got {len(items)}")
            for item in items:
                match = _BOARD_ENTRY.fullmatch(item)
                if not match:
                    raise fail(
                        f"bad board entry {quote(item)} (q,r:TILE@ORIENTATION, integer "
                        "coordinates of at most 6 digits, orientation 0..5)"
                    )
                q, r, orientation = int(match[1]), int(match[2]), int(match[4])
                placements.append((q, r, tile_number(match[3]), orientation))
        used = [t for hand in hands for t in hand] + [p[2] for p in placements]
        if len(set(used)) != len(used):
            raise fail("a tile appears twice")

        state = np.zeros(k.STATE_SIZE, np.int64)
        k.init_state(
            state,
            COLOUR_LETTERS.index(colours[0]),
            COLOUR_LETTERS.index(colours[1]),
            rules[fields["first"]],
        )
        occupied: set[tuple[int, int]] = set()
        for number, (q, r, tile, orientation) in enumerate(placements):
            if number == 0 and (q, r) != (0, 0):
                raise fail("the first tile must be at 0,0")
            if (q, r) in occupied:
                raise fail(f"cell {q},{r} is used twice")
            if number > 0 and not any(
                (q + dq, r + dr) in occupied
                for dq, dr in zip(hx.DIRECTION_Q, hx.DIRECTION_R, strict=True)
            ):
                raise fail(f"tile {tile} at {q},{r} does not touch an earlier tile")
            index = (q - int(state[k.BASE_Q])) * hx.SIDE + (r - int(state[k.BASE_R]))
            grid = state[k.GRID : k.GRID + hx.GRID_CELLS]
            required, mask = hx.cell_demands(grid, index)
            if int(TILE_ONE_HOT[tile - 1, orientation]) & int(mask) != int(required):
                raise fail(f"tile {tile}@{orientation} at {q},{r} breaks the golden rule")
            k.place_tile(state, index, tile - 1, orientation)
            occupied.add((q, r))
        for player, hand in enumerate(hands):
            for tile in hand:
                k.add_to_hand(state, player, tile - 1)
        bag_bits = k.ALL_TILES
        for tile in used:
            bag_bits &= ~(1 << (tile - 1))
        state[k.BAG_BITS] = bag_bits
        state[k.BAG_COUNT] = NUM_TILES - len(used)
        state[k.PLACEMENTS] = len(placements)
        status = STATUS_NAMES.index(fields["status"])
        state[k.STATUS] = status
        state[k.MOVER] = int(fields["mover"])
        state[k.PHASE] = PHASE_NAMES.index(fields["phase"])
        if status == k.DEAL:
            state[k.DEALT] = len(hands[0]) + len(hands[1])
        else:
            state[k.DEALT] = k.DEAL_SIZE
        if fields["last"] != "-":
            match = _LAST_DRAW.fullmatch(fields["last"])
            if not match:
                raise fail(f"bad last draw {quote(fields['last'])} (TILE:PLAYER or -)")
            state[k.LAST_DRAWN] = tile_number(match[1]) - 1
            state[k.LAST_DRAWER] = int(match[2])
        problem = invariant_problem(state)
        if problem is not None:
            raise fail(problem)
        return state


#: A tile number: ASCII digits only (``str.isdigit`` also accepts "²" and "①").
_TILE_NUMBER = re.compile(r"[0-9]{1,3}")
#: ``q,r:TILE@ORIENTATION``; coordinates beyond 6 digits cannot touch a connected board.
_BOARD_ENTRY = re.compile(r"(-?[0-9]{1,6}),(-?[0-9]{1,6}):([0-9]+)@([0-5])")
_LAST_DRAW = re.compile(r"([0-9]+):([01])")


def invariant_problem(state: np.ndarray) -> str | None:
    """What makes ``state`` unplayable by the kernels (``None`` if nothing): the one check.

    ``state`` holds a board built by :func:`.kernels.place_tile` (connected, golden rule) and
    hands of at most six distinct tiles, so the bag is what is left. The kernels further assume
    what play guarantees:

    * ``deal``: an empty board, ``player_0`` dealt first and tiles alternating (hands differ by
      at most one, fewer than 12 dealt), the last tile dealt held by the player who got it;
    * ``draw``: a tile in the bag, a placement before it and room in the drawer's (the
      mover's) hand (a draw into a full hand would write a seventh slot over the other hand
      or the board);
    * ``decide``: at least one legal placement for the mover in the phase (a random playout
      picks among them);
    * ``finished``: all 56 tiles placed; ``deadlock``: phase ``free`` and a mover holding
      tiles with no legal placement;
    * the last tile drawn is not in the bag.
    """
    status = int(state[k.STATUS])
    mover = int(state[k.MOVER])
    counts = (int(state[k.HAND_COUNT_0]), int(state[k.HAND_COUNT_1]))
    placed = int(state[k.NUM_PLACED])
    bag = int(state[k.BAG_COUNT])
    last = int(state[k.LAST_DRAWN])
    if last >= 0 and (int(state[k.BAG_BITS]) >> last) & 1:
        return f"the last tile drawn ({last + 1}) cannot still be in the bag"
    if status == k.DEAL:
        dealt = counts[0] + counts[1]
        if placed or counts[0] - counts[1] not in (0, 1):
            return "during the deal the board is empty and hands differ by at most one"
        if dealt >= k.DEAL_SIZE:
            return "a deal in progress has fewer than 12 tiles dealt"
        if dealt == 0 and last >= 0:
            return "no tile has been dealt yet, so last must be '-'"
        if dealt > 0:
            receiver = (dealt - 1) % 2
            hand = state[k.HAND_0 + 6 * receiver : k.HAND_0 + 6 * receiver + counts[receiver]]
            if int(state[k.LAST_DRAWER]) != receiver or last not in hand:
                return (
                    f"after {dealt} tiles dealt the last one went to player {receiver} "
                    f"and is in that hand (last=TILE:{receiver})"
                )
    elif status == k.DRAW:
        if bag == 0:
            return "status=draw needs a tile in the bag (the bag is empty)"
        if placed == 0:
            return "status=draw follows a placement, but the board is empty"
        if counts[mover] >= k.HAND_SIZE:
            return f"status=draw: the mover (player {mover}) draws, so holds at most 5 tiles"
    elif status == k.DECIDE:
        buffer = np.empty(k.MAX_LEGAL_ACTIONS, np.int64)
        if k.legal_actions(state, buffer) == 0:
            return "status=decide but the mover has no legal placement in this phase"
    elif status == k.FINISHED:
        if placed != NUM_TILES:
            return "status=finished needs all 56 tiles on the board"
    elif status == k.DEADLOCK:
        if int(state[k.PHASE]) != k.PHASE_FREE or counts[mover] == 0:
            return "status=deadlock: the mover holds tiles and is in the free phase"
        buffer = np.empty(k.MAX_LEGAL_ACTIONS, np.int64)
        if k.generate(state, buffer, False, True) > 0:
            return "status=deadlock but the mover has a legal placement"
    return None
