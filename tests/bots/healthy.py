"""A well-behaved test bot: answers `index: 0` (or the last legal action with pick=last).

Options: sleep_ms (sleep before each answer), spin_ms (use that much CPU time before each
answer, and say on stderr how long it took by the wall clock), slow_decisions (sleep or spin
only for the first n answers), plus botlib's common options.
"""

from __future__ import annotations

import sys
import time
from typing import Any

import botlib

opts = botlib.options(sys.argv[1:])
sleep_s = int(opts.get("sleep_ms", "0")) / 1000
spin_s = int(opts.get("spin_ms", "0")) / 1000
slow = int(opts.get("slow_decisions", "1000000000"))
answered = 0


def answer(message: dict[str, Any]) -> botlib.Reply:
    global answered
    if sleep_s and answered < slow:
        time.sleep(sleep_s)
    if spin_s and answered < slow:
        began, cpu = time.monotonic(), time.process_time()
        while time.process_time() - cpu < spin_s:
            pass
        sys.stderr.write(f"spun for {(time.monotonic() - began) * 1000:.0f} ms\n")
    answered += 1
    k = len(message["legal"]) - 1 if opts.get("pick") == "last" else 0
    return botlib.index(message, k)


botlib.play(answer, sys.argv[1:])
