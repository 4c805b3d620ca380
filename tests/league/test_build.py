"""Build steps for real: a C++ bot built with g++ in the bwrap sandbox plays; a failing build
is rejected with its output kept; a build over its time limit is killed with all it started;
the sandboxed build has no network, sees nothing of the league and writes only its folder,
which is read-only afterwards."""

from __future__ import annotations

import io
import json
import os
import random
import shlex
import socket
import stat
import sys
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
import trio

from referee import Limits, run_build
from tournaments.league.checks import check_version
from tournaments.league.ladder import open_league
from tournaments.league.league import League
from tournaments.league.registry import Version
from tournaments.league.submissions import submit, tree_hash

ROOT = Path(__file__).resolve().parents[2]
CPP = (ROOT / "examples" / "starter-cpp" / "bot.cpp").read_bytes()
GPP = "g++ -std=c++17 -O2 -o bot bot.cpp"
LEAGUE = """
game = "azul"
players = 2
concurrency = 1
sandbox = "{sandbox}"

[participants]
random = "random"

[time]
move_ms = 3000

[limits]
file_mb = {file_mb}

[league]
build_s = {build_s}
uploads_per_hour = 50
"""
BOT = "from bots.sdk import run\nrun(lambda observation, legal, context: 0, name='built')\n"


def make_league(tmp_path: Path, sandbox: str, build_s: int = 300, file_mb: int = 256) -> League:
    file = tmp_path / "cup.toml"
    file.write_text(LEAGUE.format(sandbox=sandbox, build_s=build_s, file_mb=file_mb))
    return League(file)


@pytest.fixture
def none(tmp_path: Path) -> Iterator[League]:
    with make_league(tmp_path, "none") as league:
        yield league


@pytest.fixture
def bwrap(tmp_path: Path) -> Iterator[League]:
    with make_league(tmp_path, "bwrap") as league:
        yield league


