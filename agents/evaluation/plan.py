"""The plan of a tournament or match: every game, in the order they are handed out.

A tournament is a list of *pairings* (two agent specs) and, for each, ``games_per_pair`` games
played in pairs: game pair ``p`` starts both games from opening ``p``
(:class:`~mcts_envs.agents.evaluation.openings.Openings`, the same position for every pairing)
with the colours swapped, so the opening's bias cancels within the pair. A match is a tournament
of one pairing (:func:`plan_match`).

Every game is a :class:`~mcts_envs.agents.evaluation.games.GameTask` whose seeds come only from
``(master seed, pairing, pair, colour)`` (agents) and ``(master seed, pair)`` (chance, so both
games of a pair and every pairing draw from the same sequence). A game's record therefore does not
depend on the backend, on the number of workers, or on the order in which games finish (compare
records with :func:`mcts_envs.records.game_identity`; searches limited by *time* are the
exception). Plans are made lazily: a billion games take O(1) memory.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from mcts_envs.agents.evaluation.backends.workers import MAX_GAMES, check_count
from mcts_envs.agents.evaluation.games import GameRules, GameTask, build_agent, task_seeds
from mcts_envs.agents.evaluation.openings import Openings
from mcts_envs.agents.resolved import resolved_agent
from mcts_envs.core.errors import InvalidOptionError
from mcts_envs.core.game import Game
from mcts_envs.core.registry import get_entry, make_game
from mcts_envs.core.seeding import check_seed
from mcts_envs.records import move_cap

#: Most agents in one tournament (a gauntlet's opponents, or a round robin's field): the final
#: ratings of 100 agents in a round robin took 18 s (300 bootstrap samples, a loaded 2-core
#: machine); 10,000 needed gigabytes.
MAX_AGENTS = 100


class TaskList(Sequence[GameTask]):
    """The games of a plan in the order they are handed out, each made when asked.

    Game pair by game pair, interleaving the pairings (pair 0 of every pairing first), both
    colours of a pair in a row; the first ``count`` of them. O(1) memory, whatever the count.
    """

    def __init__(
        self,
        pairings: tuple[tuple[str, str], ...],
        openings: Openings,
        seed: int,
        count: int,
    ) -> None:
        self.pairings = pairings
        self.openings = openings
        self.seed = seed
        self.count = count

    def task(self, pairing: int, pair: int, colour: int) -> GameTask:
        """The game of ``pairing``'s game pair ``pair`` with colour ``colour``."""
        a, b = self.pairings[pairing]
        return GameTask(
            pairing, a, b, pair, colour, self.openings[pair],
            task_seeds(self.seed, pairing, pair, colour),
        )  # fmt: skip

    def position(self, pairing: int, pair: int, colour: int) -> int:
        """Where that game is in the list (it is in the plan if this is below ``len(self)``)."""
        return (pair * len(self.pairings) + pairing) * 2 + colour

    def __len__(self) -> int:
        return self.count

    def __getitem__(self, k):  # type: ignore[override]
        if isinstance(k, slice):
            return [self[i] for i in range(*k.indices(self.count))]
        if k < 0:
            k += self.count
        if not 0 <= k < self.count:
            raise IndexError(f"task {k} of {self.count}")
        colour = k % 2
        pairing = (k // 2) % len(self.pairings)
        pair = k // (2 * len(self.pairings))
        return self.task(pairing, pair, colour)

    def __iter__(self) -> Iterator[GameTask]:
        return (self[k] for k in range(self.count))


@dataclass(frozen=True)
class TournamentPlan:
    """Every game of a tournament (or a match: one pairing), in the order they are handed out.

    Attributes:
        rules: the shared game rules.
        pairings: ``(spec_a, spec_b)`` per pairing.
        tasks: all games (:class:`TaskList`, made on demand).
        seed: the master seed.
        resolved: each spec's agent as resolved for the game when the plan was made
            (:func:`~mcts_envs.agents.resolved.resolved_agent`, without the identity an engine
            gives once it runs): what a resumed record must have been played by.
    """

    rules: GameRules
    pairings: tuple[tuple[str, str], ...]
    tasks: TaskList
    seed: int
    resolved: dict[str, dict[str, Any]] = field(default_factory=dict)

    @functools.cached_property
    def _pairing_numbers(self) -> dict[tuple[str, str], int]:
        """Pairing -> its number (the first, as ``pairings.index`` gives): one lookup a record."""
        return {pairing: number for number, pairing in reversed(list(enumerate(self.pairings)))}

    @property
    def specs(self) -> list[str]:
        """The distinct agents, in order of first appearance."""
        return list(dict.fromkeys(spec for pairing in self.pairings for spec in pairing))

    def task_of(self, key: tuple[str, str, int]) -> GameTask | None:
        """The planned game with ``key`` (``(spec_a, spec_b, index)``), or ``None``."""
        spec_a, spec_b, index = key
        pairing = self._pairing_numbers.get((spec_a, spec_b))
        if pairing is None:
            return None
        if not (isinstance(index, int) and index >= 0):
            return None
        pair, colour = divmod(index, 2)
        if self.tasks.position(pairing, pair, colour) >= len(self.tasks):
            return None
        return self.tasks.task(pairing, pair, colour)


def _plan(
    rules: GameRules | str,
    pairings: Sequence[tuple[str, str]],
    count: int,
    seed: int | None,
    openings: str | None,
) -> TournamentPlan:
    """Check the rules and agents, then make the plan of the first ``count`` games."""
    if isinstance(rules, str):
        rules = GameRules(rules)
    entry = get_entry(rules.game)
    rules = rules._replace(game=entry.name)
    game = make_game(entry.name)
    seed = check_seed(seed)
    if seed is None:
        raise InvalidOptionError("a tournament needs an integer master seed")
    _check_rules(rules, game)
    specs = dict.fromkeys(spec for pairing in pairings for spec in pairing)
    tasks = TaskList(tuple(pairings), Openings(game, openings, seed), seed, count)
    return TournamentPlan(rules, tuple(pairings), tasks, seed, resolve_specs(rules, game, specs))


def resolve_specs(rules: GameRules, game: Game, specs: Iterable[str]) -> dict[str, dict[str, Any]]:
    """Each spec's agent, built as games build it (with the time control's budget, which checks
    the spec), as resolved for ``game``."""
    return {spec: resolved_agent(build_agent(spec, 0, rules.time), game, spec) for spec in specs}


def plan_tournament(
    rules: GameRules | str,
    specs: Sequence[str],
    games_per_pair: int,
    seed: int = 0,
    gauntlet: str | None = None,
    openings: str | None = None,
) -> TournamentPlan:
    """Check everything and plan the games of a round-robin (or a gauntlet of ``gauntlet``).

    Args:
        rules: game, time control and adjudication (a game name: no time control, the game's
            own move cap).
        specs: agent specs (two or more for a round robin, one or more opponents for a gauntlet).
        games_per_pair: games per pairing, an even number (whole game pairs), at most
            :data:`MAX_GAMES`.
        seed: master seed.
        gauntlet: play only ``gauntlet`` against each of ``specs``.
        openings: see :class:`~mcts_envs.agents.evaluation.openings.Openings`.

    Raises:
        InvalidOptionError / UnknownGameError / UnknownAgentError: for bad input (before any game).
    """
    check_count(games_per_pair, "--games-per-pair", minimum=2)
    if games_per_pair % 2:
        raise InvalidOptionError(
            f"--games-per-pair must be even and >= 2 (games come in pairs with colours swapped), "
            f"got {games_per_pair}"
        )
    specs = [str(spec) for spec in specs]
    if len(specs) > MAX_AGENTS:
        raise InvalidOptionError(
            f"{len(specs):,} agents; a tournament takes at most {MAX_AGENTS} (the ratings of "
            f"{MAX_AGENTS} agents in a round robin take tens of seconds; split larger fields)"
        )
    if len(set(specs)) != len(specs):
        raise InvalidOptionError(f"an agent is listed twice: {specs}")
    if gauntlet is not None:
        if gauntlet in specs:
            raise InvalidOptionError(f"the gauntlet agent {gauntlet!r} is also an opponent")
        if not specs:
            raise InvalidOptionError("a gauntlet needs at least one opponent")
        pairings = [(gauntlet, spec) for spec in specs]
    else:
        if len(specs) < 2:
            raise InvalidOptionError("a round robin needs at least two agents")
        pairings = [
            (specs[i], specs[j]) for i in range(len(specs)) for j in range(i + 1, len(specs))
        ]
    if games_per_pair * len(pairings) > MAX_GAMES:
        raise InvalidOptionError(
            f"{len(pairings)} pairings x {games_per_pair:,} games is more than {MAX_GAMES:,} games"
        )
    return _plan(rules, pairings, games_per_pair * len(pairings), seed, openings)


def plan_match(
    rules: GameRules | str,
    spec_a: str,
    spec_b: str,
    num_games: int,
    seed: int = 0,
    openings: str | None = None,
) -> TournamentPlan:
    """A match as a tournament of one pairing: its first ``num_games`` games.

    With an even ``num_games`` this is exactly the plan of ``plan_tournament(rules, [spec_a,
    spec_b], num_games, seed, openings=openings)``: the same games, seeds and records; an odd count
    ends with the first game of a pair. ``rules`` is a :class:`~mcts_envs.agents.evaluation.games.GameRules`
    or a game name; play it with :func:`mcts_envs.agents.evaluation.arena.play_match`.

    Raises:
        InvalidOptionError / UnknownGameError / UnknownAgentError: for bad input (before any game).
    """
    check_count(num_games, "--games")
    return _plan(rules, [(str(spec_a), str(spec_b))], num_games, seed, openings)


def _check_rules(rules: GameRules, game: Game) -> None:
    clock = rules.time
    for name, value in (("--time", clock.move_seconds), ("--clock", clock.base_seconds)):
        if value is not None and not (math.isfinite(value) and value > 0):
            raise InvalidOptionError(f"{name} must be a positive number of seconds, got {value}")
    if clock.move_seconds is not None and clock.base_seconds is not None:
        raise InvalidOptionError("give --time (per move) or --clock (per game), not both")
    if clock.loss_on_time and clock.base_seconds is None:
        raise InvalidOptionError("--loss-on-time needs a --clock")
    adjudication = rules.adjudication
    if adjudication.max_moves is not None:
        check_count(adjudication.max_moves, "--max-moves", maximum=move_cap(game))
    if adjudication.material_margin is not None:
        if not hasattr(game, "stone_counts"):
            raise InvalidOptionError(
                f"--adjudicate-material needs a game that counts stones (ataxx), not "
                f"{game.info.name}"
            )
        if adjudication.material_margin < 1:
            raise InvalidOptionError(
                f"--adjudicate-material must be at least 1 stone, got "
                f"{adjudication.material_margin}"
            )
