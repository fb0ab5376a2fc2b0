"""The statistics every evaluation report uses, written once: Wilson intervals, score intervals and
the logistic Elo scale.

A *score* is points per game with a draw counted as half a point. Elo differences are logistic:
``elo = -400 log10(1/score - 1)``, infinite at a score of exactly 0 or 1. Interval ends at the
boundary are exact (a perfect score has an upper end of exactly 1), so they never turn into large
finite Elo values made by rounding.
"""

from __future__ import annotations

import math

from mcts_envs.core.errors import InvalidOptionError

__all__ = [
    "MIN_ELO_GAMES",
    "Z_95",
    "WinDrawLoss",
    "elo_from_score",
    "format_elo",
    "format_elo_games",
    "format_elo_interval",
    "score_from_elo",
    "score_interval",
    "wilson_interval",
]

#: z for a two-sided 95% interval.
Z_95 = 1.959963984540054
#: Fewest games an Elo is reported from. Below it the interval spans most of the scale (one game
#: drawn: [-495, +495]; ten: [-204, +204]) and says nothing a W/D/L count does not.
MIN_ELO_GAMES = 10


def wilson_interval(successes: float, trials: int, z: float = Z_95) -> tuple[float, float]:
    """Wilson score interval ``(low, high)`` for a binomial proportion ``successes / trials``.

    With ``trials == 0`` the interval is ``(0.0, 1.0)``. ``successes`` may be fractional (a score
    with draws counted as half) for an approximate interval. The ends are exact at 0 and at
    ``trials``.

    Raises:
        InvalidOptionError: if ``trials < 0`` or ``successes`` is outside ``[0, trials]``.
    """
    if trials < 0 or not 0 <= successes <= trials:
        raise InvalidOptionError(
            f"wilson_interval needs 0 <= successes <= trials, got {successes} of {trials}"
        )
    if trials == 0:
        return 0.0, 1.0
    if successes == 0:
        return 0.0, _wilson_bounds(0.0, trials, z)[1]
    if successes == trials:
        return 1.0 - _wilson_bounds(0.0, trials, z)[1], 1.0
    return _wilson_bounds(successes / trials, trials, z)


def _wilson_bounds(p: float, trials: int, z: float) -> tuple[float, float]:
    z2 = z * z
    denominator = 1.0 + z2 / trials
    center = (p + z2 / (2 * trials)) / denominator
    half = z / denominator * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials))
    return max(0.0, center - half), min(1.0, center + half)


def score_interval(wins: int, draws: int, losses: int) -> tuple[float, float]:
    """Wilson 95% interval of the score ``(wins + draws / 2) / games``.

    ``(0.0, 1.0)`` with no game; exactly 1.0 at the top when every game was won and exactly 0.0 at
    the bottom when every game was lost.
    """
    games = wins + draws + losses
    if games == 0:
        return 0.0, 1.0
    low, high = wilson_interval(wins + 0.5 * draws, games)
    if wins == games:
        high = 1.0
    if losses == games:
        low = 0.0
    return low, high


class WinDrawLoss:
    """What follows from one side's wins, draws and losses: games, points, score, its interval
    and Elo.

    A base for the tallies of matches, tournaments and ladders (a dataclass deriving from it
    declares the ``wins``, ``draws`` and ``losses`` fields, ints).
    """

    wins: int
    draws: int
    losses: int

    @property
    def games(self) -> int:
        """Games counted."""
        return self.wins + self.draws + self.losses

    @property
    def points(self) -> float:
        """Wins plus half the draws."""
        return self.wins + 0.5 * self.draws

    @property
    def score(self) -> float:
        """Points per game (0.5 with no game)."""
        return self.points / self.games if self.games else 0.5

    def score_interval(self) -> tuple[float, float]:
        """Wilson 95% interval of the score (:func:`score_interval`: exact ends at 0 and 1)."""
        return score_interval(self.wins, self.draws, self.losses)

    def elo(self) -> tuple[float, float, float]:
        """Elo of this side minus the other: ``(estimate, low, high)`` from the score and the ends
        of its interval (:func:`elo_from_score`: infinite where the score is 0 or 1)."""
        low, high = self.score_interval()
        return elo_from_score(self.score), elo_from_score(low), elo_from_score(high)

    def count(self, result: object, side: str = "a") -> None:
        """Count one game of ``side`` (``"a"`` or ``"b"``) with a record's ``result`` (``"a"``,
        ``"b"`` or ``"draw"``); any other result (an unfinished game) counts as nothing."""
        if result == side:
            self.wins += 1
        elif result == "draw":
            self.draws += 1
        elif result in ("a", "b"):
            self.losses += 1


def elo_from_score(score: float) -> float:
    """Logistic Elo difference of an expected score: ``-400 log10(1/score - 1)``.

    ``+inf`` at a score of 1 or more, ``-inf`` at 0 or less, NaN for NaN.
    """
    if math.isnan(score):
        return math.nan
    if score >= 1.0:
        return math.inf
    if score <= 0.0:
        return -math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def score_from_elo(elo: float) -> float:
    """The expected score of a logistic Elo difference (inverse of :func:`elo_from_score`)."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def format_elo(value: float) -> str:
    """``+12``, ``-7``, ``0``, ``+inf``, ``-inf`` or ``nan`` (never ``-0``)."""
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "+inf" if value > 0 else "-inf"
    rounded = round(value)
    return "0" if rounded == 0 else f"{rounded:+d}"


def format_elo_interval(estimate: float, low: float, high: float) -> str:
    """An Elo estimate with its interval, honest at the boundary.

    ``+52 [+10, +95]`` normally; when the estimate is infinite (every game won or lost) only the
    finite bound is meaningful, so it reads ``> +166`` or ``< -166`` instead of ``+inf [...]``;
    an infinite end of a finite estimate reads ``unbounded``, and no estimate (NaN) ``none``.
    """
    if math.isnan(estimate):
        return "none"
    if math.isinf(estimate) and estimate > 0:
        return f"> {format_elo(low)}"
    if math.isinf(estimate):
        return f"< {format_elo(high)}"
    ends = ["unbounded" if math.isinf(end) else format_elo(end) for end in (low, high)]
    return f"{format_elo(estimate)} [{ends[0]}, {ends[1]}]"


def format_elo_games(estimate: float, low: float, high: float, games: int) -> str:
    """:func:`format_elo_interval` from :data:`MIN_ELO_GAMES` games on; before that,
    ``"after 10 games (3 so far)"``: an Elo from a handful of games is noise with a number."""
    if games < MIN_ELO_GAMES:
        return f"after {MIN_ELO_GAMES} games ({games} so far)"
    return format_elo_interval(estimate, low, high)
