"""Slow, obviously correct tactical oracles over the Game API, shared by the agent tests."""

from __future__ import annotations


def winning_moves(game, state) -> set[int]:
    """Moves after which the game is over and the mover has won (obvious loop over the API)."""
    mover = game.current_player(state)
    wins = set()
    for action in game.legal_actions(state):
        child = game.apply(state, action)
        if game.is_terminal(child) and game.returns(child)[mover] > 0:
            wins.add(int(action))
    return wins


def safe_moves(game, state) -> set[int]:
    """Moves after which the opponent, if on move, has no immediately winning move."""
    mover = game.current_player(state)
    safe = set()
    for action in game.legal_actions(state):
        child = game.apply(state, action)
        if game.current_player(child) != 1 - mover or not winning_moves(game, child):
            safe.add(int(action))
    return safe
