"""Expert datasets: a search agent's decisions recorded as training data (imitation, AlphaZero).

:func:`generate_expert_data` plays ``games`` games of one game with an expert agent spec, either
against itself (self-play: the expert decides for both seats) or against an ``opponent`` spec
(seats alternate: the expert is ``player_0`` in even-numbered games; only its decisions are
recorded). At each recorded decision it asks the expert for its search targets
(:func:`search_targets`: the visit distribution and the root value) and plays a move drawn from
that distribution at the temperature of AlphaZero's schedule
(:func:`mcts_envs.agents.temperature.alphazero_temperature`: proportional for the first
``temperature_moves`` decisions, greedy afterwards).

Games are played by the one game loop (:func:`mcts_envs.agents.evaluation.games.play_game`) on the
evaluation backends, with the expert wrapped in a recording agent; game ``i`` is game ``i`` of the
match ``expert`` vs ``opponent`` (or vs itself) with the master seed, so the output is identical
for any number of worker processes (for experts with iteration or depth budgets; a budget in
seconds depends on the machine's speed). Without temperature every self-play game of a
deterministic expert would be the same game: by default the first
:data:`DEFAULT_TEMPERATURE_MOVES` decisions are sampled, and :func:`generate_expert_data` reports
the distinct games and positions it recorded.

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
``summary``        ``[4]`` int64                          games, distinct games, decisions, distinct
                                                          positions (:class:`ExpertSummary`)
``format_version`` ``()`` int64                           :data:`FORMAT_VERSION`
=================  =====================================  ==========================================

Rows are ordered by game, then ply, then symmetry.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple, TypeVar

import numpy as np

from mcts_envs.agents.evaluation.backends.workers import check_count, check_workers
from mcts_envs.agents.evaluation.games import Adjudication, GameRules, GameTask, play_game
from mcts_envs.agents.evaluation.plan import plan_match
from mcts_envs.agents.evaluation.run import RunHooks, RunSettings, run_plan
from mcts_envs.agents.spec import make_agent
from mcts_envs.agents.temperature import (
    DEFAULT_TEMPERATURE_MOVES,
    alphazero_temperature,
    sample_action,
)
from mcts_envs.core.compiling import print_to_stderr
from mcts_envs.core.errors import InvalidRecordError
from mcts_envs.core.game import CHANCE, Game
from mcts_envs.core.registry import make_game
from mcts_envs.core.seeding import check_seed
from mcts_envs.core.symmetry import game_symmetries
from mcts_envs.records import move_cap
from mcts_envs.text.history import MoveHistory

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
            visit distribution, later ones greedily (ties broken by the game's seed); default
            :data:`DEFAULT_TEMPERATURE_MOVES` (0 repeats the same game for a deterministic expert).
        max_moves: stop a game after this many decisions (default: no limit but the game's).
    """

    game: str
    spec: str
    games: int
    seed: int = 0
    opponent: str | None = None
    symmetries: bool = False
    temperature_moves: int = DEFAULT_TEMPERATURE_MOVES
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


class ExpertMove(NamedTuple):
    """One decision of the expert: the move played and the targets it was drawn from.

    Attributes:
        action: the move played.
        mask: the legal actions (int8).
        policy: the search's visit distribution over every action (as the search gave it).
        legal_policy: ``policy`` on the legal actions only (uniform if it had no legal mass),
            the distribution the move was drawn from.
        value: the root value for the mover.
    """

    action: int
    mask: np.ndarray
    policy: np.ndarray
    legal_policy: np.ndarray
    value: float


def expert_move(
    expert: Any,
    game: Game,
    state: np.ndarray,
    ply: int,
    temperature_moves: int,
    generator: np.random.Generator,
) -> ExpertMove:
    """The expert's decision at ``state`` (decision ``ply`` of the game): its search targets and a
    move drawn from them at the temperature of AlphaZero's schedule. The one place the datasets
    (arrays and chat) choose a move."""
    mask = game.action_mask(state)
    probs, value = search_targets(expert, game, state)
    legal_probs = np.where(mask > 0, np.maximum(probs, 0.0), 0.0)
    if not legal_probs.sum() > 0:  # a target without legal mass: play uniformly
        legal_probs = mask.astype(np.float64)
    temperature = alphazero_temperature(ply, temperature_moves)
    action = int(sample_action(legal_probs, temperature, generator))
    return ExpertMove(action, mask, probs, legal_probs, value)


