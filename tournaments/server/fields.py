"""Whole numbers from a request (a form field, a header), read one way everywhere: plain ASCII
digits within bounds, or a `RequestError` that says which field and what to give.

`str.isdigit` is not the test: it is true of `²`, `①` and other digits `int` refuses (a 500),
and `int` takes `٣` and `1_0`; a number of 30 digits passes both and overflows the store."""

from __future__ import annotations

from protocol.errors import RequestError

MOST = 2**31 - 1
"""The largest number a field takes unless it says less: well within what the store keeps."""


def whole_number(value: object, field: str, *, least: int = 1, most: int = MOST) -> int:
    """`value` (surrounding spaces aside) as a whole number from `least` to `most`."""
    text = value.strip() if isinstance(value, str) else ""
    if text.isascii() and text.isdigit() and len(text) <= len(str(most)):
        number = int(text)
        if least <= number <= most:
            return number
    raise RequestError(f"{field}: give a whole number from {least} to {most}")
