"""Ratings and statistics of a results file: W/D/L, Wilson intervals, Bradley-Terry Elo, SPRT.

Everything here is recomputed from game records (the records of a tournament or match, as
:func:`mcts_envs.agents.evaluation.run.run_plan` writes them): each record names its two
agents (``agents``: A, B), its ``result`` (``"a"``, ``"b"``, ``"draw"``; anything else is not
counted) and its game pair (``pair``, or ``index // 2`` for match records). Agents are keyed on what
played: games of one spec resolved to different options (a default changed between them) are
rated as different agents (:func:`rated_names`).

* Per pairing: wins, draws and losses of A, its score with a Wilson 95% interval, and the Elo
  difference implied by the score and the interval's ends. Ends come from exact counts; when A won
  (or lost) every game only the finite bound means anything, so it is printed one-sided
  (``> +166``), and no ``-0`` is printed.
* Pentanomial statistics of complete game pairs (both colours played): counts of LL, LD, DD+WL,
  WD, WW and the Elo interval from the variance of pair scores (narrower than the trinomial one when
  the opening decides much).
* Elo of every agent from a Bradley-Terry fit with a weak prior (:data:`PRIOR_DRAWS` virtual draws
  per pairing that played, as BayesElo does; draws count half a win; solved with
  :func:`scipy.optimize.minimize`, trust-region Newton), anchored at one agent (``random`` if
  present), with 95% intervals from a seeded bootstrap over game pairs within each pairing. The
  estimate is finite for every agent connected to the anchor through games, even one that won or
  lost everything; agents that never met the anchor's group are reported as such (``nan``).
* The sequential probability ratio test (SPRT) of fastchess and fishtest (the generalised SPRT's
  log-likelihood ratio ``N/2 * log(var0 / var1)``, logistic or normalized Elo) on pentanomial or
  trinomial counts.
"""

from __future__ import annotations

import json
import math
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from mcts_envs.agents.evaluation.stats import (
    Z_95,
    WinDrawLoss,
    elo_from_score,
    format_elo,
    format_elo_games,
    score_from_elo,
    score_interval,
    wilson_interval,
)
from mcts_envs.agents.resolved import resolved_label
from mcts_envs.core.errors import InvalidOptionError, InvalidRecordError
from mcts_envs.core.quoting import printable, quote
from mcts_envs.records import resolved_agents

__all__ = [
    "PairingStats",
    "RatingTable",
    "SprtMonitor",
    "SprtSettings",
    "elo_from_score",
    "fisher_half_widths",
    "fit_bradley_terry",
    "format_elo",
    "llr_pentanomial",
    "llr_trinomial",
    "parse_sprt",
    "rate",
    "rated_names",
    "record_between",
    "score_interval",
]

#: Elo points per natural-log unit of the odds (400 / ln 10).
ELO_PER_NAT = 400.0 / math.log(10.0)
#: Points of A in one game, by result.
_POINTS = {"a": 1.0, "draw": 0.5, "b": 0.0}
#: Most bootstrap samples (``--bootstrap``): 100 000 give intervals far finer than the data.
MAX_BOOTSTRAP = 100_000
#: Pair scores (per game) of the pentanomial categories LL, LD, DD+WL, WD, WW.
PENTANOMIAL_SCORES = np.array([0.0, 0.25, 0.5, 0.75, 1.0])


# -- per-pairing statistics ---------------------------------------------------------------------


#: Points of ``a`` and games of each kind of game pair (:attr:`PairingStats.kinds`).
PAIR_POINTS = np.array([0.0, 0.5, 1.0, 1.5, 2.0, 0.0, 0.5, 1.0])
PAIR_GAMES = np.array([2, 2, 2, 2, 2, 1, 1, 1])


