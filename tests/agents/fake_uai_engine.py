"""A tiny, misbehaving UAI engine for tests of the ``uai:cmd=...`` client.

Usage: ``python fake_uai_engine.py MODE [AFTER]``. The engine plays the first legal move (on the
``ataxx`` PyPI package's board, an independent implementation of the rules) for its first
``AFTER`` moves of a game (default 0; ``uainewgame`` starts a game), then answers every ``go`` as MODE says:

* ``legal``: the first legal move, as before;
* ``pass``: ``bestmove pass`` (the word some engines send for the protocol's ``0000``);
* ``illegal``: a well-formed move onto an occupied square;
* ``garbage``: ``bestmove zz99``;
* ``crash``: exit with status 3 without answering;
* ``hang``: never answer, and ignore ``quit`` (only a kill ends it);
* ``timed``: the first legal move after sleeping the whole ``go movetime``;
* ``slow``: the first legal move after sleeping 0.3 s, whatever the ``go`` says;
* ``tenfold``: the first legal move after ten times the ``go movetime``;
* ``flood``: ``FLOOD_LINES`` ``info`` lines of ``FLOOD_CHARS`` characters, then the first legal
  move;
* ``longline``: a ``bestmove`` line of a million characters;
* ``endless``: ``ENDLESS_BYTES`` bytes without a newline, then nothing;
* ``immortal``: legal moves, but ``quit``, the end of its input and SIGTERM are ignored (only
  SIGKILL ends it).
* ``clock``: the first legal move when the ``go`` is ``go wtime N btime N`` with ``N`` the
  third argument (``python fake_uai_engine.py clock 0 N``), else ``bestmove zz99``.
"""

from __future__ import annotations

import signal
import sys
import time

import ataxx

FLOOD_LINES = 400_000
FLOOD_CHARS = 250
ENDLESS_BYTES = 50 * 2**20

SQUARES = [f"{file}{rank}" for rank in range(1, 8) for file in "abcdefg"]


def first_legal(fen: str) -> str:
    board = ataxx.Board(fen)
    return str(board.legal_moves()[0])


def occupied(fen: str) -> str:
    board = ataxx.Board(fen)
    return next(square for square in SQUARES if board.get(*_coordinates(square)) != ataxx.EMPTY)


def _coordinates(square: str) -> tuple[int, int]:
    return "abcdefg".index(square[0]), int(square[1]) - 1


def answer(mode: str, fen: str, words: list[str]) -> str | None:
    if mode == "pass":
        return "pass"
    if mode == "illegal":
        return occupied(fen)
    if mode == "garbage":
        return "zz99"
    if mode == "crash":
        sys.exit(3)
    if mode == "hang":
        return None
    if mode == "timed" and "movetime" in words:
        time.sleep(int(words[words.index("movetime") + 1]) / 1000)
    if mode == "slow":
        time.sleep(0.3)
    if mode == "tenfold" and "movetime" in words:
        time.sleep(10 * int(words[words.index("movetime") + 1]) / 1000)
    if mode == "flood":
        line = "info depth 1 nodes 1 pv " + "a" * (FLOOD_CHARS - 25) + "\n"
        sys.stdout.write(line * FLOOD_LINES)
    if mode == "longline":
        return "a" * 10**6
    if mode == "endless":
        sys.stdout.write("x" * ENDLESS_BYTES)
        sys.stdout.flush()
        return None
    if mode == "clock" and words[1:] != ["wtime", sys.argv[3], "btime", sys.argv[3]]:
        return "zz99"
    return first_legal(fen)


def main() -> None:
    mode = sys.argv[1]
    after = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    fen = ataxx.Board().get_fen()
    moves = 0
    hung = False
    if mode == "immortal":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    for line in sys.stdin:
        words = line.split()
        if not words or hung:
            continue
        command = words[0]
        if command == "uai":
            print("id name fake-" + mode)
            print("option name Seed type spin default 0 min 0 max 2147483647")
            print("uaiok")
        elif command == "isready":
            print("readyok")
        elif command == "uainewgame":
            moves = 0
        elif command == "position" and words[1:2] == ["fen"]:
            fen = " ".join(words[2:6])
        elif command == "go":
            moves += 1
            move = first_legal(fen) if moves <= after else answer(mode, fen, words)
            if move is None:
                hung = True
                continue
            print(f"bestmove {move}")
        elif command == "quit" and mode != "immortal":
            return
        sys.stdout.flush()
    while mode == "immortal":  # the end of the input: live on
        time.sleep(1)


if __name__ == "__main__":
    main()
