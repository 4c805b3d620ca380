"""A Dask preload (`--preload` / `LocalCluster(preload=...)`) that makes its worker lie or fail
as the file named after the worker in `$ARENA_TEST_MODES` says, read at each task:

- (none, or empty): honest;
- `raise`: the task raises;
- `hang`: the task never answers (until the file says otherwise);
- `standin`: the unit's first bot is swapped for a program that exits at once, so it forfeits
  every game (the records replay: the forfeit is recorded as it happened);
- `swap`: the records name the seats in the other order;
- `bloat N`: each record gets a line of N random bytes (as hex) more.

It replaces what the worker's task calls to play (`ondask.play_unit`): everything around it —
the bundles, the identity checks, the encoding — is the project's own."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any

import msgspec
import trio

MODES = Path(os.environ.get("ARENA_TEST_MODES", "/nonexistent"))


def mode_of(name: str) -> str:
    try:
        return (MODES / name).read_text().strip()
    except FileNotFoundError:
        return ""


def dask_setup(worker: Any) -> None:
    from tournaments.executors import ondask
    from tournaments.executors.work import GameDone, Result, UnitWork, play_games, play_unit

    name = str(worker.name)

    def dishonest(unit: UnitWork) -> list[Result]:
        mode = mode_of(name)
        if mode == "raise":
            raise RuntimeError("a broken machine")
        if mode == "hang":
            while mode_of(name) == "hang":
                time.sleep(0.1)
            raise RuntimeError("released at the test's end")
        if mode == "standin":
            first = unit.seats[0]
            quits = [sys.executable, "-c", "raise SystemExit(3)"]
            stand_in = msgspec.structs.replace(
                first, spec=msgspec.structs.replace(first.spec, command=quits)
            )
            results: list[Result] = []
            swapped = msgspec.structs.replace(unit, seats=[stand_in, *unit.seats[1:]])
            trio.run(play_games, swapped, results.append)
            return results
        played = play_unit(unit)
        if mode == "swap":
            return [_renamed(result) if isinstance(result, GameDone) else result
                    for result in played]  # fmt: skip
        if mode.startswith("bloat"):
            junk = os.urandom(int(mode.split()[1])).hex().encode()
            return [
                msgspec.structs.replace(result, record=result.record + b"\n" + junk)
                if isinstance(result, GameDone)
                else result
                for result in played
            ]
        return played

    def _renamed(game: Any) -> Any:
        header, newline, rest = game.record.partition(b"\n")
        decoded = msgspec.json.decode(header)
        decoded["names"] = decoded["names"][::-1]
        record = msgspec.json.encode(decoded) + newline + rest
        return msgspec.structs.replace(game, record=record)

    ondask.play_unit = dishonest
