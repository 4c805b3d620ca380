"""Benchmarks and grades: a bot's score against each benchmark from the board's head to head,
the first grade whose every threshold it reaches, and a league file's grades checked."""

from __future__ import annotations

from pathlib import Path

import pytest
from leaguehelp import finished

from tournaments.league.board import Board
from tournaments.league.grades import Mark, as_table, grade_of, graded
from tournaments.plan.config import ConfigError, Grade, LeagueSettings, load_league
from tournaments.rank.tables import pairs

GRADES = [
    Grade("A", {"hard": 50}),
    Grade("B", {"easy": 75, "medium": 50}),
    Grade("C", {"easy": 50}),
]


def mark(benchmark: str, score: float | None) -> Mark:
    return Mark(benchmark, 0 if score is None else 10, score, None, None)


@pytest.mark.parametrize(
    ("easy", "medium", "hard", "grade"),
    [
        (100, 100, 50, "A"),
        (75, 50, 49.9, "B"),
        (75, 49.9, 0, "C"),
        (74.9, 100, 0, "C"),
        (49.9, 100, 0, None),
        (None, None, None, None),
    ],
)
def test_a_grade_is_the_first_whose_every_threshold_is_reached(
    easy: float | None, medium: float | None, hard: float | None, grade: str | None
) -> None:
    marks = [mark("easy", easy), mark("medium", medium), mark("hard", hard)]
    assert grade_of(marks, GRADES) == grade


def test_marks_are_the_head_to_head_against_each_benchmark() -> None:
    games = [
        *[finished(["alice", "easy"], [1, 2])] * 6,
        *[finished(["easy", "alice"], [2, 1])] * 2,
        *[finished(["alice", "medium"], [2, 1])] * 3,
        finished(["alice", "medium"], [1, 2]),
        finished(["bob", "easy"], [1, 1]),
    ]
    board = Board(len(games), [], pairs(games, ["alice", "bob", "easy", "medium"]).records())
    settings = LeagueSettings(benchmarks=["easy", "medium", "hard"], grades=GRADES)
    alice, bob = graded(board, settings, [("alice", "a"), ("bob", "b")])
    assert [(m.benchmark, m.games, m.score_pct) for m in alice.marks] == [
        ("easy", 8, 100.0),
        ("medium", 4, 25.0),
        ("hard", 0, None),
    ]
    easy = alice.marks[0]
    assert easy.low_pct is not None and easy.high_pct is not None
    assert easy.low_pct < 100.0 and easy.high_pct <= 100.0 and easy.low_pct < easy.high_pct
    assert alice.grade == "C" and bob.marks[0].score_pct == 50.0 and bob.grade == "C"
    table = as_table([alice, bob], settings)
    assert table.keys[:6] == ["bot", "author", "easy %", "easy low", "easy high", "easy games"]
    assert table.rows[0][:6] == ["alice", "a", 100.0, easy.low_pct, easy.high_pct, 8]
    assert table.rows[0][-1] == "C"


LEAGUE = """
game = "azul"
players = 2
[participants]
easy = "random"
[league]
benchmarks = {benchmarks}
{grades}
"""


@pytest.mark.parametrize(
    ("benchmarks", "grades", "error"),
    [
        ('["hard"]', "", "'hard' is not one of the house bots"),
        ('["easy"]', '[[league.grades]]\ngrade = "A"\nbeats = {hard = 50}', "'hard' is not one"),
        ('["easy"]', '[[league.grades]]\ngrade = "A"\nbeats = {}', "beats no benchmark"),
        ('["easy"]', '[[league.grades]]\ngrade = "A"\nbeats = {easy = 101}', "<= 100"),
    ],
)
def test_a_league_file_names_only_its_house_bots_as_benchmarks(
    tmp_path: Path, benchmarks: str, grades: str, error: str
) -> None:
    file = tmp_path / "cup.toml"
    file.write_text(LEAGUE.format(benchmarks=benchmarks, grades=grades))
    with pytest.raises(ConfigError, match=error):
        load_league(file)
