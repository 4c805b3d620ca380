"""An uploaded bot unpacked safely (`tournaments.league.unpack`): each accepted form, and each
attack refused with its reason, before anything is written where the archive's table allows it,
leaving the target folder empty, within the caps on disk and in memory. The archives are real,
built here with zipfile and tarfile (or by hand where those libraries refuse to write the lie)."""

from __future__ import annotations

import functools
import gzip
import io
import os
import stat
import struct
import tarfile
import tempfile
import tracemalloc
import warnings
import zipfile
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tournaments.league.unpack import (
    MIB,
    Manifest,
    Refused,
    UploadLimits,
    _Entry,
    _Writer,
    manifest,
    single_file_command,
    unpack,
)

GIB = 1 << 30
DEFAULT = UploadLimits()
TOML = b'command = "python3 bot.py"\n'


# --- building archives -------------------------------------------------------------------------


def zip_file(*entries: tuple[str | zipfile.ZipInfo, bytes]) -> bytes:
    """A zip of `entries` (a name or a ZipInfo, the bytes), deflated."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive, warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Duplicate name")  # written as asked
        for name, data in entries:
            archive.writestr(name, data)
    return buffer.getvalue()


def zip_info(name: str, mode: int) -> zipfile.ZipInfo:
    """A zip entry carrying the Unix `mode` (type and permissions), as Info-ZIP stores it."""
    info = zipfile.ZipInfo(name)
    info.external_attr = mode << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    return info


def member(
    name: str, data: bytes = b"", kind: bytes = tarfile.REGTYPE, mode: int = 0o644, link: str = ""
) -> tuple[tarfile.TarInfo, bytes]:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.mode = mode
    info.linkname = link
    info.size = len(data) if kind == tarfile.REGTYPE else 0
    return info, data


def tar_file(*members: tuple[tarfile.TarInfo, bytes], fmt: int = tarfile.PAX_FORMAT) -> bytes:
    """An uncompressed tar of `members`."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=fmt) as archive:
        for info, data in members:
            archive.addfile(info, io.BytesIO(data) if info.isreg() else None)
    return buffer.getvalue()


def tar_gz(*members: tuple[tarfile.TarInfo, bytes]) -> bytes:
    return gzip.compress(tar_file(*members), mtime=0)


@functools.cache
def crc_of_zeros(mib: int, start: int = 0) -> int:
    crc, block = start, bytes(MIB)
    for _ in range(mib):
        crc = zlib.crc32(block, crc)
    return crc


