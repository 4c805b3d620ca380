"""Crafted game records, and real stores holding them, for the record attack and fuzz tests.

A crafted record is a real one (played by `arena match`) with some of its bytes changed; a store
gets it through the store's public API (`Store.add_game`), exactly as `arena run` stores a game,
so what `arena report`, `export` and `replay` read back are those bytes.
"""

from __future__ import annotations

import contextlib
import json
import signal
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from patience import stretch
from tourhelp import in_process

from tournaments.cli import main
from tournaments.store.results import Played
from tournaments.store.store import Store, seat_set_key


def real_record(directory: Path, game: str, bots: Sequence[str], seed: int) -> bytes:
    """A whole game played by `arena match` (built-in bots): its record. In cpu time mode: a
    loaded machine must not fault a bot of it."""
    path = directory / f"{game}-{seed}.jsonl"
    argv = ["match", "--game", game, *bots, "--seed", str(seed), "--sandbox", "none"]
    argv += ["--time-mode", "cpu"]
    assert main([*argv, "--record", str(path)]) == 0
    return path.read_bytes()


def with_header(record: bytes, **changes: Any) -> bytes:
    """The record with these header fields changed."""
    header, rest = record.split(b"\n", 1)
    return json.dumps({**json.loads(header), **changes}).encode() + b"\n" + rest


def make_store(path: Path, game: str, records: Sequence[bytes]) -> list[int]:
    """A store of `game` whose games (bot a against bot b) hold these record bytes: their ids."""
    with Store(path) as store:
        store.bind({"game": game, "players": 2})
        seats = [store.bot(name, name, f"hash-{name}").id for name in ("a", "b")]
        for deal, record in enumerate(records):
            store.add_game(
                seat_set=seat_set_key(seats),
                deal=deal,
                rotation=0,
                seed=deal,
                bots=seats,
                played=Played(scores=[1, 0], ranks=[1, 2], moves=[1, 1], think_ms=[1.0, 1.0]),
                decisions=1,
                record=record,
            )
        return [key.id for key in store.game_keys()]


def run(*argv: str | Path | int) -> tuple[int, str]:
    """`arena ARGV` in this process (`tourhelp.in_process`): its exit code and stderr."""
    code, _, err = in_process(*argv)
    return code, err


def one_line_error(err: str, command: str, names: str) -> bool:
    """Whether `err` is the single line `arena COMMAND: error: ...` of printable text (no
    terminal escapes from the record) that names `names`."""
    line = err.removesuffix("\n")
    return line.isprintable() and line.startswith(f"arena {command}: error: ") and names in line


class Hang(Exception):
    """An example ran longer than the alarm allows."""


@contextlib.contextmanager
def alarm(seconds: float) -> Iterator[None]:
    """Raise `Hang` in this (the main) thread if the block runs longer than `seconds` of an
    idle machine (stretched by the load: the alarm is for a hang, not a slow machine)."""
    limit = seconds * stretch()

    def ring(_signum: int, _frame: Any) -> None:
        raise Hang(f"still running after {limit:.0f} s")

    previous = signal.signal(signal.SIGALRM, ring)
    signal.setitimer(signal.ITIMER_REAL, limit)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def arena(*argv: str | Path | int) -> tuple[int, str, str]:
    """`arena ARGV` in this process (`tourhelp.in_process`), stopped by `Hang` after 10 s."""
    with alarm(10):
        return in_process(*argv)
