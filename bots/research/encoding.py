"""Observations as flat vectors of floats, laid out from the game's `Observation` struct.

One generic encoding for every game, so a new game gets one without code: the struct's fields in
their declared order, recursively, each as numbers —

- an int (a count, a score, a colour or seat id, a coordinate) is its value, and a bool 0 or 1;
- a string with a fixed set of values (a `Literal`, or a field whose words the game's table in
  `specs` lists) is one-hot over those values;
- an optional value is a presence flag (1, or 0 for None) and then the value (zeros for None);
- a list whose length never changes (per colour, per factory, per seat) is its items; a list
  that grows and shrinks (a hand, a floor line) is given a maximum length in the game's table
  and is that many slots, each a presence flag and then the item (zeros when empty).

The lengths that never change are read from a fresh game's first observation, so the table names
only the lists that vary. Nothing is scaled, rotated or one-hot-encoded beyond this: it is a
faithful, lossless starting point, not a tuned feature set. Every number lies in
[-LIMIT, LIMIT]; an observation that does not fit the layout (a list longer than its table says)
raises `EncodingError` rather than being cut.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import msgspec
import numpy as np
import numpy.typing as npt
from msgspec import inspect

__all__ = ["LIMIT", "Encoder", "EncodingError"]

LIMIT = 1024.0
"""Bound of every number in an encoding (the largest, a score, stays far below it)."""

Writer = Callable[[Any, list[float]], None]
"""Appends one value's numbers to the output."""
Vector = npt.NDArray[np.float32]


class EncodingError(ValueError):
    """An observation that does not fit its game's layout, or a type with no layout."""


class Encoder:
    """The encoding of one game set-up's observations (`size` floats each)."""

    def __init__(
        self,
        observation_type: type[msgspec.Struct],
        sample: msgspec.Struct,
        lengths: Mapping[str, int],
        words: Mapping[str, tuple[str, ...]],
    ) -> None:
        self._lengths = lengths
        self._words = words
        info = inspect.type_info(observation_type)
        assert isinstance(info, inspect.StructType)
        fields = self._fields(info, sample, "")
        self._write, self.size = _struct(fields)
        self.parts: dict[str, slice] = {}
        """Where each top-level field of the observation lies in the vector."""
        offset = 0
        for name, _, width in fields:
            self.parts[name] = slice(offset, offset + width)
            offset += width

    def encode(self, observation: msgspec.Struct) -> Vector:
        out: list[float] = []
        self._write(observation, out)
        return np.asarray(out, dtype=np.float32)

    def _layout(self, info: inspect.Type, sample: Any, path: str) -> tuple[Writer, int]:
        """The writer of a value of type `info` at `path`, and how many numbers it writes."""
        if isinstance(info, inspect.IntType | inspect.BoolType | inspect.FloatType):
            return _number, 1
        if isinstance(info, inspect.LiteralType | inspect.StrType):
            return _one_hot(self._choices(info, path), path)
        if isinstance(info, inspect.UnionType) and any(
            isinstance(t, inspect.NoneType) for t in info.types
        ):
            (inner,) = [t for t in info.types if not isinstance(t, inspect.NoneType)]
            return _optional(*self._layout(inner, sample, path))
        if isinstance(info, inspect.ListType | inspect.VarTupleType):
            item = self._layout(info.item_type, sample[0] if sample else None, f"{path}[]")
            if path in self._lengths:
                return _slots(*item, self._lengths[path], path)
            if sample is None:
                raise EncodingError(f"the length of {path} is not in the game's table")
            return _fixed(*item, len(sample), path)
        if isinstance(info, inspect.TupleType):
            items = [
                self._layout(t, None if sample is None else sample[i], f"{path}[{i}]")
                for i, t in enumerate(info.item_types)
            ]
            return _sequence(items)
        if isinstance(info, inspect.StructType):
            return _struct(self._fields(info, sample, f"{path}."))
        raise EncodingError(f"no encoding for {path}: {info}")

    def _fields(
        self, info: inspect.StructType, sample: Any, prefix: str
    ) -> list[tuple[str, Writer, int]]:
        return [
            (
                field.name,
                *self._layout(
                    field.type,
                    None if sample is None else getattr(sample, field.name),
                    prefix + field.name,
                ),
            )
            for field in info.fields
        ]

    def _choices(self, info: inspect.LiteralType | inspect.StrType, path: str) -> tuple[Any, ...]:
        if isinstance(info, inspect.LiteralType):
            return tuple(info.values)
        if path not in self._words:
            raise EncodingError(f"the words of {path} are not in the game's table")
        return self._words[path]


def _number(value: Any, out: list[float]) -> None:
    out.append(value)


def _one_hot(choices: tuple[Any, ...], path: str) -> tuple[Writer, int]:
    rows = {
        choice: [float(i == j) for j in range(len(choices))] for i, choice in enumerate(choices)
    }

    def write(value: Any, out: list[float]) -> None:
        row = rows.get(value)
        if row is None:
            raise EncodingError(f"{path} = {value!r} is not one of {list(rows)}")
        out += row

    return write, len(choices)


def _optional(inner: Writer, width: int) -> tuple[Writer, int]:
    absent = [0.0] * (width + 1)

    def write(value: Any, out: list[float]) -> None:
        if value is None:
            out += absent
        else:
            out.append(1.0)
            inner(value, out)

    return write, width + 1


def _slots(inner: Writer, width: int, length: int, path: str) -> tuple[Writer, int]:
    empty = [0.0] * (width + 1)

    def write(values: Any, out: list[float]) -> None:
        if len(values) > length:
            raise EncodingError(f"{path} holds {len(values)} items, its table says {length}")
        for value in values:
            out.append(1.0)
            inner(value, out)
        out += empty * (length - len(values))

    return write, (width + 1) * length


def _fixed(inner: Writer, width: int, length: int, path: str) -> tuple[Writer, int]:
    def check(values: Any) -> None:
        if len(values) != length:
            raise EncodingError(f"{path} holds {len(values)} items, not {length}: add it to specs")

    def write(values: Any, out: list[float]) -> None:
        check(values)
        for value in values:
            inner(value, out)

    def write_numbers(values: Any, out: list[float]) -> None:  # the common case, in one step
        check(values)
        out += values

    return write_numbers if inner is _number else write, width * length


def _sequence(items: list[tuple[Writer, int]]) -> tuple[Writer, int]:
    def write(values: Any, out: list[float]) -> None:
        for (inner, _), value in zip(items, values, strict=True):
            inner(value, out)

    return write, sum(width for _, width in items)


def _struct(fields: list[tuple[str, Writer, int]]) -> tuple[Writer, int]:
    def write(value: Any, out: list[float]) -> None:
        for name, inner, _ in fields:
            inner(getattr(value, name), out)

    def write_numbers(value: Any, out: list[float]) -> None:  # a card, a cell: in one step
        out += msgspec.structs.astuple(value)

    numbers = all(inner is _number for _, inner, _ in fields)
    return write_numbers if numbers else write, sum(width for _, _, width in fields)