def deflated(head: bytes, zero_mib: int, tail: bytes) -> bytes:
    """A raw deflate stream of `head`, `zero_mib` MiB of zeros and `tail`, in a moment: after a
    full flush the compressor starts afresh, so every MiB of zeros compresses to the same
    bytes, compressed once and repeated (1 GiB of zeros is about 1 MB)."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    start = compressor.compress(head) + compressor.flush(zlib.Z_FULL_FLUSH)
    block = compressor.compress(bytes(MIB)) + compressor.flush(zlib.Z_FULL_FLUSH)
    return start + block * zero_mib + compressor.compress(tail) + compressor.flush()


def gzip_bomb(head: bytes, zero_mib: int, tail: bytes) -> bytes:
    """A valid gzip file of `head`, `zero_mib` MiB of zeros and `tail`."""
    crc = zlib.crc32(tail, crc_of_zeros(zero_mib, zlib.crc32(head)))
    size = (len(head) + zero_mib * MIB + len(tail)) & 0xFFFFFFFF
    header = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff"
    return header + deflated(head, zero_mib, tail) + struct.pack("<II", crc, size)


LOCAL = "<IHHHHHIIIHH"  # a zip's local file header (30 bytes), then the name
CENTRAL = "<IHHHHHHIIIHHHHHII"  # its entry in the table of contents (46 bytes), then the name
END = "<IHHHHIIH"  # the end record (22 bytes)


def zip_by_hand(name: bytes, stream: bytes, size: int, crc: int, method: int = 8) -> bytes:
    """A zip of one entry whose headers say what we like: `size` and `crc` are not checked
    against `stream` (zipfile would write the truth)."""
    local = struct.pack(
        LOCAL, 0x04034B50, 20, 0, method, 0, 0x21, crc, len(stream), size, len(name), 0
    )
    central = struct.pack(
        CENTRAL, 0x02014B50, 0x0314, 20, 0, method, 0, 0x21, crc, len(stream), size,
        len(name), 0, 0, 0, 0, 0o100644 << 16, 0,
    )  # fmt: skip
    directory = central + name
    end = struct.pack(
        END, 0x06054B50, 0, 0, 1, 1, len(directory), len(local) + len(name) + len(stream), 0
    )
    return local + name + stream + directory + end


def zip_bomb(declared: int) -> bytes:
    """1 GiB of zeros in a 1 MB zip, its headers declaring `declared` bytes."""
    return zip_by_hand(b"zeros.bin", deflated(b"", 1024, b""), declared, crc_of_zeros(1024))


# --- checking outcomes -------------------------------------------------------------------------


def files_in(folder: Path) -> dict[str, bytes]:
    """Every file under `folder` and its bytes; no symbolic link anywhere."""
    found = {}
    for path in sorted(folder.rglob("*")):
        assert not path.is_symlink(), path
        if path.is_file():
            found[path.relative_to(folder).as_posix()] = path.read_bytes()
    return found


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def refused(data: bytes, filename: str, into: Path, limits: UploadLimits = DEFAULT) -> str:
    """The reason `data` is refused, checking that it is one printable line and that `into`
    is left empty."""
    with pytest.raises(Refused) as refusal:
        unpack(data, filename, into, limits)
    assert list(into.iterdir()) == []
    message = str(refusal.value)
    assert message.isprintable(), message
    return message


def peak_memory(run: Callable[[], object]) -> int:
    """The most memory Python allocated while `run` ran, in bytes."""
    tracemalloc.start()
    try:
        run()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.fixture
def into(tmp_path: Path) -> Path:
    """An empty folder two levels down, so that `../x` and `../../x` would still land in
    `tmp_path`, where the tests look for them."""
    folder = tmp_path / "uploads" / "into"
    folder.mkdir(parents=True)
    return folder


@pytest.fixture
def nothing_written(monkeypatch: pytest.MonkeyPatch) -> None:
    """Writing anything fails the test: for refusals that come from the archive's table."""

    def wrote(*args: object) -> None:
        raise AssertionError(f"wrote before refusing: {args[1:]}")

    monkeypatch.setattr(_Writer, "file", wrote)
    monkeypatch.setattr(_Writer, "folder", wrote)


@pytest.fixture
def umask() -> Iterator[None]:
    """A strict umask: the modes written must not depend on it."""
    old = os.umask(0o077)
    yield
    os.umask(old)


# --- accepted forms ----------------------------------------------------------------------------


@pytest.mark.usefixtures("umask")
def test_a_zip_is_unpacked_with_the_modes_it_gives(into: Path) -> None:
    data = zip_file(
        ("bot.toml", TOML),
        (zip_info("bot.py", 0o100644), b"print('hi')\n"),
        (zip_info("run.sh", 0o100755), b"#!/bin/sh\n"),
        ("lib/", b""),
        ("lib/util.py", b"X = 1\n"),
        ("./data//weights.bin", b"\0\1\2"),  # `.` and empty parts dropped
    )
    written = unpack(data, "bot.zip", into, DEFAULT)
    paths = ["bot.toml", "bot.py", "run.sh", "lib/util.py", "data/weights.bin"]
    assert written == paths
    assert files_in(into) == {
        "bot.toml": TOML,
        "bot.py": b"print('hi')\n",
        "run.sh": b"#!/bin/sh\n",
        "lib/util.py": b"X = 1\n",
        "data/weights.bin": b"\0\1\2",
    }
    assert [mode(into / path) for path in paths] == [0o644, 0o644, 0o755, 0o644, 0o644]
    assert mode(into / "lib") == mode(into / "data") == 0o755
    assert manifest(into) == Manifest(command="python3 bot.py")