@dataclass
class PairingStats(WinDrawLoss):
    """Results of agent ``a`` against agent ``b`` (games, score, its interval and the Elo of ``a``
    minus ``b`` from :class:`~mcts_envs.agents.evaluation.stats.WinDrawLoss`).

    A game pair costs one byte (its kind, in the order pairs were first seen) once its second
    game has come; only pairs with one game so far are held by their key.

    Attributes:
        a, b: the agents.
        wins, draws, losses: of ``a``.
        kinds: per game pair, in first-seen order, its kind: ``0..4`` a complete pair where ``a``
            scored 0, 1/2, 1, 3/2 or 2 points, ``5..7`` a pair of one game where ``a`` scored 0,
            1/2 or 1 (see :data:`PAIR_POINTS`, :data:`PAIR_GAMES`).
        open_pairs: ``pair key -> (position in kinds, colour, points of a)`` of the pairs with
            one game so far.
        complete: the counts of the complete pairs' kinds ``0..4`` (:meth:`pentanomial`).
    """

    a: str
    b: str
    wins: int = 0
    draws: int = 0
    losses: int = 0
    kinds: bytearray = field(default_factory=bytearray)
    open_pairs: dict[Hashable, tuple[int, int, float]] = field(default_factory=dict)
    complete: np.ndarray = field(default_factory=lambda: np.zeros(5, np.int64))

    def count_game(self, points: float) -> None:
        """Count one game of ``a`` scoring ``points`` (1, 0.5, 0) in W/D/L only."""
        if points == 1.0:
            self.wins += 1
        elif points == 0.0:
            self.losses += 1
        else:
            self.draws += 1

    def add(self, points: float, pair: Hashable, colour: int) -> None:
        """Count one game of ``a`` scoring ``points`` (1, 0.5, 0) in game pair ``pair``, with
        ``colour`` (0 or 1) telling the pair's two games apart (the same colour again, before
        the pair is complete, replaces that game's points)."""
        self.count_game(points)
        first = self.open_pairs.get(pair)
        if first is None:
            self.open_pairs[pair] = (len(self.kinds), colour, points)
            self.kinds.append(5 + round(2 * points))
        elif first[1] == colour:
            self.open_pairs[pair] = (first[0], colour, points)
            self.kinds[first[0]] = 5 + round(2 * points)
        else:
            del self.open_pairs[pair]
            kind = round(2 * (first[2] + points))
            self.kinds[first[0]] = kind
            self.complete[kind] += 1

    def pentanomial(self) -> np.ndarray:
        """Counts of complete pairs scoring 0, 1/2, 1, 3/2, 2 points (LL, LD, DD+WL, WD, WW)."""
        return self.complete.copy()

    def pair_points(self) -> tuple[np.ndarray, np.ndarray]:
        """Per game pair in first-seen order: the points of ``a`` and of ``b``."""
        kinds = np.frombuffer(bytes(self.kinds), np.uint8)
        scored = PAIR_POINTS[kinds]
        return scored, PAIR_GAMES[kinds] - scored

    def pentanomial_elo(self) -> tuple[float, float, float]:
        """Elo of ``a`` minus ``b`` from complete pairs: ``(estimate, low, high)``.

        The interval uses the variance of pair scores (normal approximation); when every pair
        scored the same (no variance), it falls back to the Wilson interval of those games.
        """
        counts = self.pentanomial()
        pairs = counts.sum()
        if pairs == 0:
            return math.nan, -math.inf, math.inf
        p = counts / pairs
        score = float(p @ PENTANOMIAL_SCORES)
        variance = float(p @ (PENTANOMIAL_SCORES - score) ** 2)
        if variance == 0.0:
            points = 2 * float(counts @ PENTANOMIAL_SCORES)
            games = 2 * int(pairs)
            wins = games if score == 1.0 else 0
            losses = games if score == 0.0 else 0
            low, high = (
                score_interval(wins, 0, losses)
                if wins or losses
                else wilson_interval(points, games)
            )
        else:
            half = Z_95 * math.sqrt(variance / pairs)
            low, high = max(score - half, 0.0), min(score + half, 1.0)
        return elo_from_score(score), elo_from_score(low), elo_from_score(high)


