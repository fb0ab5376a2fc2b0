"""Expert datasets: a search agent's decisions recorded as training data (imitation, AlphaZero).

:func:`generate_expert_data` plays ``games`` games of one game with an expert agent spec, either
against itself (self-play: the expert decides for both seats) or against an ``opponent`` spec
(seats alternate: the expert is ``player_0`` in even-numbered games; only its decisions are
recorded). At each recorded decision it asks the expert for its search targets
(:func:`search_targets`: the visit distribution and the root value) and plays a move drawn from
that distribution at the temperature of AlphaZero's schedule
(:func:`agents.temperature.alphazero_temperature`: proportional for the first
``temperature_moves`` decisions, greedy afterwards).

Reproducible: game ``i`` is a function of ``(config, i)`` only (its seeds come from
``numpy.random.SeedSequence(seed).spawn(games)[i]``, fresh agents per game), so the output is
identical for any number of worker processes (for experts with iteration or depth budgets; a
budget in seconds depends on the machine's speed).

File format (``.npz``; ``numpy.load(path)`` reads it, no pickle; ``N`` rows, one per recorded
decision, times the number of symmetries with ``symmetries=True``):

=================  =====================================  ==========================================
key                shape, dtype                           meaning
=================  =====================================  ==========================================
``observations``   ``[N, *observation_shape]``, game's    the mover's observation planes
``masks``          ``[N, num_actions]`` int8              legal actions (1)
``policies``       ``[N, num_actions]`` float32           the expert's visit distribution
``values``         ``[N]`` float32                        root value, mover's view, in [-1, 1]
``outcomes``       ``[N]`` float32                        final return for the mover (+1/0/-1; 0 if
                                                          the game was cut by ``max_moves``)
``finished``       ``[N]`` bool                           the game reached its end
``actions``        ``[N]`` int32                          the move played (image under the symmetry)
``players``        ``[N]`` int8                           the mover (0 or 1)
``game_index``     ``[N]`` int32                          which game (0-based)
``ply``            ``[N]`` int32                          decision number in that game (0-based,
                                                          both players' decisions, no chance)
``symmetry``       ``[N]`` int8                           index into ``symmetry_names`` (0: as played)
``game``           ``()`` str                             the game's registry name
``spec``,          ``()`` str                             expert spec; opponent spec (``""``: self-play)
``opponent``
``seed``,          ``()`` int64                           master seed; number of games
``num_games``
``temperature_     ``()`` int64                           decisions played at temperature 1
moves``
``symmetry_names`` ``[S]`` str                            names of the symmetries applied
``format_version`` ``()`` int64                           :data:`FORMAT_VERSION`
=================  =====================================  ==========================================

Rows are ordered by game, then ply, then symmetry.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from agents.arena import prepare_agents
from agents.spec import make_agent
from agents.temperature import alphazero_temperature, sample_action
from agents.workers import check_count, check_workers, exit_with_parent, ordered_map, spawned_words
from mcts_envs.core.errors import InvalidRecordError
from mcts_envs.core.game import CHANCE, TERMINAL, Game, sample_chance_outcome
from mcts_envs.core.registry import make_game
from mcts_envs.core.seeding import check_seed
from mcts_envs.core.symmetry import game_symmetries
from mcts_envs.records import move_cap

#: Version of the ``.npz`` layout described in the module docstring.
FORMAT_VERSION = 1

#: Per-decision arrays of a dataset, in file order.
ROW_FIELDS = (
    "observations",
    "masks",
    "policies",
    "values",
    "outcomes",
    "finished",
    "actions",
    "players",
    "game_index",
    "ply",
    "symmetry",
)


class ExpertConfig(NamedTuple):
    """What to record.

    Attributes:
        game: game name (see ``mcts_envs.list_games()``).
        spec: the expert's agent spec, e.g. ``"mcts:iterations=800"``.
        games: number of games.
        seed: master seed.
        opponent: a second agent spec, or ``None`` for self-play.
        symmetries: add every symmetry image of each decision (games with symmetry maps).
        temperature_moves: the first this many decisions of a game are drawn in proportion to the
            visit distribution, later ones greedily (ties broken by the game's seed).
        max_moves: stop a game after this many decisions (default: no limit but the game's).
    """

    game: str
    spec: str
    games: int
    seed: int = 0
    opponent: str | None = None
    symmetries: bool = False
    temperature_moves: int = 0
    max_moves: int | None = None


def check_config(config: ExpertConfig) -> ExpertConfig:
    """Validate ``config`` before any game is played (normalises the game name).

    Raises:
        UnknownGameError / UnknownAgentError / InvalidOptionError: naming what is allowed.
    """
    game = make_game(config.game)
    make_agent(config.spec, seed=0)
    if config.opponent is not None:
        make_agent(config.opponent, seed=0)
    check_count(config.games, "games")
    check_count(config.temperature_moves, "temperature_moves", minimum=0, maximum=move_cap(game))
    if config.max_moves is not None:
        check_count(config.max_moves, "max_moves", maximum=move_cap(game))
    if config.symmetries:
        game_symmetries(game.info.name)  # raises for games without maps, saying why
    return config._replace(game=game.info.name, seed=check_seed(config.seed, allow_none=False))


def search_targets(agent: Any, game: Game, state: np.ndarray) -> tuple[np.ndarray, float]:
    """The expert's training targets at ``state``: ``(visit distribution float64[num_actions],
    root value for the mover)``. The one place that asks a search for them."""
    probs, value = agent.policy(game, state)
    return np.asarray(probs, np.float64), float(value)


def game_seeds(seed: int, games: int) -> Iterator[tuple[int, int, int, int]]:
    """Per-game ``(expert, opponent, chance, move sampling)`` seeds from one master seed, each
    computed when reached (those of ``SeedSequence(seed).spawn(games)``)."""
    master = np.random.SeedSequence(seed)
    return (spawned_words(master, index, 4) for index in range(games))  # type: ignore[misc]


def _inform(agents: list[Any], action: int) -> None:
    for agent in agents:
        inform = getattr(agent, "inform", None)
        if inform is not None:
            inform(action)


def play_expert_game(
    config: ExpertConfig, index: int, seeds: tuple[int, ...]
) -> dict[str, np.ndarray]:
    """Play game ``index`` of ``config`` and return its rows (no symmetry images yet)."""
    game = make_game(config.game)
    expert = make_agent(config.spec, seed=seeds[0])
    opponent = make_agent(config.opponent, seed=seeds[1]) if config.opponent else None
    chance_generator = np.random.default_rng(seeds[2])
    move_generator = np.random.default_rng(seeds[3])
    expert_seat = index % 2
    agents = [expert] if opponent is None else [expert, opponent]
    limit = config.max_moves or 100 * max(game.info.max_game_length, 1)
    rows: dict[str, list] = {name: [] for name in ROW_FIELDS}
    state = game.initial_state()
    ply = 0
    while True:
        player = game.current_player(state)
        if player == TERMINAL or ply >= limit:
            break
        if player == CHANCE:
            action = sample_chance_outcome(game, state, chance_generator)
        elif opponent is not None and player != expert_seat:
            action = int(opponent.act_state(game, state))
        else:
            mask = game.action_mask(state)
            probs, value = search_targets(expert, game, state)
            legal_probs = np.where(mask > 0, np.maximum(probs, 0.0), 0.0)
            if not legal_probs.sum() > 0:  # a target without legal mass: play uniformly
                legal_probs = mask.astype(np.float64)
            temperature = alphazero_temperature(ply, config.temperature_moves)
            action = sample_action(legal_probs, temperature, move_generator)
            rows["observations"].append(game.observation(state, player))
            rows["masks"].append(mask)
            rows["policies"].append(probs)
            rows["values"].append(value)
            rows["actions"].append(action)
            rows["players"].append(player)
            rows["ply"].append(ply)
        if player != CHANCE:
            ply += 1
        state = game.apply(state, action)
        _inform(agents, action)
    finished = game.current_player(state) == TERMINAL
    returns = game.returns(state) if finished else np.zeros(2)
    count = len(rows["actions"])
    return {
        "observations": np.array(rows["observations"], game.info.observation_dtype).reshape(
            count, *game.info.observation_shape
        ),
        "masks": np.array(rows["masks"], np.int8).reshape(count, game.info.num_actions),
        "policies": np.array(rows["policies"], np.float32).reshape(count, game.info.num_actions),
        "values": np.array(rows["values"], np.float32),
        "outcomes": np.array([returns[p] for p in rows["players"]], np.float32),
        "finished": np.full(count, finished, np.bool_),
        "actions": np.array(rows["actions"], np.int32),
        "players": np.array(rows["players"], np.int8),
        "game_index": np.full(count, index, np.int32),
        "ply": np.array(rows["ply"], np.int32),
        "symmetry": np.zeros(count, np.int8),
    }


def _play_star(arguments: tuple) -> dict[str, np.ndarray]:
    return play_expert_game(*arguments)


def _prepare(config: ExpertConfig) -> None:
    """Compile the agents once per process, before any game (games are unaffected)."""
    specs = [spec for spec in (config.spec, config.opponent) if spec is not None]
    prepare_agents(config.game, specs)


def _start_worker(config: ExpertConfig) -> None:
    """Initializer of dataset worker processes: exit with the parent, then prepare."""
    exit_with_parent()
    _prepare(config)


def _iterate_games(config: ExpertConfig, workers: int) -> Iterator[dict[str, np.ndarray]]:
    jobs = (
        (config, index, seeds) for index, seeds in enumerate(game_seeds(config.seed, config.games))
    )
    if workers == 1:
        _prepare(config)
        for job in jobs:
            yield play_expert_game(*job)
        return
    with ProcessPoolExecutor(
        max_workers=workers, initializer=_start_worker, initargs=(config,)
    ) as pool:
        yield from ordered_map(pool, _play_star, jobs, workers)


def augment(data: dict[str, np.ndarray], game_name: str) -> dict[str, np.ndarray]:
    """Rows expanded by every symmetry of the game (each decision followed by its images).

    Raises:
        InvalidOptionError: if the game has no symmetry maps.
    """
    symmetries = game_symmetries(game_name)
    count = len(symmetries)
    images: dict[str, list[np.ndarray]] = {name: [] for name in ROW_FIELDS}
    for symmetry in range(count):
        observations, masks, policies, actions = symmetries.transform_rows(
            symmetry, data["observations"], data["masks"], data["policies"], data["actions"]
        )
        images["observations"].append(observations)
        images["masks"].append(masks)
        images["policies"].append(policies)
        images["actions"].append(actions.astype(np.int32))
        images["symmetry"].append(np.full(len(data["actions"]), symmetry, np.int8))
        for name in ("values", "outcomes", "finished", "players", "game_index", "ply"):
            images[name].append(data[name])
    # interleave: row r of the input becomes rows r * count .. r * count + count - 1
    return {
        name: np.stack(parts, axis=1).reshape(-1, *parts[0].shape[1:])
        for name, parts in images.items()
    }


def generate_expert_data(
    config: ExpertConfig, workers: int = 1, progress: bool = False
) -> dict[str, np.ndarray]:
    """Play and record ``config.games`` games; the arrays of the file format (module docstring).

    Args:
        config: what to record.
        workers: processes to play in (1: this process); the output does not depend on it.
        progress: show a progress bar (and a compiling notice) on stderr.

    Raises:
        UnknownGameError / UnknownAgentError / InvalidOptionError: before any game is played.
    """
    config = check_config(config)
    check_workers(workers, "workers")
    if progress:
        print(f"compiling {config.spec} for {config.game} (once per process)...", file=sys.stderr)
    games = _iterate_games(config, workers)
    if progress:
        from tqdm import tqdm

        games = tqdm(games, total=config.games, desc=f"expert {config.spec}", unit="game")
    parts = list(games)
    data = {name: np.concatenate([part[name] for part in parts]) for name in ROW_FIELDS}
    names = ("identity",)
    if config.symmetries:
        data = augment(data, config.game)
        names = game_symmetries(config.game).names
    data.update(
        game=np.array(config.game),
        spec=np.array(config.spec),
        opponent=np.array(config.opponent or ""),
        seed=np.array(config.seed, np.int64),
        num_games=np.array(config.games, np.int64),
        temperature_moves=np.array(config.temperature_moves, np.int64),
        symmetry_names=np.array(names),
        format_version=np.array(FORMAT_VERSION, np.int64),
    )
    return data


def save_expert_data(path: str | Path, data: dict[str, np.ndarray]) -> None:
    """Write a dataset as a compressed ``.npz`` (format in the module docstring)."""
    np.savez_compressed(path, **data)


def load_expert_data(path: str | Path) -> dict[str, np.ndarray]:
    """Read a dataset written by :func:`save_expert_data` (plain ``numpy.load`` does too).

    Raises:
        InvalidRecordError: if it is not an expert dataset of a known format version.
    """
    with np.load(path, allow_pickle=False) as file:
        data = {name: file[name] for name in file.files}
    missing = [name for name in (*ROW_FIELDS, "game", "format_version") if name not in data]
    if missing:
        raise InvalidRecordError(f"{path}: not an expert dataset (missing {', '.join(missing)})")
    if int(data["format_version"]) != FORMAT_VERSION:
        raise InvalidRecordError(
            f"{path}: format version {int(data['format_version'])}, this package reads {FORMAT_VERSION}"
        )
    return data
