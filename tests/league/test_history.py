"""A bot's rating over time on its page: its mu after each of its games, drawn without script."""

from __future__ import annotations

import re

from tourhelp_league import finished

from tournaments.server.history import rating_history, svg_line


def test_a_bot_that_always_wins_climbs_and_one_that_always_loses_falls() -> None:
    games = [finished(["winner", "loser"], [1, 2]) for _ in range(10)]
    up, down = rating_history(games, "winner"), rating_history(games, "loser")
    assert len(up) == len(down) == 10
    assert up == sorted(up) and up[0] < up[-1]
    assert down == sorted(down, reverse=True) and down[0] > down[-1]


def test_every_version_of_a_bot_counts_as_the_bot() -> None:
    games = [finished(["bot@1234", "other"], [1, 2]), finished(["bot", "other"], [2, 1])]
    assert len(rating_history(games, "bot")) == 2
    assert rating_history(games, "nobody") == []


def test_the_line_has_a_point_per_value_and_nothing_for_fewer_than_two() -> None:
    assert svg_line([]) == "" and svg_line([25.0]) == ""
    drawn = svg_line([25.0, 26.5, 24.0])
    points = re.search(r'points="([^"]+)"', drawn)
    assert points is not None and len(points[1].split()) == 3
    assert "26.5" in drawn and "24.0" in drawn and "3 games, now 24.0" in drawn
    many = svg_line([float(k) for k in range(1000)])
    many_points = re.search(r'points="([^"]+)"', many)
    assert many_points is not None and len(many_points[1].split()) <= 201
