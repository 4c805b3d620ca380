"""Make the league's screenshots in docs/screenshots/ with the tests' headless Chromium.

    python tests/league/screenshots.py

Serves a small league (two uploaded bots and a house bot, one upload rejected), lets the ladder
play a little, then photographs the leaderboard, a bot's page signed out and signed in as its
author (with its scrimmage form), the submit page signed in, a game's page, `/league`,
`/benchmarks`, `/seasons`, and the organisers' copy check (`/organiser/clones`: a third
author's upload copies the first's bot), then freezes the season and, once its final is
published, photographs the season's page with its certificate.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

# outside pytest: this folder and those pytest puts on sys.path (pyproject.toml's `pythonpath`)
sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parents[1] / "report"))
sys.path.insert(0, str(Path(__file__).parents[1] / "tournaments"))
from leaguehelp import BOT, LEAGUE, Running, token
from reporthelp import chromium

from tournaments.league.files import League

DOCS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"


def shoot(driver: Any, url: str, name: str) -> None:
    driver.get(url)
    time.sleep(0.5)
    height = driver.execute_script("return document.body.scrollHeight")
    driver.set_window_size(1200, min(max(height + 40, 400), 2400))
    driver.save_screenshot(str(DOCS / name))
    print(f"wrote {DOCS / name}")


def sign_in(driver: Any, url: str, secret: str) -> None:
    from selenium.webdriver.common.by import By

    driver.get(url + "/signin")
    driver.find_element(By.CSS_SELECTOR, "input[name=token]").send_keys(secret)
    driver.find_element(By.CSS_SELECTOR, "form[action='/signin'] button").click()
    time.sleep(0.5)


def publish_a_final(url: str, organiser: str, budget: int = 120) -> None:
    """Freeze the season (the organiser's API) and wait until its final is published."""
    bearer = {"Authorization": f"Bearer {organiser}"}
    body = urllib.parse.urlencode({"budget": budget}).encode()
    asked = urllib.request.Request(url + "/api/league/freeze", body, bearer, method="POST")
    with urllib.request.urlopen(asked, timeout=30) as response:
        assert response.status == 200, response.status
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        with urllib.request.urlopen(url + "/api/seasons/1", timeout=30) as response:
            if json.load(response)["season"]["published"]:
                return
        time.sleep(2)
    raise RuntimeError("the final was not published in 10 minutes")


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        file = Path(folder) / "azul-class.toml"
        grades = '\n[[league.grades]]\ngrade = "pass"\nbeats = { random = 50 }\n'
        benchmarks = 'batch = 4\nbenchmarks = ["random"]\nfingerprints = true'
        file.write_text(LEAGUE.replace("batch = 1", benchmarks) + grades)
        alice, bob, carol = token(file, "alice"), token(file, "bob"), token(file, "carol")
        with League(file) as league:
            boss = league.registry.new_token("boss", organiser=True)
        served = Running(file)
        try:
            served.upload(alice, "alice-first", "bot.py", BOT.format(pick=0, name="a").encode())
            served.upload(bob, "bob-last", "bot.py", BOT.format(pick="-1", name="b").encode())
            crash = b"import sys\nprint('Traceback: oops', file=sys.stderr)\nsys.exit(3)\n"
            served.upload(alice, "alice-first", "bot.py", crash)
            copy = BOT.format(pick="(0)", name="c").encode()
            served.upload(carol, "carol-copy", "bot.py", copy)
            for bot in ("alice-first", "bob-last", "carol-copy"):
                served.status(bot, {"playing", "rejected"})
            time.sleep(25)  # games, and a board
            with chromium() as driver:
                driver.set_window_size(1200, 900)
                shoot(driver, served.url + "/", "league-leaderboard.png")
                shoot(driver, served.url + "/bots/alice-first", "league-bot-signed-out.png")
                shoot(driver, served.url + "/league", "league-page.png")
                shoot(driver, served.url + "/games/1", "league-game.png")
                sign_in(driver, served.url, alice)
                shoot(driver, served.url + "/bots/alice-first", "league-bot-signed-in.png")
                shoot(driver, served.url + "/submit", "league-submit.png")
                shoot(driver, served.url + "/benchmarks", "league-benchmarks.png")
                shoot(driver, served.url + "/seasons", "league-seasons.png")
                sign_in(driver, served.url, boss)
                shoot(driver, served.url + "/organiser/clones", "league-clones.png")
                publish_a_final(served.url, boss)
                shoot(driver, served.url + "/seasons/1", "league-season-certificate.png")
        finally:
            served.stop()


if __name__ == "__main__":
    main()
