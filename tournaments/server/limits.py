"""Per-client budgets of the web front: token buckets by key (a client's address, an author),
for what one client could otherwise repeat until the server serves nobody else — sign-in
attempts, and reads that cost the server real work (a bot's page, a long list of its games).

A bucket holds `burst` requests and refills at `per_minute`; a request over it is refused with
429 and `Retry-After`, the message saying when to try again. Buckets that have refilled are
forgotten, so the front's memory stays bounded by the clients of the last minutes.
"""

from __future__ import annotations

import ipaddress
import math
import time
from collections.abc import Callable
from typing import ClassVar

from starlette.requests import Request

from tournaments.league.errors import RateLimited

FORGET_AT = 4096
"""Buckets kept before the full ones are forgotten."""


class Throttled(RateLimited):
    """A client over one of the front's budgets (HTTP 429 with `Retry-After`)."""

    http_status: ClassVar[int] = 429

    def __init__(self, what: str, retry_after: float) -> None:
        self.retry_after = max(1, math.ceil(retry_after))
        super().__init__(f"{what}: try again in {self.retry_after} s")


def retry_headers(error: Exception) -> dict[str, str]:
    """The `Retry-After` header a refusal carries (none but a `Throttled`'s)."""
    if isinstance(error, Throttled):
        return {"Retry-After": str(error.retry_after)}
    return {}


class Buckets:
    """One token bucket per key."""

    def __init__(
        self, burst: float, per_minute: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.burst, self.per_s, self.clock = burst, per_minute / 60, clock
        self._buckets: dict[str, tuple[float, float]] = {}
        """key → (tokens, when they were counted)."""

    def take(self, key: str, what: str, cost: float = 1) -> None:
        """Spend `cost` of `key`'s bucket, or refuse (`Throttled`, saying `what` was asked too
        often) when it holds less."""
        now = self.clock()
        tokens = self._tokens(key, now)
        if tokens < cost:
            raise Throttled(what, (cost - tokens) / self.per_s)
        if len(self._buckets) >= FORGET_AT and key not in self._buckets:
            self._forget_full(now)
        self._buckets[key] = (tokens - cost, now)

    def _tokens(self, key: str, now: float) -> float:
        kept = self._buckets.get(key)
        if kept is None:
            return self.burst
        tokens, then = kept
        return min(self.burst, tokens + (now - then) * self.per_s)

    def _forget_full(self, now: float) -> None:
        full = [key for key in self._buckets if self._tokens(key, now) >= self.burst]
        for key in full:
            del self._buckets[key]

    def __len__(self) -> int:
        return len(self._buckets)


def client_address(request: Request) -> str:
    """The address of the client the request came from: the peer's, or, from a proxy on this
    machine (a loopback peer), the address its `X-Forwarded-For` names last (docs/server.md's
    nginx sets it to the browser's)."""
    peer = request.client.host if request.client else ""
    forwarded = request.headers.get("x-forwarded-for", "").split(",")[-1].strip()
    if forwarded and _loopback(peer):
        return forwarded
    return peer


def _loopback(address: str) -> bool:
    try:
        return ipaddress.ip_address(address).is_loopback
    except ValueError:
        return False
