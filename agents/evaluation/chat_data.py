"""Search as an expert for language models: chat-format training data (``expert --format chat``).

:func:`generate_chat_data` plays the games of an :class:`~agents.evaluation.expert.ExpertConfig` through the
text env (:class:`mcts_envs.text.TextEnv`) and writes, for every decision of the expert, one JSON
object (one line of a ``.jsonl`` file)::

    {"messages": [{"role": "user", "content": PROMPT},
                  {"role": "assistant", "content": "<move>MOVE</move>"}],
     "move": "MOVE", "visits": {"b2": 0.61, "a1": 0.12, ...}, "value": 0.23,
     "outcome": 1.0, "finished": true, "game": "tictactoe", "game_index": 0, "ply": 0,
     "seat": 0, "spec": "mcts:iterations=400", "seed": 1}

``PROMPT`` is exactly what the text env shows the agent on move (rules on its first move, the
position with coordinates, the opponent's last move, the legal moves, how to answer); ``visits``
is the search's visit distribution over the legal moves' names (moves without visits left out),
``value`` its root value for the mover, ``outcome`` the mover's final return (0 for a game cut by
``max_moves``). Moves are chosen as ``mcts-envs expert`` chooses them (drawn from the visits for
the first ``temperature_moves`` decisions, then greedy), chance is drawn by the text env from the
game's seed, and game ``i`` depends only on ``(config, i)``: the same seed gives the same file.
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from agents.evaluation.backends import make_backend
from agents.evaluation.backends.workers import check_workers
from agents.evaluation.expert import ExpertConfig, check_config, expert_move, move_seed
from agents.evaluation.games import GameRules, GameTask, prepare_agents
from agents.spec import make_agent
from mcts_envs.core.errors import InvalidOptionError
from mcts_envs.records import move_cap

#: Decimals kept of visit fractions and values.
DECIMALS = 6


def play_chat_game(config: ExpertConfig, task: GameTask) -> list[dict]:
    """The rows of game ``task`` of ``config``: the expert's seeds and move generator are those
    of the same game of the array dataset (:func:`agents.evaluation.expert.move_seed`); chance
    is drawn by the text env with the task's chance seed."""
    from mcts_envs.text import TextEnv

    seed_a, seed_b, seed_chance = task.seeds
    env = TextEnv(config.game, invalid="raise")
    env.reset(seed=seed_chance)
    game = env.game
    expert = make_agent(config.spec, seed=seed_a)
    opponent = make_agent(config.opponent, seed=seed_b) if config.opponent else None
    players = [expert] if opponent is None else [expert, opponent]
    for agent in players:
        agent.restart(env.game_state)
    move_generator = np.random.default_rng(move_seed(task))
    expert_seat = task.colour
    limit = config.max_moves or move_cap(game)
    informed = len(env.base_env.history)
    for agent in players:  # chance outcomes drawn before the first decision
        for action in env.base_env.history[:informed]:
            agent.inform(int(action))
    rows: list[dict[str, Any]] = []
    ply = 0
    while env.outcome() is None and ply < limit:
        name = env.agent_selection
        seat = env.possible_agents.index(name)
        state = env.game_state
        if opponent is not None and seat != expert_seat:
            action = int(opponent.act_state(game, state))
            env.step(game.action_to_string(state, action))
        else:
            prompt = str(env.observe(name))
            move = expert_move(expert, game, state, ply, config.temperature_moves, move_generator)
            name_of_move = game.action_to_string(state, move.action)
            total = float(move.legal_policy.sum())
            visits = {
                game.action_to_string(state, int(a)): round(
                    float(move.legal_policy[a]) / total, DECIMALS
                )
                for a in np.flatnonzero(move.legal_policy > 0)
            }
            answer = f"<move>{name_of_move}</move>"
            rows.append(
                {
                    "messages": [
                        {"role": "user", "content": prompt},
                        {"role": "assistant", "content": answer},
                    ],
                    "move": name_of_move,
                    "visits": visits,
                    "value": round(float(move.value), DECIMALS),
                    "game": game.info.name,
                    "game_index": task.index,
                    "ply": ply,
                    "seat": seat,
                    "spec": config.spec,
                    "seed": config.seed,
                }
            )
            env.step(answer)
        ply += 1
        history = env.base_env.history
        for agent in players:
            for played in history[informed:]:
                agent.inform(int(played))
        informed = len(history)
    final = env.game_state
    finished = game.is_terminal(final)
    returns = game.returns(final) if finished else np.zeros(2)
    for row in rows:
        row["outcome"] = float(returns[row["seat"]])
        row["finished"] = bool(finished)
    return rows


def chat_task_record(config: ExpertConfig, task: GameTask, rules: GameRules) -> dict[str, Any]:
    """What a backend returns for one game: its index and its chat rows."""
    return {"index": task.index, "chat": play_chat_game(config, task)}


def generate_chat_data(config: ExpertConfig, workers: int = 1) -> Iterator[dict[str, Any]]:
    """The rows of every game of ``config``, game by game (module docstring), played on the
    evaluation backends (the games of the match ``config.spec`` vs ``config.opponent``).

    Raises:
        UnknownGameError / UnknownAgentError / InvalidOptionError: before any game (``symmetries``
            is refused: a prompt has no symmetry image).
    """
    from agents.evaluation.tournament import StopFlag, plan_match

    config = check_config(config)
    if config.symmetries:
        raise InvalidOptionError("--format chat has no symmetry images; leave out --symmetries")
    check_workers(workers, "workers")
    rules = GameRules(config.game)
    plan = plan_match(rules, config.spec, config.opponent or config.spec, config.games, config.seed)
    opening = plan.tasks[0].opening
    backend = make_backend(
        None, workers, plan.specs, opening, play=functools.partial(chat_task_record, config)
    )
    prepare_agents(config.game, plan.specs, opening)
    played = sorted(backend.run(iter(plan.tasks), plan.rules, StopFlag()), key=lambda r: r["index"])
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
