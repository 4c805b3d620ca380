"""The search's valuation caches: a dict that empties itself when full.

Rollouts value the same boards and Alhambras over and over, so the costly valuations are looked
up; emptying a full cache at once (rather than evicting the oldest entry) keeps a lookup a plain
`dict.get`, which is what the rollouts pay on every hit.
"""

from __future__ import annotations

from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class Bounded(dict[K, V], Generic[K, V]):
    """A dict of at most `size` entries: `get` as usual, `put` to store a value computed on a
    miss."""

    def __init__(self, size: int) -> None:
        super().__init__()
        self.size = size

    def put(self, key: K, value: V) -> V:
        """Store `value` under `key`, emptying the cache first when it is full; `value`."""
        if len(self) >= self.size:
            self.clear()
        self[key] = value
        return value
