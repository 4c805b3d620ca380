"""The report's overview beyond the ladder: rank probabilities, significant cycles with their
notes under the standings, and each bot's rating over time — in the page's data and drawn by
a real headless Chromium (skipped, saying why, only where Chromium or its driver is missing)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from reporthelp import MISSING, chromium, console_errors
from tourhelp import game, series

from tournaments.rank.ratings import plackett_luce_steps
from tournaments.report.page import (
    HISTORY_POINTS,
    INDEX_FIELDS,
    overview_data,
    rating_history,
    thinned,
)
from tournaments.report.shell import render_page

HOSTILE = "<img src=x onerror=alert(1)>"
"""A bot's name is text from outside: it must show as text, never as markup."""
RPS = (
    series(HOSTILE, "scissors", 9, 1)
    + series("scissors", "paper", 9, 1)
    + series("paper", HOSTILE, 9, 1)
)
"""Each beats the next 9 games of 10: a significant cycle."""


def test_a_long_history_is_thinned_to_its_limit_keeping_the_last_point() -> None:
    values = [float(v) for v in range(1000)]
    points = thinned(values)
    assert len(points) <= HISTORY_POINTS and points[0] == [1, 0.0] and points[-1] == [1000, 999.0]
    assert [n for n, _ in points] == sorted({n for n, _ in points})
    assert thinned(values[:5]) == [[n + 1, float(n)] for n in range(5)]  # short: every point


def test_the_history_is_each_bots_mu_after_each_of_its_games() -> None:
    games = series("a", "b", 6, 0) + series("a", "c", 3, 3) + [game(["b", "b"], [1, 2])]
    history = rating_history(games)
    assert list(history) == ["a", "b", "c"]
    assert [n for n, _ in history["a"]] == list(range(1, 13)) and len(history["c"]) == 6
    assert len(history["b"]) == 6  # a game where one bot sat twice has no Plackett–Luce rating
    last = {}
    for _, after in plackett_luce_steps(games):
        last.update(after)
    assert {bot: points[-1][1] for bot, points in history.items()} == {
        bot: round(mu, 2) for bot, (mu, _) in last.items()
    }
    assert history["a"][-1][1] > history["a"][0][1] > history["b"][-1][1]  # a won, b lost


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if MISSING is not None:
        pytest.skip(MISSING)
    with chromium() as driver:
        yield driver


def page_of(tmp_path: Path, games: list[Any]) -> Path:
    """A report page of these games' tables and history (no game list: no store behind it)."""
    data = {
        "mode": "report",
        "title": "overview",
        "settings": {},
        **overview_data(games, bootstrap=50),
        "bots": [],
        "games": {field: [] for field in (*INDEX_FIELDS, "block")},
        "blocks": [],
        "games_dir": "games",
    }
    index = tmp_path / "index.html"
    index.write_text(render_page(data))
    return index


def notes(driver: Any) -> list[str]:
    """The notes under the standings: the `p.note` elements right after its table."""
    found = driver.execute_script(
        "const found = [];"
        "let at = document.getElementById('table-standings').nextElementSibling;"
        "for (; at && at.matches('p.note'); at = at.nextElementSibling) found.push(at.textContent);"
        "return found;"
    )
    return list(found)


def texts(driver: Any, selector: str) -> list[str]:
    found = driver.execute_script(
        f"return [...document.querySelectorAll({selector!r})].map(e => e.textContent);"
    )
    return list(found)


@pytest.mark.slow
def test_the_cycle_its_note_the_ranks_and_the_rating_lines_are_shown(
    browser: Any, tmp_path: Path
) -> None:
    browser.get(page_of(tmp_path, RPS).as_uri())
    (note,) = notes(browser)
    assert note.startswith(f"Cycle {HOSTILE} > scissors > paper > {HOSTILE}: ")
    assert browser.execute_script("return document.querySelectorAll('main img').length;") == 0
    assert len(texts(browser, "#table-cycles tbody tr")) == 3
    assert texts(browser, "#table-ranks thead th")[2:] == ["#1 %", "#2 %", "#3 %"]
    assert len(texts(browser, "#table-ranks tbody tr")) == 3
    assert len(texts(browser, "#history-plot polyline.history")) == 3
    assert sorted(texts(browser, "#history-plot text.history-label")) == sorted(
        [HOSTILE, "paper", "scissors"]
    )
    assert console_errors(browser) == []


@pytest.mark.slow
def test_without_a_cycle_there_is_no_cycles_table_and_no_note(browser: Any, tmp_path: Path) -> None:
    browser.get(page_of(tmp_path, series("a", "b", 7, 3)).as_uri())
    assert notes(browser) == []
    assert browser.execute_script("return document.getElementById('table-cycles');") is None
    assert len(texts(browser, "#table-ranks tbody tr")) == 2
    assert len(texts(browser, "#history-plot polyline.history")) == 2
    assert console_errors(browser) == []
