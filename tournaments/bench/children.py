"""The benchmark's child processes, run as `python -m tournaments.bench.children KIND`.

- `echo`: writes every line it reads straight back (blocking reads and writes): the protocol
  floor, the cheapest conversation a Python child can have over pipes.
- `first [FILE]`: a trivial bot that answers every `act` with `index: 0` at once. It decodes only
  the `type` and `id` of each message, so what a match against it costs is the referee's own work.
  It times its own thinking — from having read an `act` line to just before writing the answer
  (`time.perf_counter_ns`) — and at every `end` appends "<decisions> <think ns>" for that game
  to FILE (when given), so the benchmark can subtract what the bots themselves spent.
"""

from __future__ import annotations

import sys
from time import perf_counter_ns

import msgspec


class _Envelope(msgspec.Struct):
    """The two fields the trivial bot needs; msgspec skips the rest without building it."""

    type: str
    id: int = 0


def echo() -> None:
    reader, writer = sys.stdin.buffer, sys.stdout.buffer
    for line in reader:
        writer.write(line)
        writer.flush()


def first() -> None:
    decoder = msgspec.json.Decoder(_Envelope)
    reader, writer = sys.stdin.buffer, sys.stdout.buffer
    report = open(sys.argv[2], "a") if len(sys.argv) > 2 else None  # noqa: SIM115
    decisions = think_ns = 0
    for line in reader:
        began = perf_counter_ns()
        message = decoder.decode(line)
        if message.type == "act":
            answer = b'{"type":"action","id":%d,"index":0}\n' % message.id
            think_ns += perf_counter_ns() - began
            decisions += 1
            writer.write(answer)
        elif message.type == "start":
            writer.write(b'{"type":"ready","name":"first"}\n')
        elif message.type == "end":
            if report is not None:
                report.write(f"{decisions} {think_ns}\n")
                report.flush()
            decisions = think_ns = 0
            continue
        elif message.type == "quit":
            break
        else:
            continue
        writer.flush()
    if report is not None:
        report.close()


KINDS = {"echo": echo, "first": first}


def command(kind: str, *args: str) -> list[str]:
    """The argv that runs child `kind` (with `args`) with this interpreter."""
    return [sys.executable, "-m", "tournaments.bench.children", kind, *args]


if __name__ == "__main__":
    KINDS[sys.argv[1]]()
