"""A nursery's failures reach callers as the exception its tasks raised."""

from __future__ import annotations

import pytest
import trio

from tournaments.errors import InputError, UsageError, ungrouped


async def _fail(error: Exception) -> None:
    raise error  # before any checkpoint: every task fails, none is cancelled first


async def _run_all(*errors: Exception) -> None:
    with ungrouped():
        async with trio.open_nursery() as nursery:
            for error in errors:
                nursery.start_soon(_fail, error)


def test_one_failure_is_raised_as_itself() -> None:
    with pytest.raises(UsageError, match=r"^wrong$"):
        trio.run(_run_all, UsageError("wrong"))


def test_the_same_failure_in_two_tasks_is_raised_once_with_a_note() -> None:
    with pytest.raises(UsageError) as raised:
        trio.run(_run_all, UsageError("wrong"), UsageError("also wrong"))
    said = {"wrong", "also wrong"}  # the tasks may have failed in either order
    (other,) = said - {str(raised.value)}
    assert raised.value.__notes__ == [f"1 more failed alike; {other}"]


def test_different_failures_stay_a_group() -> None:
    with pytest.raises(BaseExceptionGroup) as raised:
        trio.run(_run_all, UsageError("wrong"), InputError("bad file"))
    assert {type(e) for e in raised.value.exceptions} == {UsageError, InputError}
