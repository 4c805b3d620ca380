"""Ratings against values computed by hand."""

from __future__ import annotations

import math
import random

import pytest
from openskill.models import PlackettLuce
from tourhelp import game, series

from protocol.errors import RequestError
from tournaments.rank.ratings import (
    EloFit,
    OnlinePlackettLuce,
    Rating,
    elo_fit,
    elo_from_score,
    elo_ratings,
    fit,
    head_to_head,
    plackett_luce,
    score_from_elo,
    tally,
)
from tournaments.store.results import FinishedGame

# 400 · log10(0.75 / 0.25): the Elo difference that makes a 75% score expected.
ELO_75 = 400 * math.log10(3)


def test_elo_scale_by_hand() -> None:
    assert pytest.approx(190.85, abs=0.01) == ELO_75
    assert elo_from_score(0.75) == pytest.approx(ELO_75)
    assert score_from_elo(ELO_75) == pytest.approx(0.75)
    assert elo_from_score(0.5) == 0


def test_75_percent_is_191_elo() -> None:
    games = series("a", "b", wins=300, losses=100)
    exact = elo_ratings(games, prior=0, bootstrap=0)
    assert exact["a"].elo - exact["b"].elo == pytest.approx(ELO_75, abs=1e-4)
    assert exact["a"].elo + exact["b"].elo == pytest.approx(3000)  # mean anchored at 1500
    # The default prior (one virtual draw) moves 300/400 to 300.5/401: 190.3.
    regular = elo_ratings(games, bootstrap=0)
    assert regular["a"].elo - regular["b"].elo == pytest.approx(elo_from_score(300.5 / 401))
    assert regular["a"].elo - regular["b"].elo == pytest.approx(191, abs=1)


def test_symmetric_results_give_equal_ratings() -> None:
    games = series("a", "b", 7, 7) + series("b", "c", 5, 5) + series("a", "c", 3, 3, draws=4)
    ratings = elo_ratings(games, bootstrap=50)
    for bot in "abc":
        assert ratings[bot].elo == pytest.approx(1500, abs=1e-4)
        assert ratings[bot].lo < 1500 < ratings[bot].hi


def test_ties_count_half() -> None:
    # 2 wins, 2 losses and 4 ties is 50%; 6 wins and 4 ties of 10 is 80%.
    even = elo_ratings(series("a", "b", 2, 2, draws=4), prior=0, bootstrap=0)
    assert even["a"].elo == pytest.approx(even["b"].elo)
    ahead = elo_ratings(series("a", "b", 6, 0, draws=4), prior=0, bootstrap=0)
    assert ahead["a"].elo - ahead["b"].elo == pytest.approx(elo_from_score(0.8))


def test_multiplayer_game_gives_every_pair_from_ranks() -> None:
    # a first, b and c tied second, d last: 6 pairs.
    totals = tally([game(["d", "b", "a", "c"], [4, 2, 1, 2])])
    assert totals == {
        ("a", "b"): [1.0, 1.0],
        ("a", "c"): [1.0, 1.0],
        ("a", "d"): [1.0, 1.0],
        ("b", "c"): [0.5, 1.0],
        ("b", "d"): [1.0, 1.0],
        ("c", "d"): [1.0, 1.0],
    }


def test_transitive_ladder_by_hand() -> None:
    # a–b 75%, b–c 75%, and a–c exactly as Bradley–Terry predicts: 90%.
    games = series("a", "b", 75, 25) + series("b", "c", 75, 25) + series("a", "c", 90, 10)
    ratings = elo_ratings(games, prior=0, bootstrap=0)
    assert ratings["a"].elo - ratings["b"].elo == pytest.approx(ELO_75, abs=1e-4)
    assert ratings["b"].elo - ratings["c"].elo == pytest.approx(ELO_75, abs=1e-4)


def test_order_does_not_matter() -> None:
    games = series("a", "b", 30, 12, 5) + series("b", "c", 20, 22) + series("c", "a", 9, 11, 3)
    shuffled = games[:]
    random.Random(3).shuffle(shuffled)
    assert elo_ratings(games, bootstrap=40) == elo_ratings(shuffled, bootstrap=40)


def test_anchor_bot() -> None:
    games = series("a", "b", 300, 100)
    ratings = elo_ratings(games, anchor="b", anchor_elo=1000, prior=0, bootstrap=20)
    assert ratings["b"].elo == 1000
    assert ratings["a"].elo == pytest.approx(1000 + ELO_75)
    with pytest.raises(RequestError, match="anchor 'z' has no games"):
        elo_ratings(games, anchor="z")


def test_clean_sweep_stays_finite() -> None:
    ratings = elo_ratings(series("a", "b", 20, 0), bootstrap=50)
    assert math.isfinite(ratings["a"].elo)
    assert 400 < ratings["a"].elo - ratings["b"].elo < 700


