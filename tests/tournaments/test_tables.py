"""Tables as data, from hand-made games."""

from __future__ import annotations

import argparse
import json
from typing import Any

import pytest
from tourhelp import game, series

from tournaments.commands.tableview import print_tables
from tournaments.rank.tables import TABLE_NAMES, Table, build, crosstable, faults, seats, standings
from tournaments.store.results import FaultRow

# a beats b 3 of 4, b beats c 3 of 4, a beats c every time.
GAMES = series("a", "b", 3, 1) + series("b", "c", 3, 1) + series("a", "c", 4, 0)


def column(table: Table, key: str) -> list[Any]:
    return [row[table.keys.index(key)] for row in table.rows]


def test_standings() -> None:
    table = standings(GAMES, bootstrap=50)
    assert column(table, "bot") == ["a", "b", "c"]
    assert column(table, "rank") == [1, 2, 3]
    assert column(table, "games") == [8, 8, 8]
    assert column(table, "win_pct") == [87.5, 50.0, 12.5]
    assert column(table, "mean_rank") == [1.12, 1.5, 1.88]
    assert column(table, "ms_per_decision") == [5.0, 5.0, 5.0]
    elos = column(table, "elo")
    assert elos[0] > elos[1] > elos[2]
    assert sum(elos) == pytest.approx(4500, abs=2)
    assert all(ci > 0 for ci in column(table, "ci"))
    assert "pl_mu" not in table.keys  # two-player games: no Plackett–Luce


def test_standings_of_multiplayer_games_add_plackett_luce() -> None:
    games = [
        game(["a", "b", "c"], [1, 2, 3], deal=0),
        game(["b", "c", "a"], [2, 3, 1], deal=1),
        game(["c", "a", "b"], [3, 1, 1], deal=2),
    ]
    table = standings(games, bootstrap=20)
    assert table.keys[-2:] == ["pl_mu", "pl_sigma"]
    assert column(table, "bot")[0] == "a"
    # A tie for first is half a win each.
    assert column(table, "win_pct") == [83.3, 16.7, 0.0]


def test_crosstable() -> None:
    table = crosstable(GAMES, ["a", "b", "c"])
    headers, shown = table.for_people()
    assert headers == ["bot", "a", "b", "c"]
    assert shown == [
        ["a", "—", "75% (4)", "100% (4)"],
        ["b", "25% (4)", "—", "75% (4)"],
        ["c", "0% (4)", "25% (4)", "—"],
    ]
    assert crosstable(series("a", "b", 1, 0), ["a", "b", "z"]).for_people()[1][2] == [
        "z",
        "",
        "",
        "—",
    ]


def test_crosstable_gives_numbers_to_machines() -> None:
    table = crosstable(GAMES, ["a", "b", "c"])
    assert table.keys == ["bot", "a", "a games", "b", "b games", "c", "c games"]
    assert table.records()[0] == {
        "bot": "a",
        "a": None,
        "a games": 0,
        "b": 75.0,
        "b games": 4,
        "c": 100.0,
        "c games": 4,
    }


def test_wins_losses_draws_and_pentanomial_counts() -> None:
    # One deal per pair of games (both seatings): a scores 2, 1½, 1 and ½ points in four deals.
    outcomes = [((1, 2), (2, 1)), ((1, 2), (1, 1)), ((1, 2), (1, 2)), ((1, 1), (1, 2))]
    games = []
    for deal, (first, second) in enumerate(outcomes):
        games.append(game(["a", "b"], list(first), deal=deal, rotation=0, seat_set="a,b"))
        games.append(game(["b", "a"], list(second), deal=deal, rotation=1, seat_set="a,b"))
    table = build(["standings", "pairs"], games, bootstrap=0)
    ladder, head = table[0].records(), table[1].records()
    assert [(r["bot"], r["wins"], r["losses"], r["draws"]) for r in ladder] == [
        ("a", 4, 2, 2),
        ("b", 2, 4, 2),
    ]
    (pair,) = head
    assert (pair["bot"], pair["wins"], pair["losses"], pair["draws"]) == ("a", 4, 2, 2)
    penta = [pair[key] for key in ("deals_0", "deals_0_5", "deals_1", "deals_1_5", "deals_2")]
    assert penta == [0, 1, 1, 1, 1]
    three = build(["pairs"], [game(["a", "b", "c"], [1, 2, 3])], bootstrap=0)[0]
    assert "deals_0" not in three.keys  # pentanomial counts are for two-player deals


def test_seats_show_seat_advantage() -> None:
    # Seat 0 wins 3 of 4 whoever sits there.
    games = [
        game(["a", "b"], [1, 2], deal=0, rotation=0, seat_set="a,b"),
        game(["b", "a"], [1, 2], deal=0, rotation=1, seat_set="a,b"),
        game(["a", "b"], [1, 2], deal=1, rotation=0, seat_set="a,b"),
        game(["b", "a"], [2, 1], deal=1, rotation=1, seat_set="a,b"),
    ]
    table = seats(games)
    assert column(table, "seat") == [0, 1]
    assert column(table, "win_pct") == [75.0, 25.0]
    assert column(table, "score_pct") == [75.0, 25.0]
    assert column(table, "elo")[0] > 0 > column(table, "elo")[1]