def _is_count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _record_points(
    record: dict[str, Any], where: str = "record"
) -> tuple[str, str, float, int, int] | None:
    """``(a, b, points of a, pair, colour)`` of a counted game, ``None`` for an uncounted one.

    Raises:
        InvalidRecordError: naming ``where`` if a counted game's keys have the wrong types.
    """
    agents = record.get("agents")
    points = _POINTS.get(record.get("result"))  # type: ignore[arg-type]
    if points is None or not (isinstance(agents, list) and len(agents) == 2):
        return None
    index = record.get("index", 0)
    if not _is_count(index) or not all(isinstance(agent, str) for agent in agents):
        raise InvalidRecordError(
            f"{where}: a counted game needs 'agents' (two specs) and an 'index' >= 0"
        )
    pair = record.get("pair", index // 2)
    colour = record.get("colour", record.get("seat_a", index % 2))
    if not _is_count(pair) or colour not in (0, 1) or isinstance(colour, bool):
        raise InvalidRecordError(f"{where}: 'pair' must be an int >= 0 and 'colour' 0 or 1")
    return agents[0], agents[1], points, pair, colour


def rated_names(records: Sequence[dict[str, Any]]) -> list[tuple[str, str] | None]:
    """The names ratings give the two agents of each record (``None`` for a record without two
    string ``agents``): the spec as the record names it, unless records of that spec were played
    by agents resolved differently (:mod:`mcts_envs.agents.resolved`; a default changed between
    them). Then each is the spec followed by its own values of the options that differ, in
    brackets (the spec alone if it is the only resolved one), and a record that names no
    resolved agent (written before records did) is the spec ``[as recorded]``: games of
    different agents are never counted as one agent's."""
    variants: dict[str, dict[str | None, dict[str, Any] | None]] = {}
    keys: list[tuple[tuple[str, str | None], tuple[str, str | None]] | None] = []
    for record in records:
        agents = record.get("agents")
        if not (
            isinstance(agents, list)
            and len(agents) == 2
            and all(isinstance(agent, str) for agent in agents)
        ):
            keys.append(None)
            continue
        played = resolved_agents(record) or [None, None]
        pair = []
        for spec, agent in zip(agents, played, strict=True):
            label = None if agent is None else resolved_label(agent)
            variants.setdefault(spec, {})[label] = agent
            pair.append((spec, label))
        keys.append((pair[0], pair[1]))
    names = {
        (spec, label): _variant_name(spec, label, found)
        for spec, found in variants.items()
        for label in found
    }
    return [None if key is None else (names[key[0]], names[key[1]]) for key in keys]


def _variant_name(
    spec: str, label: str | None, variants: dict[str | None, dict[str, Any] | None]
) -> str:
    """The rated name of ``spec`` as resolved to ``label`` among its ``variants``."""
    if len(variants) == 1:
        return spec
    if label is None:
        return f"{spec} [as recorded]"
    options = [agent.get("options") or {} for agent in variants.values() if agent is not None]
    kinds = {agent.get("kind") for agent in variants.values() if agent is not None}
    mine = variants[label] or {}
    own = mine.get("options") or {}
    differing = sorted(
        name
        for name in {name for options in options for name in options}
        if len({json.dumps(options.get(name), sort_keys=True) for options in options}) > 1
    )
    text = ", ".join(f"{name}={json.dumps(own.get(name))}" for name in differing)
    if len(kinds) > 1:
        text = ", ".join(filter(None, [f"kind={mine.get('kind')}", text]))
    return f"{spec} [{text}]" if text else spec  # the one resolved variant beside old records


def tally(records: Iterable[dict[str, Any]]) -> dict[tuple[str, str], PairingStats]:
    """Per-pairing statistics of records, keyed ``(a, b)`` by the names of :func:`rated_names`
    (the specs as the records name them, told apart where agents were resolved differently).

    Unfinished games (``result`` not ``a``/``b``/``draw``) are not counted.

    Raises:
        InvalidRecordError: naming the record (counted from 1) of a counted game whose
            ``agents``, ``index``, ``pair`` or ``colour`` have the wrong type.
    """
    records = list(records)
    names = rated_names(records)
    stats: dict[tuple[str, str], PairingStats] = {}
    for number, record in enumerate(records, start=1):
        parsed = _record_points(record, f"record {number}")
        if parsed is None:
            continue
        _, _, points, pair, colour = parsed
        a, b = names[number - 1]
        if (b, a) in stats:  # the same two agents listed the other way round
            stats[(b, a)].add(1.0 - points, ("reversed", pair), colour)
            continue
        stats.setdefault((a, b), PairingStats(a, b)).add(points, pair, colour)
    return stats


def record_between(
    stats: dict[tuple[str, str], PairingStats], a: str, b: str
) -> tuple[int, int, int] | None:
    """``(wins, draws, losses)`` of ``a`` against ``b`` in a :func:`tally` (whichever way round
    the pairing is keyed), or ``None`` if they never met."""
    if (a, b) in stats:
        s = stats[(a, b)]
        return s.wins, s.draws, s.losses
    if (b, a) in stats:
        s = stats[(b, a)]
        return s.losses, s.draws, s.wins
    return None


# -- Bradley-Terry ------------------------------------------------------------------------------


#: Virtual draws added to every pairing that played (a weak prior, as BayesElo uses): the fit stays
#: finite when an agent wins or loses every game, and moves little once a pairing has many games.
PRIOR_DRAWS = 2.0


def fit_bradley_terry(
    points: np.ndarray, anchor: int = 0, prior_draws: float = PRIOR_DRAWS
) -> np.ndarray:
    """Bradley-Terry ratings (Elo) from a points matrix, ``anchor`` at 0, with a prior of draws.

    The maximum of the likelihood after adding ``prior_draws`` virtual draws to every pairing that
    played at least one game (each side gets half of them as points). With a positive prior the
    estimate is finite for every agent connected to the anchor through games, however lopsided
    the results; ``prior_draws=0`` is the plain maximum-likelihood fit (infinite or undefined
    when a group won or lost every game, so it is refused then).

    Args:
        points: ``points[i, j]`` = points agent ``i`` scored against ``j`` (a draw gives each
            half a point).
        anchor: the agent rated 0.
        prior_draws: virtual draws per pairing that played (>= 0).

    Returns:
        Elo ratings; ``nan`` for an agent that never met the anchor's group, directly or through
        others (there is no common scale).

    Raises:
        InvalidOptionError: for a negative prior, or ``prior_draws=0`` on results whose plain
            maximum-likelihood fit does not exist.
    """
    from scipy.optimize import minimize
    from scipy.sparse.csgraph import connected_components

    if not (prior_draws >= 0 and math.isfinite(prior_draws)):
        raise InvalidOptionError(f"prior_draws must be a number >= 0, got {prior_draws!r}")
    points = np.asarray(points, np.float64)
    count = len(points)
    played = (points + points.T) > 0
    np.fill_diagonal(played, False)
    _, labels = connected_components(played, directed=False)
    members = np.flatnonzero(labels == labels[anchor])
    ratings = np.full(count, np.nan)
    sub = points[np.ix_(members, members)] + 0.5 * prior_draws * played[np.ix_(members, members)]
    if prior_draws == 0:
        beat = sub > 0
        if connected_components(beat, directed=True, connection="strong")[0] != 1:
            raise InvalidOptionError(
                "with no prior, a group that won or lost every game against the rest has no "
                "finite maximum-likelihood rating; use prior_draws > 0"
            )
    position = int(np.flatnonzero(members == anchor)[0])
    free = [k for k in range(len(members)) if k != position]
    if not free:
        ratings[anchor] = 0.0
        return ratings

    def negative_log_likelihood(x: np.ndarray) -> tuple[float, np.ndarray]:
        r = np.zeros(len(members))
        r[free] = x
        diff = r[:, None] - r[None, :]
        log_p = -np.logaddexp(0.0, -diff)  # log P(i beats j)
        value = -float((sub * log_p).sum())
        p = np.exp(log_p)
        weights = sub * (1.0 - p)  # d/d r_i of sub[i, j] * log p_ij
        gradient = -(weights.sum(axis=1) - weights.sum(axis=0))
        return value, gradient[free]

    def hessian(x: np.ndarray) -> np.ndarray:
        r = np.zeros(len(members))
        r[free] = x
        p = 1.0 / (1.0 + np.exp(-(r[:, None] - r[None, :])))
        weights = (sub + sub.T) * p * (1.0 - p)
        laplacian = np.diag(weights.sum(axis=1)) - weights
        return laplacian[np.ix_(free, free)]

    solution = minimize(
        negative_log_likelihood,
        np.zeros(len(free)),
        jac=True,
        hess=hessian,
        method="trust-exact",
        options={"gtol": 1e-9, "maxiter": 1000},
    )
    finite = np.zeros(len(members))
    finite[free] = solution.x
    ratings[members] = finite * ELO_PER_NAT
    return ratings


def _points_matrix(stats: Iterable[PairingStats], index: dict[str, int]) -> np.ndarray:
    points = np.zeros((len(index), len(index)))
    for pairing in stats:
        i, j = index[pairing.a], index[pairing.b]
        points[i, j] += pairing.points
        points[j, i] += pairing.games - pairing.points
    return points


def fisher_half_widths(
    points: np.ndarray, elo: np.ndarray, anchor: int, prior_draws: float = PRIOR_DRAWS
) -> np.ndarray:
    """Half-widths (Elo) of 95% intervals from the observed Fisher information of the
    Bradley-Terry fit :func:`fit_bradley_terry` made (its prior included, ``anchor`` held at
    0): ``Z_95`` standard errors. NaN for the anchor and for agents without a rating."""
    points = np.asarray(points, np.float64)
    played = (points + points.T) > 0
    np.fill_diagonal(played, False)
    members = np.flatnonzero(np.isfinite(elo))
    half = np.full(len(points), np.nan)
    free = [k for k, member in enumerate(members) if member != anchor]
    if not free:
        return half
    sub = points[np.ix_(members, members)] + 0.5 * prior_draws * played[np.ix_(members, members)]
    r = elo[members] / ELO_PER_NAT
    p = 1.0 / (1.0 + np.exp(-(r[:, None] - r[None, :])))
    weights = (sub + sub.T) * p * (1.0 - p)
    information = (np.diag(weights.sum(axis=1)) - weights)[np.ix_(free, free)]
    covariance = np.linalg.pinv(information)
    half[members[free]] = Z_95 * np.sqrt(np.clip(np.diag(covariance), 0.0, None)) * ELO_PER_NAT
    return half


def _nearest_rank(values: np.ndarray, fraction: float) -> float:
    """The ``fraction`` quantile by nearest rank (well defined with infinities; NaN ignored)."""
    finite_order = np.sort(values[~np.isnan(values)])
    if len(finite_order) == 0:
        return math.nan
    rank = min(max(math.ceil(fraction * len(finite_order)) - 1, 0), len(finite_order) - 1)
    return float(finite_order[rank])


@dataclass
class RatingTable:
    """Ratings of every agent of a results file.

    Attributes:
        agents: names, in order of first appearance.
        anchor: the agent rated 0.
        elo, low, high: Bradley-Terry Elo and bootstrap 95% interval ends, per agent.
        games, points: games and points per agent.
        pairings: the per-pairing statistics.
        bootstrap: the number of bootstrap samples.
        prior_draws: the virtual draws per pairing of the fit (see :func:`fit_bradley_terry`).
    """

    agents: list[str]
    anchor: str
    elo: np.ndarray
    low: np.ndarray
    high: np.ndarray
    games: np.ndarray
    points: np.ndarray
    pairings: list[PairingStats]
    bootstrap: int
    prior_draws: float = PRIOR_DRAWS

    def order(self) -> list[int]:
        """Agents sorted by Elo, best first (NaN last)."""
        return sorted(
            range(len(self.agents)),
            key=lambda k: (math.isnan(self.elo[k]), -np.nan_to_num(self.elo[k], nan=0.0)),
        )

    def text(self, sprt: SprtSettings | None = None) -> str:
        """The report: Elo table, W/D/L matrix by pairing, pentanomial counts, optional SPRT.

        Agent names come from records (files from anywhere): terminal control characters
        (escape sequences) are removed from them before they are printed."""
        names = [printable(agent) for agent in self.agents]
        anchor = printable(self.anchor)
        width = max([len(a) for a in names] + [12])
        lines = [
            f"Elo (Bradley-Terry with a prior of {self.prior_draws:g} draws per pairing, "
            f"{anchor} = 0; 95% bootstrap over game pairs, {self.bootstrap} samples)",
            f"  {'agent':<{width}}  {'Elo':>6}  {'95% interval':<16} {'games':>6} {'score':>6}",
        ]
        for k in self.order():
            score = self.points[k] / self.games[k] if self.games[k] else math.nan
            interval = f"[{format_elo(self.low[k])}, {format_elo(self.high[k])}]"
            lines.append(
                f"  {names[k]:<{width}}  {format_elo(self.elo[k]):>6}  {interval:<16} "
                f"{int(self.games[k]):>6} {score:6.3f}"
            )
        apart = [names[k] for k in range(len(self.agents)) if np.isnan(self.elo[k])]
        if apart:
            lines.append(
                f"  ({', '.join(apart)}: never met {anchor}'s group, directly or through "
                "other agents, so there is no common scale; rate that group with its own anchor)"
            )
        lines += [
            "",
            "Pairings (A vs B; score of A with Wilson 95% interval; Elo of A - B)",
            f"  {'A':<{width}}  {'B':<{width}}  {'W':>5} {'D':>5} {'L':>5}  "
            f"{'score [95%]':<21}  Elo [95%]",
        ]
        for pairing in self.pairings:
            low, high = pairing.score_interval()
            elo, elo_low, elo_high = pairing.elo()
            lines.append(
                f"  {printable(pairing.a):<{width}}  {printable(pairing.b):<{width}}  {pairing.wins:>5} "
                f"{pairing.draws:>5} {pairing.losses:>5}  "
                f"{pairing.score:.3f} [{low:.3f}, {high:.3f}]  "
                f"{format_elo_games(elo, elo_low, elo_high, pairing.games)}"
            )
        lines += [
            "",
            "Game pairs (same opening, colours swapped; counts LL LD DD+WL WD WW for A)",
        ]
        for pairing in self.pairings:
            counts = pairing.pentanomial()
            elo, elo_low, elo_high = pairing.pentanomial_elo()
            line = (
                f"  {printable(pairing.a):<{width}}  {printable(pairing.b):<{width}}  "
                f"{' '.join(f'{c:>4}' for c in counts)}  "
                f"Elo {format_elo_games(elo, elo_low, elo_high, 2 * int(counts.sum()))}"
            )
            if sprt is not None:
                llr = llr_pentanomial(counts, sprt)
                verdict = sprt.decision(llr) if counts.sum() >= sprt.min_pairs else "too few pairs"
                line += f"  SPRT LLR {llr:+.2f} {sprt.bounds_text()}: {verdict}"
            lines.append(line)
        return "\n".join(lines)


def check_bootstrap(bootstrap: object) -> int:
    """``bootstrap`` if it is an int from 0 to :data:`MAX_BOOTSTRAP` (a command checks it before
    it plays).

    Raises:
        InvalidOptionError: otherwise, saying what is allowed.
    """
    if isinstance(bootstrap, bool) or not isinstance(bootstrap, int):
        bootstrap = -1
    if not 0 <= bootstrap <= MAX_BOOTSTRAP:
        raise InvalidOptionError(f"--bootstrap must be an int from 0 to {MAX_BOOTSTRAP:,}")
    return bootstrap


def check_anchor(anchor: str | None, agents: Sequence[str]) -> None:
    """Raise unless ``anchor`` is ``None`` or one of ``agents`` (a command checks it against its
    plan before it plays).

    Raises:
        InvalidOptionError: naming the agents it may be.
    """
    if anchor is not None and anchor not in agents:
        shown = ", ".join(quote(agent, 80) for agent in list(agents)[:20])
        raise InvalidOptionError(
            f"--anchor {quote(anchor, 80)} is not an agent of this run; it may be one of {shown}"
        )


def rate(
    records: Iterable[dict[str, Any]],
    anchor: str | None = None,
    bootstrap: int = 500,
    seed: int = 0,
    prior_draws: float = PRIOR_DRAWS,
) -> RatingTable:
    """Ratings of every agent in ``records``.

    Args:
        records: game records naming ``agents`` and ``result``.
        anchor: the agent rated 0 (default: ``random`` if it played, else the first agent).
        bootstrap: bootstrap samples for the intervals (resampling whole game pairs within each
            pairing, so the pairs' correlation is kept); 0 for none. An agent whose resamples
            all give one rating (every game pair it played scored alike) gets the interval of
            the fit's Fisher information instead (:func:`fisher_half_widths`), never a zero
            width.
        seed: seed of the bootstrap.
        prior_draws: virtual draws per pairing (see :func:`fit_bradley_terry`): every agent
            connected to the anchor through games gets a finite rating.

    Raises:
        InvalidOptionError: if no game counts, ``anchor`` did not play, or ``bootstrap`` is not
            an int from 0 to :data:`MAX_BOOTSTRAP`.
        InvalidRecordError: for a counted record with mistyped keys (see :func:`tally`).
    """
    bootstrap = check_bootstrap(bootstrap)
    stats = list(tally(records).values())
    if not stats:
        raise InvalidOptionError("no finished games with 'agents' and 'result' in the records")
    agents = list(dict.fromkeys(name for s in stats for name in (s.a, s.b)))
    index = {name: k for k, name in enumerate(agents)}
    if anchor is None:
        anchor = next((name for name in agents if name.split(":")[0] == "random"), agents[0])
    if anchor not in index:
        raise InvalidOptionError(
            f"the anchor {anchor!r} played no game; agents: {', '.join(agents)}"
        )
    points = _points_matrix(stats, index)
    elo = fit_bradley_terry(points, index[anchor], prior_draws)
    samples = np.empty((bootstrap, len(agents)))
    generator = np.random.default_rng(seed)
    # per pairing, the points of A and of B in each game pair (sums of halves: exact in any order)
    grouped = [(index[s.a], index[s.b], *s.pair_points()) for s in stats]
    for sample in range(bootstrap):
        resampled = np.zeros_like(points)
        for i, j, scored, conceded in grouped:
            picks = generator.integers(len(scored), size=len(scored))
            resampled[i, j] += scored[picks].sum()
            resampled[j, i] += conceded[picks].sum()
        samples[sample] = fit_bradley_terry(resampled, index[anchor], prior_draws)
    if bootstrap:
        low = np.array([_nearest_rank(samples[:, k], 0.025) for k in range(len(agents))])
        high = np.array([_nearest_rank(samples[:, k], 0.975) for k in range(len(agents))])
        # Every game pair of an agent scored alike (ten draws): every resample is the same and
        # the percentile interval has no width; the fit's own information still bounds it.
        flat = (high - low <= 0) & np.isfinite(elo)
        flat[index[anchor]] = False
        if flat.any():
            half = fisher_half_widths(points, elo, index[anchor], prior_draws)
            low[flat], high[flat] = elo[flat] - half[flat], elo[flat] + half[flat]
    else:
        low, high = np.full(len(agents), math.nan), np.full(len(agents), math.nan)
    games = (points + points.T).sum(axis=1)
    return RatingTable(
        agents, anchor, elo, low, high, games, points.sum(axis=1), stats, bootstrap, prior_draws
    )


# -- SPRT ---------------------------------------------------------------------------------------


class SprtSettings(NamedTuple):
    """A sequential probability ratio test of H0: Elo = elo0 against H1: Elo = elo1.

    Attributes:
        elo0, elo1: the hypotheses (``elo0 < elo1``), in logistic Elo or, with
            ``model="normalized"``, normalized Elo.
        alpha, beta: false positive and false negative rates.
        model: ``"logistic"`` or ``"normalized"``.
        min_pairs: no decision before this many complete game pairs: the LLR plugs the observed
            frequencies in for the true ones, which a handful of pairs cannot give (one pair
            scoring 1.5 alone has an LLR of +3.2 for elo0=0, elo1=200).
    """

    elo0: float = 0.0
    elo1: float = 10.0
    alpha: float = 0.05
    beta: float = 0.05
    model: str = "logistic"
    min_pairs: int = 10

    @property
    def lower(self) -> float:
        """Accept H0 at or below this LLR: ``log(beta / (1 - alpha))``."""
        return math.log(self.beta / (1.0 - self.alpha))

    @property
    def upper(self) -> float:
        """Accept H1 at or above this LLR: ``log((1 - beta) / alpha)``."""
        return math.log((1.0 - self.beta) / self.alpha)

    def decision(self, llr: float) -> str:
        """``"H1 accepted"``, ``"H0 accepted"`` or ``"continue"``."""
        if llr >= self.upper:
            return f"H1 accepted (Elo >= {self.elo1:g})"
        if llr <= self.lower:
            return f"H0 accepted (Elo <= {self.elo0:g})"
        return "continue"

    def bounds_text(self) -> str:
        """``(lower, upper)`` rounded to two decimals."""
        return f"({self.lower:.2f}, {self.upper:.2f})"


def parse_sprt(text: str) -> SprtSettings:
    """``"elo0=0,elo1=10,alpha=0.05,beta=0.05[,model=normalized][,min_pairs=10]"`` ->
    :class:`SprtSettings`.

    Raises:
        InvalidOptionError: for an unknown key, a bad number, ``elo0 >= elo1`` or rates outside
            (0, 1).
    """
    values: dict[str, Any] = {}
    for item in str(text).split(","):
        key, equals, value = item.strip().partition("=")
        if not equals or key not in SprtSettings._fields:
            raise InvalidOptionError(
                f"--sprt takes elo0=,elo1=,alpha=,beta= (and model=logistic|normalized, "
                f"min_pairs=N), "
                f"got {item.strip()!r}"
            )
        if key == "min_pairs":
            if not value.isdigit():
                raise InvalidOptionError(f"--sprt min_pairs must be an int >= 0, got {value!r}")
            values[key] = int(value)
            continue
        if key == "model":
            if value not in ("logistic", "normalized"):
                raise InvalidOptionError(f"--sprt model is logistic or normalized, not {value!r}")
            values[key] = value
            continue
        try:
            values[key] = float(value)
        except ValueError:
            raise InvalidOptionError(f"--sprt {key} must be a number, got {value!r}") from None
    settings = SprtSettings(**values)
    if not settings.elo0 < settings.elo1:
        raise InvalidOptionError(f"--sprt needs elo0 < elo1, got {settings.elo0}, {settings.elo1}")
    if not (0 < settings.alpha < 1 and 0 < settings.beta < 1):
        raise InvalidOptionError("--sprt alpha and beta must lie strictly between 0 and 1")
    return settings


def _gsprt_llr(
    counts: np.ndarray, scores: np.ndarray, settings: SprtSettings, games_per_unit: int
) -> float:
    """``N/2 * log(var0 / var1)``: the generalised SPRT's LLR for outcome ``counts`` scoring
    ``scores``, with ``var_k`` the mean squared distance of the outcomes from the score of H_k."""
    counts = np.asarray(counts, np.float64)
    total = counts.sum()
    if total == 0:
        return 0.0
    p = counts / total
    if settings.model == "normalized":
        mean = float(p @ scores)
        variance = float(p @ (scores - mean) ** 2)
        if variance == 0.0:
            return 0.0
        per_game_sd = math.sqrt(games_per_unit * variance)
        score0 = 0.5 + settings.elo0 * per_game_sd / (2.0 * ELO_PER_NAT)
        score1 = 0.5 + settings.elo1 * per_game_sd / (2.0 * ELO_PER_NAT)
    else:
        score0, score1 = score_from_elo(settings.elo0), score_from_elo(settings.elo1)
    variance0 = float(p @ (scores - score0) ** 2)
    variance1 = float(p @ (scores - score1) ** 2)
    if variance0 == 0.0 or variance1 == 0.0:
        return 0.0
    return 0.5 * total * math.log(variance0 / variance1)


def llr_trinomial(wins: int, draws: int, losses: int, settings: SprtSettings) -> float:
    """The SPRT log-likelihood ratio of single games (W, D, L of the tested agent)."""
    return _gsprt_llr(np.array([losses, draws, wins]), np.array([0.0, 0.5, 1.0]), settings, 1)


def llr_pentanomial(counts: Sequence[int], settings: SprtSettings) -> float:
    """The SPRT log-likelihood ratio of game pairs (counts of LL, LD, DD+WL, WD, WW)."""
    if len(counts) != 5:
        raise InvalidOptionError(f"pentanomial counts are 5 numbers, got {len(counts)}")
    return _gsprt_llr(np.asarray(counts), PENTANOMIAL_SCORES, settings, 2)


class SprtMonitor:
    """Runs an SPRT per pairing on complete game pairs and closes a pairing once it decides.

    Attributes:
        settings: the test.
        closed: pairing numbers that reached a decision.
        decisions: ``pairing number -> (LLR, decision text)`` for decided pairings.
    """

    def __init__(self, settings: SprtSettings) -> None:
        self.settings = settings
        self.closed: set[int] = set()
        self.decisions: dict[int, tuple[float, str]] = {}
        self._pairings: dict[int, PairingStats] = {}

    def update(self, record: dict[str, Any]) -> None:
        """Count one tournament record; decide its pairing if the LLR crossed a bound."""
        parsed = _record_points(record)
        pairing = record.get("pairing")
        if parsed is None or not isinstance(pairing, int):
            return
        a, b, points, pair, colour = parsed
        stats = self._pairings.setdefault(pairing, PairingStats(a, b))
        stats.add(points, pair, colour)
        if pairing in self.closed:
            return
        counts = stats.pentanomial()
        if counts.sum() < self.settings.min_pairs:
            return
        llr = llr_pentanomial(counts, self.settings)
        verdict = self.settings.decision(llr)
        if verdict != "continue":
            self.closed.add(pairing)
            self.decisions[pairing] = (llr, verdict)

    def llr(self, pairing: int) -> float:
        """The current LLR of a pairing (0 before its first complete pair)."""
        stats = self._pairings.get(pairing)
        return 0.0 if stats is None else llr_pentanomial(stats.pentanomial(), self.settings)
