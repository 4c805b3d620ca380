"""Make the screenshots in docs/screenshots/ with the tests' headless Chromium.

    python tests/report/screenshots.py [NAME ...]

Plays the tests' small tournaments (a few deals each), writes their reports and photographs
the ladder and crosstable, the game list and the viewer of each game mid-game; with names
(e.g. `summer-pavilion`), only those games' viewers, leaving the other pictures as they are.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path
from typing import Any

# outside pytest: the folders pytest puts on sys.path (pyproject.toml's `pythonpath`)
sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parents[1] / "tournaments"))
from reporthelp import chromium, console_errors, make_store

from tournaments.report.page import write_report

DOCS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"


def settle(driver: Any, script: str) -> None:
    for _ in range(200):
        if driver.execute_script(f"return {script};"):
            return
        time.sleep(0.05)
    raise RuntimeError(f"the page never showed {script}")


def shoot(driver: Any, selector: str, name: str) -> None:
    from selenium.webdriver.common.by import By

    driver.find_element(By.CSS_SELECTOR, selector).screenshot(str(DOCS / name))
    print(f"wrote {DOCS / name}")


SHOTS = (("azul", 24), ("azul-grey", 30), ("5211", 7), ("summer-pavilion", 70), ("alhambra", 250))
"""(tournament of reporthelp.TOURNAMENTS, steps into its first game) for each viewer picture."""


def main(names: list[str]) -> None:
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    DOCS.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch, chromium() as driver:
        driver.set_window_size(1100, 2400)  # the whole page in view: shots are clipped to it
        for name, steps in SHOTS:
            if names and name not in names:
                continue
            store = make_store(Path(scratch), name, deals=3)
            index = write_report(store, Path(scratch) / f"{name}-report")
            driver.get(index.as_uri())
            settle(driver, "document.getElementById('games-table')")
            if name == "azul":
                shoot(driver, "#overview", "report-tables.png")
                shoot(driver, "#games-section", "report-games.png")
            driver.get(index.as_uri() + "#game-1")
            settle(driver, "document.querySelector('#board svg')")
            for _ in range(steps):
                ActionChains(driver).send_keys(Keys.ARROW_RIGHT).perform()
            shoot(driver, "#viewer", f"viewer-{name}.png")
            errors = console_errors(driver)
            if errors:
                raise RuntimeError(f"console errors: {errors}")


if __name__ == "__main__":
    main(sys.argv[1:])
