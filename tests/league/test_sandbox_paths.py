"""No host path of the league reaches an author through their bot: an uploaded bot's build and
check run in the real bwrap sandbox of a real `arena serve` (as root, and as a normal user),
and a bot that prints everything its sandbox shows of where it is kept — the mount tables of
every process it can see (`/proc/self/mountinfo`: a bind mount's root is its source's path),
their command lines (the sandbox's first process is bwrap, given every path), cgroups,
environments, open fds, its cwd — into its build log and its stderr, both of which its author
reads, shows them no path of the league's folder, bots folder or version folder.
"""

from __future__ import annotations

import html
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from leaguehelp import SERVERS, Running, page_as, python_for, server_uid, signed_in, zipped

from referee.build import run_build
from referee.process import Limits
from tournaments.league.files import League

pytestmark = [pytest.mark.slow, pytest.mark.needs("bwrap", "setpriv")]

LEAGUE = """
game = "azul"
players = 2
concurrency = 1
sandbox = "bwrap"
participants = { house = "random" }
limits = { memory_mb = 1024, disk_mb = 32 }
league = { batch = 2, log_kb = 256, build_s = 60 }
"""

DUMP = r"""
import os, sys
out = sys.stdout if sys.argv[1:] == ["build"] else sys.stderr
brief = out is sys.stderr  # a check's log keeps the last 16 KiB of the bot's stderr
pids = sorted(name for name in os.listdir("/proc") if name.isdigit())
files = ["/proc/self/mountinfo", "/proc/thread-self/mountinfo", "/proc/self/cgroup",
         "/proc/self/environ"]
if not brief:
    files += ["/proc/self/mounts", "/proc/self/mountstats", "/proc/self/maps"]
for pid in pids:
    names = ["cmdline", "environ"] + ([] if brief else ["cgroup"])
    names += ["mountinfo"] if pid == "1" or not brief else []
    files += [f"/proc/{pid}/{name}" for name in names]
for path in files:
    try:
        with open(path, "rb") as file:
            text = file.read(16384).replace(b"\0", b" ").decode(errors="replace")
    except OSError as exc:
        text = f"unreadable: {exc.strerror}"
    print(f"DUMP {path}\n{text}", file=out)
links = ["/proc/self/cwd", "/proc/self/root", "/proc/self/exe"]
for pid in pids:
    try:
        links += [f"/proc/{pid}/fd/{fd}" for fd in os.listdir(f"/proc/{pid}/fd")]
    except OSError:
        pass
for link in links:
    try:
        print(f"DUMP {link} -> {os.readlink(link)}", file=out)
    except OSError:
        pass
print(f"DUMP cwd {os.getcwd()}; environ {dict(os.environ)}", file=out, flush=True)
sys.exit(0 if out is sys.stdout else 3)
"""
"""Prints where it is (to stdout at its build, to stderr in its check, which it then fails)."""


class Served:
    """A served league (its whole folder under `top`) with an author, mallory."""

    def __init__(self, top: Path, uid: int | None, python: str) -> None:
        self.top = top
        self.folder = top / "league"
        self.folder.mkdir()
        file = self.folder / "cup.toml"
        file.write_text(LEAGUE)
        with League(file) as league:
            self.mallory = league.registry.new_token("mallory")
            self.bots = league.bots_dir
        if uid is not None:
            for path in [top, *top.rglob("*")]:
                os.chown(path, uid, uid)
        with pytest.MonkeyPatch.context() as patch:  # a server whose PATH names the league
            patch.setenv("PATH", f"{self.folder / 'bin'}{os.pathsep}{os.environ['PATH']}")
            self.served = Running(file, uid, python)


@pytest.fixture(scope="module", params=SERVERS)
def served(request: pytest.FixtureRequest) -> Iterator[Served]:
    uid = server_uid(request.param)
    top = Path(tempfile.mkdtemp(prefix="arena-paths-"))
    try:
        made = Served(top, uid, sys.executable if uid is None else python_for(uid, top))
        yield made
        made.served.stop()
    finally:
        shutil.rmtree(top, ignore_errors=True)


def host_paths(top: Path) -> set[str]:
    """The league's paths, as the host names them (`top` holds all of them)."""
    return {str(top), os.path.realpath(top)}


def test_a_bot_learns_no_host_path_of_the_league(served: Served) -> None:
    manifest = b'command = "python3 dump.py"\nbuild = "python3 dump.py build"\n'
    upload = zipped({"bot.toml": manifest, "dump.py": DUMP.encode()})
    code, answer = served.served.upload(served.mallory, "dumper", "dumper.zip", upload)
    assert code == 201, answer
    version = served.served.status("dumper", {"playing", "rejected"}, timeout=120)
    assert version["status"] == "rejected", version
    opener = signed_in(served.served, served.mallory)
    page = html.unescape(page_as(served.served, opener, "/bots/dumper"))
    # Both dumps are there (the build's, and the check's stderr), with the bot's own mount.
    assert page.count("DUMP /proc/self/mountinfo") == 2, page[-3000:]
    assert page.count("DUMP /proc/1/cmdline") == 2, page[-3000:]
    assert " /bot " in page and "DUMP cwd /bot" in page
    assert (served.bots / "dumper").is_dir()  # its version folder is under `top`
    leaked = [path for path in host_paths(served.top) if path in page]
    assert leaked == [], [line for line in page.splitlines() if any(p in line for p in leaked)]


async def test_a_build_dumping_its_sandbox_names_no_host_path(tmp_path: Path) -> None:
    """The referee alone (this process's user): the build's source and output folders are
    named nowhere in what the build can print."""
    source, output = tmp_path / "upload", tmp_path / "packed.tar"
    source.mkdir()
    (source / "dump.py").write_text(DUMP)
    output.touch()
    result = await run_build(
        "python3 dump.py build", str(source), str(output), Limits(sandbox="bwrap"), 60
    )
    assert result.ok, result.output
    assert "DUMP /proc/self/mountinfo" in result.output and " /upload " in result.output
    leaked = [path for path in host_paths(tmp_path) if path in result.output]
    assert leaked == [], result.output
    assert output.stat().st_size > 0  # the folder was packed through its fd
