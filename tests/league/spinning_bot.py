"""A bot that spends a tenth of a CPU second on every decision, then takes the first legal
action: a fingerprint that let it run would cost as much CPU as it likes."""

from __future__ import annotations

import time
from typing import Any

from bots.sdk import Context, run

SPIN_S = 0.1


def choose(observation: Any, legal: list[Any], context: Context) -> int:
    began = time.process_time()
    while time.process_time() - began < SPIN_S:
        pass
    return 0


if __name__ == "__main__":
    run(choose, name="spinning")