@pytest.mark.usefixtures("umask")
@pytest.mark.parametrize("filename", ["bot.tar.gz", "BOT.TGZ"])
def test_a_tar_gz_is_unpacked_with_the_modes_it_gives(into: Path, filename: str) -> None:
    data = tar_gz(
        member(".", kind=tarfile.DIRTYPE, mode=0o700),  # what `tar czf bot.tgz .` writes
        member("./bot.toml", b'command = "./bot"\nbuild = "make"\n'),
        member("./bot", b"\x7fELF...", mode=0o750),
        member("./src", kind=tarfile.DIRTYPE, mode=0o700),
        member("./src/main.c", b"int main() {}\n", mode=0o600),
        member("./empty", kind=tarfile.DIRTYPE),
    )
    assert unpack(data, filename, into, DEFAULT) == ["bot.toml", "bot", "src/main.c"]
    assert files_in(into) == {
        "bot.toml": b'command = "./bot"\nbuild = "make"\n',
        "bot": b"\x7fELF...",
        "src/main.c": b"int main() {}\n",
    }
    assert (mode(into / "bot"), mode(into / "src/main.c")) == (0o755, 0o644)
    assert mode(into / "src") == mode(into / "empty") == 0o755
    assert manifest(into) == Manifest(command="./bot", build="make")


@pytest.mark.parametrize(
    ("name", "data", "file_mode", "command"),
    [
        ("bot.py", b"print('hi')\n", 0o644, "python3 bot.py"),
        ("bot.js", b"console.log(1)\n", 0o644, "node bot.js"),
        ("Bot.jar", b"PK\3\4...", 0o644, "java -jar Bot.jar"),
        ("mybot", b"\x7fELF\2\1\1" + bytes(100), 0o755, "./mybot"),
        ("run", b"#!/usr/bin/env ruby\nputs 1\n", 0o755, "./run"),
    ],
)
@pytest.mark.usefixtures("umask")
def test_a_single_file_is_written_and_run_by_its_kind(
    into: Path, name: str, data: bytes, file_mode: int, command: str
) -> None:
    # A browser may send a path: only the base name counts.
    assert unpack(data, f"some/where/{name}", into, DEFAULT) == [name]
    assert files_in(into) == {name: data}
    assert mode(into / name) == file_mode
    assert single_file_command(into / name) == command


def test_a_single_file_of_another_kind_is_refused_with_the_kinds_accepted(into: Path) -> None:
    assert unpack(b"just some notes\n", "notes.txt", into, DEFAULT) == ["notes.txt"]
    with pytest.raises(Refused) as refusal:
        single_file_command(into / "notes.txt")
    assert str(refusal.value) == (
        "notes.txt: a single file must be a Python script (.py), a JavaScript file (.js), a Java "
        "archive (.jar), a Linux executable (ELF) or a script starting with #!; upload anything "
        "else as a .zip or .tar.gz with a bot.toml"
    )


@pytest.mark.parametrize(
    "name", ["-rf.py", ".hidden", "a b.py", "bot;rm.py", "bot\n.py", "x" * 101]
)
def test_a_single_file_needs_a_plain_name(into: Path, name: str) -> None:
    message = refused(b"print(1)\n", name, into)
    assert "is not a plain name" in message


@pytest.mark.parametrize("kind", ["zip", "tar"])
def test_a_single_top_level_folder_holding_bot_toml_is_stripped(into: Path, kind: str) -> None:
    if kind == "zip":
        data = zip_file(
            ("mybot/", b""),
            ("mybot/bot.toml", TOML),
            ("mybot/bot.py", b"print(1)\n"),
            ("__MACOSX/mybot/._bot.py", b"\0\5\26\7"),  # what macOS Finder adds: left out
        )
    else:
        data = tar_gz(
            member("mybot", kind=tarfile.DIRTYPE),
            member("mybot/bot.toml", TOML),
            member("mybot/bot.py", b"print(1)\n"),
        )
    written = unpack(data, f"mybot.{'zip' if kind == 'zip' else 'tar.gz'}", into, DEFAULT)
    assert written == ["bot.toml", "bot.py"]
    assert files_in(into) == {"bot.toml": TOML, "bot.py": b"print(1)\n"}
    assert manifest(into).command == "python3 bot.py"


