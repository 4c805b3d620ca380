"""Content-addressed bundles: how a bot's files reach a worker machine that does not hold them.

A unit names each seat by the hash of what it runs (`Seat.hash`). A bot that travels — an
uploaded version's folder after its build, or a tournament's bot given as files — is packed
once by the coordinator and published through the Dask cluster itself under `key(hash)` (the
scheduler holds it: no shared folder, no second server). A worker that lacks it fetches it,
unpacks it (links leading outside refused) into its private cache, checks that it hashes to
the seat's hash, and runs it from there as the server runs it (a file bot whose files the
worker holds at the same paths, the same, runs in place: `held`). The cache is bounded
(`CACHE_MB`), the least recently used bundle dropped first. What a bot's command names outside
its files — an interpreter and its libraries — is still the worker's own.
"""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import tarfile
import uuid
from collections.abc import Callable
from pathlib import Path

import msgspec

from referee import BotSpec
from tournaments.executors.work import BotMismatch, Seat, check_identity
from tournaments.plan.entrants import content_hash

CACHE_DIR = "ARENA_BUNDLE_CACHE"
"""The variable naming a worker's cache folder (default `~/.cache/tile-arena/bundles`)."""
CACHE_MB = "ARENA_BUNDLE_CACHE_MB"
"""The variable bounding the cache (default `DEFAULT_MB`)."""
DEFAULT_MB = 2048


def key(content_hash: str) -> str:
    """The name a bundle is published under on the cluster."""
    return f"arena-bundle-{content_hash}"


def travels(seat: Seat) -> bool:
    """Whether the seat's files go to the workers in a bundle: an uploaded folder, or files
    with no working folder outside them (a built-in is the worker's installed project)."""
    spec = seat.spec
    if spec.folder is not None:
        return True
    files = _carried(spec)
    return bool(files) and (spec.cwd is None or _within(spec.cwd, files) is not None)


def _carried(spec: BotSpec) -> tuple[str, ...]:
    """A file bot's files that travel: all but a program given by its path that runs other
    files of the bot (`/usr/bin/python3 bot.py`: an interpreter, the worker's own)."""
    program = spec.command[0] if spec.command else ""
    if len(spec.files) > 1 and spec.files[0] == program:
        return spec.files[1:]
    return spec.files


def held(seat: Seat) -> bool:
    """Whether this machine holds a file bot's files at the coordinator's paths, the same (a
    shared file system, or the coordinator's own machine): it then runs them in place, helper
    files beside them included, and needs no bundle."""
    if seat.spec.folder is not None:
        return False
    try:
        return content_hash(seat.command, seat.spec, seat.odds) == seat.hash
    except OSError:
        return False


