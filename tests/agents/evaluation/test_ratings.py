"""Ratings: Elo from exact counts, Bradley-Terry against an independent fit, pentanomial, SPRT."""

from __future__ import annotations

import io
import json
import math

import numpy as np
import pytest

from mcts_envs.agents.evaluation import ratings as r
from mcts_envs.agents.evaluation.stats import format_elo_interval
from mcts_envs.agents.frontends.cli import main
from mcts_envs.core.errors import InvalidOptionError


def _records(a, b, results, pairs=None):
    """Match-style records: ``results`` are A's outcomes ('a', 'b', 'draw') in game order."""
    return [
        {"agents": [a, b], "result": result, "index": k, "pair": k // 2, "colour": k % 2}
        for k, result in enumerate(results)
    ]


def test_a_perfect_score_is_reported_one_sided_never_as_plus_inf():
    stats = r.PairingStats("a", "b", wins=10)
    assert r.score_interval(10, 0, 0)[1] == 1.0  # exact, not 0.9999999999999999
    assert [r.format_elo(x) for x in stats.elo()] == ["+inf", "+166", "+inf"]
    assert [r.format_elo(x) for x in r.PairingStats("a", "b", losses=10).elo()] == [
        "-inf",
        "-inf",
        "-166",
    ]
    table = r.rate(_records("a", "b", ["a"] * 10), anchor="b", bootstrap=50)
    text = table.text()
    assert "> +166" in text and "inf" not in text and "6261" not in text
    assert np.isfinite([table.elo, table.low, table.high]).all()


def test_no_minus_zero_is_printed():
    assert r.format_elo(-0.3) == "0" and r.format_elo(-0.0) == "0" and r.format_elo(0.6) == "+1"
    text = r.rate(_records("a", "b", ["a", "b"] * 5), anchor="a", bootstrap=50).text()
    assert "-0 " not in text and "-0]" not in text and "-0," not in text


def test_two_agents_bradley_terry_is_the_elo_of_the_score():
    points = np.array([[0.0, 13.5], [6.5, 0.0]])
    ratings = r.fit_bradley_terry(points, anchor=1, prior_draws=0)
    assert ratings[1] == 0.0
    assert ratings[0] == pytest.approx(r.elo_from_score(13.5 / 20), abs=1e-4)
    with_prior = r.fit_bradley_terry(points, anchor=1)  # two virtual draws: 14.5 of 22
    assert with_prior[0] == pytest.approx(r.elo_from_score(14.5 / 22), abs=1e-4)


def _zermelo(points: np.ndarray, iterations: int = 20000) -> np.ndarray:
    """Zermelo's fixed point (Hunter's MM algorithm): an independent Bradley-Terry solver."""
    games = points + points.T
    strength = np.ones(len(points))
    for _ in range(iterations):
        strength = points.sum(axis=1) / (games / (strength[:, None] + strength[None, :])).sum(1)
        strength /= strength[0]
    return 400 * np.log10(strength)


def test_bradley_terry_matches_zermelos_iteration():
    points = np.array(
        [[0, 7, 10.5, 4], [3, 0, 6, 2.5], [1.5, 4, 0, 5], [8, 9.5, 7, 0]], dtype=np.float64
    )
    fitted = r.fit_bradley_terry(points, anchor=0, prior_draws=0)
    assert fitted == pytest.approx(_zermelo(points), abs=1e-3)


def test_the_prior_fit_is_zermelos_fit_of_the_results_plus_virtual_draws():
    points = np.array([[0, 5, 9.0], [3, 0, 8.0], [0, 0, 0.0]])  # nobody scored against agent 2
    with_prior = points + 0.5 * r.PRIOR_DRAWS * (1 - np.eye(3))
    ratings = r.fit_bradley_terry(points, anchor=0)
    assert ratings == pytest.approx(_zermelo(with_prior), abs=1e-3)


@pytest.mark.parametrize("winner", ["a", "b"])
def test_an_agent_that_wins_or_loses_everything_gets_a_finite_honest_rating(winner):
    results = [winner] * 20
    records = _records("strong", "random", results) + _records("strong", "mid", [winner] * 10)
    records += _records("mid", "random", ["a", "b", "a", "a"] * 3)
    table = r.rate(records, anchor="random", bootstrap=50)
    assert np.isfinite([table.elo, table.low, table.high]).all()
    strong = table.elo[table.agents.index("strong")]
    assert (strong > 200) if winner == "a" else (strong < -100)
    assert "inf" not in table.text()
    # the plain maximum-likelihood fit does not exist here, and says so
    with pytest.raises(InvalidOptionError, match="prior_draws > 0"):
        r.rate(records, anchor="random", bootstrap=0, prior_draws=0)


def test_two_groups_that_never_met_are_named_not_rated():
    records = _records("a", "random", ["a", "b", "a"] * 4) + _records("x", "y", ["a", "b"] * 4)
    table = r.rate(records, anchor="random", bootstrap=20)
    by_name = dict(zip(table.agents, table.elo, strict=True))
    assert np.isfinite(by_name["a"]) and math.isnan(by_name["x"]) and math.isnan(by_name["y"])
    assert "x, y: never met random's group" in table.text()


def test_pentanomial_counts_complete_pairs_only():
    results = ["a", "a", "a", "draw", "a", "b", "draw", "draw", "b", "b", "a"]  # last pair open
    stats = r.tally(_records("x", "y", results))[("x", "y")]
    assert stats.pentanomial().tolist() == [1, 0, 2, 1, 1]  # LL, LD, DD+WL, WD, WW
    assert (stats.wins, stats.draws, stats.losses) == (5, 3, 3)
    elo, low, high = stats.pentanomial_elo()
    assert low < elo < high


def test_bootstrap_is_seeded_and_brackets_the_estimate():
    results = ["a", "b", "a", "draw", "a", "a", "b", "a", "draw", "a"] * 3
    records = _records("x", "y", results) + _records("y", "z", ["a", "draw", "b", "a"] * 4)
    first = r.rate(records, anchor="z", bootstrap=200, seed=3)
    again = r.rate(records, anchor="z", bootstrap=200, seed=3)
    assert np.array_equal(first.low, again.low) and np.array_equal(first.high, again.high)
    for k in range(3):
        assert first.low[k] <= first.elo[k] <= first.high[k]


# Published log-likelihood ratios of fastchess's SPRT test suite (Disservin/fastchess,
# tests/sprt_test.cpp at commit 74b0a8deb7023674927bc792eccb01b372601491; checked there to 1%).
# Trinomial stats are (wins, losses, draws); pentanomial ones are given in the order
# LL, LD, WL, DD, WD, WW there (WL and DD score the same, so only their sum matters).
FASTCHESS_TRINOMIAL = [
    ((36433, 36027, 68692), (0, 2, "normalized"), 0.92),
    ((10871, 10650, 20431), (-1.75, 0.25, "normalized"), 2.30),
    ((21404, 21184, 40708), (0.5, 2.5, "logistic"), -1.57),
    ((57433, 57030, 106593), (0, 2, "logistic"), -2.59),
]
FASTCHESS_PENTANOMIAL = [
    ((365, 16618, 36029, 200, 16974, 390), (0, 2, "normalized"), 2.25),
    ((127, 4883, 10311, 401, 5150, 104), (-1.75, 0.25, "normalized"), 3.01),
    ((223, 9863, 20279, 1000, 10037, 246), (0.5, 2.5, "logistic"), -3.07),
    ((871, 26175, 55003, 980, 26678, 821), (0, 2, "logistic"), -4.98),
]


@pytest.mark.parametrize(("counts", "test", "published"), FASTCHESS_TRINOMIAL)
def test_trinomial_llr_matches_fastchess(counts, test, published):
    wins, losses, draws = counts
    settings = r.SprtSettings(test[0], test[1], 0.05, 0.05, test[2])
    assert r.llr_trinomial(wins, draws, losses, settings) == pytest.approx(published, rel=0.01)


@pytest.mark.parametrize(("counts", "test", "published"), FASTCHESS_PENTANOMIAL)
def test_pentanomial_llr_matches_fastchess(counts, test, published):
    ll, ld, wl, dd, wd, ww = counts
    settings = r.SprtSettings(test[0], test[1], 0.05, 0.05, test[2])
    llr = r.llr_pentanomial([ll, ld, wl + dd, wd, ww], settings)
    assert llr == pytest.approx(published, rel=0.01)


def test_sprt_bounds_parsing_and_the_monitor_closes_a_decided_pairing():
    settings = r.parse_sprt("elo0=0,elo1=10,alpha=0.05,beta=0.05")
    assert (round(settings.lower, 2), round(settings.upper, 2)) == (-2.94, 2.94)
    assert r.parse_sprt("elo1=5,min_pairs=3").min_pairs == 3
    for bad in ("elo0=10,elo1=0", "alpha=2", "elo2=1", "elo0=x", "min_pairs=-1"):
        with pytest.raises(InvalidOptionError):
            r.parse_sprt(bad)
    monitor = r.SprtMonitor(r.parse_sprt("elo0=0,elo1=200"))
    seen = 0
    for record in _records("x", "y", ["a", "a", "a", "draw"] * 20):
        monitor.update({**record, "pairing": 0})
        seen += 1
        if monitor.closed:
            break
    assert monitor.closed == {0} and "H1" in monitor.decisions[0][1]
    assert seen == 20  # the LLR is far past 2.94 at once, but the test waits for 10 pairs


def test_cli_ratings_recomputes_from_a_file(tmp_path):
    path = tmp_path / "results.jsonl"
    records = _records("random", "mcts", ["b", "b", "draw", "b"] * 3)
    empty = ".../.../... x"  # ratings replay every record: a valid (unplayed) tictactoe game
    base = {"version": 2, "game": "tictactoe", "initial": empty, "actions": [], "chance": []}
    base |= {"players": ["x", "y"], "returns": None, "final": empty}
    path.write_text("".join(json.dumps({**base, **rec}) + "\n" for rec in records))
    out = io.StringIO()
    assert (
        main(["ratings", str(path), "--bootstrap", "50", "--sprt", "elo0=0,elo1=50"], out=out) == 0
    )
    text = out.getvalue()
    assert "random = 0" in text and "SPRT LLR" in text
    assert main(["ratings", str(path), "--anchor", "nobody"], out=io.StringIO()) == 2


def test_record_between_reads_a_pairing_either_way_round():
    # x beat y twice, drew once, lost once; y-vs-x records land in the same (x, y) pairing
    stats = r.tally(
        _records("x", "y", ["a", "draw"]) + _records("y", "x", ["b", "a"]) + _records("p", "q", [])
    )
    assert r.record_between(stats, "x", "y") == (2, 1, 1)
    assert r.record_between(stats, "y", "x") == (1, 1, 2)
    assert r.record_between(stats, "x", "q") is None


def test_match_ladder_and_pairing_tallies_count_a_results_file_alike():
    from mcts_envs.agents.evaluation.arena import AgentStats, summarize
    from mcts_envs.agents.evaluation.ladder import Anchor, AnchorTally
    from mcts_envs.agents.evaluation.stats import WinDrawLoss

    results = ["a", "b", "draw", "a", "a", None]  # None: an unfinished game counts as nothing
    records = [
        {"agents": ["x", "y"], "result": result, "index": k, "seat_a": k % 2}
        for k, result in enumerate(results)
    ]
    match = summarize("tictactoe", "x", "y", records)
    anchor = AnchorTally(Anchor("y", 0.0, -1.0, 1.0, 0, 0.5))
    for record in records:
        anchor.count(record["result"])
    (pairing,) = r.tally(records).values()
    for stats in (match.a, anchor, pairing):
        assert isinstance(stats, WinDrawLoss)
        assert (stats.wins, stats.draws, stats.losses, stats.games) == (3, 1, 1, 5)
        assert stats.points == 3.5 and stats.score == 0.7
        assert stats.score_interval() == r.score_interval(3, 1, 1)
        assert stats.elo() == pytest.approx(
            tuple(r.elo_from_score(x) for x in (0.7, *r.score_interval(3, 1, 1)))
        )
    assert match.elo_interval() == match.a.elo()
    assert (match.b.wins, match.b.draws, match.b.losses, match.b.score) == (1, 1, 3, 0.3)
    assert AgentStats("z").score == 0.5 and AgentStats("z").score_interval() == (0.0, 1.0)


def test_ten_draws_never_give_a_zero_width_interval():
    """Every resample of five drawn pairs is the same, so a percentile bootstrap has no width;
    the fit's Fisher information still bounds it. Oracle: 10 games and the prior's 2 virtual
    draws at p = 1/2 carry information 12 / 4 = 3 (nats^-2), so the 95% half-width is
    1.96 / sqrt(3) nats, times 400 / ln 10 Elo per nat."""
    table = r.rate(_records("a", "b", ["draw"] * 10), anchor="a", bootstrap=100)
    b = table.agents.index("b")
    expected = 1.959963984540054 / math.sqrt(3) * 400 / math.log(10)
    assert table.elo[b] == pytest.approx(0, abs=1e-6)
    assert table.high[b] == pytest.approx(expected, rel=1e-6)
    assert table.low[b] == pytest.approx(-expected, rel=1e-6)
    assert "[-197, +197]" in table.text()
    # an interval the bootstrap does give is left as it is
    mixed = r.rate(_records("a", "b", ["a", "draw", "b", "draw"] * 5), anchor="a", bootstrap=100)
    assert mixed.high[1] - mixed.low[1] > 0


def test_an_elo_needs_ten_games_and_an_open_end_reads_unbounded():
    few = r.rate(_records("a", "b", ["a", "b", "draw"]), anchor="a", bootstrap=20).text()
    assert "after 10 games (3 so far)" in few
    stats = r.PairingStats("a", "b")
    for pair in range(5):  # one lost game pair among wins: the upper end of the pairs is open
        stats.add(1.0, pair, 0)
        stats.add(1.0 if pair else 0.0, pair, 1)
    elo, low, high = stats.pentanomial_elo()
    assert math.isinf(high) and math.isfinite(elo)
    assert format_elo_interval(elo, low, high).endswith(", unbounded]")
    assert "inf" not in format_elo_interval(elo, low, high)
