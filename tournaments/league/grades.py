"""Staff benchmarks and grades: each author's bot's score against each of the league's
benchmark house bots (`[league] benchmarks`), read from the board's head to head, and the grade
the organiser's thresholds (`[[league.grades]]`) give it.

A season's grades are kept when it ends (`season_grades`): its finalists' scores on its
ladder's board as it was frozen — the ladder stops at the freeze, so its store holds that board
— which is what `/benchmarks` showed all season and the games the ladder spent deciding each
grade; the final's round robin is no grading design (its budget may cut a benchmark's games
short)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec

from tournaments.league.board import Board, head_to_head
from tournaments.league.files import League
from tournaments.league.registry import Version
from tournaments.plan.config import Grade, LeagueSettings
from tournaments.rank.ratings import score_from_elo
from tournaments.rank.tables import Table


class Mark(msgspec.Struct, frozen=True):
    """A bot's pairwise score against one benchmark, with its 95% interval (from the Elo
    interval of `arena table`'s head to head: it counts deals, not games, as independent)."""

    benchmark: str
    games: int
    score_pct: float | None
    low_pct: float | None
    high_pct: float | None


class Graded(msgspec.Struct, frozen=True):
    bot: str
    author: str
    marks: list[Mark]
    grade: str | None
    """The first of the organiser's grades whose every score it reaches (None: none)."""


def graded(board: Board, settings: LeagueSettings, bots: Sequence[tuple[str, str]]) -> list[Graded]:
    """Each of `bots` (name, author) against every benchmark, and its grade."""
    rows = []
    for bot, author in bots:
        met = {row["opponent"]: row for row in head_to_head(board, bot)}
        marks = [_mark(name, met.get(name)) for name in settings.benchmarks]
        rows.append(Graded(bot, author, marks, grade_of(marks, settings.grades)))
    return rows


def authored(league: League, versions: Sequence[Version]) -> list[tuple[str, str]]:
    """Each version's bot and its author's name, as `graded` takes them."""
    authors = {author.id: author.name for author in league.registry.authors()}
    return [(v.bot, authors.get(v.author, "")) for v in versions]


def season_grades(league: League, number: int, board: Board) -> list[Graded]:
    """Season `number`'s grades as it was frozen: each of its finalists (the versions its
    final plays) on its ladder's `board` (`board.compute` of its store)."""
    return graded(board, league.settings, authored(league, league.registry.finalists(number)))


def _mark(benchmark: str, row: dict[str, Any] | None) -> Mark:
    if row is None:
        return Mark(benchmark, 0, None, None, None)
    low, high = row["elo_lo"], row["elo_hi"]
    return Mark(
        benchmark,
        int(row["games"]),
        float(row["score_pct"]),
        None if low is None else round(100 * score_from_elo(low), 1),
        None if high is None else round(100 * score_from_elo(high), 1),
    )


def grade_of(marks: Sequence[Mark], grades: Sequence[Grade]) -> str | None:
    """The first grade each of whose thresholds the marks reach (a benchmark not met yet
    reaches none)."""
    scores = {mark.benchmark: mark.score_pct for mark in marks}
    for grade in grades:
        if all(
            (score := scores.get(name)) is not None and score >= least
            for name, least in grade.beats.items()
        ):
            return grade.grade
    return None


def as_table(rows: Sequence[Graded], settings: LeagueSettings) -> Table:
    """The rows as a table to export (CSV): per benchmark its score %, interval and games."""
    keys, headers = ["bot", "author"], ["bot", "author"]
    for name in settings.benchmarks:
        keys += [f"{name} %", f"{name} low", f"{name} high", f"{name} games"]
        headers += [f"vs {name} %", "low", "high", "games"]
    keys.append("grade")
    headers.append("grade")
    body = [
        [
            row.bot,
            row.author,
            *(v for m in row.marks for v in (m.score_pct, m.low_pct, m.high_pct, m.games)),
            row.grade or "",
        ]
        for row in rows
    ]
    return Table("grades", "Benchmarks and grades", keys, headers, body)
