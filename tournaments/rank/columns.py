"""Numbers kept in numpy columns rather than in Python objects, for tallies that grow with a
league's games: a million games among a thousand bots are a million deals and half a million
pairs, and a dict entry with its tuple key costs a hundred bytes or more where a column's entry
costs eight.

- `Ids`: dense ids for int64 keys (a pair of bot ids, a deal of a seat-set), numbered in the
  order they were first seen, looked up a batch at a time in a sorted column.
- `grown`: a column grown geometrically to hold an id, so adding a batch costs the batch.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import numpy.typing as npt

Column = npt.NDArray[np.int64]

CHUNK = 1 << 16
"""Rows a pass over a large column takes at a time (`Ids.chunks`): its temporaries stay this
size, not the column's."""


def joined(
    high: npt.NDArray[np.integer[Any]], low: npt.NDArray[np.integer[Any]], bits: int
) -> Column:
    """One key from two non-negative ids: `high` above `low`'s `bits` bits (`low` < 2**bits);
    such keys order as the (high, low) pairs they are made of."""
    key = high.astype(np.int64)
    key <<= bits
    key |= low  # in place: a million keys hold one column, not three
    return key


def split(keys: Column, bits: int) -> tuple[Column, Column]:
    """The (high, low) ids that `joined` made `keys` of."""
    return keys >> bits, keys & ((1 << bits) - 1)


class Ids:
    """Dense ids (0, 1, …) for int64 keys, in the order the keys were first seen: an
    interning table as two sorted columns (the keys, each key's 32-bit id), so a million keys
    cost twelve bytes each and a batch is looked up in one binary search."""

    def __init__(self) -> None:
        self._sorted: Column = np.zeros(0, dtype=np.int64)
        self._ids = np.zeros(0, dtype=np.int32)

    def __len__(self) -> int:
        return len(self._sorted)

    def add(self, keys: Column) -> Column:
        """The id of each of `keys`, numbering the new ones in the order they come."""
        new = keys[self.find(keys) < 0]
        if len(new):
            unique, first = np.unique(new, return_index=True)
            ids = np.empty(len(unique), dtype=np.int32)
            ids[np.argsort(first, kind="stable")] = np.arange(len(self), len(self) + len(unique))
            at = np.searchsorted(self._sorted, unique)
            self._sorted = np.insert(self._sorted, at, unique)
            self._ids = np.insert(self._ids, at, ids)
        return self._ids[np.searchsorted(self._sorted, keys)].astype(np.int64)

    def find(self, keys: Column) -> Column:
        """The id of each of `keys`, -1 for a key never added."""
        at = np.minimum(np.searchsorted(self._sorted, keys), max(len(self) - 1, 0))
        if not len(self):
            return np.full(len(keys), -1, dtype=np.int64)
        return np.where(self._sorted[at] == keys, self._ids[at].astype(np.int64), -1)

    def keys(self) -> Column:
        """Every key, by its id."""
        keys = np.empty(len(self), dtype=np.int64)
        keys[self._ids] = self._sorted
        return keys

    def chunks(self) -> Iterator[tuple[Column, npt.NDArray[np.int32]]]:
        """Every key with its id, in key order, `CHUNK` at a time: a pass over all of them
        without a column of every key by id (`keys`) or a whole column's temporaries."""
        for start in range(0, len(self), CHUNK):
            yield self._sorted[start : start + CHUNK], self._ids[start : start + CHUNK]

    def halves(self, bits: int) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int32]]:
        """The (high, low) ids `joined` made each key of (`low` of `bits` bits, `high` under
        2**31), by id, as 32-bit columns."""
        high, low = np.empty(len(self), dtype=np.int32), np.empty(len(self), dtype=np.int32)
        for keys, ids in self.chunks():
            high[ids], low[ids] = split(keys, bits)
        return high, low

    def lows(self, bits: int) -> npt.NDArray[np.int32]:
        """The `low` ids of `halves` alone."""
        low = np.empty(len(self), dtype=np.int32)
        for keys, ids in self.chunks():
            low[ids] = keys & ((1 << bits) - 1)
        return low

    def places(self) -> npt.NDArray[np.int32]:
        """Each id's place among the keys in key order."""
        return places(self._ids)

    def nbytes(self) -> int:
        return int(self._sorted.nbytes + self._ids.nbytes)


def places(order: npt.NDArray[np.integer[Any]]) -> npt.NDArray[np.int32]:
    """Where each item goes in `order` (the inverse permutation), as 32-bit ids."""
    found = np.empty(len(order), dtype=np.int32)
    found[order] = np.arange(len(order), dtype=np.int32)
    return found


def grown(column: npt.NDArray[Any], size: int) -> npt.NDArray[Any]:
    """`column` with room for `size` rows (new rows zero): doubled when it must grow, so
    rows added one batch at a time are copied a bounded number of times."""
    if len(column) >= size:
        return column
    bigger = np.zeros((max(size, 2 * len(column)), *column.shape[1:]), dtype=column.dtype)
    bigger[: len(column)] = column
    return bigger


def grouped(
    keys: npt.NDArray[np.integer[Any]], size: int
) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int32]]:
    """The rows of `keys` (each under `size`) grouped by key, each group's in row order (what
    a stable argsort gives), as 32-bit ids; and where each key's group begins. A counting
    sort a `CHUNK` of rows at a time: its temporaries are a chunk's, not a column's (a stable
    argsort of a million keys holds twelve bytes a row besides)."""
    slot = np.zeros(size, dtype=np.int32)
    """Each key's rows, then where the next row of its group goes."""
    for at in range(0, len(keys), CHUNK):
        np.add.at(slot, keys[at : at + CHUNK], 1)
    starts = np.zeros(size, dtype=np.int32)
    np.cumsum(slot[:-1], out=starts[1:])
    slot[:] = starts
    order = np.empty(len(keys), dtype=np.int32)
    for at in range(0, len(keys), CHUNK):
        chunk = keys[at : at + CHUNK]
        by_key = np.argsort(chunk, kind="stable")
        ordered = chunk[by_key]
        ranks = np.arange(len(chunk)) - np.searchsorted(ordered, ordered)  # within its key
        order[slot[ordered] + ranks] = by_key + at
        np.add.at(slot, ordered, 1)
    return order, starts
