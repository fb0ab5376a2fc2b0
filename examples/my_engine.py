#!/usr/bin/env python3
"""A tiny Ataxx engine speaking UAI on stdin/stdout: what ``uai:cmd=...`` specs run.

It plays the move after which its stones make the largest share of the board (the game's
heuristic), ties broken by its seeded generator. Any UAI engine joins the same way:

    mcts-envs match ataxx "uai:cmd=python my_engine.py" random --games 4
    mcts-envs ladder ataxx "uai:cmd=python my_engine.py" --games 10

Commands: ``uai``, ``isready``, ``setoption name Seed value N``, ``uainewgame``, ``position
startpos|fen FEN [moves M ...]``, ``go ...`` (every limit is ignored: the move takes
milliseconds), ``quit``.
"""

from __future__ import annotations

import sys

import numpy as np

import mcts_envs

GAME = mcts_envs.make_game("ataxx")
START = "x5o/7/7/7/7/7/o5x x 0 1"


def position(words: list[str]) -> np.ndarray:
    """The state of ``position startpos|fen FEN [moves ...]`` (``words`` after ``position``)."""
    moves = words.index("moves") if "moves" in words else len(words)
    state = GAME.from_text(START if words[0] == "startpos" else " ".join(words[1:moves]))
    for move in words[moves + 1 :]:
        state = GAME.apply(state, GAME.string_to_action(state, move))
    return state


def best_move(state: np.ndarray, rng: np.random.Generator) -> str:
    legal = GAME.legal_actions(state)
    mover = GAME.current_player(state)
    values = np.array([GAME.heuristic(GAME.apply(state, a), mover) for a in legal])
    return GAME.action_to_string(state, int(rng.choice(legal[values == values.max()])))


def main() -> None:
    seed = 0
    rng = np.random.default_rng(seed)
    state = GAME.from_text(START)
    for line in sys.stdin:
        command, *words = line.split() or [""]
        if command == "uai":
            print("id name my_engine\noption name Seed type spin default 0 min 0 max 2147483647")
            print("uaiok")
        elif command == "isready":
            print("readyok")
        elif command == "setoption" and words[:2] == ["name", "Seed"]:
            seed = int(words[3])
        elif command == "uainewgame":
            rng = np.random.default_rng(seed)
        elif command == "position":
            state = position(words)
        elif command == "go":
            print(f"bestmove {best_move(state, rng)}")
        elif command == "quit":
            break
        sys.stdout.flush()


if __name__ == "__main__":
    main()
