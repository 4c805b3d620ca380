"""Time how long a written report takes to open in headless Chromium, and a game in it:
`python tests/report/open_timing.py DIR` (DIR from `arena report STORE -o DIR`). A measurement
for docs/report.md, not a test."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

from browserhelp import BOARD_DRAWN, wait_for
from reporthelp import chromium

GAMES_LISTED = "document.querySelectorAll('#games-table a.game').length"


def drawn_in(driver: Any, script: str) -> float:
    """Seconds from running `script` (which opens a game) to its board drawn."""
    driver.execute_script("document.getElementById('board')?.remove();")
    began = time.perf_counter()
    driver.execute_script(script)
    wait_for(driver, BOARD_DRAWN)
    return time.perf_counter() - began


def main(directory: Path) -> None:
    page = (directory / "index.html").resolve().as_uri()
    with chromium() as driver:
        for attempt in ("cold", "warm"):
            began = time.perf_counter()
            driver.get(page)  # returns after the load event
            wait_for(driver, GAMES_LISTED)
            took = time.perf_counter() - began
            print(f"{attempt}: page with its tables and game list in {took:.2f} s")
        took = drawn_in(driver, "document.querySelector('#games-table a.game').click();")
        print(f"first game's board drawn in {took:.2f} s")
        took = drawn_in(driver, "location.hash = '#game-' + GAMES[GAMES.length - 1].id;")
        print(f"last game's board (another block) drawn in {took:.2f} s")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
