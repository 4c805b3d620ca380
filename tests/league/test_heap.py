"""The server moves what it made at start-up out of the cyclic collector's reach, so that no
full collection walks the imported modules again while pages wait."""

from __future__ import annotations

import gc
import types

from tournaments.server.serve import settle_heap


def test_what_exists_at_start_up_is_out_of_the_collectors_reach() -> None:
    made_before = types.SimpleNamespace(rows=[{"bot": "greedy"}])
    assert any(o is made_before for o in gc.get_objects())
    try:
        settle_heap()
        assert gc.get_freeze_count() > 0
        assert not any(o is made_before for o in gc.get_objects())
        made_after = types.SimpleNamespace(rows=[])
        assert any(o is made_after for o in gc.get_objects())
    finally:
        gc.unfreeze()