def test_a_top_level_folder_without_bot_toml_is_kept(into: Path) -> None:
    data = zip_file(("mybot/bot.py", b"print(1)\n"), ("mybot/notes/bot.toml", TOML))
    assert unpack(data, "bot.zip", into, DEFAULT) == ["mybot/bot.py", "mybot/notes/bot.toml"]
    with pytest.raises(Refused, match=r"^no bot\.toml at the top of the archive"):
        manifest(into)


def test_the_target_must_be_an_empty_folder(tmp_path: Path) -> None:
    (tmp_path / "old").write_text("x")
    with pytest.raises(ValueError, match="must be an existing empty folder"):
        unpack(TOML, "bot.py", tmp_path, DEFAULT)
    with pytest.raises(ValueError, match="must be an existing empty folder"):
        unpack(TOML, "bot.py", tmp_path / "missing", DEFAULT)
    assert files_in(tmp_path) == {"old": b"x"}


# --- attacks: names ----------------------------------------------------------------------------


def archive_of(kind: str, *entries: tuple[str, bytes]) -> tuple[bytes, str]:
    """A zip or tar.gz of regular files `entries`, and its upload name."""
    if kind == "zip":
        return zip_file(*entries), "bot.zip"
    return tar_gz(*(member(name, data) for name, data in entries)), "bot.tar.gz"


@pytest.mark.usefixtures("nothing_written")
@pytest.mark.parametrize("kind", ["zip", "tar"])
@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("../x", "entry '../x': '..' in the path would lead outside the bot's folder"),
        ("a/../../x", "entry 'a/../../x': '..' in the path would lead outside the bot's folder"),
        ("/etc/x", "entry '/etc/x': an absolute path (names must be relative)"),
        ("lib\\util.py", "entry 'lib\\util.py': a backslash in the name (use / between folders)"),
    ],
)
def test_a_path_leading_out_is_refused_before_writing(
    into: Path, kind: str, name: str, reason: str
) -> None:
    data, filename = archive_of(kind, ("bot.py", b"print(1)\n"), (name, b"owned\n"))
    assert refused(data, filename, into) == reason
    assert files_in(into.parent.parent) == {}  # nothing landed outside either


@pytest.mark.usefixtures("nothing_written")
def test_a_nul_in_a_zip_name_is_refused(into: Path) -> None:
    # zipfile cuts a name at a NUL, so it cannot write one: the name is patched in.
    data = zip_file(("bot.py", b"1"), ("run.shX.py", b"2")).replace(b"run.shX.py", b"run.sh\0.py")
    assert refused(data, "bot.zip", into) == "entry 'run.sh\\x00.py': a NUL character in the name"


@pytest.mark.usefixtures("nothing_written")
@pytest.mark.parametrize("kind", ["zip", "tar"])
def test_a_non_printable_name_is_refused_in_one_printable_line(into: Path, kind: str) -> None:
    data, filename = archive_of(kind, ("evil\x1b[2J\n\u202e.py", b"1"))
    message = refused(data, filename, into)
    assert message == (
        "entry 'evil\\x1b[2J\\n\\u202e.py': a control or non-printable character in the name"
    )
    assert "\n" not in message and "\x1b" not in message


@pytest.mark.usefixtures("nothing_written")
def test_an_empty_name_is_refused(into: Path) -> None:
    data = zip_by_hand(b"", b"1", 1, zlib.crc32(b"1"), method=0)  # zipfile cannot write it
    assert refused(data, "bot.zip", into) == "an entry with an empty name"
    data = tar_gz(member("bot.py", b"1"), member("", b"2"))
    assert refused(data, "bot.tar.gz", into) == "an entry with an empty name"


@pytest.mark.usefixtures("nothing_written")
@pytest.mark.parametrize("kind", ["zip", "tar"])
@pytest.mark.parametrize(
    ("names", "reason"),
    [
        (["bot.py", "lib/x", "bot.py"], "entry 'bot.py': appears twice in the archive"),
        (["bot.py", "./bot.py"], "entry './bot.py': appears twice in the archive"),
        (["lib", "lib/x.py"], "entry 'lib': both a file and a folder"),
    ],
)
def test_the_same_path_twice_is_refused(
    into: Path, kind: str, names: list[str], reason: str
) -> None:
    data, filename = archive_of(kind, *((name, b"1") for name in names))
    assert refused(data, filename, into) == reason