def zipped(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def manifest(command: str, build: str) -> bytes:
    return f"command = {json.dumps(command)}\nbuild = {json.dumps(build)}\n".encode()  # TOML


def upload(league: League, bot: str, files: dict[str, bytes]) -> Version:
    author = league.registry.author_for(league.registry.new_token("alice"))
    assert author is not None
    return submit(league, author, bot, f"{bot}.zip", zipped(files))


def build_only(league: League, bot: str, build: str) -> Version:
    """A version whose build is all there is to it (its command is never run)."""
    return upload(league, bot, {"bot.toml": manifest("./bot", build)})


async def check(league: League, version: Version) -> Version:
    prepared = open_league(league)
    try:
        return await check_version(league, prepared, version)
    finally:
        prepared.close()


def read_only(folder: Path) -> None:
    """Every entry of `folder` (itself included) is the referee's, and read-only for all."""
    for path in [folder, *folder.rglob("*")]:
        info = path.lstat()
        assert info.st_uid == os.getuid(), path
        if stat.S_ISDIR(info.st_mode):
            assert stat.S_IMODE(info.st_mode) == 0o555, path
        else:
            assert stat.S_IMODE(info.st_mode) in (0o444, 0o555), path


def alive(marker: str) -> list[int]:
    """The processes whose command line holds `marker`."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
            except OSError:
                continue
            if marker.encode() in cmdline:
                found.append(int(entry))
    return found


@pytest.mark.slow  # a compiler, then a game
async def test_a_cpp_bot_built_with_gpp_in_the_sandbox_plays(bwrap: League) -> None:
    files = {"bot.toml": manifest("./bot", GPP), "bot.cpp": CPP}
    version = upload(bwrap, "cpp", files)
    assert (version.status, version.command, version.build) == ("queued", "./bot", GPP)
    folder = bwrap.version_dir(version)
    assert not (folder / "bot").exists()
    checked = await check(bwrap, version)
    assert (checked.status, checked.reason) == ("playing", None), checked.reason
    logs = bwrap.registry.logs(version.id)
    assert logs["build"].startswith(f"$ {GPP}\n") and "[build: exit code 0 after" in logs["build"]
    assert "check" in logs
    assert stat.S_IMODE((folder / "bot").stat().st_mode) == 0o555
    assert stat.S_IMODE((folder / "bot.cpp").stat().st_mode) == 0o444
    read_only(folder)
    # The hash is the uploaded files': the built program is not part of it.
    assert checked.hash == version.hash == folder.name != tree_hash(folder)
    assert upload(bwrap, "cpp", files).id == version.id


@pytest.mark.slow  # a game
async def test_an_unsandboxed_build_writes_the_program_that_plays(none: League) -> None:
    build = f"printf '#!%s\\n' {shlex.quote(sys.executable)} > bot && cat main.py >> bot"
    files = {"bot.toml": manifest("./bot", f"{build} && chmod +x bot"), "main.py": BOT.encode()}
    version = upload(none, "py", files)
    checked = await check(none, version)
    assert (checked.status, checked.reason) == ("playing", None), checked.reason
    assert (none.version_dir(version) / "bot").read_text().startswith(f"#!{sys.executable}\n")
    read_only(none.version_dir(version))


async def test_a_failing_build_is_rejected_with_its_output_in_the_log(none: League) -> None:
    version = build_only(
        none, "broken", "echo compiling; echo 'bot.cpp:1: error: oops' >&2; exit 1"
    )
    checked = await check(none, version)
    assert checked.status == "rejected"
    assert checked.reason == "the build failed: exit code 1; see the build log"
    log = none.registry.logs(version.id)
    assert "check" not in log  # never checked
    assert "compiling\nbot.cpp:1: error: oops\n[build: exit code 1 after" in log["build"]
    read_only(none.version_dir(version))


async def test_a_build_over_a_resource_limit_is_rejected_saying_which(tmp_path: Path) -> None:
    with make_league(tmp_path, "none", file_mb=1) as league:
        version = build_only(league, "big", "head -c 3000000 /dev/zero > big")
        checked = await check(league, version)
        assert checked.status == "rejected"
        assert checked.reason == (
            "the build failed: stopped by a resource limit (file size: wrote past the limit of "
            "1 MB); see the build log"
        )


@pytest.mark.parametrize("sandbox", ["none", "bwrap"])
async def test_a_build_over_its_time_limit_is_killed_with_all_it_started(
    tmp_path: Path, sandbox: str
) -> None:
    seconds = f"30.{random.randrange(10**6):06d}"  # `sleep 30`, recognisable in /proc
    with make_league(tmp_path, sandbox, build_s=1) as league:
        version = build_only(league, "slow", f"echo started; sleep {seconds} & sleep {seconds}")
        result: list[Version] = []

        async def run() -> None:
            result.append(await check(league, version))

        start = time.monotonic()
        seen, statuses = 0, set()
        async with trio.open_nursery() as nursery:
            nursery.start_soon(run)
            while not result:
                seen = max(seen, len(alive(f"sleep\0{seconds}")))
                statuses.add(league.registry.versions("slow")[0].status)
                await trio.sleep(0.02)
        assert seen == 2  # both sleeps ran: the search below can see them
        assert "building" in statuses
        assert time.monotonic() - start < 20  # not the 30 s of the sleep
        assert alive(f"sleep\0{seconds}") == []
        (checked,) = result
        assert checked.status == "rejected"
        assert checked.reason == "the build failed: over the time limit of 1 s; see the build log"
        log = league.registry.logs(version.id)["build"]
        assert log.startswith(f"$ echo started; sleep {seconds}") and "\nstarted\n" in log
        assert "[build: over the time limit of 1 s after" in log


async def test_a_sandboxed_build_has_no_network(bwrap: League, tmp_path: Path) -> None:
    attempt = "python3 -c \"import socket; socket.create_connection(('1.1.1.1', 53), 2)\""
    version = build_only(bwrap, "online", attempt)
    checked = await check(bwrap, version)
    assert checked.status == "rejected" and "exit code 1" in (checked.reason or "")
    assert "Network is unreachable" in bwrap.registry.logs(version.id)["build"]
    # The host's loopback, reachable unsandboxed, is not the sandbox's.
    with socket.create_server(("127.0.0.1", 0)) as server:
        port = server.getsockname()[1]
        connect = f"import socket; socket.create_connection(('127.0.0.1', {port}), 2)"
        local = f"{shlex.quote(sys.executable)} -c {shlex.quote(connect)}"
        (tmp_path / "plain").mkdir()
        plain = await run_build(local, str(tmp_path / "plain"), Limits(sandbox="none"), 60)
        assert plain.ok, plain
        (tmp_path / "boxed").mkdir()
        boxed = await run_build(local, str(tmp_path / "boxed"), Limits(sandbox="bwrap"), 60)
    assert boxed.outcome == 1 and "Connection refused" in boxed.output, boxed


async def test_a_sandboxed_build_writes_only_its_folder_and_sees_nothing_of_the_league(
    bwrap: League, tmp_path: Path
) -> None:
    escape = build_only(bwrap, "escape", "touch ../escape")
    checked = await check(bwrap, escape)
    assert checked.status == "rejected" and checked.reason is not None
    assert "exit code 1" in checked.reason
    assert "Permission denied" in bwrap.registry.logs(escape.id)["build"]
    folder = bwrap.version_dir(escape)
    assert list(folder.parent.iterdir()) == [folder]
    read_only(folder)
    league_files = [bwrap.file, bwrap.store_path, bwrap.registry.path, bwrap.version_dir(escape)]
    assert all(path.exists() for path in league_files)
    unseen = " && ".join(f"test ! -e {shlex.quote(str(path))}" for path in league_files)
    version = build_only(bwrap, "looker", f"{unseen} && touch inside && echo unseen")
    await check(bwrap, version)  # built, then rejected by its check: `./bot` is not there
    log = bwrap.registry.logs(version.id)["build"]
    assert "\nunseen\n[build: exit code 0 after" in log, log
    assert (bwrap.version_dir(version) / "inside").exists()
    read_only(bwrap.version_dir(version))
    # The same test unsandboxed sees them all (so the one above can fail).
    (tmp_path / "plain").mkdir()
    plain = await run_build(unseen, str(tmp_path / "plain"), Limits(sandbox="none"), 60)
    assert plain.outcome == 1, plain
