"""Tournament openings: the starting position of each game pair.

Game pair ``p`` of every pairing starts both of its games (colours swapped) from opening ``p``:
the initial position, a position after ``K`` uniformly random plies (seeded by the master seed
and the pair, chance sampled), or the positions of a file, taken in turn.
"""

from __future__ import annotations

import json
import os

import numpy as np

from mcts_envs.agents.evaluation.games import OPENING_STREAM
from mcts_envs.core.errors import InvalidOptionError, InvalidRecordError
from mcts_envs.core.game import CHANCE, TERMINAL, Game, sample_chance_outcome
from mcts_envs.records import bounded_lines, check_record, quote

#: A random opening that ends the game is drawn again, at most this many times.
_OPENING_ATTEMPTS = 100
#: Most lines an openings file may have (blank lines and comments included).
MAX_OPENING_LINES = 1_000_000


def _random_opening(game: Game, plies: int, master_seed: int, pair: int) -> str:
    """The text of a position after ``plies`` uniformly random decisions (chance sampled)."""
    for attempt in range(_OPENING_ATTEMPTS):
        generator = np.random.default_rng(
            np.random.SeedSequence(master_seed, spawn_key=(OPENING_STREAM, pair, attempt))
        )
        state = game.initial_state()
        made = 0
        while True:
            player = game.current_player(state)
            if player == TERMINAL:
                break
            if player == CHANCE:
                state = game.apply(state, sample_chance_outcome(game, state, generator))
                continue
            if made == plies:
                return game.to_text(state)
            legal = game.legal_actions(state)
            state = game.apply(state, int(legal[generator.integers(len(legal))]))
            made += 1
    raise InvalidOptionError(
        f"{game.info.name}: {_OPENING_ATTEMPTS} random openings of {plies} plies all ended the "
        "game; use fewer plies"
    )


def read_openings(game: Game, path: str | os.PathLike) -> list[str]:
    """Openings from a file: one position per line, as ``game.to_text`` writes it, or JSON-lines
    game records (their ``final`` position). Blank lines and lines starting with ``#`` are skipped.

    At most :data:`MAX_OPENING_LINES` lines of at most
    :data:`~mcts_envs.records.MAX_LINE_BYTES` bytes are read (``/dev/zero`` fails at once).

    Raises:
        InvalidRecordError: naming the line of a position that does not parse (or is not UTF-8,
            or is too long), a file of too many lines, or a file with no position.
        FileNotFoundError: if the file does not exist.
    """
    openings = []
    with open(path, "rb") as stream:
        for number, raw in bounded_lines(stream, path, MAX_OPENING_LINES):
            where = f"{path}, line {number}"
            try:
                text = raw.decode("utf-8").strip()
            except UnicodeDecodeError as error:
                raise InvalidRecordError(
                    f"{where}: not UTF-8 text (byte {error.start + 1})"
                ) from None
            if not text or text.startswith("#"):
                continue
            if text.startswith("{"):
                try:
                    text = check_record(json.loads(text), where)["final"]
                except json.JSONDecodeError as error:
                    raise InvalidRecordError(f"{where}: not valid JSON ({error.msg})") from None
                except RecursionError:
                    raise InvalidRecordError(f"{where}: JSON nested too deeply") from None
            try:
                state = game.from_text(text)
            except (InvalidRecordError, ValueError) as error:
                raise InvalidRecordError(
                    f"{where}: not a {game.info.name} position: {error}"
                ) from None
            if game.current_player(state) == TERMINAL:
                raise InvalidRecordError(f"{where}: the position is already over")
            openings.append(game.to_text(state))
    if not openings:
        raise InvalidRecordError(f"{path}: no opening positions in the file")
    return openings


class Openings:
    """The opening of each game pair, made when asked (no list of every pair is kept).

    Args:
        game: the game.
        source: ``None`` (the initial position), ``"random:K"`` (K random plies, seeded by the
            master seed and the pair), or a file (see :func:`read_openings`; pair ``p`` uses its
            position ``p`` modulo their number).
        master_seed: the tournament's master seed.

    Raises:
        InvalidOptionError / InvalidRecordError / FileNotFoundError: for a bad source.
    """

    def __init__(self, game: Game, source: str | None, master_seed: int) -> None:
        self.game = game
        self.master_seed = master_seed
        self.plies: int | None = None
        self.positions: list[str] = []
        self._last: tuple[int, str] | None = None  # the pair asked last (both colours ask)
        if source is None:
            self.positions = [game.to_text(game.initial_state())]
            return
        kind, colon, rest = source.partition(":")
        if kind == "random" and colon:
            try:
                plies = int(rest)
            except ValueError:
                plies = -1
            most = 10 * max(game.info.max_game_length, 1)
            if not 0 <= plies <= most:
                raise InvalidOptionError(
                    f"--openings random:K needs 0 <= K <= {most} random plies, got {quote(source)}"
                )
            self.plies = plies
            self[0]  # an opening that cannot be made fails before any game
            return
        self.positions = read_openings(game, source)

    def __getitem__(self, pair: int) -> str:
        if self.plies is None:
            return self.positions[pair % len(self.positions)]
        if self._last is None or self._last[0] != pair:
            self._last = (pair, _random_opening(self.game, self.plies, self.master_seed, pair))
        return self._last[1]


def make_openings(game: Game, source: str | None, master_seed: int, pairs: int) -> list[str]:
    """The openings of game pairs ``0..pairs-1`` as a list (see :class:`Openings`)."""
    openings = Openings(game, source, master_seed)
    return [openings[pair] for pair in range(pairs)]
