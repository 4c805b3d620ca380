"""Deliberately broken test bots: `broken.py MODE [key=value ...]`.

Modes (each misbehaves once, answering `index: 0` until then):
crash_start     exit 3 before reading anything, after a line on stderr
crash_mid       after `after` answers (default 2): a line on stderr, then exit 7 (or, with
                how=signal, SIGKILL itself)
hang            answer `ready`, never answer an `act`
slow_start      sleep 30 s before anything
garbage         answer with a line that is not JSON
wrong_shape     answer with the first legal action plus an unknown field `foo`
extra_field     answer with an unknown top-level field `foo`
wrong_id        answer with the wrong id
bad_index       answer with an index far out of range
illegal         repeat the action object of its first decision (illegal later in Azul)
long_line       answer with a 10 MB line
flood           write 50 MB to stderr first, then play well
close_stdout    close stdout at the first `act` and keep running
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from typing import Any

import botlib

mode = sys.argv[1]
opts = botlib.options(sys.argv[2:])
answered = 0
first_action: Any = None


def answer(message: dict[str, Any]) -> botlib.Reply:
    global answered, first_action
    answered += 1
    if mode == "hang":
        time.sleep(1000)
    if mode == "crash_mid" and answered > int(opts.get("after", "2")):
        sys.stderr.write(f"fatal: the bot broke at decision {message['id']}\n")
        sys.stderr.flush()
        if opts.get("how") == "signal":
            os.kill(os.getpid(), signal.SIGKILL)
        sys.exit(7)
    if mode == "garbage":
        return b"this is not json"
    if mode == "wrong_shape":
        return {"type": "action", "id": message["id"], "action": {**message["legal"][0], "foo": 1}}
    if mode == "extra_field":
        return {"type": "action", "id": message["id"], "index": 0, "foo": 1}
    if mode == "wrong_id":
        return botlib.index({"id": message["id"] + 1})
    if mode == "bad_index":
        return botlib.index(message, 9999)
    if mode == "illegal":
        if first_action is None:
            first_action = message["legal"][0]
        return {"type": "action", "id": message["id"], "action": first_action}
    if mode == "long_line":
        return json.dumps({"type": "action", "id": message["id"], "pad": "x" * 10_000_000}).encode()
    if mode == "close_stdout":
        sys.stdout.close()
        os.close(1)
        time.sleep(1000)
    return botlib.index(message)


if mode == "crash_start":
    sys.stderr.write("boom: crash at start\n")
    sys.exit(3)
if mode == "slow_start":
    time.sleep(30)
if mode == "flood":
    block = b"e" * (1 << 20)
    for _ in range(50):
        sys.stderr.buffer.write(block)
    sys.stderr.flush()
botlib.play(answer, sys.argv[2:])
