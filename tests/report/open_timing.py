"""Time how long a written report takes to open in headless Chromium, and a game in it:
`python tests/report/open_timing.py DIR` (DIR from `arena report STORE -o DIR`). A measurement
for docs/report.md, not a test."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from reporthelp import chromium
from test_report_browser import BOARD_DRAWN, wait_for

GAMES_LISTED = "document.querySelectorAll('#games-table a.game').length"


def main(directory: Path) -> None:
    page = (directory / "index.html").resolve().as_uri()
    with chromium() as driver:
        for attempt in ("cold", "warm"):
            began = time.perf_counter()
            driver.get(page)  # returns after the load event
            wait_for(driver, GAMES_LISTED)
            took = time.perf_counter() - began
            print(f"{attempt}: page with its tables and game list in {took:.2f} s")
        began = time.perf_counter()
        driver.execute_script("document.querySelector('#games-table a.game').click();")
        wait_for(driver, BOARD_DRAWN)
        print(f"first game's board drawn in {time.perf_counter() - began:.2f} s")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
