"""Build steps for real: a C++ bot built with g++ in the bwrap sandbox plays; a failing build
is rejected with its output kept and its files removed; a build over its time limit is killed
with all it started; the sandboxed build has no network, sees nothing of the league or of the
host's paths, and writes only its own folder, in memory and within its limits."""

from __future__ import annotations

import json
import os
import random
import shlex
import socket
import stat
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import trio
from leaguehelp import zipped

from referee import Limits, run_build
from tournaments.league.checks import check_version
from tournaments.league.files import League
from tournaments.league.folders import upload_hash
from tournaments.league.registry import Version
from tournaments.league.season import OpenSeason
from tournaments.league.submissions import submit

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
disk_mb = {disk_mb}

[league]
build_s = {build_s}
uploads_per_hour = 50
"""
BOT = "from bots.sdk import run\nrun(lambda observation, legal, context: 0, name='built')\n"


def make_league(
    tmp_path: Path, sandbox: str, build_s: int = 300, file_mb: int = 256, disk_mb: int = 512
) -> League:
    file = tmp_path / "cup.toml"
    text = LEAGUE.format(sandbox=sandbox, build_s=build_s, file_mb=file_mb, disk_mb=disk_mb)
    file.write_text(text)
    return League(file)


@pytest.fixture
def none(tmp_path: Path) -> Iterator[League]:
    with make_league(tmp_path, "none") as league:
        yield league


@pytest.fixture
def bwrap(tmp_path: Path) -> Iterator[League]:
    with make_league(tmp_path, "bwrap") as league:
        yield league


def manifest(command: str, build: str) -> bytes:
    return f"command = {json.dumps(command)}\nbuild = {json.dumps(build)}\n".encode()  # TOML


async def upload(league: League, bot: str, files: dict[str, bytes]) -> Version:
    author = league.registry.author_for(league.registry.new_token("alice"))
    assert author is not None
    return await submit(league, author, bot, f"{bot}.zip", zipped(files))


async def build_only(league: League, bot: str, build: str) -> Version:
    """A version whose build is all there is to it (its command is never run)."""
    return await upload(league, bot, {"bot.toml": manifest("./bot", build)})


async def check(league: League, version: Version) -> Version:
    with OpenSeason(league) as season:
        return await check_version(league, season.limits, version)


def gone(league: League, version: Version) -> None:
    """A rejected version's files are removed (its logs are kept), and so is every staging
    file its build made."""
    assert not league.version_dir(version).exists()
    assert list((league.bots_dir / ".staging").iterdir()) == []


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
@pytest.mark.needs("g++")
async def test_a_cpp_bot_built_with_gpp_in_the_sandbox_plays(bwrap: League) -> None:
    files = {"bot.toml": manifest("./bot", GPP), "bot.cpp": CPP}
    version = await upload(bwrap, "cpp", files)
    assert (version.status, version.command, version.build) == ("queued", "./bot", GPP)
    folder = bwrap.version_dir(version)
    assert not (folder / "bot").exists()
    checked = await check(bwrap, version)
    assert (checked.status, checked.reason) == ("playing", None), checked.reason
    logs = bwrap.registry.logs(version.id)
    assert logs["build"].startswith(f"$ {GPP}\n") and "[build: exit code 0 after" in logs["build"]
    assert "check" in logs
    assert stat.S_IMODE((folder / "bot").stat().st_mode) == 0o755
    assert stat.S_IMODE((folder / "bot.cpp").stat().st_mode) == 0o644
    # The hash is the uploaded files': the built program is not part of it; the identity is
    # the folder's as it runs, made once by the check.
    assert checked.hash == version.hash == folder.name != upload_hash(folder, bwrap.upload_limits)
    assert checked.identity is not None and checked.identity != checked.hash
    assert (await upload(bwrap, "cpp", files)).id == version.id


@pytest.mark.slow  # a game
async def test_an_unsandboxed_build_writes_the_program_that_plays(none: League) -> None:
    build = f"printf '#!%s\\n' {shlex.quote(sys.executable)} > bot && cat main.py >> bot"
    files = {"bot.toml": manifest("./bot", f"{build} && chmod +x bot"), "main.py": BOT.encode()}
    version = await upload(none, "py", files)
    checked = await check(none, version)
    assert (checked.status, checked.reason) == ("playing", None), checked.reason
    assert (none.version_dir(version) / "bot").read_text().startswith(f"#!{sys.executable}\n")


async def test_a_failing_build_is_rejected_with_its_output_in_the_log(none: League) -> None:
    version = await build_only(
        none, "broken", "echo compiling; echo 'bot.cpp:1: error: oops' >&2; exit 1"
    )
    checked = await check(none, version)
    assert checked.status == "rejected"
    assert checked.reason == "the build failed: exit code 1"
    log = none.registry.logs(version.id)
    assert "check" not in log  # never checked
    assert "compiling\nbot.cpp:1: error: oops\n[build: exit code 1 after" in log["build"]
    gone(none, version)


async def test_a_rejected_check_log_keeps_the_bots_stderr_lines(none: League) -> None:
    """The check log says what failed, then the bot's stderr as it wrote it, line by line (not
    joined on one line, as a fault's reason in a record quotes it)."""
    crash = (
        "import sys\nfor n in range(3): print(f'trace line {n}', file=sys.stderr)\nsys.exit(3)\n"
    )
    files = {"bot.toml": b'command = "python3 crash.py"\n', "crash.py": crash.encode()}
    version = await upload(none, "crasher", files)
    checked = await check(none, version)
    assert checked.status == "rejected"
    log = none.registry.logs(version.id)["check"]
    assert "crasher rejected: crash during the handshake" in log and "exit code 3" in log
    assert "trace line 0\ntrace line 1\ntrace line 2\n" in log
    assert " | " not in log and "stderr lines:" not in log


