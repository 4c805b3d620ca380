"""The C heap of a league process given back to the system when a large piece of work is done.

glibc keeps the memory a process frees for its own later use unless asked: after the board's
first count of a million games, or the ladder's first pass over them, tens of megabytes of
freed columns and SQLite pages would stay resident for as long as the league runs.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable


def _c_function(name: str) -> Callable[..., int] | None:
    try:
        return getattr(ctypes.CDLL(None), name, None)
    except (OSError, TypeError):  # no C library to look in (not a POSIX system)
        return None


_MALLOC_TRIM = _c_function("malloc_trim")
"""glibc's `malloc_trim`, where there is one."""
_MALLOPT = _c_function("mallopt")
_M_MMAP_THRESHOLD = -3
"""glibc's `mallopt` parameter: the size from which an allocation is mapped on its own."""
MAPPED_FROM = 256 * 1024
"""`map_large_allocations` maps every allocation of this size or more on its own."""


def map_large_allocations() -> None:
    """Map every large allocation (numpy's columns) on its own, returned to the system as
    soon as it is freed. glibc raises its threshold each time it frees a mapped block (up
    to 32 MiB), after which such columns come from the heap, and those freed stay resident
    until a trim: a process that grows its columns would peak on them."""
    if _MALLOPT is not None:
        _MALLOPT(_M_MMAP_THRESHOLD, MAPPED_FROM)


def give_back_freed_memory() -> None:
    """Return the C heap's free pages to the system (`malloc_trim`)."""
    if _MALLOC_TRIM is not None:
        _MALLOC_TRIM(0)