# --- attacks: kinds of entries -----------------------------------------------------------------


@pytest.mark.usefixtures("nothing_written")
@pytest.mark.parametrize(
    ("entry", "reason"),
    [
        (
            member("passwd", kind=tarfile.SYMTYPE, link="/etc/passwd"),
            "entry 'passwd': a symbolic link (to '/etc/passwd'); only files and folders are "
            "accepted",
        ),
        (
            member("up", kind=tarfile.SYMTYPE, link="../../.."),
            "entry 'up': a symbolic link (to '../../..'); only files and folders are accepted",
        ),
        (
            member("hard", kind=tarfile.LNKTYPE, link="bot.py"),
            "entry 'hard': a hard link (to 'bot.py'); only files and folders are accepted",
        ),
        (
            member("null", kind=tarfile.CHRTYPE),
            "entry 'null': a device; only files and folders are accepted",
        ),
        (
            member("disk", kind=tarfile.BLKTYPE),
            "entry 'disk': a device; only files and folders are accepted",
        ),
        (
            member("pipe", kind=tarfile.FIFOTYPE),
            "entry 'pipe': a FIFO (named pipe); only files and folders are accepted",
        ),
    ],
)
def test_links_and_special_files_in_a_tar_are_refused(
    into: Path, entry: tuple[tarfile.TarInfo, bytes], reason: str
) -> None:
    data = tar_gz(member("bot.py", b"print(1)\n"), entry)
    assert refused(data, "bot.tar.gz", into) == reason


@pytest.mark.usefixtures("nothing_written")
@pytest.mark.parametrize(
    ("unix_mode", "what"),
    [
        (stat.S_IFLNK | 0o777, "a symbolic link"),
        (stat.S_IFIFO | 0o644, "a FIFO (named pipe)"),
        (stat.S_IFCHR | 0o644, "a device"),
    ],
)
def test_links_and_special_files_in_a_zip_are_refused(
    into: Path, unix_mode: int, what: str
) -> None:
    # Info-ZIP stores a link as an entry holding the target, its type in the attributes.
    data = zip_file(("bot.py", b"print(1)\n"), (zip_info("passwd", unix_mode), b"/etc/passwd"))
    reason = f"entry 'passwd': {what}; only files and folders are accepted"
    assert refused(data, "bot.zip", into) == reason


@pytest.mark.usefixtures("nothing_written")
def test_a_zip_compressed_other_than_by_deflate_is_refused(into: Path) -> None:
    # zipfile inflates bzip2 and LZMA chunks without a bound: 4 KiB could become gigabytes.
    info = zip_info("big.bin", 0o100644)
    info.compress_type = zipfile.ZIP_BZIP2
    reason = "entry 'big.bin': compressed with method 12; use deflate (the usual) or none"
    assert refused(zip_file((info, bytes(1000))), "bot.zip", into) == reason


@pytest.mark.usefixtures("nothing_written")
def test_an_encrypted_zip_entry_is_refused(into: Path) -> None:
    data = bytearray(zip_by_hand(b"bot.py", b"1", 1, zlib.crc32(b"1"), method=0))
    data[6] |= 1  # the local header's flags
    data[len(data) - 22 - 46 - 6 + 8] |= 1  # the table's flags
    reason = "entry 'bot.py': encrypted (upload it without a password)"
    assert refused(bytes(data), "bot.zip", into) == reason


# --- attacks: numbers and sizes ----------------------------------------------------------------


