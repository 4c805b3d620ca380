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
flood           write `mb` MB (default 50) to stderr first (with background=1: from a thread,
                while playing), then play well; with bytes=invalid, bytes that are not UTF-8
stdout_flood    at the first `act`, write to stdout without a newline, forever
close_stdout    close stdout at the first `act` and keep running
fork_bomb       at the first `act`, fork until refused (at most `max`), keep the children, answer
memory_hog      at the first `act`, allocate memory until it fails
cpu_hog         from the first `act`, burn CPU in a thread; answer each `act` once 1.2 CPU-seconds
                are used, or after 2 s (so a loaded machine's hog still reaches a 1 s limit
                within a game, and never a 5 s move clock first)
sleepy          sleep `ms` ms (default 150) before each of its first `after` answers (default 3):
                late on the wall clock, using no CPU time
connect         at the first `act`, connect to 127.0.0.1:`port` (an exception if it cannot)
read            at the first `act`, read the file `path`, exit saying how many bytes it got
"""

from __future__ import annotations

import json
import os
import signal
import socket
import sys
import threading
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
    if mode == "stdout_flood":
        block = b"x" * (1 << 20)
        while True:
            sys.stdout.buffer.write(block)
    if mode == "fork_bomb" and answered == 1:
        fork_bomb()
    if mode == "memory_hog":
        hoard = []
        while True:
            hoard.append(bytearray(16 << 20))
    if mode == "cpu_hog":
        if answered == 1:
            threading.Thread(target=spin, daemon=True).start()
        waited = time.monotonic() + 2
        while time.process_time() < 1.2 and time.monotonic() < waited:
            time.sleep(0.05)
    if mode == "sleepy" and answered <= int(opts.get("after", "3")):
        time.sleep(int(opts.get("ms", "150")) / 1000)
    if mode == "connect" and answered == 1:
        socket.create_connection(("127.0.0.1", int(opts["port"])), timeout=5).close()
    if mode == "read" and answered == 1:
        with open(opts["path"], "rb") as file:
            sys.exit(f"read {len(file.read())} bytes of {opts['path']}")
    return botlib.index(message)


def spin() -> None:
    while True:
        pass


def flood(megabytes: int, byte: bytes = b"e") -> None:
    block = byte * (1 << 20)
    for _ in range(megabytes):
        sys.stderr.buffer.write(block)
    sys.stderr.flush()


def fork_bomb() -> None:
    """Fork until refused; every child sleeps (holding its slot) instead of answering.

    Stops by itself after `max` forks (default 500), so that a machine where the referee has no
    pids cgroup is not taken down by its own test suite."""
    for _ in range(int(opts.get("max", "500"))):
        try:
            pid = os.fork()
        except OSError as exc:
            sys.stderr.write(f"fork refused: {exc}\n")
            return
        if pid == 0:
            time.sleep(1000)
            os._exit(0)


if mode == "crash_start":
    sys.stderr.write("boom: crash at start\n")
    sys.exit(3)
if mode == "slow_start":
    time.sleep(30)
if mode == "flood":
    megabytes = int(opts.get("mb", "50"))
    byte = b"\xff" if opts.get("bytes") == "invalid" else b"e"
    if opts.get("background"):
        threading.Thread(target=flood, args=(megabytes, byte), daemon=True).start()
    else:
        flood(megabytes, byte)
botlib.play(answer, sys.argv[2:])
