"""The report and the one-game viewer opened in a real headless Chromium, from file://.

Skipped only where Chromium or its driver is not installed (CI installs them: .ci/run).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browserhelp import BOARD_DRAWN, board, press, step_label, wait_for
from reporthelp import MISSING, TOURNAMENTS, chromium, cli, console_errors

from tournaments.report.page import write_report
from tournaments.store.store import Store

pytestmark = [pytest.mark.slow, pytest.mark.skipif(MISSING is not None, reason=str(MISSING))]

CLUMSY = """\
import json, sys
asked = 0
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        print(json.dumps({"type": "ready", "name": "clumsy"}), flush=True)
    elif message["type"] == "act":
        asked += 1
        index = 999 if asked == 3 else 0
        print(json.dumps({"type": "action", "id": message["id"], "index": index}), flush=True)
"""
"""A bot that answers its third decision with an index out of range (a fault)."""


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as driver:
        yield driver


@pytest.mark.parametrize("name", list(TOURNAMENTS))
def test_report_loads_and_the_viewer_steps_with_the_arrow_keys(
    browser: Any, stores: dict[str, Path], tmp_path: Path, name: str
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select

    out = tmp_path / ("report.html" if name == "5211" else "report")  # both forms of -o
    index = write_report(stores[name], out)
    browser.get(index.as_uri())
    wait_for(browser, "document.getElementById('games-table')")
    bots = len(TOURNAMENTS[name][1])
    assert (
        browser.execute_script("return document.querySelectorAll('#ladder-plot circle').length;")
        == bots
    )
    assert (
        browser.execute_script("return document.querySelectorAll('#ladder-plot .errorbar').length;")
        == bots
    )
    cells = browser.execute_script(
        "return [...document.querySelectorAll('#crosstable td')]"
        ".filter(td => td.style.background).length;"
    )
    assert cells == bots * (bots - 1)  # every pair met: every off-diagonal cell is coloured
    bot = TOURNAMENTS[name][1][0]
    with Store(stores[name], readonly=True) as store:
        wins = sum(
            1
            for game in store.games()
            if game.played.ranks[game.bots.index(bot)] == 1 and game.played.ranks.count(1) == 1
        )
    Select(browser.find_element(By.ID, "f-bot")).select_by_value(bot)
    Select(browser.find_element(By.ID, "f-result")).select_by_value("win")
    listed = browser.find_elements(By.CSS_SELECTOR, "#games-table tbody tr")
    assert len(listed) == wins and browser.find_element(By.ID, "games-count").text.startswith(
        f"{wins} games"
    )
    Select(browser.find_element(By.ID, "f-result")).select_by_value("")
    browser.find_element(By.CSS_SELECTOR, "#games-table a.game").click()
    wait_for(browser, BOARD_DRAWN)
    assert step_label(browser).startswith("step 0 /")
    start = board(browser)
    press(browser, Keys.ARROW_RIGHT)
    assert step_label(browser).startswith("step 1 /")
    assert board(browser) != start
    actions = browser.find_element(By.ID, "actions").text
    assert "seat " in actions and "(" in actions
    press(browser, Keys.ARROW_LEFT)
    assert step_label(browser).startswith("step 0 /") and board(browser) == start
    press(browser, Keys.END)
    assert "game over" in browser.find_element(By.ID, "actions").text
    if name.startswith("summer-pavilion"):  # its hook draws both boards: 7 stars of 6 spaces
        count = "return document.querySelectorAll('#board polygon.space{}').length;"
        assert browser.execute_script(count.format("")) == 2 * 42
        assert browser.execute_script(count.format(".filled")) > 0
    if name == "alhambra":  # its hook draws each seat's Alhambra around its fountain, walls shown
        count = "return document.querySelectorAll('#board g.alhambra {}').length;"
        assert browser.execute_script(count.format("g.fountain")) == 3
        assert browser.execute_script(count.format("line.wall")) > 0
    assert console_errors(browser) == []


def test_match_html_shows_a_fault_where_it_happened(browser: Any, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    bot = tmp_path / "clumsy.py"
    bot.write_text(CLUMSY)
    page = tmp_path / "game.html"
    cli(
        "match",
        "--game",
        "5211",
        f"{sys.executable} {bot}",
        "greedy",
        "random",
        "--seed",
        "5",
        "--sandbox",
        "none",
        "--record",
        tmp_path / "game.jsonl",
        "--html",
        page,
        code=3,
    )
    browser.get(page.as_uri())
    wait_for(browser, BOARD_DRAWN)
    seen = []
    for _ in range(40):
        faults = browser.find_elements(By.CSS_SELECTOR, "#faults .fault")
        if faults:
            seen.append((step_label(browser), faults[0].text))
        press(browser, Keys.ARROW_RIGHT)
    assert len(seen) == 1, seen  # shown at one step: where the fault's decision was applied
    label, text = seen[0]
    assert "seat 0 (clumsy" in text and "decision 3" in label
    assert console_errors(browser) == []


OVERLAPS = """
const svg = document.querySelector('#board svg'), box = e => e.getBoundingClientRect();
const rects = [...svg.querySelectorAll('rect')].map(r => [r, box(r)]);
const tiles = rects.filter(([, b]) => b.width < 30);
const panels = rects.filter(([, b]) => b.width > 200);
const cut = (a, b) => a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 &&
  b.top < a.bottom - 1;
const inside = (a, b) => a.left >= b.left && a.right <= b.right && a.top >= b.top &&
  a.bottom <= b.bottom;
const texts = [...svg.querySelectorAll('text')].map(t => [t.textContent, box(t)]);
const found = [];
texts.forEach(([label, a], i) => {
  if (!inside(a, box(svg))) found.push(`${label}: outside the picture`);
  for (const [, b] of tiles) if (cut(a, b) && !inside(a, b)) found.push(`${label}: under a tile`);
  for (const [, b] of panels) if (cut(a, b) && !inside(a, b)) found.push(`${label}: on an edge`);
  texts.forEach(([other, b], j) => {
    if (i !== j && cut(a, b)) found.push(`${label} on ${other}`);
  });
});
return found;
"""
"""Each text of the drawn board that a tile covers (but the marker's "1", inside its tile),
that crosses a seat panel's edge or the picture's, or that another text covers."""


@pytest.mark.parametrize("name", ["azul", "azul-grey"])
def test_no_label_of_the_azul_board_is_covered_or_cut(
    browser: Any, stores: dict[str, Path], tmp_path: Path, name: str
) -> None:
    """Every step of a whole game (the grey one has special factories and their powers): the
    labels "centre (-1)", "floor (5)" and the pattern lines' numbers were once under tiles or
    past the panel's left edge."""
    from selenium.webdriver.common.keys import Keys

    index = write_report(stores[name], tmp_path / "report")
    browser.get(index.as_uri() + "#game-1")
    wait_for(browser, BOARD_DRAWN)
    steps = int(step_label(browser).split("/")[1].split()[0])
    labels = browser.execute_script(
        "return [...document.querySelectorAll('#board svg text')].map(t => t.textContent);"
    )
    assert {"centre (-1)", "floor (5)", "4"} <= set(labels)
    for step in range(steps + 1):
        assert step_label(browser).startswith(f"step {step} /")
        assert browser.execute_script(OVERLAPS) == [], f"step {step}"
        press(browser, Keys.ARROW_RIGHT)
    assert console_errors(browser) == []