def move_seed(task: GameTask) -> int:
    """The seed of the generator that draws the expert's moves in game ``task``."""
    return task.seeds[0] ^ 0x5EED


class RecordingExpert:
    """The expert as an agent that records its search targets at each of its decisions.

    It follows the game (``restart``/``inform``) in a
    :class:`~mcts_envs.text.history.MoveHistory` (:attr:`history`: the moves since the opening,
    which a subclass may use, e.g. for prompts) to know the ply, asks the expert for its visit
    distribution and value (:func:`search_targets`), and plays a move drawn from it at the
    temperature of :func:`~mcts_envs.agents.temperature.alphazero_temperature`.
    """

    def __init__(self, expert: Any, temperature_moves: int, move_seed: int) -> None:
        self.expert = expert
        self.temperature_moves = temperature_moves
        self.moves = np.random.default_rng(move_seed)
        self.rows: dict[str, list] = {name: [] for name in ROW_FIELDS}
        self.keys: set[bytes] = set()
        self.history: MoveHistory | None = None
        self.ply = 0

    def prepare(self, game: Game) -> None:
        """Prepare the expert."""
        self.expert.prepare(game)
        self.history = MoveHistory(game)

    def restart(self, state: np.ndarray) -> None:
        """Start following a game at ``state``."""
        self.expert.restart(state)
        self.history.restart(state)
        self.ply = 0

    def inform(self, action: int) -> None:
        """Follow one action (a decision or a chance outcome)."""
        self.expert.inform(action)
        self.history.inform(action)
        if self.history.moves[-1].player != CHANCE:
            self.ply += 1

    def act_state(self, game: Game, state: np.ndarray) -> int:
        """Record the expert's targets at ``state`` and play a move drawn from them."""
        move = expert_move(self.expert, game, state, self.ply, self.temperature_moves, self.moves)
        self.record(game, state, move)
        return move.action

    def record(self, game: Game, state: np.ndarray, move: ExpertMove) -> None:
        """Keep the decision ``move`` made at ``state`` (the rows of the file format)."""
        player = game.current_player(state)
        for name, value_ in (
            ("observations", game.observation(state, player)),
            ("masks", move.mask),
            ("policies", move.policy),
            ("values", move.value),
            ("actions", move.action),
            ("players", player),
            ("ply", self.ply),
        ):
            self.rows[name].append(value_)
        self.keys.add(game.key(state))


Recorder = TypeVar("Recorder", bound=RecordingExpert)


def play_recorded_game(
    config: ExpertConfig, task: GameTask, rules: GameRules, recorder_class: type[Recorder]
) -> tuple[dict[str, Any], Recorder]:
    """Play game ``task`` of ``config`` with the one game loop
    (:func:`~mcts_envs.agents.evaluation.games.play_game`), the expert wrapped in ``recorder_class``
    (:class:`RecordingExpert` or a subclass): in both seats for self-play, else in seat A against
    the opponent. The expert's seed and move generator come from the task alone.

    Returns:
        ``(record, recorder)``: the game record and the recorder holding the decisions.
    """
    seed_a, seed_b, _ = task.seeds
    recorder = recorder_class(
        make_agent(config.spec, seed=seed_a), config.temperature_moves, move_seed(task)
    )
    if config.opponent is None:
        agents = (recorder, recorder)
    else:
        agents = (recorder, make_agent(config.opponent, seed=seed_b))
    return play_game(task, rules, agents), recorder


def final_returns(record: dict[str, Any]) -> tuple[bool, list[float]]:
    """``(finished, returns)`` of a game record as the datasets give outcomes: whether the game
    reached its end, and its returns per seat (``[0.0, 0.0]`` for a game cut before its end)."""
    finished = record["termination"] == "end"
    return finished, (record["returns"] if finished else [0.0, 0.0])


