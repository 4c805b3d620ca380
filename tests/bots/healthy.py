"""A well-behaved test bot: answers `index: 0` (or the last legal action with pick=last).

Options: sleep_ms (sleep before each answer), slow_decisions (sleep only for the first n
answers), plus botlib's common options.
"""

from __future__ import annotations

import sys
import time
from typing import Any

import botlib

opts = botlib.options(sys.argv[1:])
sleep_s = int(opts.get("sleep_ms", "0")) / 1000
slow = int(opts.get("slow_decisions", "1000000000"))
answered = 0


def answer(message: dict[str, Any]) -> botlib.Reply:
    global answered
    if sleep_s and answered < slow:
        time.sleep(sleep_s)
    answered += 1
    k = len(message["legal"]) - 1 if opts.get("pick") == "last" else 0
    return botlib.index(message, k)


botlib.play(answer, sys.argv[1:])