def test_intervals_shrink_as_games_grow() -> None:
    def width(scale: int) -> float:
        rating = elo_ratings(series("a", "b", 6 * scale, 4 * scale), bootstrap=300)["a"]
        assert rating.lo < rating.elo < rating.hi
        return rating.hi - rating.lo

    small, medium, large = width(2), width(8), width(32)
    assert small > medium > large
    # The width goes as 1/sqrt(games): 16 times the games, about a quarter of the width.
    assert large / small == pytest.approx(0.25, rel=0.3)


def test_fit_separate_groups_stay_finite() -> None:
    strength = fit({("a", "b"): [3, 4], ("c", "d"): [1, 4]}, ["a", "b", "c", "d"])
    assert all(math.isfinite(value) for value in strength.values())
    assert strength["a"] > strength["b"] and strength["d"] > strength["c"]


@pytest.mark.parametrize("bots", [12, 150], ids=["dense step", "sparse step"])
def test_fit_solves_the_likelihood_equations(bots: int) -> None:
    """At the maximum every bot's points (with the virtual draw per pair) equal its expected
    points, for a field small enough for dense steps and one large enough for sparse ones,
    with two groups that never met (the even and the odd bots) and mean 0 over all."""
    rng = random.Random(bots)
    tallies: dict[tuple[str, str], list[float]] = {}
    names = [f"bot{i:03d}" for i in range(bots)]
    for i in range(bots):
        for j in rng.sample(range(i % 2, bots, 2), 6):
            if i != j:
                pair = tuple(sorted((names[i], names[j])))
                games = rng.randint(1, 40)
                tallies[pair] = [rng.randint(0, games) + 0.5 * rng.randint(0, 1), games]  # type: ignore[index]
    strength = fit(tallies, names)
    points = dict.fromkeys(names, 0.0)
    expected = dict.fromkeys(names, 0.0)
    for (a, b), (score, games) in tallies.items():
        p = 1 / (1 + math.exp(strength[b] - strength[a]))
        points[a] += score + 0.5
        points[b] += games - score + 0.5
        expected[a] += (games + 1) * p
        expected[b] += (games + 1) * (1 - p)
    for name in names:
        assert points[name] == pytest.approx(expected[name], abs=1e-6)
    assert math.fsum(strength.values()) == pytest.approx(0, abs=1e-6)


def test_head_to_head() -> None:
    games = series("a", "b", 300, 100) + series("a", "c", 10, 0)
    match = head_to_head(games, "a", "b")
    assert match.games == 400
    assert match.score == 0.75
    assert match.elo == pytest.approx(elo_from_score(300.5 / 401))  # with the virtual draw
    assert match.lo < match.elo < match.hi
    # 400 independent games at 75%: the score's standard error is sqrt(.75·.25/400), and
    # d(Elo)/d(score) = (400/ln 10) / (.75·.25): ±1.96 · 173.7 · 0.02165 / 0.1875 = ±39.3 Elo.
    margin = 1.96 * (400 / math.log(10)) * math.sqrt(0.75 * 0.25 / 400) / (0.75 * 0.25)
    assert margin == pytest.approx(39.3, abs=0.1)
    assert (match.hi - match.lo) / 2 == pytest.approx(margin, rel=0.02)
    assert match.los > 0.999
    reverse = head_to_head(games, "b", "a")
    assert reverse.elo == pytest.approx(-match.elo)
    assert reverse.los < 0.001
    even = head_to_head(series("a", "b", 5, 5), "a", "b")
    assert even.los == pytest.approx(0.5)
    assert head_to_head(games, "b", "c").games == 0


def test_plackett_luce_orders_consistent_finishers() -> None:
    games = [
        game(["a", "b", "c"][r:] + ["a", "b", "c"][:r], ranks, deal=d)
        for d in range(10)
        for r, ranks in enumerate([[1, 2, 3], [2, 3, 1], [3, 1, 2]])
    ]
    ratings = plackett_luce(games)
    assert ratings["a"][0] > ratings["b"][0] > ratings["c"][0]
    assert all(sigma < 25 / 3 for _, sigma in ratings.values())


def test_the_online_plackett_luce_is_openskills_rate_to_the_last_bit() -> None:
    """The update done in place on kept ratings gives exactly what openskill's own `rate`
    gives, game after game: two to four seats, ties, a bot sitting twice (not rated)."""
    rng = random.Random(5)
    model, kept, online = PlackettLuce(), {}, OnlinePlackettLuce()
    for _ in range(300):
        seats = rng.sample("abcdef", rng.randint(2, 4))
        if rng.random() < 0.05:
            seats.append(seats[0])
        ranks = [rng.randint(1, len(seats)) for _ in seats]
        after = online.add(game(seats, ranks))
        if len(set(seats)) < len(seats):
            assert after == {}
            continue
        teams = [[kept.get(bot) or model.rating(name=bot)] for bot in seats]
        rated = model.rate(teams, ranks=[float(rank) for rank in ranks])
        kept.update((bot, rating) for bot, (rating,) in zip(seats, rated, strict=True))
        assert after == {bot: (kept[bot].mu, kept[bot].sigma) for bot in seats}
    assert all(online.sigma(bot) == kept[bot].sigma for bot in kept)