async def test_a_build_over_a_resource_limit_is_rejected_saying_which(tmp_path: Path) -> None:
    with make_league(tmp_path, "none", file_mb=1) as league:
        version = await build_only(league, "big", "head -c 3000000 /dev/zero > big")
        checked = await check(league, version)
        assert checked.status == "rejected"
        assert checked.reason == (
            "the build failed: stopped by a resource limit (file size: wrote past the limit of "
            "1 MB)"
        )
        gone(league, version)


@pytest.mark.parametrize("where", ["its folder", "/tmp"])
async def test_a_sandboxed_build_writing_past_its_disk_is_stopped_in_memory(
    tmp_path: Path, where: str
) -> None:
    """A build writes only into memory, bounded: 200 MB into a 16 MB folder or `/tmp` is cut
    at 16 MB, the host's disk never sees it, and the version is rejected, its files gone."""
    target = "big" if where == "its folder" else "/tmp/big"
    with make_league(tmp_path, "bwrap", file_mb=0, disk_mb=16) as league:
        free = os.statvfs(tmp_path).f_bavail
        version = await build_only(
            league, "filler", f"head -c 200000000 /dev/zero > {target}; df -k /bot /tmp; exit 3"
        )
        checked = await check(league, version)
        after = os.statvfs(tmp_path).f_bavail
        log = league.registry.logs(version.id)["build"]
        assert "No space left on device" in log, log
        assert checked.status == "rejected"
        assert checked.reason == (
            "the build failed: stopped by a resource limit (disk: filled its 16 MB of writable "
            "space (the sandbox's /tmp, or a build's folder))"
        )
        gone(league, version)
        block = os.statvfs(tmp_path).f_frsize
        assert (free - after) * block < 50_000_000  # not the 200 MB (other tests write too)


@pytest.mark.parametrize("sandbox", ["none", "bwrap"])
async def test_a_build_over_its_time_limit_is_killed_with_all_it_started(
    tmp_path: Path, sandbox: str
) -> None:
    seconds = f"30.{random.randrange(10**6):06d}"  # `sleep 30`, recognisable in /proc
    with make_league(tmp_path, sandbox, build_s=1) as league:
        version = await build_only(
            league, "slow", f"echo started; sleep {seconds} & sleep {seconds}"
        )
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
        assert checked.reason == "the build failed: over the time limit of 1 s"
        log = league.registry.logs(version.id)["build"]
        assert log.startswith(f"$ echo started; sleep {seconds}") and "\nstarted\n" in log
        assert "[build: over the time limit of 1 s after" in log


