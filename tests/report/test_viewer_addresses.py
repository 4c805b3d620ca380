"""The viewer speaks the protocol's language and every game has an address of its own.

`index.html#game-1` opens that game's viewer on the screen, not below the game list, and a link
can name a step (`#game-1/step-21`); Azul's viewer labels pattern lines and factories with the
protocol's numbers (`"line": 3` is pattern line 3, factory 0 is "factory 0"); a finished 5211
game can show every hand.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browserhelp import BOARD_DRAWN, press, step_label, wait_for
from reporthelp import MISSING, chromium, console_errors

from tournaments.report.page import write_report
from tournaments.report.viewer import game_data
from tournaments.store.store import Store

pytestmark = [pytest.mark.slow, pytest.mark.skipif(MISSING is not None, reason=str(MISSING))]


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as driver:
        driver.set_window_size(1400, 1000)
        yield driver


@pytest.fixture(scope="module")
def reports(stores: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    directory = tmp_path_factory.mktemp("addresses")
    return {name: write_report(stores[name], directory / name) for name in ("azul", "5211")}


def open_at(browser: Any, index: Path, address: str) -> None:
    browser.get("about:blank")
    browser.get(index.as_uri() + address)
    wait_for(browser, BOARD_DRAWN)


def test_a_game_and_a_step_have_their_own_address(browser: Any, reports: dict[str, Path]) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    open_at(browser, reports["azul"], "#game-1/step-20")
    assert step_label(browser).startswith("step 20 /")
    top = browser.execute_script(
        "return document.getElementById('board').getBoundingClientRect().top;"
    )
    assert 0 <= top < 1000  # the board is on the screen, not below the game list
    assert browser.execute_script("return document.getElementById('games-section').hidden;")
    press(browser, Keys.ARROW_RIGHT)
    assert browser.execute_script("return location.hash;") == "#game-1/step-21"
    browser.find_element(By.ID, "back").click()
    wait_for(browser, "!document.getElementById('games-section').hidden")
    assert browser.execute_script("return document.getElementById('viewer').hidden;")
    assert console_errors(browser) == []


def test_azul_is_labelled_with_the_protocols_numbers(
    browser: Any, reports: dict[str, Path]
) -> None:
    from selenium.webdriver.common.by import By

    open_at(browser, reports["azul"], "#game-1/step-1")
    for _ in range(30):  # the first take into a pattern line (not the floor)
        [code] = browser.find_elements(By.CSS_SELECTOR, "#actions code.protocol")
        action = json.loads(code.text)
        if action["type"] == "take" and action["line"] < 5:
            break
        browser.find_element(By.ID, "next").click()
    text = browser.find_element(By.ID, "actions").text
    assert f"pattern line {action['line']} ({action['line'] + 1} tiles)" in text
    source = "the centre (-1)" if action["source"] == -1 else f"factory {action['source']}"
    assert source in text
    drawn = browser.find_element(By.ID, "board").text
    assert "factory 0" in drawn and "centre (-1)" in drawn and "F0" not in drawn


def test_a_finished_5211_game_shows_every_hand_or_one_seats_view(
    browser: Any, reports: dict[str, Path], stores: dict[str, Path]
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select

    with Store(stores["5211"], readonly=True) as store:
        record = store.game_record(1)
    assert record is not None
    hands = [seat["hand"] for seat in game_data(record)["steps"][0]["private"]]
    open_at(browser, reports["5211"], "#game-1/step-0")

    def shown() -> dict[int, list[int]]:
        return {
            seat: [int(card.text) for card in cards]
            for seat in range(len(hands))
            if (
                cards := browser.find_elements(
                    By.CSS_SELECTOR, f"#board g.hand[data-seat='{seat}'] text"
                )
            )
        }

    def show(value: str) -> None:
        Select(browser.find_element(By.ID, "reveal")).select_by_value(value)

    assert Select(browser.find_element(By.ID, "reveal")).first_selected_option.text == "every hand"
    assert shown() == {seat: [card["value"] for card in hand] for seat, hand in enumerate(hands)}
    show("1")  # seat 1's view: its own hand face up, the others' backs
    assert shown() == {1: [card["value"] for card in hands[1]]}
    show("none")  # a spectator's view: backs only
    assert shown() == {}
    browser.execute_script("document.activeElement.blur();")  # arrows on the list change it
    press(browser, Keys.ARROW_RIGHT)  # the choice stays while stepping
    assert shown() == {} and step_label(browser).startswith("step 1 /")
