"""Games as text, for language models and text-game frameworks.

* :func:`env` / :class:`TextEnv`: a PettingZoo AEC env whose observation is a prompt (``str``)
  and whose action is a free-text answer (``str``), with an explicit invalid-answer policy;
* :class:`MoveHistory` / :func:`moves_played`: what a prompt knows of the past (a game followed
  from a start position; the move number of a position), for :meth:`TextEnv.follow`;
* :func:`parse_move`: the parser from free text to a legal move (``<move>...</move>``, else the
  last legal move named);
* :mod:`mcts_envs.text.textarena`: the five games registered in TextArena
  (``register_textarena()``; needs ``pip install textarena``).

JSON states are ``game.to_json(state)`` / ``game.from_json(obj)`` (:mod:`mcts_envs.core.json_state`).
Guide: docs/guides/text.md.
"""

from __future__ import annotations

from mcts_envs.text.env import (
    CHARSET,
    INVALID_POLICIES,
    MAX_ANSWER_LENGTH,
    MAX_PROMPT_LENGTH,
    TextEnv,
    env,
    game_card_rules,
)
from mcts_envs.text.history import MoveHistory, moves_played
from mcts_envs.text.parser import MOVE_TAG, find_last_move, legal_move_names, parse_move

__all__ = [
    "CHARSET",
    "INVALID_POLICIES",
    "MAX_ANSWER_LENGTH",
    "MAX_PROMPT_LENGTH",
    "MOVE_TAG",
    "MoveHistory",
    "TextEnv",
    "env",
    "find_last_move",
    "game_card_rules",
    "legal_move_names",
    "moves_played",
    "parse_move",
]
