"""The browser tests' shared helpers: waiting for the viewer's board, keys, its step label."""

from __future__ import annotations

import time
from typing import Any

from patience import Deadline


def wait_for(driver: Any, script: str, timeout: float = 10.0) -> Any:
    """Poll a JavaScript expression until it is truthy (a game loads asynchronously)."""
    deadline = Deadline(timeout)
    while not deadline.passed():
        value = driver.execute_script(f"return {script};")
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {script}")


BOARD_DRAWN = "document.querySelector('#board svg')"


def step_label(driver: Any) -> str:
    return str(driver.execute_script("return document.getElementById('step-label').textContent;"))


def board(driver: Any) -> str:
    return str(driver.execute_script("return document.getElementById('board').innerHTML;"))


def press(driver: Any, key: str) -> None:
    from selenium.webdriver.common.action_chains import ActionChains

    ActionChains(driver).send_keys(key).perform()
