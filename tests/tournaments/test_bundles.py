"""Bundles: a bot's files packed by the coordinator, unpacked by a worker into its bounded cache
only if they hash to the seat's identity, links kept inside; and what a worker lacks, named."""

from __future__ import annotations

import io
import os
import shutil
import tarfile
import time
from pathlib import Path

import msgspec
import pytest

from referee import BotSpec, Limits
from tournaments.executors.bundles import Cache, key, pack, travels
from tournaments.executors.work import BotMismatch, Seat, UnitWork, lacking
from tournaments.plan.entrants import content_hash


def folder_seat(folder: Path, command: str = "python3 bot.py") -> Seat:
    spec = BotSpec("mine", command.split(), folder=str(folder))
    return Seat(spec, command, content_hash(command, spec))


def uploaded(tmp_path: Path, text: str = "print('hi')\n", name: str = "up") -> Seat:
    folder = tmp_path / name
    (folder / "lib").mkdir(parents=True)
    (folder / "bot.py").write_text(text)
    (folder / "lib" / "data.txt").write_text("weights")
    (folder / "link").symlink_to("lib/data.txt")
    return folder_seat(folder)


def test_an_uploaded_folder_travels_and_runs_from_the_cache_by_its_hash(tmp_path: Path) -> None:
    seat = uploaded(tmp_path)
    assert travels(seat)
    asked: list[str] = []

    def fetch(name: str) -> bytes:
        asked.append(name)
        return pack(seat)

    cache = Cache(tmp_path / "cache", limit_mb=10)
    here = cache.located(seat, fetch)
    home = Path(str(here.spec.folder))
    assert home == tmp_path / "cache" / seat.hash and asked == [key(seat.hash)]
    assert (home / "lib" / "data.txt").read_text() == "weights"
    assert os.readlink(home / "link") == "lib/data.txt"
    assert cache.located(seat, fetch).spec.folder == str(home) and len(asked) == 1  # cached


def test_a_file_bot_travels_with_its_command_pointed_at_the_cache(tmp_path: Path) -> None:
    script = tmp_path / "bots" / "x.py"
    script.parent.mkdir()
    script.write_text("print(1)\n")
    spec = BotSpec("x", ["/usr/bin/python3", str(script), "--fast"], files=(str(script),))
    command = f"/usr/bin/python3 {script} --fast"
    seat = Seat(spec, command, content_hash(command, spec))
    here = Cache(tmp_path / "cache", limit_mb=10).located(seat, lambda name: pack(seat))
    moved = f"{tmp_path}/cache/{seat.hash}/0/x.py"
    assert here.spec.command == ["/usr/bin/python3", moved, "--fast"]
    assert here.spec.files == (moved,) and Path(moved).read_text() == "print(1)\n"
    builtin = Seat(BotSpec("random", ["python", "-m", "bots.random"]), "random", "h")
    assert not travels(builtin)


def test_an_interpreter_given_by_its_path_stays_the_workers_own(tmp_path: Path) -> None:
    script = tmp_path / "x.py"
    script.write_text("print(1)\n")
    python = shutil.which("python3")
    assert python is not None
    spec = BotSpec("x", [python, str(script)], files=(python, str(script)))
    seat = Seat(spec, f"{python} {script}", content_hash(f"{python} {script}", spec))
    with tarfile.open(fileobj=io.BytesIO(pack(seat))) as tar:
        assert tar.getnames() == ["0/x.py"]  # the script alone travels
    here = Cache(tmp_path / "cache", limit_mb=10).located(seat, lambda name: pack(seat))
    assert here.spec.command == [python, f"{tmp_path}/cache/{seat.hash}/0/x.py"]


def test_a_bundle_that_does_not_hash_to_the_seat_is_refused_and_not_cached(
    tmp_path: Path,
) -> None:
    seat = uploaded(tmp_path)
    other = uploaded(tmp_path, "print('another version')\n", name="other")
    cache = Cache(tmp_path / "cache", limit_mb=10)
    with pytest.raises(BotMismatch, match=f"hashes to {other.hash}, not to {seat.hash} as on"):
        cache.located(seat, lambda name: pack(other))
    assert list((tmp_path / "cache").iterdir()) == []