def play_expert_games(
    config: ExpertConfig,
    play: Callable[[ExpertConfig, GameTask, GameRules], dict[str, Any]],
    workers: int = 1,
    backend: str | None = None,
    hooks: RunHooks | None = None,
) -> list[dict[str, Any]]:
    """The games of a checked ``config`` (the match ``config.spec`` vs ``config.opponent``, or vs
    itself) played by :func:`~mcts_envs.agents.evaluation.run.run_plan`: ``play(config, task,
    rules)`` of each game, in the order the games finished (each result carries what the caller
    needs to sort it). ``hooks`` (e.g. a progress bar) are the run's.
    """
    rules = GameRules(config.game, adjudication=Adjudication(max_moves=config.max_moves))
    plan = plan_match(rules, config.spec, config.opponent or config.spec, config.games, config.seed)
    settings = RunSettings(backend=backend, workers=workers, play=functools.partial(play, config))
    return run_plan(plan, settings, hooks).records


def expert_task_record(config: ExpertConfig, task: GameTask, rules: GameRules) -> dict[str, Any]:
    """Play one game of ``config`` with the one game loop; its record, plus ``expert``: the rows
    of the expert's decisions (arrays of the file format, no symmetry images yet) and the keys of
    the positions it decided in."""
    game = make_game(config.game)
    record, recorder = play_recorded_game(config, task, rules, RecordingExpert)
    finished, returns = final_returns(record)
    rows = recorder.rows
    count = len(rows["actions"])
    record["expert"] = {
        "keys": sorted(recorder.keys),
        "rows": {
            "observations": np.array(rows["observations"], game.info.observation_dtype).reshape(
                count, *game.info.observation_shape
            ),
            "masks": np.array(rows["masks"], np.int8).reshape(count, game.info.num_actions),
            "policies": np.array(rows["policies"], np.float32).reshape(
                count, game.info.num_actions
            ),
            "values": np.array(rows["values"], np.float32),
            "outcomes": np.array([returns[p] for p in rows["players"]], np.float32),
            "finished": np.full(count, finished, np.bool_),
            "actions": np.array(rows["actions"], np.int32),
            "players": np.array(rows["players"], np.int8),
            "game_index": np.full(count, task.index, np.int32),
            "ply": np.array(rows["ply"], np.int32),
            "symmetry": np.zeros(count, np.int8),
        },
    }
    return record


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


class ExpertSummary(NamedTuple):
    """How varied a dataset is: games, distinct games (by their moves), decisions recorded and
    distinct positions among them (by ``game.key``)."""

    games: int
    distinct_games: int
    decisions: int
    distinct_positions: int

    def text(self) -> str:
        """One line for the end of the ``expert`` command."""
        return (
            f"{self.distinct_games} distinct games of {self.games}; {self.decisions} decisions "
            f"recorded in {self.distinct_positions} distinct positions"
        )


def generate_expert_data(
    config: ExpertConfig, workers: int = 1, progress: bool = False, backend: str | None = None
) -> dict[str, np.ndarray]:
    """Play and record ``config.games`` games; the arrays of the file format (module docstring).

    The games are those of the match ``config.spec`` vs ``config.opponent`` (or vs itself), played
    on the evaluation backends; ``data["summary"]`` holds the :class:`ExpertSummary` as four
    int64 values (games, distinct games, decisions, distinct positions).

    Args:
        config: what to record.
        workers: games in flight (1: this process); the output does not depend on it.
        progress: show a progress bar (and preparation notices) on stderr.
        backend: ``local``, ``process`` or ``ray`` (default: local for one worker, else process).

    Raises:
        UnknownGameError / UnknownAgentError / InvalidOptionError: before any game is played.
    """
    config = check_config(config)
    check_workers(workers)
    hooks = RunHooks(announce=print_to_stderr, progress=True) if progress else None
    records = play_expert_games(config, expert_task_record, workers, backend, hooks)
    played = sorted(records, key=lambda record: record["index"])
    parts = [record["expert"]["rows"] for record in played]
    data = {name: np.concatenate([part[name] for part in parts]) for name in ROW_FIELDS}
    summary = ExpertSummary(
        len(played),
        len({tuple(record["actions"]) for record in played}),
        len(data["actions"]),
        len({key for record in played for key in record["expert"]["keys"]}),
    )
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
        summary=np.array(summary, np.int64),
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
