"""A season's final, its parts alone: each round is written down on deals no table had, a
final played before rounds were written down still reads (its certificate counts a look a
deal), and its budget ends it when no round more fits."""

from __future__ import annotations

import random
from pathlib import Path

from tournaments.league.final import (
    begun,
    claim_of,
    looks,
    planned,
    progress,
    read_rounds,
    rounds_path,
    write_rounds,
)
from tournaments.league.registry import Season
from tournaments.plan.config import Grade, LeagueSettings
from tournaments.rank.doubling import doubling_round
from tournaments.store.results import Played
from tournaments.store.store import Store, seat_set_key


def test_each_round_plays_deals_its_tables_never_had_and_is_written_down(tmp_path: Path) -> None:
    first = planned([(("b", "a"), 2), (("b", "c"), 1)], [])
    assert first == [(["a", "b"], 0, 2), (["b", "c"], 0, 1)]
    second = planned([(("a", "b"), 4), (("a", "c"), 1)], [first])
    assert second == [(["a", "b"], 2, 6), (["a", "c"], 0, 1)]
    after_old = planned([(("a", "b"), 1)], [], {("a", "b"): 5})  # an older final's deals
    assert after_old == [(["a", "b"], 5, 6)]
    store = tmp_path / "cup.season-1-final.sqlite"
    assert read_rounds(store) == [] and looks(store, 9) == 9
    write_rounds(store, [first, second])
    assert rounds_path(store).exists() and read_rounds(store) == [first, second]
    assert looks(store, 9) == 2


def test_the_league_file_says_what_its_finals_certify() -> None:
    settings = LeagueSettings(
        certify="grades", grades=[Grade("A", {"staff": 60.0}), Grade("B", {"staff": 40.0})]
    )
    claim = claim_of(settings)
    assert claim.kind == "grades" and claim.thresholds == [("staff", 60.0), ("staff", 40.0)]
    assert claim_of(LeagueSettings()).describe() == "the top 10 in order"


def _old_final(path: Path, deals: int, wins: float = 0.75) -> None:
    """A final as today's rule left it, no rounds written down: every pair of three bots,
    `deals` deals in both rotations, the stronger bot (by name) winning a share `wins` of
    them."""
    rng = random.Random(4)
    with Store(path) as store:
        store.bind({"game": "azul", "players": 2})
        ids = [store.bot(name, name, f"{name}-1").id for name in ("ann", "bob", "cat")]
        for high, low in ((0, 1), (0, 2), (1, 2)):
            for deal in range(deals):
                won = rng.random() < wins
                for rotation in range(2):
                    seats = [ids[high], ids[low]][rotation:] + [ids[high], ids[low]][:rotation]
                    first = (ids[high] if won else ids[low]) == seats[0]
                    store.add_game(
                        seat_set=seat_set_key([ids[high], ids[low]]),
                        deal=deal,
                        rotation=rotation,
                        seed=deal,
                        bots=seats,
                        played=Played(
                            scores=[1, 0] if first else [0, 1],
                            ranks=[1, 2] if first else [2, 1],
                            moves=[5, 5],
                            think_ms=[1.0, 1.0],
                        ),
                        decisions=10,
                        record=b"{}\n",
                    )


def test_an_old_published_final_still_reads_and_a_spent_budget_ends_it(tmp_path: Path) -> None:
    path = tmp_path / "cup.season-1-final.sqlite"
    _old_final(path, 40)
    season = Season(1, "", "", 240, "")
    final = progress(path, season)
    assert final.games == 240 and final.deals == 120 and final.standings
    assert final.certificate is not None and final.certificate.looks == 120
    assert final.spent and final.over and final.cut == (not final.settled)
    assert [p.bot for p in final.certificate.places] == ["ann", "bob", "cat"]
    assert final.certificate.first_fragility is not None  # over: first place's fragility
    assert begun(path) == {("ann", "bob"): 40, ("ann", "cat"): 40, ("bob", "cat"): 40}
    wider = progress(path, Season(1, "", "", 10_000, None))
    assert not wider.over and wider.certificate is not None
    assert wider.certificate.first_fragility is None  # still playing: not yet reckoned


def test_the_final_before_the_sequential_one_doubles_whole_deals_within_its_budget() -> None:
    bots = ["c", "a", "b"]
    pairs = [("a", "b"), ("a", "c"), ("b", "c")]
    assert doubling_round(bots, 2, 0, 1_000) == [(pair, 1) for pair in pairs]
    assert doubling_round(bots, 2, 4, 1_000) == [(pair, 4) for pair in pairs]  # 4 → 8 deals
    assert doubling_round(bots, 2, 4, 18) == [(pair, 3) for pair in pairs]  # 18 games: 3 more
    assert doubling_round(bots, 2, 4, 5) == []  # not one more deal of every pair
    assert doubling_round(bots, 2, 0, 4) == [(pair, 1) for pair in pairs[:2]]  # under a deal


def test_a_final_played_by_the_doubling_rule_ends_when_its_neighbours_are_told_apart(
    tmp_path: Path,
) -> None:
    path = tmp_path / "cup.season-1-final.sqlite"
    _old_final(path, 8, wins=0.5)
    even = progress(path, Season(1, "", "", 10_000, None), rule="doubling")
    assert not even.settled and not even.over  # equals are not told apart: it doubles
    assert progress(path, Season(1, "", "", 53, None), rule="doubling").spent
    path.unlink()
    _old_final(path, 40)
    many = progress(path, Season(1, "", "", 10_000, None), rule="doubling")
    assert many.settled and many.over and many.certificate is not None
