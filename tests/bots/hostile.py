"""Hostile test bots: they attack the host, the referee and other bots. `hostile.py MODE [k=v ...]`

Each plays well (`index: 0`) apart from its attack. Modes:
attack      before `ready`: try each attack below on the pids and paths given, and write one
            line `attacks: name=ok|errno-name ...` to stderr; then play.
              kill     SIGKILL the process `victim`           referee  signal 0 to `referee`
              stop     SIGSTOP `victim` (SIGCONT right after) environ  read /proc/`referee`/environ
              inject   write into `victim`'s stdout           secret   read the file `secret`
              shadow   read /etc/shadow                       store    append to the file `store`
              cgroup   move itself to the root pids cgroup
linger      ignore SIGTERM, SIGHUP, SIGPIPE and the end of input; after `ready` start a setsid
            daemon (its argv carries the marker), then never answer
fill_disk   at the first `act`, write `mb` MB (default 600) to a file in its working directory
            (with survive=1, carry on playing when the disk is full)
memory      at the first `act`, fork `procs` processes (default 8) that each touch `mb` MB
            (default 64) and sleep; answer after `wait_s` seconds (default 3)
cpu_child   at the first `act` (every `act` with every=1), a double-forked grandchild burns
            `cpu_s` seconds of CPU (default 3) and exits; answer once the child is gone
node_crash  write a Node-style error (the cause first, then a long stack) to stderr, exit 1
"""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

import botlib

mode = sys.argv[1]
opts = botlib.options(sys.argv[2:])
mark = botlib.marker(sys.argv)
answered = 0


def attempt(action: Callable[[], object]) -> str:
    try:
        action()
    except OSError as exc:
        return errno.errorcode.get(exc.errno or 0, str(exc))
    return "ok"


def read(path: str) -> bytes:
    with open(path, "rb") as file:
        return file.read()


def append(path: str, data: bytes) -> None:
    with open(path, "ab") as file:
        file.write(data)


def stop_and_continue(pid: int) -> None:
    os.kill(pid, signal.SIGSTOP)
    os.kill(pid, signal.SIGCONT)


def attacks() -> None:
    victim = int(opts.get("victim", "0"))
    referee = int(opts.get("referee", "0"))
    tried = {
        "kill": lambda: os.kill(victim, signal.SIGKILL),
        "stop": lambda: stop_and_continue(victim),
        "inject": lambda: append(f"/proc/{victim}/fd/1", b'{"type": "hijacked"}\n'),
        "referee": lambda: os.kill(referee, 0),
        "environ": lambda: read(f"/proc/{referee}/environ"),
        "shadow": lambda: read("/etc/shadow"),
        "secret": lambda: read(opts["secret"]),
        "store": lambda: append(opts["store"], b"overwritten by a bot\n"),
        "cgroup": lambda: append("/sys/fs/cgroup/pids/cgroup.procs", b"0"),
    }
    given = [name for name in tried if name not in ("secret", "store") or name in opts]
    results = " ".join(f"{name}={attempt(tried[name])}" for name in given)
    sys.stderr.write(f"attacks: {results}\n")
    sys.stderr.flush()


def daemon() -> None:
    sleeper = [sys.executable, "-c", "import time; time.sleep(1000)", mark]
    subprocess.Popen(sleeper, start_new_session=True, stdin=subprocess.DEVNULL)


def fill_disk(megabytes: int) -> None:
    """Write `megabytes` to a file; with survive=1, stop quietly at the first error."""
    block = b"d" * (1 << 20)
    try:
        with open("filler", "wb") as file:
            for _ in range(megabytes):
                file.write(block)
                file.flush()
    except OSError:
        if not opts.get("survive"):
            raise


def hog(megabytes: int) -> None:
    """A child that touches `megabytes` of memory, then sleeps."""
    if os.fork() == 0:
        hoard = bytearray(megabytes << 20)
        for offset in range(0, len(hoard), 4096):
            hoard[offset] = 1
        time.sleep(1000)
        os._exit(0)


def burn_in_grandchild(seconds: float) -> None:
    """Fork a child that forks the burner and exits at once: nobody of the bot waits for the
    burner, whose CPU therefore never shows in the bot's own /proc counters. Returns when the
    burner has exited (the end of a pipe only it holds open)."""
    done, holder = os.pipe()
    child = os.fork()
    if child == 0:
        if os.fork() == 0:
            end = time.process_time() + seconds
            while time.process_time() < end:
                pass
            os._exit(0)
        os._exit(0)
    os.close(holder)
    os.waitpid(child, 0)
    os.read(done, 1)
    os.close(done)


def answer(message: dict[str, Any]) -> botlib.Reply:
    global answered
    answered += 1
    if mode == "linger":
        time.sleep(100_000)
    if mode == "fill_disk" and answered == 1:
        fill_disk(int(opts.get("mb", "600")))
    if mode == "memory" and answered == 1:
        for _ in range(int(opts.get("procs", "8"))):
            hog(int(opts.get("mb", "64")))
        time.sleep(float(opts.get("wait_s", "3")))
    if mode == "cpu_child" and (answered == 1 or opts.get("every")):
        burn_in_grandchild(float(opts.get("cpu_s", "3")))
    return botlib.index(message)


if mode == "attack":
    attacks()
if mode == "linger":
    for number in (signal.SIGTERM, signal.SIGHUP, signal.SIGPIPE):
        signal.signal(number, signal.SIG_IGN)
if mode == "node_crash":
    sys.stderr.write("node:internal/modules/cjs/loader:1080\n  throw err;\n  ^\n\n")
    sys.stderr.write("Error: Cannot find module '/bots/missing.js'\n")
    for depth in range(300):
        sys.stderr.write(f"    at Module._resolveFilename (node:internal/modules:{depth}:15)\n")
    sys.stderr.write("Node.js v20.11.0\n")
    sys.exit(1)
if mode == "linger":
    for raw in sys.stdin.buffer:
        if b'"start"' in raw:
            botlib.send({"type": "ready", "name": "linger"})
            daemon()
            break
    while True:  # ignore everything, even the end of input
        time.sleep(1000)
botlib.play(answer, sys.argv[2:])
