"""Unpacking an uploaded bot into an empty folder, where every byte of the upload is hostile.

An upload is a `.zip`, a `.tar.gz` (`.tgz`) or a single file (a script or an executable).
An archive is read twice: first its whole table of entries is checked — names (relative, no
`..`, no NUL, backslash or non-printable character), kinds (regular files and folders only:
no links, devices or FIFOs), duplicates, the number of entries and their declared total size —
so that most refusals come before anything is written; then the files are copied in chunks,
counting the bytes actually written, because declared sizes lie: the copy stops at the caps.
Nothing is ever held whole in memory, and on a refusal the folder is left empty.

A build's output (`unpack_built`: its folder packed as a plain tar by `referee.build`) is
unpacked by the same rules, but for symbolic links, which a build may make (`libx.so ->
libx.so.1`): one whose target stays inside the folder is kept, any other is refused, naming it.

A `bot.toml` at the top (or inside a single top-level folder, which is then stripped) says how
to run the bot (`manifest`); a single file is run by its kind (`single_file_command`).
The standard library reads the formats; where it would trust a hostile header with memory
(zipfile's table of contents, tarfile's pax and GNU long-name headers) the bytes it may read
are bounded first.
"""

from __future__ import annotations

import contextlib
import gzip
import io
import os
import re
import shlex
import shutil
import stat
import tarfile
import tomllib
import zipfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO, Annotated, Any, NoReturn, Protocol

import msgspec

from protocol.errors import RequestError
from referee import printable
from tournaments.executors.bundles import link_leading_outside

MIB = 1024 * 1024
_CHUNK = 64 * 1024
"""Bytes copied at a time: memory stays flat whatever an entry's size."""
MANIFEST = "bot.toml"
MANIFEST_BYTES = 64 * 1024
_MAX_NAME_BYTES = 255
"""A part of a path (the file systems' limit: longer ones would fail while writing)."""
_MAX_PATH_BYTES = 1024
_TAR_HEADER_BYTES = 64 * 1024
"""What tarfile may read for one entry's headers (pax records, a GNU long name): it reads each
whole into memory, at the size the header declares."""
_ZIP_DIRECTORY_ENTRY_BYTES = 2048
"""Room per entry in a zip's table of contents: 46 bytes, a name, extra fields."""
_ELF = b"\x7fELF"
_PLAIN_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._+-]{0,99}")
"""A single uploaded file's name: it becomes a word of the bot's command."""
_MACOS_FORKS = "__MACOSX"
"""The folder of resource forks macOS Finder adds to a zip: never part of a bot, left out."""

_DAMAGE: tuple[type[Exception], ...] = (
    zipfile.BadZipFile,
    tarfile.TarError,
    EOFError,  # a compressed stream cut short
    zlib.error,  # a corrupt deflate stream
    OSError,  # gzip.BadGzipFile; the archive is read from memory, never from a disk
    RuntimeError,  # NotImplementedError (a zip feature zipfile lacks), encryption, recursion
    ValueError,  # UnicodeDecodeError: a zip name flagged UTF-8 that is not
)
"""What zipfile, tarfile and gzip raise on a damaged or crafted archive."""


