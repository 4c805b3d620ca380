"""The benchmark's child processes, run as `python -m tournaments.bench.children KIND`.

- `echo`: writes every line it reads straight back (blocking reads and writes): the protocol
  floor, the cheapest conversation a Python child can have over pipes.
- `first`: a trivial bot that answers every `act` with `index: 0` at once. It decodes only the
  `type` and `id` of each message, so what a match against it costs is the referee's own work.
"""

from __future__ import annotations

import sys

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
    for line in reader:
        message = decoder.decode(line)
        if message.type == "act":
            writer.write(b'{"type":"action","id":%d,"index":0}\n' % message.id)
        elif message.type == "start":
            writer.write(b'{"type":"ready","name":"first"}\n')
        elif message.type == "quit":
            return
        else:
            continue
        writer.flush()


KINDS = {"echo": echo, "first": first}


def command(kind: str) -> list[str]:
    """The argv that runs child `kind` with this interpreter."""
    return [sys.executable, "-m", "tournaments.bench.children", kind]


if __name__ == "__main__":
    KINDS[sys.argv[1]]()
