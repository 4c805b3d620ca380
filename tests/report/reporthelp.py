"""Small tournaments to report on, and a headless Chromium (selenium) to open the report.

Chromium and its driver come from the distribution's packages (`apt-get install chromium
chromium-driver`), never downloaded at run time; the flags keep it off the network entirely
(on a closed network its background services would otherwise log errors to the console).
"""

from __future__ import annotations

import contextlib
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent.parent / "tournaments"))
from tourhelp import arena

TOURNAMENTS = {
    "azul": ('game = "azul"\nplayers = 2\n', ["greedy", "random"]),
    "azul-grey": (
        'game = "azul"\nplayers = 2\noptions = {variant = "grey", special_factories = true}\n',
        ["greedy", "random"],
    ),
    "5211": ('game = "5211"\nplayers = 3\n', ["greedy", "random", "random2"]),
    "alhambra": ('game = "alhambra"\nplayers = 3\n', ["greedy", "random", "random2"]),
    "summer-pavilion": ('game = "summer-pavilion"\nplayers = 2\n', ["greedy", "random"]),
    "summer-pavilion-grey": (
        'game = "summer-pavilion"\nplayers = 2\noptions = {variant = "grey"}\n',
        ["greedy", "random"],
    ),
}
"""One small tournament per registered game and variant: (settings, built-in bots)."""


def make_store(directory: Path, name: str, deals: int = 1) -> Path:
    """Play tournament `name` of TOURNAMENTS (trusted built-in bots, unsandboxed): its store."""
    settings, bots = TOURNAMENTS[name]
    participants = "".join(f'{bot} = "{bot.rstrip("0123456789")}"\n' for bot in bots)
    toml = directory / f"{name}.toml"
    toml.write_text(
        f'{settings}deals = {deals}\nseed = 7\nsandbox = "none"\n[participants]\n{participants}'
    )
    arena("run", toml, "-q")
    return toml.with_suffix(".sqlite")


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
MISSING = (
    None
    if CHROMIUM and CHROMEDRIVER
    else "Chromium and its driver are not installed (apt-get install -y chromium chromium-driver)"
)

FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--window-size=1280,1000",
)


@contextlib.contextmanager
def chromium() -> Iterator[Any]:
    """A fresh headless Chromium (its own profile directory) that keeps the console log."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    assert CHROMIUM and CHROMEDRIVER, MISSING
    with tempfile.TemporaryDirectory(prefix="arena-chromium-") as profile:
        options = webdriver.ChromeOptions()
        options.binary_location = CHROMIUM
        for flag in FLAGS:
            options.add_argument(flag)
        options.add_argument(f"--user-data-dir={profile}")
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        driver = webdriver.Chrome(options=options, service=Service(CHROMEDRIVER))
        try:
            yield driver
        finally:
            driver.quit()


def console_errors(driver: Any) -> list[str]:
    """The console's errors and warnings since the last call."""
    return [
        entry["message"]
        for entry in driver.get_log("browser")
        if entry["level"] in ("SEVERE", "WARNING")
    ]
