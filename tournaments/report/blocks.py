"""The report's games in blocks, each written once: a report rewritten into its directory
re-plays only the games it has not packed before.

Re-playing a game through its engine for the viewer is most of a report's work (milliseconds a
game), and a stored game never changes. So the games go in blocks, the games of a range of
BLOCK_IDS store ids (a growing store's new games fall into its last blocks), and a block's file
is named by a hash of the packing's `FORMAT`, its game ids and their records: a file of that
name holds exactly those games packed that way, and is kept as it is. Any change — a new game in
the range, a bot removed, another store reported into the directory, another arena's packing —
gives another name. Files of the games directory the new page no longer names are removed.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import multiprocessing
import os
import re
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import msgspec

from referee import BadRecord
from tournaments.report.public import public_record
from tournaments.report.viewer import FORMAT, block_script, game_fields, viewer_data
from tournaments.store.store import Store

BLOCK_IDS = 100
"""Store ids per block: a block is a few hundred KB to load and unpack when one of its games is
opened, and across a hundred games zlib finds what they have in common."""
PARALLEL_FROM = 400
"""Below this many games to pack one process packs them all (starting workers costs more)."""
OURS = re.compile(r"(?:[0-9a-f]{20}|\d+)\.js(?:\.partial)?")
"""The files a report writes in its games directory: blocks, and the one-game scripts
`<id>.js` of the arenas before blocks (and what a write cut short left)."""


class Block(msgspec.Struct, frozen=True):
    name: str
    """Its file is `<name>.js`: a hash of what it holds."""
    ids: list[int]


def ranges(ids: Sequence[int]) -> list[list[int]]:
    """The games `ids` by block: each range of BLOCK_IDS store ids that holds any, in order."""
    found: dict[int, list[int]] = {}
    for game_id in sorted(ids):
        found.setdefault((game_id - 1) // BLOCK_IDS, []).append(game_id)
    return list(found.values())


def pack(
    path: Path, games_dir: Path, blocks: Sequence[list[int]], public: bool = False
) -> list[Block]:
    """Name the block of each list of game ids of the store at `path`, and write it into
    `games_dir` unless it is there already (in a worker process too); `public`: of the records
    as everyone may see them (`report.public`)."""
    packed = []
    with Store(path, readonly=True) as store:
        for ids in blocks:
            records = [_record(store, game_id, public) for game_id in ids]
            block = Block(_name(ids, records), ids)
            file = games_dir / f"{block.name}.js"
            if not file.is_file():
                # A game's steps are thousands of short-lived lists and dicts: the cyclic
                # collector's passes over them cost a tenth of the work and find next to
                # nothing (some tens of objects in a block's cycles). It runs after each block.
                collecting = gc.isenabled()
                gc.disable()
                try:
                    games = [game_fields(viewer_data(record)) for record in records]
                finally:
                    if collecting:
                        gc.enable()
                write_file(file, block_script(block.name, ids, games))
            packed.append(block)
    return packed


def _record(store: Store, game_id: int, public: bool) -> bytes | str:
    """The game's record (`public`: as everyone may see it), or why it cannot be read (the
    game's viewer says so)."""
    try:
        record = store.game_record(game_id)
    except BadRecord as exc:
        return str(exc)
    assert record is not None, "the ids come from this store"
    return public_record(record) if public else record


def _name(ids: Sequence[int], records: Sequence[bytes | str]) -> str:
    """A hash of what the block of these games holds: the packing's FORMAT, their ids and
    their records (or why a record cannot be read)."""
    digest = hashlib.blake2b(FORMAT.encode(), digest_size=10)
    for game_id, record in zip(ids, records, strict=True):
        data = record if isinstance(record, bytes) else record.encode()
        digest.update(f"\n{game_id} {isinstance(record, bytes)} {len(data)}\n".encode())
        digest.update(data)
    return digest.hexdigest()


@contextlib.contextmanager
def packing(
    path: Path, games_dir: Path, ids: Sequence[int], workers: int, public: bool = False
) -> Iterator[Callable[[], list[Block]]]:
    """Pack the blocks of the games `ids` (`pack`) while the body runs: in `workers` processes
    from PARALLEL_FROM games on (the body goes on meanwhile), else before it. Yields what
    waits for the blocks, in the order of their ids."""
    blocks = ranges(ids)
    if workers <= 1 or len(ids) < PARALLEL_FROM:
        done = pack(path, games_dir, blocks, public)
        yield lambda: done
        return
    # A few tasks per worker, each opening the store once (opening checks the whole file).
    tasks = [blocks[start :: workers * 4] for start in range(min(len(blocks), workers * 4))]
    context = multiprocessing.get_context("spawn")  # no fork of a process holding SQLite
    with ProcessPoolExecutor(workers, mp_context=context) as pool:
        futures = [pool.submit(pack, path, games_dir, task, public) for task in tasks]
        yield lambda: sorted(
            (block for future in futures for block in future.result()),
            key=lambda block: block.ids[0],
        )


def remove_stale(games_dir: Path, blocks: Sequence[Block]) -> None:
    """Remove the games directory's files of ours that no block of the report is."""
    kept = {f"{block.name}.js" for block in blocks}
    for entry in games_dir.iterdir():
        if OURS.fullmatch(entry.name) and entry.name not in kept:
            entry.unlink(missing_ok=True)


def write_file(path: Path, text: str) -> None:
    """Write whole or not at all: a report being rewritten is never seen half-written."""
    partial = path.with_name(path.name + ".partial")
    partial.write_text(text, encoding="utf-8")
    os.replace(partial, path)