@pytest.mark.parametrize("kind", ["zip", "tar"])
def test_too_many_entries_are_refused(
    into: Path, kind: str, nothing_written: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    limits = UploadLimits(files=5)
    entries = [(f"f{index}", b"") for index in range(6)]
    data, filename = archive_of(kind, *entries)
    reason = "the archive holds more than 5 entries (the limit)"
    assert refused(data, filename, into, limits) == reason
    monkeypatch.undo()  # writing allowed again
    data, filename = archive_of(kind, *entries[:5])
    assert unpack(data, filename, into, limits) == [name for name, _ in entries[:5]]


def test_a_zip_listing_too_many_entries_is_refused_before_its_list_is_read(into: Path) -> None:
    # 200,000 entries in 9 MB (all naming one empty local file): zipfile alone would spend
    # about 100 MB of memory on the list before its length could be refused.
    local = struct.pack(LOCAL, 0x04034B50, 20, 0, 0, 0, 0x21, 0, 0, 0, 1, 0) + b"a"
    central = struct.pack(CENTRAL, 0x02014B50, 20, 20, 0, 0, 0, 0x21, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0)
    directory = (central + b"a") * 200_000
    end = struct.pack(END, 0x06054B50, 0, 0, 0xFFFF, 0xFFFF, len(directory), len(local), 0)
    data = local + directory + end
    messages = []
    used = peak_memory(lambda: messages.append(refused(data, "bot.zip", into)))
    assert messages == [
        "the zip's table of contents (9400000 bytes) is too large for 2000 files (the limit)"
    ]
    assert used < 4 * MIB, used


def test_an_upload_over_the_archive_cap_is_refused(into: Path) -> None:
    limits = UploadLimits(archive_mb=1)
    over = refused(bytes(MIB + 1), "bot.zip", into, limits)
    assert over == "the upload is over the 1 MB limit"
    at_cap = refused(bytes(MIB), "bot.zip", into, limits)  # refused for another reason
    assert at_cap.startswith("not a readable zip archive")
    # A single file too: its size is the upload's.
    assert refused(bytes(MIB + 1), "bot.py", into, limits) == over


@pytest.mark.usefixtures("nothing_written")
@pytest.mark.parametrize("kind", ["zip", "tar"])
def test_entries_declaring_more_than_the_unpacked_cap_are_refused(into: Path, kind: str) -> None:
    data, filename = archive_of(kind, *((f"part{index}", bytes(400_000)) for index in range(3)))
    reason = "the archive unpacks to more than 1 MB (the limit)"
    assert refused(data, filename, into, UploadLimits(unpacked_mb=1)) == reason


def test_the_bomb_builder_builds_what_it_says() -> None:
    data = gzip_bomb(b"head", 3, b"tail")
    assert gzip.decompress(data) == b"head" + bytes(3 * MIB) + b"tail"  # the CRC checked too
    bomb = zip_by_hand(b"z", deflated(b"", 3, b""), 3 * MIB, crc_of_zeros(3))
    with zipfile.ZipFile(io.BytesIO(bomb)) as archive:
        assert archive.read("z") == bytes(3 * MIB)


@pytest.mark.usefixtures("nothing_written")
def test_a_zip_bomb_is_refused_before_writing_in_little_memory(into: Path) -> None:
    data = zip_bomb(GIB)  # 1 GiB of zeros, honestly declared
    assert len(data) < 1.1 * MIB
    messages = []
    used = peak_memory(lambda: messages.append(refused(data, "bot.zip", into)))
    assert messages == ["the archive unpacks to more than 100 MB (the limit)"]
    assert used < 4 * MIB, used


@pytest.mark.usefixtures("nothing_written")
def test_a_tar_gz_bomb_is_refused_before_writing_in_little_memory(into: Path) -> None:
    info = tarfile.TarInfo("zeros.bin")
    info.size = GIB
    data = gzip_bomb(info.tobuf(tarfile.GNU_FORMAT), 1024, bytes(1024))
    assert len(data) < 1.1 * MIB
    messages = []
    used = peak_memory(lambda: messages.append(refused(data, "bot.tar.gz", into)))
    assert messages == ["the archive unpacks to more than 100 MB (the limit)"]
    assert used < 4 * MIB, used


@pytest.mark.usefixtures("nothing_written")
@pytest.mark.parametrize("kind", [tarfile.XHDTYPE, tarfile.GNUTYPE_LONGNAME])
def test_a_tar_header_of_a_gigabyte_is_refused_in_little_memory(into: Path, kind: bytes) -> None:
    # tarfile reads a pax or GNU long-name header whole, at the size it declares.
    info = tarfile.TarInfo("././@PaxHeader")
    info.type = kind
    info.size = GIB
    data = gzip_bomb(info.tobuf(tarfile.GNU_FORMAT), 1024, bytes(1024))
    messages = []
    used = peak_memory(lambda: messages.append(refused(data, "bot.tar.gz", into)))
    assert messages == ["an entry's tar headers (pax or GNU long name) are over 64 KiB"]
    assert used < 4 * MIB, used


def test_a_zip_header_lying_about_the_size_is_refused_in_little_memory(into: Path) -> None:
    # 1 GiB of zeros declared as 1,000 bytes: zipfile stops at the declared size and the CRC
    # (of the gigabyte) does not match what was read.
    data = zip_bomb(1000)
    messages = []
    used = peak_memory(lambda: messages.append(refused(data, "bot.zip", into)))
    assert messages == ["entry 'zeros.bin': damaged (Bad CRC-32 for file 'zeros.bin')"]
    assert used < 4 * MIB, used


class Zeros:
    """An entry's bytes that never end, whatever its header said."""

    def read(self, size: int) -> bytes:
        return bytes(size)


@pytest.mark.parametrize(
    ("declared", "reason", "kept"),
    [
        (10, "entry 'zeros': holds more bytes than its header says (10)", 0),
        (10 * GIB, "the archive unpacks to more than 1 MB (the limit)", MIB),
    ],
)
def test_the_copy_stops_at_the_declared_size_and_at_the_cap(
    declared: int, reason: str, kept: int
) -> None:
    # Both libraries stop an entry at its declared size; the copy counts anyway, and stops
    # before writing past either bound.
    writer = _Writer(Path("unused"), UploadLimits(unpacked_mb=1))
    out = io.BytesIO()
    with pytest.raises(Refused) as refusal:
        writer.copy(Zeros(), out, _Entry(("zeros",), "zeros", False, declared))
    assert str(refusal.value) == reason
    assert len(out.getvalue()) == kept


# --- attacks: damaged archives -----------------------------------------------------------------


def truncated(data: bytes) -> bytes:
    return data[: len(data) // 2]


@pytest.mark.parametrize(
    ("data", "filename", "reason"),
    [
        (b"not an archive", "bot.zip", "not a readable zip archive (File is not a zip file)"),
        (b"not an archive", "bot.tar.gz", "not a readable .tar.gz archive (Not a gzipped file"),
        (b"", "bot.tgz", "not a readable .tar.gz archive (empty file)"),
        (
            tar_file(member("bot.py", b"1")),  # not gzipped
            "bot.tar.gz",
            "not a readable .tar.gz archive (Not a gzipped file",
        ),
        (
            gzip.compress(b"plain text, not a tar" * 30, mtime=0),
            "bot.tar.gz",
            "not a readable .tar.gz archive (invalid header)",
        ),
        (
            truncated(zip_file(("bot.py", os.urandom(5000)))),
            "bot.zip",
            "not a readable zip archive (File is not a zip file)",
        ),
        (
            truncated(tar_gz(member("bot.py", os.urandom(5000)))),
            "bot.tar.gz",
            "not a readable .tar.gz archive (Compressed file ended before the end-of-stream",
        ),
    ],
)
def test_an_unreadable_archive_is_refused(
    into: Path, data: bytes, filename: str, reason: str
) -> None:
    assert refused(data, filename, into).startswith(reason)


# --- the manifest ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        (b'command = "python3 bot.py"\nbuild = "make"\n', None),
        (b"command = \n", "bot.toml is not valid TOML: Invalid value (at line 1, column 11)"),
        (b"\xff\xfe", "bot.toml is not UTF-8 text"),
        (
            b'cmd = "python3 bot.py"\nlanguage = "py"\n',
            "bot.toml: unknown key 'cmd', 'language' (the keys are: command, build)",
        ),
        (b"command = 3\n", "bot.toml: Expected `str`, got `int` - at `$.command`"),
        (b'command = ""\n', "bot.toml: Expected `str` of length >= 1 - at `$.command`"),
        (b'build = "make"\n', "bot.toml: Object missing required field `command`"),
        (b"command = " + b"[" * 5000 + b"]" * 5000, "bot.toml is not valid TOML"),
        (b"# " + b"x" * 65_536 + b"\n", "bot.toml is over 64 KiB"),
    ],
)
def test_the_manifest_is_read_or_refused_with_the_reason(
    tmp_path: Path, text: bytes, reason: str | None
) -> None:
    (tmp_path / "bot.toml").write_bytes(text)
    if reason is None:
        assert manifest(tmp_path) == Manifest(command="python3 bot.py", build="make")
    else:
        with pytest.raises(Refused) as refusal:
            manifest(tmp_path)
        assert str(refusal.value).startswith(reason)


