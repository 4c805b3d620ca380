"""A kept child's own side (`python -m MODULE`, whose `main` is `serve`): requests read on its
stdin and answered one at a time in length-prefixed msgpack frames, below the server's priority.
The server's side is `kept.Kept`. Nothing here imports trio: a child holds only what its work
needs for as long as the league runs.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Any

import msgspec

from protocol.errors import ArenaError, RequestError

HEADER = 4
"""Bytes of the big-endian length before each frame."""


class Failed(msgspec.Struct, frozen=True, tag=True):
    """The work refused the request (`refused`: a `RequestError`, the client's to mend) or
    could not be done (an `ArenaError`: a damaged store)."""

    error: str
    refused: bool


_encoder = msgspec.msgpack.Encoder()


def frame(message: object) -> bytes:
    data = _encoder.encode(message)
    return len(data).to_bytes(HEADER, "big") + data


def serve(work: Callable[[Any], object], requests: Any, nice: int) -> int:
    """A child's main: answer the requests (of type `requests`) read on stdin with `work`, one
    at a time, `nice` below its parent's priority, until stdin ends."""
    os.nice(nice)
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    decoder = msgspec.msgpack.Decoder(requests)
    while len(header := stdin.read(HEADER)) == HEADER:
        request = decoder.decode(stdin.read(int.from_bytes(header, "big")))
        try:
            reply = work(request)
        except ArenaError as exc:
            reply = Failed(str(exc), isinstance(exc, RequestError))
        stdout.write(frame(reply))
        stdout.flush()
    return 0