async def built(command: str, tmp_path: Path, sandbox: str) -> tuple[str, bool]:
    """Run the build `command` on an empty upload by itself: its output, and whether it
    succeeded."""
    source, packed = tmp_path / f"source-{sandbox}", tmp_path / f"packed-{sandbox}.tar"
    source.mkdir()
    packed.touch()
    result = await run_build(command, str(source), str(packed), Limits(sandbox=sandbox), 60)
    return result.output, result.ok


async def test_a_sandboxed_build_has_no_network(bwrap: League, tmp_path: Path) -> None:
    attempt = "python3 -c \"import socket; socket.create_connection(('1.1.1.1', 53), 2)\""
    version = await build_only(bwrap, "online", attempt)
    checked = await check(bwrap, version)
    assert checked.status == "rejected" and "exit code 1" in (checked.reason or "")
    assert "Network is unreachable" in bwrap.registry.logs(version.id)["build"]
    # The host's loopback, reachable unsandboxed, is not the sandbox's.
    with socket.create_server(("127.0.0.1", 0)) as server:
        port = server.getsockname()[1]
        connect = f"import socket; socket.create_connection(('127.0.0.1', {port}), 2)"
        local = f"{shlex.quote(sys.executable)} -c {shlex.quote(connect)}"
        plain = await built(local, tmp_path, "none")
        assert plain[1], plain
        boxed = await built(f"python3 -c {shlex.quote(connect)}", tmp_path, "bwrap")
    assert not boxed[1] and "Connection refused" in boxed[0], boxed


async def test_a_sandboxed_build_writes_only_its_folder_and_sees_nothing_of_the_league(
    bwrap: League, tmp_path: Path
) -> None:
    escape = await build_only(bwrap, "escape", "touch ../escape")
    checked = await check(bwrap, escape)
    assert checked.status == "rejected" and checked.reason is not None
    assert "exit code 1" in checked.reason
    assert "Permission denied" in bwrap.registry.logs(escape.id)["build"]
    gone(bwrap, escape)
    league_files = [bwrap.file, bwrap.store_path, bwrap.registry.path, bwrap.bots_dir, tmp_path]
    assert all(path.exists() for path in league_files)
    unseen = " && ".join(f"test ! -e {shlex.quote(str(path))}" for path in league_files)
    version = await build_only(bwrap, "looker", f"{unseen} && touch inside && echo unseen")
    await check(bwrap, version)  # built, then rejected by its check: `./bot` is not there
    log = bwrap.registry.logs(version.id)["build"]
    assert "\nunseen\n[build: exit code 0 after" in log, log
    # The same test unsandboxed sees them all (so the one above can fail).
    output, ok = await built(unseen, tmp_path, "none")
    assert not ok, output


async def test_links_a_build_makes_inside_its_folder_are_kept_and_outside_refused(
    bwrap: League,
) -> None:
    inside = await build_only(bwrap, "linker", "mkdir lib && echo x > lib/a.so.1 && "
                              "ln -s a.so.1 lib/a.so && ln -s lib/a.so bot")  # fmt: skip
    await check(bwrap, inside)  # built; its check fails: `./bot` is no program
    folder = bwrap.version_dir(inside)
    assert "the built folder" not in bwrap.registry.logs(inside.id)["build"]
    for target, via in (("../../escape", "up"), ("/etc/passwd", "absolute")):
        version = await build_only(bwrap, f"out-{via}", f"ln -s {target} x")
        checked = await check(bwrap, version)
        assert checked.reason == "the built folder broke the upload rules"
        log = bwrap.registry.logs(version.id)["build"]
        assert f"entry 'x': a symbolic link to '{target}', outside the bot's folder" in log, log
        gone(bwrap, version)
    # Through a link to a folder, lexically inside: refused as it resolves on the disk.
    climb = await build_only(bwrap, "climb", "ln -s . top && mkdir sub && ln -s ../top/.. sub/x")
    assert (await check(bwrap, climb)).reason == "the built folder broke the upload rules"
    assert (
        "entry 'sub/x': a symbolic link that leads outside"
        in bwrap.registry.logs(climb.id)["build"]
    )
    del folder