def test_an_archive_without_a_manifest_is_refused_by_manifest(into: Path) -> None:
    assert unpack(zip_file(("bot.py", b"1")), "bot.zip", into, DEFAULT) == ["bot.py"]
    with pytest.raises(Refused) as refusal:
        manifest(into)
    assert str(refusal.value) == (
        "no bot.toml at the top of the archive (or in its single top-level folder): it says how "
        'to run the bot, e.g. command = "python3 bot.py"'
    )


# --- anything at all ---------------------------------------------------------------------------

FUZZ_LIMITS = UploadLimits(archive_mb=1, unpacked_mb=1, files=20)
SEED_TAR = tar_file(
    member("bot.toml", TOML),
    member("lib", kind=tarfile.DIRTYPE),
    member("lib/" + "long" * 40 + ".py", b"x" * 700, mode=0o755),  # a pax header for the name
    member("bot.py", b"print(1)\n" * 10),
)
SEED_GNU_TAR = tar_file(member("n" * 150, b"1" * 600), fmt=tarfile.GNU_FORMAT)  # a long name
SEED_ZIP = zip_file(
    ("bot.toml", TOML),
    ("lib/", b""),
    (zip_info("lib/run", 0o100755), b"#!/bin/sh\n" * 50),
    ("bot.py", b"print(1)\n" * 10),
)