def test_faults_by_kind() -> None:
    timeout = FaultRow(seat=1, kind="timeout", reason="no answer\nwithin 100 ms", decision=4)
    crash = FaultRow(seat=0, kind="crash", reason="exited (exit code 1)", decision=2)
    games = [
        game(["a", "b"], [1, 2], faults=[timeout]),
        game(["b", "a"], [2, 1], faults=[crash]),
        game(["a", "b"], [1, 2], faults=[timeout]),
    ]
    table = faults(games)
    assert table.rows == [
        ["b", "timeout", 2, "no answer within 100 ms"],
        ["b", "crash", 1, "exited (exit code 1)"],
    ]
    assert column(standings(games, bootstrap=0), "faults") == [0, 3]


def test_build_every_table_in_ladder_order() -> None:
    tables = build(list(TABLE_NAMES), GAMES, bootstrap=20)
    assert [t.name for t in tables] == list(TABLE_NAMES)
    by_name = {t.name: t for t in tables}
    assert column(by_name["timing"], "bot") == ["a", "b", "c"]
    assert column(by_name["pairs"], "opponent") == ["b", "c", "c"]
    for table in tables:
        assert all(len(row) == len(table.keys) == len(table.headers) for row in table.rows)
        assert table.records() == [dict(zip(table.keys, row, strict=True)) for row in table.rows]


# Each beats the next 9 games of 10: rock > scissors > paper > rock.
ROCK_PAPER_SCISSORS = (
    series("rock", "scissors", 9, 1)
    + series("scissors", "paper", 9, 1)
    + series("paper", "rock", 9, 1)
)


def test_ranks_give_each_bot_its_chance_of_each_place() -> None:
    games = series("a", "b", 12, 0) + series("a", "c", 12, 0) + series("b", "c", 6, 6)
    (table,) = build(["ranks"], games, bootstrap=100)
    assert table.keys == ["rank", "bot", "rank_1_pct", "rank_2_pct", "rank_3_pct"]
    assert table.headers[2:] == ["#1 %", "#2 %", "#3 %"]
    assert table.rows[0] == [1, "a", 100.0, 0.0, 0.0]  # it won every game
    for row in table.rows:
        assert sum(row[2:]) == pytest.approx(100, abs=0.2)
    (blank,) = build(["ranks"], games, bootstrap=0)
    assert [row[2:] for row in blank.rows] == [[None] * 3] * 3  # no resamples: no chances


def test_rock_paper_scissors_is_a_significant_cycle() -> None:
    ladder, cycles = build(["standings", "cycles"], ROCK_PAPER_SCISSORS, bootstrap=20)
    first = ladder.rows[0][1]
    following = {"rock": "scissors", "scissors": "paper", "paper": "rock"}
    steps = [first, following[first], following[following[first]]]
    assert [row[:3] for row in cycles.rows] == [[1, bot, following[bot]] for bot in steps]
    assert all(row[3:] == [10, 90.0, 100.0] for row in cycles.rows)
    assert ladder.notes == [
        f"Cycle {' > '.join([*steps, first])}: each beats the next (LOS ≥ 95%), so no single "
        "ranking of these bots is right (see the cycles table)."
    ]


def test_a_transitive_ladder_or_an_unsure_upset_is_no_cycle() -> None:
    transitive = series("a", "b", 9, 1) + series("b", "c", 9, 1) + series("a", "c", 9, 1)
    upset = series("a", "b", 9, 1) + series("b", "c", 9, 1) + series("c", "a", 6, 4)
    for games in (transitive, upset):
        ladder, cycles = build(["standings", "cycles"], games, bootstrap=20)
        assert cycles.rows == [] and ladder.notes == []
        assert ladder == standings(games, bootstrap=20)  # the leaderboard's own standings


def test_text_shows_the_cycle_under_the_standings_and_json_the_cycles_table(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = argparse.Namespace(
        anchor=None, bootstrap=20, csv_dir=None, csv=False, json=False, fmt="simple"
    )
    print_tables(ROCK_PAPER_SCISSORS, ["standings", "crosstable"], args)
    text = capsys.readouterr().out
    standings_text, crosstable_text = text.split("\n\n")
    assert standings_text.startswith("Standings\n")
    assert standings_text.splitlines()[-1].startswith("Cycle ")
    assert crosstable_text.startswith("Crosstable") and "Cycle" not in crosstable_text
    args.json = True
    print_tables(ROCK_PAPER_SCISSORS, ["standings", "cycles"], args)
    printed = json.loads(capsys.readouterr().out)
    assert list(printed) == ["standings", "cycles"]
    assert {row["bot"] for row in printed["cycles"]} == {"rock", "paper", "scissors"}
    assert {row["cycle"] for row in printed["cycles"]} == {1}
