"""Search as an expert for language models: chat-format training data (``expert --format chat``).

:func:`generate_chat_data` plays the games of an :class:`~mcts_envs.agents.evaluation.expert.ExpertConfig`
with the one game loop (:func:`mcts_envs.agents.evaluation.games.play_game`, as the array dataset does),
the expert wrapped in a :class:`ChatRecorder`, and writes, for every decision of the expert, one
JSON object (one line of a ``.jsonl`` file)::

    {"messages": [{"role": "user", "content": PROMPT},
                  {"role": "assistant", "content": "<move>MOVE</move>"}],
     "move": "MOVE", "visits": {"b2": 0.61, "a1": 0.12, ...}, "value": 0.23,
     "outcome": 1.0, "finished": true, "game": "tictactoe", "game_index": 0, "ply": 0,
     "seat": 0, "spec": "mcts:iterations=400", "seed": 1}

``PROMPT`` is exactly what the text env (:class:`mcts_envs.text.TextEnv`) shows the agent on move
in that game (rules on its first move, the position with coordinates and its move number, the
opponent's moves and the chance outcomes since the agent's last move, the legal moves, how to
answer); ``visits`` is the search's visit distribution over the legal moves' names (moves without
visits left out), ``value`` its root value for the mover, ``outcome`` the mover's final return (0
for a game cut by ``max_moves``). Moves are chosen as ``mcts-envs expert`` chooses them (drawn
from the visits for the first ``temperature_moves`` decisions, then greedy), chance is drawn by
the game loop from the game's chance seed, and game ``i`` depends only on ``(config, i)``: the
same seed gives the same file, and the same games as the array dataset of the same config.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from mcts_envs.agents.evaluation.backends.workers import check_workers
from mcts_envs.agents.evaluation.expert import (
    ExpertConfig,
    ExpertMove,
    RecordingExpert,
    check_config,
    final_returns,
    play_expert_games,
    play_recorded_game,
)
from mcts_envs.agents.evaluation.games import GameRules, GameTask
from mcts_envs.core.errors import InvalidOptionError
from mcts_envs.core.game import Game
from mcts_envs.text import TextEnv

#: Decimals kept of visit fractions and values.
DECIMALS = 6


class ChatRecorder(RecordingExpert):
    """The expert as an agent that records chat rows (the module docstring's fields but the
    game's): at each of its decisions, the text env's prompt for the position
    (:meth:`mcts_envs.text.TextEnv.follow` of the game followed since its opening, chance
    outcomes included), the move it plays and its visit distribution over the move names.

    It decides as :class:`~mcts_envs.agents.evaluation.expert.RecordingExpert` does (the same moves from
    the same seeds); it keeps no array rows.
    """

    def __init__(self, expert: Any, temperature_moves: int, move_seed: int) -> None:
        super().__init__(expert, temperature_moves, move_seed)
        self.chat: list[dict[str, Any]] = []
        self.text_env: TextEnv | None = None

    def prepare(self, game: Game) -> None:
        """Prepare the expert and the text env of ``game``."""
        super().prepare(game)
        self.text_env = TextEnv(game.info.name, invalid="raise")
        self.text_env.reset(seed=0)  # no chance is drawn: follow() puts in each position

    def _prompt(self) -> str:
        """The text env's prompt for the agent on move, in the game followed since its opening
        (:attr:`history`: the prompts know no earlier move)."""
        env = self.text_env
        env.follow(self.history)
        return str(env.observe(env.agent_selection))

    def record(self, game: Game, state: np.ndarray, move: ExpertMove) -> None:
        """Keep the row of the decision ``move`` made at ``state``."""
        name = game.action_to_string(state, move.action)
        total = float(move.legal_policy.sum())
        visits = {
            game.action_to_string(state, int(a)): round(
                float(move.legal_policy[a]) / total, DECIMALS
            )
            for a in np.flatnonzero(move.legal_policy > 0)
        }
        answer = f"<move>{name}</move>"
        self.chat.append(
            {
                "messages": [
                    {"role": "user", "content": self._prompt()},
                    {"role": "assistant", "content": answer},
                ],
                "move": name,
                "visits": visits,
                "value": round(float(move.value), DECIMALS),
                "ply": self.ply,
                "seat": int(game.current_player(state)),
            }
        )


def play_chat_game(config: ExpertConfig, task: GameTask, rules: GameRules) -> list[dict]:
    """The rows of game ``task`` of ``config``, played by the one game loop
    (:func:`mcts_envs.agents.evaluation.expert.play_recorded_game`: the moves, seeds and chance draws of
    the same game of the array dataset) with a :class:`ChatRecorder`."""
    record, recorder = play_recorded_game(config, task, rules, ChatRecorder)
    finished, returns = final_returns(record)
    rows = []
    for row in recorder.chat:
        rows.append(
            {
                "messages": row["messages"],
                "move": row["move"],
                "visits": row["visits"],
                "value": row["value"],
                "game": record["game"],
                "game_index": task.index,
                "ply": row["ply"],
                "seat": row["seat"],
                "spec": config.spec,
                "seed": config.seed,
                "outcome": float(returns[row["seat"]]),
                "finished": finished,
            }
        )
    return rows


def chat_task_record(config: ExpertConfig, task: GameTask, rules: GameRules) -> dict[str, Any]:
    """What a backend returns for one game: its index and its chat rows."""
    return {"index": task.index, "chat": play_chat_game(config, task, rules)}


def generate_chat_data(config: ExpertConfig, workers: int = 1) -> Iterator[dict[str, Any]]:
    """The rows of every game of ``config``, game by game (module docstring), played on the
    evaluation backends (the games of the match ``config.spec`` vs ``config.opponent``).

    Raises:
        UnknownGameError / UnknownAgentError / InvalidOptionError: before any game (``symmetries``
            is refused: a prompt has no symmetry image).
    """
    config = check_config(config)
    if config.symmetries:
        raise InvalidOptionError("--format chat has no symmetry images; leave out --symmetries")
    check_workers(workers, "workers")
    played = sorted(play_expert_games(config, chat_task_record, workers), key=lambda r: r["index"])
    for record in played:
        yield from record["chat"]


def write_chat_data(
    path: str | os.PathLike, config: ExpertConfig, workers: int = 1, overwrite: bool = False
) -> int:
    """Write the rows of ``config`` as JSON lines to ``path``; returns the number of rows.

    The file is written beside ``path`` and renamed at the end, so an interrupted run leaves no
    half file under that name.

    Raises:
        InvalidOptionError: if ``path`` exists (without ``overwrite``) or is not a ``.jsonl`` file.
    """
    target = Path(path)
    if target.suffix != ".jsonl":
        raise InvalidOptionError(
            f"--format chat writes JSON lines: --out must end in .jsonl, got {path}"
        )
    if target.exists() and not overwrite:
        raise InvalidOptionError(
            f"--out {path} exists; pass --overwrite to replace it, or choose another file"
        )
    partial = target.with_name(target.name + ".partial")
    count = 0
    try:
        with open(partial, "w", encoding="utf-8") as stream:
            for row in generate_chat_data(config, workers):
                stream.write(json.dumps(row, ensure_ascii=True) + "\n")
                count += 1
        partial.replace(target)
    finally:
        if partial.exists():
            partial.unlink()
    return count