class UploadLimits(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """Caps on one upload (MB are MiB): what is sent, what it unpacks to, how many entries."""

    archive_mb: Annotated[int, msgspec.Meta(ge=1)] = 20
    unpacked_mb: Annotated[int, msgspec.Meta(ge=1)] = 100
    files: Annotated[int, msgspec.Meta(ge=1)] = 2000


class Refused(RequestError):
    """An upload that is not accepted: the reason in the author's terms (which entry, what
    rule), made one printable line, since entry names are the uploader's bytes."""

    def __init__(self, message: str) -> None:
        super().__init__(printable(message))


class Manifest(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """`bot.toml`: how to run the bot (a command line, run in the bot's folder) and, if it
    needs one, how to build it first."""

    command: Annotated[str, msgspec.Meta(min_length=1)]
    build: Annotated[str, msgspec.Meta(min_length=1)] | None = None


class _Source(Protocol):
    """An entry's bytes as the archive library gives them."""

    def read(self, size: int, /) -> bytes: ...


class _Raw(Protocol):
    """A tar stream's bytes: a gzip stream or a file."""

    def read(self, size: int = -1, /) -> bytes: ...
    def seek(self, position: int, whence: int = 0, /) -> int: ...
    def tell(self) -> int: ...
    def close(self) -> None: ...


@dataclass(frozen=True)
class _Entry:
    """One checked entry of an archive: its path as parts, its name as written (for messages),
    and how to read it (files only)."""

    parts: tuple[str, ...]
    name: str
    is_dir: bool
    size: int = 0
    executable: bool = False
    open: Callable[[], IO[bytes] | None] | None = None
    link: str | None = None
    """A symbolic link's target (a build's output only), checked to stay inside the folder."""


def unpack(data: bytes, filename: str, into: Path, limits: UploadLimits) -> list[str]:
    """Unpack the upload `data`, named `filename` by the uploader (`.zip`, `.tar.gz`, `.tgz` or
    a single file), into the empty folder `into`; the files written (relative POSIX paths, in
    the archive's order; folders are implied) — or `Refused`, leaving `into` empty.

    A single file keeps its base name, which must be a plain name, and is made executable when
    it is one (an ELF file or a `#!` script); archived files are executable when the archive
    says so (0o755, else 0o644), folders are 0o755.
    """
    if not into.is_dir() or any(into.iterdir()):
        raise ValueError(f"{into} must be an existing empty folder")
    if len(data) > limits.archive_mb * MIB:
        raise Refused(f"the upload is over the {limits.archive_mb} MB limit")
    name = filename.rsplit("/", 1)[-1]
    kind = name.lower()
    writer = _Writer(into, limits)
    try:
        if kind.endswith(".zip"):
            _unpack_zip(data, writer)
        elif kind.endswith((".tar.gz", ".tgz")):
            _unpack_tar(gzip.GzipFile(fileobj=io.BytesIO(data), mode="rb"), writer, links=False)
        else:
            _write_single(data, name, writer)
    except BaseException:
        _empty(into)
        raise
    return writer.files


def unpack_built(packed: Path, into: Path, limits: UploadLimits) -> list[str]:
    """Unpack a build's output `packed` (a plain tar of the built folder) into the empty folder
    `into` by the upload rules, links inside the folder kept; the files written — or `Refused`,
    leaving `into` empty."""
    if not into.is_dir() or any(into.iterdir()):
        raise ValueError(f"{into} must be an existing empty folder")
    writer = _Writer(into, limits)
    try:
        with packed.open("rb") as raw:
            _unpack_tar(raw, writer, links=True)
        _check_links(into)
    except BaseException:
        _empty(into)
        raise
    return writer.files


def _check_links(into: Path) -> None:
    """Refuse a link that resolves outside `into` on the disk (one link leading through
    another can climb out although each reads as inside)."""
    outside = link_leading_outside(into)
    if outside is not None:
        raise Refused(
            f"{_shown(str(outside))}: a symbolic link that leads outside the bot's folder "
            "(links may lead only to files of the bot's own)"
        )


def manifest(root: Path) -> Manifest:
    """The `bot.toml` at the top of the unpacked bot `root`, or `Refused` saying what is wrong
    with it (missing, too large, not TOML, an unknown key, a wrong value)."""
    path = root / MANIFEST
    if path.is_symlink() or not path.is_file():
        raise Refused(
            f"no {MANIFEST} at the top of the archive (or in its single top-level folder): "
            f'it says how to run the bot, e.g. command = "python3 bot.py"'
        )
    with path.open("rb") as file:
        raw = file.read(MANIFEST_BYTES + 1)
    if len(raw) > MANIFEST_BYTES:
        raise Refused(f"{MANIFEST} is over {MANIFEST_BYTES // 1024} KiB")
    try:
        table = tomllib.loads(raw.decode())
    except UnicodeDecodeError:
        raise Refused(f"{MANIFEST} is not UTF-8 text") from None
    except tomllib.TOMLDecodeError as error:
        raise Refused(f"{MANIFEST} is not valid TOML: {error}") from None
    except RecursionError:
        raise Refused(f"{MANIFEST} is not valid TOML: nested too deeply") from None
    allowed = Manifest.__struct_fields__
    unknown = [key for key in table if key not in allowed]
    if unknown:
        raise Refused(
            f"{MANIFEST}: unknown key {', '.join(map(repr, unknown))} "
            f"(the keys are: {', '.join(allowed)})"
        )
    try:
        return msgspec.convert(table, Manifest)
    except msgspec.ValidationError as error:
        raise Refused(f"{MANIFEST}: {error}") from None


def single_file_command(file: Path) -> str:
    """The command running a bot uploaded as the single file `file` (in the bot's folder), by
    its kind: a Python, JavaScript or Java program, or an executable (ELF, or a `#!` script,
    which `unpack` made executable); anything else is `Refused`, listing the accepted kinds."""
    name = shlex.quote(file.name)
    suffix = file.suffix.lower()
    if suffix == ".py":
        return f"python3 {name}"
    if suffix == ".js":
        return f"node {name}"
    if suffix == ".jar":
        return f"java -jar {name}"
    with file.open("rb") as opened:
        head = opened.read(len(_ELF))
    if head.startswith((_ELF, b"#!")):
        return f"./{name}"
    raise Refused(
        f"{file.name}: a single file must be a Python script (.py), a JavaScript file (.js), a "
        "Java archive (.jar), a Linux executable (ELF) or a script starting with #!; "
        f"upload anything else as a .zip or .tar.gz with a {MANIFEST}"
    )


class _Writer:
    """Writes checked entries under `into`, counting the bytes actually written: a copy stops,
    before writing past it, at the entry's declared size and at the upload's unpacked cap."""

    def __init__(self, into: Path, limits: UploadLimits) -> None:
        self.into = into
        self.limits = limits
        self.left = limits.unpacked_mb * MIB
        self.files: list[str] = []
        self._folders: set[tuple[str, ...]] = set()

    def folder(self, parts: tuple[str, ...]) -> None:
        for depth in range(1, len(parts) + 1):
            if parts[:depth] not in self._folders:
                path = self.into.joinpath(*parts[:depth])
                os.mkdir(path, 0o755)
                os.chmod(path, 0o755)  # whatever the umask
                self._folders.add(parts[:depth])

    def file(self, entry: _Entry) -> None:
        self.folder(entry.parts[:-1])
        path = self.into.joinpath(*entry.parts)
        if entry.link is not None:
            os.symlink(entry.link, path)
            self.files.append("/".join(entry.parts))
            return
        assert entry.open is not None
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        with open(os.open(path, flags, 0o600), "wb") as out:
            self.files.append("/".join(entry.parts))
            try:
                source = entry.open()
            except _DAMAGE as error:
                raise Refused(f"{_shown(entry.name)}: damaged ({error})") from None
            if source is not None:
                with source:
                    self.copy(source, out, entry)
            os.fchmod(out.fileno(), 0o755 if entry.executable else 0o644)

    def copy(self, source: _Source, out: IO[bytes], entry: _Entry) -> None:
        written = 0
        while True:
            try:
                chunk = source.read(_CHUNK)
            except _DAMAGE as error:
                raise Refused(f"{_shown(entry.name)}: damaged ({error})") from None
            if not chunk:
                break
            written += len(chunk)
            if written > entry.size:
                raise Refused(
                    f"{_shown(entry.name)}: holds more bytes than its header says ({entry.size})"
                )
            if len(chunk) > self.left:
                raise Refused(_too_large(self.limits.unpacked_mb))
            self.left -= len(chunk)
            out.write(chunk)
        if written < entry.size:
            raise Refused(
                f"{_shown(entry.name)}: holds fewer bytes than its header says ({entry.size})"
            )


def _write_single(data: bytes, name: str, writer: _Writer) -> None:
    if not _PLAIN_NAME.fullmatch(name):
        raise Refused(
            f"the file name '{name}' is not a plain name: letters, digits, '.', '_', '+', '-' "
            "(not first: '.', '+', '-'), at most 100 characters"
        )
    stream = io.BytesIO(data)
    executable = data.startswith((_ELF, b"#!"))
    writer.file(_Entry((name,), name, False, len(data), executable, lambda: stream))


def _unpack_zip(data: bytes, writer: _Writer) -> None:
    limits_files = writer.limits.files
    _check_zip_directory(data, limits_files)
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except _DAMAGE as error:
        raise Refused(f"not a readable zip archive ({error})") from None
    with archive:
        infos = archive.infolist()
        if len(infos) > limits_files:
            raise Refused(_too_many(limits_files))
        entries = [entry for info in infos if (entry := _zip_entry(archive, info)) is not None]
        _write_all(_plan(entries, writer), writer)


def _check_zip_directory(data: bytes, files: int) -> None:
    """Refuse a zip whose table of contents is too large for `files` entries before zipfile
    reads it: it builds an object of ~500 bytes per entry, so 20 MB listing 400,000 empty
    entries would take 200 MB of memory before their number could be refused. Uses zipfile's
    own (private) reader of the end record, so that both see the same table; if a Python lacks
    it, the count is checked after zipfile read the table."""
    end_record: Callable[[IO[bytes]], list[Any] | None] | None
    end_record = getattr(zipfile, "_EndRecData", None)
    if end_record is None:
        return
    try:
        record = end_record(io.BytesIO(data))
    except _DAMAGE:
        return  # zipfile will say so
    if record and record[5] > files * _ZIP_DIRECTORY_ENTRY_BYTES:  # 5: _ECD_SIZE
        raise Refused(
            f"the zip's table of contents ({record[5]} bytes) is too large for "
            f"{files} files (the limit)"
        )


def _zip_entry(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> _Entry | None:
    """`info` checked (None: the top folder itself), from its name as stored (`orig_filename`:
    zipfile cuts `filename` at a NUL) and its Unix mode (the high 16 bits of `external_attr`)."""
    name = info.orig_filename
    mode = info.external_attr >> 16
    kind = stat.S_IFMT(mode)
    if kind not in (0, stat.S_IFREG, stat.S_IFDIR):
        special = {
            stat.S_IFLNK: "symbolic link",
            stat.S_IFIFO: "FIFO (named pipe)",
            stat.S_IFCHR: "device",
            stat.S_IFBLK: "device",
            stat.S_IFSOCK: "socket",
        }
        _refuse_kind(name, special.get(kind, f"special file (Unix mode {mode:o})"))
    is_dir = name.endswith("/") or kind == stat.S_IFDIR
    parts = _path_parts(name, is_dir)
    if parts is None:
        return None
    if is_dir:
        return _Entry(parts, name, True)
    if info.flag_bits & 0x1:
        raise Refused(f"{_shown(name)}: encrypted (upload it without a password)")
    if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
        # bzip2 and LZMA: zipfile inflates their chunks without a bound on the output.
        raise Refused(
            f"{_shown(name)}: compressed with method {info.compress_type}; "
            "use deflate (the usual) or none"
        )
    opener = archive.open
    return _Entry(parts, name, False, info.file_size, bool(mode & 0o111), lambda: opener(info, "r"))


class _TarStream:
    """A tar stream (inflated from a .tar.gz, or a build's plain tar), as tarfile reads it,
    within bounds: its length (the unpacked cap plus room for headers) and, while
    `header_left` is set, the bytes tarfile may read for one entry's headers — it reads a pax
    or GNU long-name header whole, at any size the header declares (1 GB of zeros is a 1 MB
    upload)."""

    def __init__(self, raw: _Raw, limits: UploadLimits) -> None:
        self._gzip = raw
        self._cap_mb = limits.unpacked_mb
        self._length = limits.unpacked_mb * MIB + (limits.files + 2) * (_TAR_HEADER_BYTES + 512)
        self.header_left: int | None = _TAR_HEADER_BYTES

    def read(self, size: int = -1, /) -> bytes:
        if self.header_left is not None:
            if not 0 <= size <= self.header_left:
                raise Refused(
                    f"an entry's tar headers (pax or GNU long name) are over "
                    f"{_TAR_HEADER_BYTES // 1024} KiB"
                )
            self.header_left -= size
        if size < 0 or self._gzip.tell() + size > self._length:
            raise Refused(_too_large(self._cap_mb))
        return self._gzip.read(size)

    def seek(self, position: int, whence: int = io.SEEK_SET, /) -> int:
        if whence != io.SEEK_SET or position > self._length:
            raise Refused(_too_large(self._cap_mb))
        return self._gzip.seek(position)

    def tell(self) -> int:
        return self._gzip.tell()

    def seekable(self) -> bool:
        return True

    def readable(self) -> bool:
        return True

    def write(self, data: bytes, /) -> int:
        raise io.UnsupportedOperation("read only")

    def close(self) -> None:
        self._gzip.close()


def _unpack_tar(raw: _Raw, writer: _Writer, links: bool) -> None:
    limits = writer.limits
    stream = _TarStream(raw, limits)
    with contextlib.closing(stream), _open_tar(stream) as archive:
        entries: list[_Entry] = []
        count = declared = 0
        while True:
            stream.header_left = _TAR_HEADER_BYTES
            try:
                member = archive.next()
            except _DAMAGE as error:
                raise Refused(f"not a readable .tar.gz archive ({error})") from None
            if member is None:
                break
            count += 1
            if count > limits.files:
                raise Refused(_too_many(limits.files))
            entry = _tar_entry(archive, member, links)
            if entry is not None:
                # Checked before the next header, which tarfile finds by skipping this data.
                declared += entry.size
                if declared > limits.unpacked_mb * MIB:
                    raise Refused(_too_large(limits.unpacked_mb))
                entries.append(entry)
        stream.header_left = None
        _write_all(_plan(entries, writer), writer)


def _open_tar(stream: _TarStream) -> tarfile.TarFile:
    """The tar archive in `stream`, its entries read one by one by the caller (`next`)."""
    try:
        return tarfile.open(fileobj=stream, mode="r:")
    except _DAMAGE as error:
        raise Refused(f"not a readable .tar.gz archive ({error})") from None


def _tar_entry(archive: tarfile.TarFile, member: tarfile.TarInfo, links: bool) -> _Entry | None:
    """`member` checked (None: the top folder itself, `.`); a symbolic link only with `links`,
    and only one that leads to a path inside the folder."""
    name = member.name
    if member.issym() and links:
        parts = _path_parts(name, False)
        if parts is None:
            raise Refused(f"{_shown(name)}: a link without a name")
        if not _stays_inside(parts, member.linkname):
            raise Refused(
                f"{_shown('/'.join(parts))}: a symbolic link to "
                f"'{printable(member.linkname)}', outside the bot's folder (links may lead only "
                "to files of the bot's own)"
            )
        return _Entry(parts, name, False, link=member.linkname)
    if member.issym():
        _refuse_kind(name, f"symbolic link (to '{member.linkname}')")
    if member.islnk():
        _refuse_kind(name, f"hard link (to '{member.linkname}')")
    if member.ischr() or member.isblk():
        _refuse_kind(name, "device")
    if member.isfifo():
        _refuse_kind(name, "FIFO (named pipe)")
    if member.issparse():
        _refuse_kind(name, "sparse file")
    if not (member.isreg() or member.isdir()):
        _refuse_kind(name, f"special entry (tar type {member.type!r})")
    if member.size < 0:
        raise Refused(f"{_shown(name)}: a negative size in its header")
    parts = _path_parts(name, member.isdir())
    if parts is None:
        return None
    if member.isdir():
        return _Entry(parts, name, True)
    opener = archive.extractfile
    return _Entry(
        parts, name, False, member.size, bool(member.mode & 0o111), lambda: opener(member)
    )


def _stays_inside(parts: tuple[str, ...], target: str) -> bool:
    """Whether a link at `parts` to `target` leads to a path inside the folder (relative, and
    never above the top however its `..` fall)."""
    if not target or target.startswith("/") or "\0" in target:
        return False
    depth = len(parts) - 1  # the link's folder, below the top
    for part in target.split("/"):
        if part == "..":
            depth -= 1
            if depth < 0:
                return False
        elif part not in ("", "."):
            depth += 1
    return True


def _path_parts(name: str, is_dir: bool) -> tuple[str, ...] | None:
    """The parts of the entry name `name`, checked; `.` and empty parts dropped (`./a//b` is
    `a/b`); None for the top folder itself (`./`, a folder only)."""
    if not name:
        raise Refused("an entry with an empty name")
    if "\0" in name:
        raise Refused(f"{_shown(name)}: a NUL character in the name")
    if "\\" in name:
        raise Refused(f"{_shown(name)}: a backslash in the name (use / between folders)")
    if not name.isprintable():
        raise Refused(f"{_shown(name)}: a control or non-printable character in the name")
    if name.startswith("/"):
        raise Refused(f"{_shown(name)}: an absolute path (names must be relative)")
    parts = tuple(part for part in name.split("/") if part not in ("", "."))
    if ".." in parts:
        raise Refused(f"{_shown(name)}: '..' in the path would lead outside the bot's folder")
    if len(name.encode()) > _MAX_PATH_BYTES:
        raise Refused(f"{_shown(name)}: the path is over {_MAX_PATH_BYTES} bytes")
    if any(len(part.encode()) > _MAX_NAME_BYTES for part in parts):
        raise Refused(f"{_shown(name)}: a part of the path is over {_MAX_NAME_BYTES} bytes")
    if not parts:
        if is_dir:
            return None
        raise Refused(f"{_shown(name)}: a file without a name")
    return parts


def _plan(entries: list[_Entry], writer: _Writer) -> list[_Entry]:
    """The entries to write: each path once, none both a file and a folder; macOS's forks left
    out; a single top-level folder holding the `bot.toml` stripped."""
    seen: set[tuple[str, ...]] = set()
    for entry in entries:
        if entry.parts in seen:
            raise Refused(f"{_shown(entry.name)}: appears twice in the archive")
        seen.add(entry.parts)
    folders = {entry.parts[:depth] for entry in entries for depth in range(1, len(entry.parts))}
    for entry in entries:
        if not entry.is_dir and entry.parts in folders:
            raise Refused(f"{_shown(entry.name)}: both a file and a folder")
    if sum(entry.size for entry in entries) > writer.limits.unpacked_mb * MIB:
        raise Refused(_too_large(writer.limits.unpacked_mb))
    kept = [entry for entry in entries if entry.parts[0] != _MACOS_FORKS]
    tops = {entry.parts[0] for entry in kept}
    files = {entry.parts for entry in kept if not entry.is_dir}
    if (MANIFEST,) not in files and len(tops) == 1 and (tops.pop(), MANIFEST) in files:
        return [replace(entry, parts=entry.parts[1:]) for entry in kept if len(entry.parts) > 1]
    return kept


def _write_all(entries: list[_Entry], writer: _Writer) -> None:
    for entry in entries:
        if entry.is_dir:
            writer.folder(entry.parts)
        else:
            writer.file(entry)


def _empty(folder: Path) -> None:
    """Remove everything in `folder` (what `unpack` wrote: files and folders, never links)."""
    for child in folder.iterdir():
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child)
        else:
            child.unlink()


def _refuse_kind(name: str, kind: str) -> NoReturn:
    raise Refused(f"{_shown(name)}: a {kind}; only files and folders are accepted")


def _shown(name: str) -> str:
    """An entry's name for a message, cut to a readable length."""
    return f"entry '{name if len(name) <= 100 else name[:97] + '...'}'"


def _too_many(files: int) -> str:
    return f"the archive holds more than {files} entries (the limit)"


def _too_large(cap_mb: int) -> str:
    return f"the archive unpacks to more than {cap_mb} MB (the limit)"