def header_offsets(data: bytes) -> list[int]:
    with tarfile.open(fileobj=io.BytesIO(data)) as archive:
        return [info.offset for info in archive.getmembers()]


def with_checksums(data: bytearray, offsets: list[int]) -> None:
    """Make the tar headers at `offsets` valid again after a mutation (as tarfile computes it),
    so that the mutated fields are read rather than the header dismissed."""
    for offset in offsets:
        block = data[offset : offset + 512]
        block[148:156] = b" " * 8
        data[offset + 148 : offset + 155] = b"%06o\0" % sum(block)


@st.composite
def uploads(draw: st.DrawFn) -> tuple[bytes, str]:
    """Random bytes, or a real archive with bytes changed (tar headers kept valid, or not)."""
    filename = draw(st.sampled_from(["bot.zip", "bot.tar.gz"]))
    if draw(st.booleans()):
        return draw(st.binary(max_size=2048)), filename
    seed = SEED_ZIP if filename == "bot.zip" else draw(st.sampled_from([SEED_TAR, SEED_GNU_TAR]))
    data = bytearray(seed)
    for _ in range(draw(st.integers(1, 6))):
        data[draw(st.integers(0, len(data) - 1))] = draw(st.integers(0, 255))
    if draw(st.integers(0, 3)) == 0:
        data = data[: draw(st.integers(0, len(data)))]
    if filename == "bot.zip":
        return bytes(data), filename
    if draw(st.booleans()):
        with_checksums(
            data, [offset for offset in header_offsets(seed) if offset + 512 <= len(data)]
        )
    return gzip.compress(bytes(data), mtime=0), filename


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None
)
@given(uploads())
def test_any_upload_is_unpacked_within_the_caps_or_refused(upload: tuple[bytes, str]) -> None:
    data, filename = upload
    with tempfile.TemporaryDirectory() as directory:
        into = Path(directory)
        try:
            written = unpack(data, filename, into, FUZZ_LIMITS)
        except Refused as refusal:
            assert str(refusal).isprintable()
            assert list(into.iterdir()) == []
            return
        found = files_in(into)
        assert sorted(found) == sorted(written)
        assert len(found) <= FUZZ_LIMITS.files
        assert sum(map(len, found.values())) <= FUZZ_LIMITS.unpacked_mb * MIB
        for path in into.rglob("*"):
            assert mode(path) in ((0o755,) if path.is_dir() else (0o644, 0o755))
