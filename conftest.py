"""Tests marked `alone` run while no other test runs, also under `pytest -n` (pytest-xdist);
tests marked `needs("go")` run only where their programs are on PATH.

A few tests check wall-clock bounds to within tens of milliseconds (a search bot's decision
ends soon after its deadline; the referee's clock tests need none of this: they run on trio's
MockClock against scripted bots). A neighbouring worker's games on the same cores add that
much jitter, so those tests take the workers' shared lock exclusively, the others take it
shared; the lock is the machine's, so the suites of two checkouts run at once share it too. A
turnstile (taken briefly by everyone, held by the exclusive test while it waits) keeps a stream
of ordinary tests from starving it.

A referee that runs inside a test's process makes it a subreaper: the processes of a
coordinator or worker that a test kills then become its children, and their zombies would fail
a later test of the same worker that checks for none. After each test they are reaped.

Under `pytest -n` the workers take the tests in the order collected, so the files are ordered:
those with an `alone` test first (while it runs, only each other's waits are lost, not a long
test's), then those with a `slow` one (a long test begun last would keep one worker busy while
the other idles), then the rest; a file's tests stay together (its fixtures are made once).

A test that runs a toolchain (node, g++, go, javac) is skipped where it is missing, naming it:
the README's test command passes on a fresh machine that has only some of them. CI sets
ARENA_REQUIRE_TOOLS=1, which turns each such skip into an error, so it never skips a kit.
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

REQUIRE_TOOLS = "ARENA_REQUIRE_TOOLS"


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """Before any fixture (a module's fixture may run the compiler): each program that a
    `needs` marker names is on PATH, or the test is skipped (failed under ARENA_REQUIRE_TOOLS=1)."""
    for marker in item.iter_markers("needs"):
        for program in marker.args:
            if shutil.which(program) is None:
                reason = f"needs {program}: not on PATH"
                if os.environ.get(REQUIRE_TOOLS) == "1":
                    pytest.fail(f"{reason} ({REQUIRE_TOOLS}=1: no test may be skipped for it)")
                pytest.skip(reason)


def _turn(item: pytest.Item) -> int:
    """Where `item`'s file runs: `alone` tests first, then `slow` ones, then the rest."""
    if item.get_closest_marker("alone") is not None:
        return 0
    return 1 if item.get_closest_marker("slow") is not None else 2


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    turns: dict[Path, int] = {}
    for item in items:
        turns[item.path] = min(turns.get(item.path, 2), _turn(item))
    items.sort(key=lambda item: turns[item.path])  # stable: files keep their collected order


@pytest.fixture(scope="session")
def _lock_dir() -> Path:
    """A directory that every run on this machine shares: a test that measures time runs alone
    also while another checkout's suite runs beside this one (two at once were seen to fail a
    search bot's deadline test)."""
    directory = Path(tempfile.gettempdir()) / f"arena-tests-{os.getuid()}"
    directory.mkdir(mode=0o700, exist_ok=True)
    return directory


@pytest.fixture(autouse=True)
def _alone_or_together(request: pytest.FixtureRequest, _lock_dir: Path) -> Iterator[None]:
    alone = request.node.get_closest_marker("alone") is not None
    with (
        open(_lock_dir / "arena-tests.turnstile", "a") as turnstile,
        open(_lock_dir / "arena-tests.lock", "a") as lock,
    ):
        fcntl.flock(turnstile, fcntl.LOCK_EX)
        fcntl.flock(lock, fcntl.LOCK_EX if alone else fcntl.LOCK_SH)
        if not alone:
            fcntl.flock(turnstile, fcntl.LOCK_UN)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
            if alone:
                fcntl.flock(turnstile, fcntl.LOCK_UN)


PR_GET_CHILD_SUBREAPER = 37


def _subreaper() -> bool:
    """Whether this process adopts its descendants' orphans (prctl(2))."""
    flag = ctypes.c_int(0)
    libc = ctypes.CDLL(None, use_errno=True)
    return libc.prctl(PR_GET_CHILD_SUBREAPER, ctypes.byref(flag), 0, 0, 0) == 0 and flag.value == 1


@pytest.fixture(autouse=True)
def _reap_adopted() -> Iterator[None]:
    """After the test, reap this process's zombie children: orphans it adopted as a subreaper
    (every test waits for the children it starts itself)."""
    yield
    if not _subreaper():
        return
    for entry in os.listdir("/proc"):
        try:
            stat = Path(f"/proc/{entry}/stat").read_bytes() if entry.isdigit() else b")"
        except OSError:
            continue
        state, parent, *_ = [*stat[stat.rfind(b")") + 2 :].split(), b"", b"0"]
        if state == b"Z" and int(parent) == os.getpid():
            with contextlib.suppress(ChildProcessError):
                os.waitpid(int(entry), os.WNOHANG)
