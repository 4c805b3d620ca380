"""The protocol spoken by hand (json only, no framework imports), for the referee's test bots.

Options come as `key=value` arguments; anything else (such as `--marker=...`, which tests use
to find every process of a bot in the process table) is ignored.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

Reply = dict[str, Any] | bytes | None


def options(argv: list[str]) -> dict[str, str]:
    return dict(arg.split("=", 1) for arg in argv if "=" in arg and not arg.startswith("-"))


def marker(argv: list[str]) -> str:
    return next((arg for arg in argv if arg.startswith("--marker=")), "--marker=none")


def send(message: dict[str, Any] | bytes) -> None:
    data = message if isinstance(message, bytes) else json.dumps(message).encode()
    sys.stdout.buffer.write(data + b"\n")
    sys.stdout.buffer.flush()


def leave_children(pid_file: str, mark: str) -> None:
    """Start a child that starts a grandchild, both sleeping for 1000 s; record their pids."""
    code = (
        "import subprocess, sys, time\n"
        "sleeper = [sys.executable, '-c', 'import time; time.sleep(1000)', sys.argv[2]]\n"
        "g = subprocess.Popen(sleeper)\n"
        "open(sys.argv[1], 'a').write(f'{g.pid}\\n')\n"
        "time.sleep(1000)\n"
    )
    child = subprocess.Popen([sys.executable, "-c", code, pid_file, mark])
    with open(pid_file, "a") as file:
        file.write(f"{os.getpid()}\n{child.pid}\n")
    while True:
        with open(pid_file) as file:
            if len(file.read().split()) >= 3:
                return
        time.sleep(0.01)


def play(answer: Callable[[dict[str, Any]], Reply], argv: list[str]) -> None:
    """Answer `start` with `ready`, `act` with `answer(act)` (None: say nothing), stop at `quit`.

    Common options: pid_file (append this pid at every `start`), act_file (append every `act`
    message received), children=path (leave a child and a grandchild running, pids to path),
    env_file (write the environment and working directory as JSON), talk=1 (a line to stderr
    at every `start`, `end` and `quit`: "<message type> <process>", the process named at
    random, as in a sandbox's pid namespace every bot is pid 2), hold_from=n (from this
    process's n-th game on, answer nothing until a directory `release` appears in the first
    argument naming a directory: one of the bot's own, which a sandbox shows it, read-only).
    """
    opts = options(argv)
    gate = next((arg for arg in argv if os.path.isdir(arg)), None)
    hold_from = int(opts.get("hold_from", "0"))
    games = 0
    if "env_file" in opts:
        with open(opts["env_file"], "w") as file:
            json.dump({"env": dict(os.environ), "cwd": os.getcwd()}, file)
    if "children" in opts:
        leave_children(opts["children"], marker(argv))
    process = os.urandom(8).hex()
    for raw in sys.stdin.buffer:
        message = json.loads(raw)
        kind = message["type"]
        if "talk" in opts and kind in ("start", "end", "quit"):
            sys.stderr.write(f"{kind} {process}\n")
            sys.stderr.flush()
        if kind == "start":
            games += 1
            if "pid_file" in opts:
                with open(opts["pid_file"], "a") as file:
                    file.write(f"{os.getpid()}\n")
            send({"type": "ready", "name": "test bot"})
        elif kind == "act":
            while gate and 0 < hold_from <= games and not os.path.isdir(f"{gate}/release"):
                time.sleep(0.01)
            if "act_file" in opts:
                with open(opts["act_file"], "ab") as file:
                    file.write(raw)
            reply = answer(message)
            if reply is not None:
                send(reply)
        elif kind == "quit":
            return


def index(message: dict[str, Any], k: int = 0) -> dict[str, Any]:
    return {"type": "action", "id": message["id"], "index": k}