@pytest.mark.parametrize(
    ("name", "link", "why"),
    [
        ("../escape.py", None, "outside its folder"),
        ("/etc/evil", None, "outside its folder"),
        ("out", "../../etc/passwd", "leads outside"),
        ("abs", "/etc/passwd", "leads outside"),
    ],
)
def test_a_bundle_reaching_outside_its_folder_is_refused(
    tmp_path: Path, name: str, link: str | None, why: str
) -> None:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        member = tarfile.TarInfo(name)
        if link is None:
            member.size = 2
            tar.addfile(member, io.BytesIO(b"hi"))
        else:
            member.type, member.linkname = tarfile.SYMTYPE, link
            tar.addfile(member)
    seat = uploaded(tmp_path)
    with pytest.raises(BotMismatch, match=why):
        Cache(tmp_path / "cache", limit_mb=10).located(seat, lambda name: buffer.getvalue())
    assert not (tmp_path / "escape.py").exists()


CHAINED = [("x", "."), ("y", "x/.."), ("z", "y/..")]
"""Links that each read as inside (`x/..` is `.`) but on the disk climb two folders up."""


@pytest.mark.parametrize("filter_here", [True, False], ids=["data-filter", "before-3.11.4"])
@pytest.mark.parametrize(
    ("entries", "why"),
    [
        ([*CHAINED, ("z/escaped.txt", None)], "below one of its links"),
        (CHAINED, "outside"),  # the filter's words or ours
        ([("bot.py", "lib"), ("bot.py", None)], "twice"),  # the file would be written through
    ],
    ids=["write-through-chain", "chain-alone", "link-then-file"],
)
def test_a_bundle_whose_links_climb_out_together_is_refused_and_writes_nothing_outside(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    entries: list[tuple[str, str | None]],
    why: str,
    filter_here: bool,
) -> None:
    """A worker fetches a bundle from the cluster before it can check its hash: a crafted one
    must not write a byte outside the worker's unpacking folder, with Python's "data" filter or
    without it (a worker's system Python before 3.11.4)."""
    if not filter_here:
        monkeypatch.delattr(tarfile, "data_filter", raising=False)
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for name, link in entries:
            member = tarfile.TarInfo(name)
            if link is None:
                member.size = 2
                tar.addfile(member, io.BytesIO(b"hi"))
            else:
                member.type, member.linkname = tarfile.SYMTYPE, link
                tar.addfile(member)
    cache = tmp_path / "deep" / "cache"
    seat = uploaded(tmp_path)
    before = set(tmp_path.rglob("*"))
    with pytest.raises(BotMismatch, match=why):
        Cache(cache, limit_mb=10).located(seat, lambda name: buffer.getvalue())
    assert set(tmp_path.rglob("*")) - before == {cache.parent, cache}
    assert list(cache.iterdir()) == []  # nothing cached, the unpacking folder removed


def test_the_cache_drops_the_least_recently_used_bundles_past_its_bound(tmp_path: Path) -> None:
    cache = Cache(tmp_path / "cache", limit_mb=1)
    big = [uploaded(tmp_path, "x = '" + f"{n}" * 400_000 + "'\n", name=f"v{n}") for n in range(3)]
    first = cache.located(big[0], lambda name: pack(big[0]))
    time.sleep(0.01)
    cache.located(big[1], lambda name: pack(big[1]))
    time.sleep(0.01)
    cache.located(big[0], lambda name: pack(big[0]))  # used again: now the most recent
    time.sleep(0.01)
    cache.located(big[2], lambda name: pack(big[2]))  # over 1 MB: one must go
    kept = {entry.name for entry in (tmp_path / "cache").iterdir()}
    assert kept == {big[0].hash, big[2].hash} and Path(str(first.spec.folder)).is_dir()


def test_a_worker_names_what_it_lacks_of_what_a_unit_needs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # nothing on it
    seat = folder_seat(tmp_path, "node bot.js")
    own = folder_seat(tmp_path, "./bot")
    unit = UnitWork(
        game="azul",
        options={},
        seat_set=(1, 2),
        seats=[seat, own],
        rotation=0,
        deals=[],
        limits=Limits(sandbox="bwrap", runtimes=(str(tmp_path / "no-such-runtime"),)),
        tag="1,2",
    )
    missing = lacking(unit)
    assert missing == [
        "bubblewrap (bwrap)",
        f"the runtime folder {tmp_path / 'no-such-runtime'}",
        "'node', which bot 'mine' runs",
    ]
    none = msgspec.structs.replace(unit, limits=Limits(sandbox="none"), seats=[own])
    assert lacking(none) == []
