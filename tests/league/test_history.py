"""A bot's rating over time and head to head on its page: its mu after each of its games
(computed with the board), thinned, and drawn without script; its pairs from its side."""

from __future__ import annotations

import re

from leaguehelp import finished

from tournaments.league.board import Board, head_to_head, history
from tournaments.rank.ratings import mu_series
from tournaments.rank.tables import pairs
from tournaments.server.history import svg_line
from tournaments.store.store import bot_of


def test_a_bot_that_always_wins_climbs_and_one_that_always_loses_falls() -> None:
    games = [finished(["winner", "loser"], [1, 2]) for _ in range(10)]
    histories = mu_series(games, bot_of)
    up, down = histories["winner"], histories["loser"]
    assert len(up) == len(down) == 10
    assert up == sorted(up) and up[0] < up[-1]
    assert down == sorted(down, reverse=True) and down[0] > down[-1]


def test_every_version_of_a_bot_counts_as_the_bot() -> None:
    games = [finished(["bot@1234", "other"], [1, 2]), finished(["bot", "other"], [2, 1])]
    assert set(mu_series(games, bot_of)) == {"bot", "other"}
    assert len(mu_series(games, bot_of)["bot"]) == 2


def test_the_line_has_a_point_per_value_and_nothing_for_fewer_than_two() -> None:
    assert svg_line([], 0) == "" and svg_line([25.0], 1) == ""
    drawn = svg_line([25.0, 26.5, 24.0], 3)
    points = re.search(r'points="([^"]+)"', drawn)
    assert points is not None and len(points[1].split()) == 3
    assert "26.5" in drawn and "24.0" in drawn and "3 games, now 24.0" in drawn


def test_a_long_history_is_thinned_keeping_its_last_value() -> None:
    thinned = history([float(k) for k in range(1000)])
    assert thinned.games == 1000 and len(thinned.points) <= 200
    assert thinned.points[0] == 0.0 and thinned.points[-1] == 999.0
    assert history([1.0, 2.0]).points == [1.0, 2.0]


def test_a_bots_head_to_head_is_the_pairs_table_seen_from_its_side() -> None:
    games = [
        *[finished(["a", "b"], [1, 2])] * 3,
        finished(["b", "a"], [1, 2]),
        *[finished(["a", "c"], [2, 1])] * 2,
        finished(["b", "c"], [1, 1]),
        *[finished(["c", "b"], [1, 2])] * 4,
    ]
    board = Board(len(games), [], pairs(games, ["a", "b", "c"]).records())
    for bot, order in (("a", ["a", "b", "c"]), ("b", ["b", "a", "c"]), ("c", ["c", "a", "b"])):
        own = [row for row in pairs(games, order).records() if row["bot"] == bot]
        assert head_to_head(board, bot) == own and len(own) == 2