# Three bots in two-player series and three-player games, with draws: `elo_ratings` as it was
# before the bootstrap's resamples were kept for the rank probabilities (`elo_fit`).
MIXED = (
    series("a", "b", 7, 3, 2)
    + series("b", "c", 5, 6, 1)
    + series("a", "c", 8, 2)
    + [game(["a", "b", "c"], [1, 3, 2], deal=deal) for deal in range(3)]
)
BEFORE = {
    "a": (1637.285879067387, 1565.2533772362378, 1720.104619238922),
    "b": (1411.2229651967355, 1331.2755137288477, 1498.5181158383596),
    "c": (1451.4911557358776, 1380.247669895934, 1491.7843301829505),
}
BEFORE_ANCHORED = {
    "a": (1185.7947233315094, 1101.9241080129389, 1322.0804584256919),
    "b": (959.731809460858, 868.3995120325827, 1101.0931866219184),
    "c": (1000.0, 1000.0, 1000.0),
}


def test_elo_ratings_are_what_they_were_before_the_resamples_were_kept() -> None:
    def same(ratings: dict[str, Rating], before: dict[str, tuple[float, float, float]]) -> bool:
        numbers = [(rating.elo, rating.lo, rating.hi) for rating in ratings.values()]
        flat = [value for triple in numbers for value in triple]
        expected = [value for triple in before.values() for value in triple]
        return list(ratings) == list(before) and flat == pytest.approx(expected, rel=1e-12)

    assert same(elo_ratings(MIXED, bootstrap=30), BEFORE)
    assert same(elo_ratings(MIXED, bootstrap=30, anchor="c", anchor_elo=1000), BEFORE_ANCHORED)
    assert elo_fit(MIXED, bootstrap=30).ratings() == elo_ratings(MIXED, bootstrap=30)


def test_a_bot_that_always_wins_is_first_in_every_resample() -> None:
    games = series("a", "b", 12, 0) + series("a", "c", 12, 0) + series("b", "c", 7, 5)
    places = elo_fit(games, bootstrap=200).rank_probabilities()
    assert places["a"][0] >= 0.99
    assert places["b"][0] == places["c"][0] == 0
    assert places["b"][1] > places["c"][1]  # b is ahead of c, but not surely: 7 of 12
    assert 0 < places["c"][1] < 0.5


def test_identical_bots_split_their_places() -> None:
    # x and y do the same against a stronger s and a weaker w, and split their own games.
    games = (
        series("x", "y", 10, 10)
        + series("s", "x", 15, 5)
        + series("s", "y", 15, 5)
        + series("x", "w", 15, 5)
        + series("y", "w", 15, 5)
    )
    places = elo_fit(games, bootstrap=400).rank_probabilities()
    assert places["x"][1] == pytest.approx(0.5, abs=0.1)
    assert places["y"][1] == pytest.approx(0.5, abs=0.1)
    assert places["x"][1] + places["x"][2] > 0.95
    assert places["s"][0] > 0.95 and places["w"][3] > 0.95


def test_rank_probabilities_add_up_over_bots_and_places() -> None:
    places = elo_fit(MIXED, bootstrap=50).rank_probabilities()
    assert list(places) == ["a", "b", "c"]
    for shares in places.values():
        assert sum(shares) == pytest.approx(1)
    for place in range(3):
        assert sum(shares[place] for shares in places.values()) == pytest.approx(1)
    assert elo_fit(MIXED, bootstrap=0).rank_probabilities() == {}


def test_tied_bots_share_places_and_incomplete_resamples_do_not_count() -> None:
    fitted = EloFit(
        point={"a": 1500.0, "b": 1500.0, "c": 1400.0},
        resamples=[
            {"a": 1550.0, "b": 1550.0, "c": 1400.0},  # a and b tied: half of #1 and #2 each
            {"a": 1400.0, "b": 1600.0, "c": 1500.0},
            {"a": 1600.0, "b": 1500.0},  # c not drawn: no places
        ],
    )
    assert fitted.rank_probabilities() == {
        "a": [0.25, 0.25, 0.5],
        "b": [0.75, 0.25, 0.0],
        "c": [0.0, 0.5, 0.5],
    }


def test_a_bot_whose_name_is_empty_is_rated_as_any_other() -> None:
    # "" and "0" sort alike among these names and in their seat-sets' labels: the same fit.
    def league(third: str) -> list[FinishedGame]:
        return series("a", "b", 7, 5) + series("b", third, 6, 6) + series("a", third, 8, 4)

    empty, zero = elo_fit(league(""), bootstrap=20), elo_fit(league("0"), bootstrap=20)
    assert empty.ratings()[""] == zero.ratings()["0"]