def pack(seat: Seat) -> bytes:
    """The seat's files as a gzipped tar: an uploaded folder's content at its root, or each of
    a file bot's files (or folders) under its index (`0/bot.py`). Links are kept as links."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        if seat.spec.folder is not None:
            for name in sorted(os.listdir(seat.spec.folder)):
                tar.add(os.path.join(seat.spec.folder, name), arcname=name)
        else:
            for index, path in enumerate(_carried(seat.spec)):
                tar.add(path, arcname=f"{index}/{os.path.basename(path)}")
    return buffer.getvalue()


def cache_folder() -> Path:
    named = os.environ.get(CACHE_DIR)
    return Path(named) if named else Path.home() / ".cache" / "tile-arena" / "bundles"


class Cache:
    """A worker's bundles, one folder each named by its hash, private to the worker's user."""

    def __init__(self, folder: Path | None = None, limit_mb: int | None = None) -> None:
        self.folder = folder or cache_folder()
        self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        limit = limit_mb if limit_mb is not None else int(os.environ.get(CACHE_MB, DEFAULT_MB))
        self.limit = limit * 1024 * 1024

    def located(self, seat: Seat, fetch: Callable[[str], bytes]) -> Seat:
        """The seat as it runs here, from its bundle in the cache: fetched (`fetch(key)`),
        unpacked and checked against its hash when missing, touched when found."""
        home = self.folder / seat.hash
        if home.is_dir():
            os.utime(home)
            return _moved(seat, home)
        data = fetch(key(seat.hash))
        unpacked = self.folder / f".new-{uuid.uuid4().hex}"
        try:
            with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
                _unpack(tar, unpacked)
            moved = _moved(seat, unpacked)
            advice = "(its files changed after the run identified it)"
            check_identity(seat, moved.spec, "its bundle hashes to", advice)
            with contextlib.suppress(OSError):  # another task of this worker cached it meanwhile
                unpacked.rename(home)
        finally:
            shutil.rmtree(unpacked, ignore_errors=True)
        self._bound(keep=home)
        return _moved(seat, home)

    def _bound(self, keep: Path) -> None:
        """Drop the least recently used bundles (never `keep`) while the cache is over its
        bound."""
        sizes = {entry: _size(entry) for entry in self.folder.iterdir() if entry.is_dir()}
        total = sum(sizes.values())
        for entry in sorted(sizes, key=lambda entry: entry.stat().st_mtime):
            if total <= self.limit:
                return
            if entry != keep and not entry.name.startswith("."):
                shutil.rmtree(entry, ignore_errors=True)
                total -= sizes[entry]


def _unpack(tar: tarfile.TarFile, folder: Path) -> None:
    """Unpack `tar` into `folder`: files, folders and links that stay inside only, each path
    once and none below a link, so that nothing is written through a link (checked here, as
    Python's "data" filter does where it exists: before 3.11.4 it does not); then every link
    must resolve inside on the disk, as an upload's must (a chain of links can climb out
    although each one reads as inside)."""
    members = tar.getmembers()
    paths = [os.path.normpath(member.name) for member in members]
    links = {path for path, member in zip(paths, members, strict=True) if member.issym()}
    seen: set[str] = set()
    for path, member in zip(paths, members, strict=True):
        if os.path.isabs(path) or path.split(os.sep)[0] == "..":
            raise BotMismatch(f"the bundle holds a path outside its folder: {member.name!r}")
        if not (member.isfile() or member.isdir() or member.issym()):
            raise BotMismatch(f"the bundle holds {member.name!r}, not a file, folder or link")
        if path in seen:
            raise BotMismatch(f"the bundle holds {member.name!r} twice")
        seen.add(path)
        above = path.split(os.sep)[:-1]
        if any(os.sep.join(above[:depth]) in links for depth in range(1, len(above) + 1)):
            raise BotMismatch(f"the bundle holds {member.name!r} below one of its links")
        if member.issym():
            target = os.path.normpath(os.path.join(os.path.dirname(path), member.linkname))
            if os.path.isabs(member.linkname) or target.split(os.sep)[0] == "..":
                raise BotMismatch(f"the bundle's link {member.name!r} leads outside it")
        member.mode &= 0o755  # no setuid, nothing writable by others
    try:
        if hasattr(tarfile, "data_filter"):
            tar.extractall(folder, members=members, filter="data")
        else:  # Python before 3.11.4 (a worker's system Python)
            tar.extractall(folder, members=members)
    except tarfile.TarError as refused:  # the "data" filter's refusals
        raise BotMismatch(f"the bundle does not unpack safely: {refused}") from None
    outside = link_leading_outside(folder)
    if outside is not None:
        raise BotMismatch(f"the bundle's link {str(outside)!r} leads outside it")


def link_leading_outside(folder: Path) -> Path | None:
    """A symbolic link under `folder` that resolves, on the disk, outside it (its path relative
    to `folder`), or None: for a bundle here, and for an upload's build (`league.unpack`)."""
    top = os.path.realpath(folder)
    for parent, folders, files in os.walk(folder):
        for name in (*folders, *files):
            path = os.path.join(parent, name)
            if os.path.islink(path):
                real = os.path.realpath(path)
                if real != top and not real.startswith(top + os.sep):
                    return Path(os.path.relpath(path, folder))
    return None


def _size(folder: Path) -> int:
    return sum(path.lstat().st_size for path in folder.rglob("*"))


def _within(path: str, files: tuple[str, ...]) -> tuple[int, str] | None:
    """(index of the file `path` is or is inside, the rest of `path` below it), or None."""
    for index, top in enumerate(files):
        if path == top:
            return index, ""
        if path.startswith(top.rstrip("/") + "/"):
            return index, path[len(top.rstrip("/")) :]
    return None


def _moved(seat: Seat, folder: Path) -> Seat:
    """`seat` run from its files unpacked in `folder` (see `pack`)."""
    spec = seat.spec
    if spec.folder is not None:
        return msgspec.structs.replace(seat, spec=msgspec.structs.replace(spec, folder=str(folder)))

    carried = _carried(spec)

    def moved(path: str) -> str:
        found = _within(path, carried)
        if found is None:
            return path  # not one of its files that travel: an interpreter, an option
        index, rest = found
        return f"{folder}/{index}/{os.path.basename(carried[index].rstrip('/'))}{rest}"

    relocated = BotSpec(
        name=spec.name,
        command=[moved(word) for word in spec.command],
        resources=spec.resources,
        files=tuple(moved(path) for path in spec.files),
        cwd=None if spec.cwd is None else moved(spec.cwd),
        name_given=spec.name_given,
    )
    return msgspec.structs.replace(seat, spec=relocated)
