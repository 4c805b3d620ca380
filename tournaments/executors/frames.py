"""Length-prefixed msgpack frames: how the local executor talks to its referee processes.

Both ends are this project's own code (the bots never see these pipes), so a frame is trusted;
msgspec still decodes it into the expected types, so a mismatch fails loudly, not silently."""

from __future__ import annotations

import msgspec
import trio

from tournaments.executors.work import GameDone, GameUnplayed, GameVoided, UnitWork

HEADER = 4
"""Bytes of the big-endian length before each frame."""


class UnitEnd(msgspec.Struct, frozen=True, tag=True):
    """The worker is done with the unit it was sent; `error` says why it failed it, if so."""

    error: str | None = None


class EndUnit(msgspec.Struct, frozen=True, tag=True):
    """The coordinator asks the worker to end its unit after the game in play, handing the
    rest back unplayed (sent at most once per unit, and before the next unit)."""


Request = UnitWork | EndUnit
Reply = GameDone | GameVoided | GameUnplayed | UnitEnd

_encoder = msgspec.msgpack.Encoder()
requests = msgspec.msgpack.Decoder(Request)
replies = msgspec.msgpack.Decoder(Reply)


def frame(message: Request | Reply) -> bytes:
    data = _encoder.encode(message)
    return len(data).to_bytes(HEADER, "big") + data


class FrameReader:
    """Whole frames from a byte stream, each after a length of `header` bytes."""

    def __init__(self, stream: trio.abc.ReceiveStream, header: int = HEADER) -> None:
        self._stream = stream
        self._header = header
        self._buffer = bytearray()

    async def read(self) -> bytes | None:
        """The next frame's payload; None at the end of the stream (a partial frame is lost)."""
        while True:
            header = self._header
            if len(self._buffer) >= header:
                size = int.from_bytes(self._buffer[:header], "big")
                if len(self._buffer) >= header + size:
                    payload = bytes(self._buffer[header : header + size])
                    del self._buffer[: header + size]
                    return payload
            chunk = await self._stream.receive_some(1 << 16)
            if not chunk:
                return None
            self._buffer += chunk
