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

import json
import os
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from agents.evaluation.backends.workers import exit_with_parent
from agents.evaluation.expert import ExpertConfig, check_config, search_targets
from agents.evaluation.games import task_seeds
from agents.preparation import first_decision, prepare_spec
from agents.spec import make_agent
from agents.temperature import alphazero_temperature, sample_action
from mcts_envs.core.errors import InvalidOptionError
from mcts_envs.core.registry import make_game

__all__ = ["CHAT_FORMAT", "generate_chat_data", "play_chat_game", "write_chat_data"]

#: Version of the row layout above.
CHAT_FORMAT = 1
#: Decimals kept of visit fractions and values.
DECIMALS = 6


def game_seeds(seed: int, games: int):
    """Per-game ``(expert, opponent, chance, move sampling)`` seeds: game ``i``'s are those of
    game ``i`` of the match (:func:`agents.evaluation.games.task_seeds`), as ``expert`` uses."""
    for index in range(games):
        seed_a, seed_b, chance = task_seeds(seed, 0, index // 2, index % 2)
        yield seed_a, seed_b, chance, seed_a ^ 0x5EED


def play_chat_game(config: ExpertConfig, index: int, seeds: tuple[int, ...]) -> list[dict]:
    """The rows of game ``index`` of ``config`` (seeds as :func:`game_seeds`)."""
    from mcts_envs.text import TextEnv

    env = TextEnv(config.game, invalid="raise")
    env.reset(seed=seeds[2])
    game = env.game
    expert = make_agent(config.spec, seed=seeds[0])
    opponent = make_agent(config.opponent, seed=seeds[1]) if config.opponent else None
    players = [expert] if opponent is None else [expert, opponent]
    for agent in players:
        agent.restart(env.game_state)
    move_generator = np.random.default_rng(seeds[3])
    expert_seat = index % 2
    limit = config.max_moves or 100 * max(game.info.max_game_length, 1)
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
            mask = game.action_mask(state)
            probs, value = search_targets(expert, game, state)
            legal_probs = np.where(mask > 0, np.maximum(probs, 0.0), 0.0)
            if not legal_probs.sum() > 0:  # a target without legal mass: play uniformly
                legal_probs = mask.astype(np.float64)
            temperature = alphazero_temperature(ply, config.temperature_moves)
            action = sample_action(legal_probs, temperature, move_generator)
            move = game.action_to_string(state, action)
            total = float(legal_probs.sum())
            visits = {
                game.action_to_string(state, int(a)): round(float(legal_probs[a]) / total, DECIMALS)
                for a in np.flatnonzero(legal_probs > 0)
            }
            answer = f"<move>{move}</move>"
            rows.append(
                {
                    "messages": [
                        {"role": "user", "content": prompt},
                        {"role": "assistant", "content": answer},
                    ],
                    "move": move,
                    "visits": visits,
                    "value": round(float(value), DECIMALS),
                    "game": game.info.name,
                    "game_index": index,
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


def _play_star(arguments: tuple) -> list[dict]:
    return play_chat_game(*arguments)


def _start_worker(config: ExpertConfig) -> None:
    exit_with_parent()
    _prepare(config)


def _prepare(config: ExpertConfig) -> None:
    game = make_game(config.game)
    state = first_decision(game)
    for spec in (config.spec, config.opponent):
        if spec is not None:
            prepare_spec(game, spec, state)


def generate_chat_data(config: ExpertConfig, workers: int = 1) -> Iterator[dict[str, Any]]:
    """The rows of every game of ``config``, game by game (module docstring).

    Raises:
        UnknownGameError / UnknownAgentError / InvalidOptionError: before any game (``symmetries``
            is refused: a prompt has no symmetry image).
    """
    config = check_config(config)
    if config.symmetries:
        raise InvalidOptionError("--format chat has no symmetry images; leave out --symmetries")
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise InvalidOptionError(f"workers must be an int >= 1, got {workers!r}")
    jobs = [
        (config, index, seeds) for index, seeds in enumerate(game_seeds(config.seed, config.games))
    ]
    if workers == 1:
        _prepare(config)
        for job in jobs:
            yield from play_chat_game(*job)
        return
    with ProcessPoolExecutor(
        max_workers=workers, initializer=_start_worker, initargs=(config,)
    ) as pool:
        for rows in pool.map(_play_star, jobs):
            yield from rows


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
