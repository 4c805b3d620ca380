"""`bots.search.cache.Bounded`: the search's valuation caches stay within their size."""

from __future__ import annotations

from bots.search.cache import Bounded


def test_a_full_cache_is_emptied_before_the_next_value_is_stored() -> None:
    cache: Bounded[int, str] = Bounded(2)
    assert cache.put(1, "a") == "a" and cache.put(2, "b") == "b"
    assert cache.get(1) == "a" and len(cache) == 2
    assert cache.put(3, "c") == "c"
    assert dict(cache) == {3: "c"}
    assert cache.get(1) is None
