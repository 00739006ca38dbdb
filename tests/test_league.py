"""The league library (initiative.analysis._league): its plan, its ratings and its paired tests."""

from __future__ import annotations

import math

import pytest
from initiative.batch import Summary, sign_test
from initiative.engine import load_encounter

from initiative.analysis._league import (
    Game,
    League,
    LeagueError,
    bradley_terry,
    decision_cost,
    games_of,
    league_tasks,
    play_league,
)
from tests.helpers import DUEL


def game(a: str, b: str, winner: str | None, seed: int, swapped: bool = False) -> Game:
    return Game("e", seed, a, b, swapped, winner, 3)


def test_each_seed_is_fought_twice_with_the_sides_swapped() -> None:
    """Per pair and seed: A on the first side, then the same seed with B there."""
    spec = load_encounter(DUEL)
    tasks = league_tasks(spec, ["x", "y", "z"], runs=2, seed_start=5)
    assert [(t.seed, t.policies) for t in tasks[:4]] == [
        (5, (("north", "x"), ("south", "y"))),
        (5, (("north", "y"), ("south", "x"))),
        (6, (("north", "x"), ("south", "y"))),
        (6, (("north", "y"), ("south", "x"))),
    ]
    assert len(tasks) == 3 * 2 * 2  # three pairs, two seeds, both ways
    assert tasks[4].policies == (("north", "x"), ("south", "z"))


def test_a_game_is_read_by_the_side_each_policy_played() -> None:
    """The winning side is turned into the winning policy, swapped or not."""
    spec = load_encounter(DUEL)

    def summary(winner: str | None) -> Summary:
        return Summary(seed=1, winner=winner, rounds=4, events=9, damage={}, faults={}, policies={})

    games = games_of(
        spec,
        "duel",
        ["x", "y"],
        [summary("north"), summary("north"), summary(None), summary("south")],
    )
    assert [(g.swapped, g.winner) for g in games] == [
        (False, "x"),
        (True, "y"),
        (False, None),
        (True, "x"),
    ]


def test_bradley_terry_matches_the_closed_form_of_two_players() -> None:
    """With two players the MM fit is p_a / p_b = W_a / W_b: 3 wins to 1 is 3 to 1."""
    strength = bradley_terry(["a", "b"], {("a", "b"): 3.0, ("b", "a"): 1.0}, prior=0.0)
    assert strength["a"] / strength["b"] == pytest.approx(3.0, rel=1e-9)
    assert strength["a"] * strength["b"] == pytest.approx(1.0)  # geometric mean 1


def test_bradley_terry_solves_the_likelihood_equations_of_three_players() -> None:
    """At the fit, each player's expected points equal its points (Hunter's MM fixed point)."""
    points = {("a", "b"): 7.0, ("b", "a"): 3.0, ("b", "c"): 6.0, ("c", "b"): 4.0}
    points |= {("a", "c"): 8.0, ("c", "a"): 2.0}
    p = bradley_terry(["a", "b", "c"], points, prior=0.0)
    for i in "abc":
        expected = sum(
            (points[(i, j)] + points[(j, i)]) * p[i] / (p[i] + p[j]) for j in "abc" if j != i
        )
        assert expected == pytest.approx(sum(points[(i, j)] for j in "abc" if j != i), rel=1e-8)


def test_a_policy_that_never_wins_keeps_a_finite_rating() -> None:
    """The prior (one drawn virtual game per pair) keeps a shut-out finite, and last."""
    games = tuple(game("a", "b", "a", seed) for seed in range(10))
    league = League(("a", "b"), ("e",), 10, 0, games)
    best, worst = league.ratings(resamples=20)
    assert (best.policy, worst.policy) == ("a", "b")
    assert math.isfinite(worst.rating) and worst.rating < 0 < best.rating
    # 10.5 points to 0.5: 400 log10(21) apart, split evenly around 0
    assert best.rating - worst.rating == pytest.approx(400 * math.log10(21))


def test_the_pairwise_record_pairs_games_by_seed() -> None:
    """Wins, losses and undecided count games; the sign test counts seeds that differ."""
    games = (
        game("a", "b", "a", 1),
        game("a", "b", "a", 1, True),  # seed 1: a both times
        game("a", "b", "a", 2),
        game("a", "b", "b", 2, True),  # seed 2: even
        game("a", "b", None, 3),
        game("a", "b", "b", 3, True),  # seed 3: b better
    )
    (record,) = League(("a", "b"), ("e",), 3, 1, games).pairings()
    assert (record.wins, record.losses, record.undecided) == (3, 2, 1)
    assert (record.a_better, record.b_better, record.even) == (1, 1, 1)
    assert record.p == 1.0


def test_the_sign_test_agrees_with_scipy() -> None:
    """The exact two-sided binomial p-value the league reports is scipy's."""
    stats = pytest.importorskip("scipy.stats")
    for wins, losses in [(17, 4), (11, 1), (3, 2), (0, 9), (30, 20)]:
        expected = stats.binomtest(wins, wins + losses, 0.5).pvalue
        assert sign_test(wins, losses) == pytest.approx(expected, rel=1e-12)


def test_ratings_and_their_intervals_repeat_for_the_same_games() -> None:
    """The bootstrap draws from a fixed stream: the same league, the same intervals."""
    games = tuple(
        game(a, b, w, s)
        for s, (a, b, w) in enumerate([("a", "b", "a"), ("a", "c", "c"), ("b", "c", "b")] * 5)
    )
    league = League(("a", "b", "c"), ("e",), 15, 0, games)
    assert league.ratings(resamples=50) == league.ratings(resamples=50)
    for r in league.ratings(resamples=50):
        assert r.low <= r.rating <= r.high


def test_a_league_fights_every_pair_both_ways_on_a_real_encounter() -> None:
    """Two seeds of the duel, both ways, for each of three pairs: 12 games; the policies of a
    game are those of its side."""
    league = play_league([DUEL], ["first", "aggressive", "random"], 2, seed_start=3)
    assert len(league.games) == 12
    assert {(g.a, g.b) for g in league.games} == {
        ("first", "aggressive"),
        ("first", "random"),
        ("aggressive", "random"),
    }
    assert sum(r.games for r in league.ratings(resamples=10)) == 24


def test_a_league_refuses_what_it_cannot_play() -> None:
    """Fewer than two policies, a policy named twice, an encounter with three sides."""
    with pytest.raises(LeagueError, match="at least two"):
        play_league([DUEL], ["first"], 1)
    with pytest.raises(LeagueError, match="named twice"):
        play_league([DUEL], ["first", "first"], 1)


def test_decision_cost_times_only_the_policy_asked_about() -> None:
    """A positive number of CPU microseconds per decision."""
    assert decision_cost(DUEL, "first", "aggressive", [1]) > 0
