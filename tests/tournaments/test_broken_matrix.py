"""Every kind of broken bot in a real tournament with two healthy bots.

Each case runs a three-bot round-robin (six Azul games, two at a time) and checks that the
broken bot's games carry the right fault and reason, that the healthy bots' game among
themselves finished without a fault, that the store is intact and holds every game, and that no
process (nor cgroup) of any bot is left. The sandbox cases also run without the sandbox, to show
the bot really reaches what the sandbox hides.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import sqlite3
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from referee import cgroups
from tournaments.plan.prepare import prepare
from tournaments.play.runner import Runner

BOTS = Path(__file__).resolve().parents[1] / "bots"

TOURNAMENT = """
game = "azul"
players = 2
deals = 1
seed = 3
concurrency = 2
sandbox = "{sandbox}"

[time]
move_ms = {move_ms}
startup_ms = {startup_ms}

[participants]
healthy-a = "{python} {bots}/healthy.py {marker}"
healthy-b = "{python} {bots}/healthy.py pick=last {marker}"

[participants.broken]
command = "{python} {broken} {mode} {options} {marker}"
{own_time}
{own_limits}
"""

HANG_MOVE_MS = 400
"""Short, so the hanging bot's timeout comes quickly: the broken bot's own move time."""
SLOW_STARTUP_MS = 1_500
"""Short, so the slow starter's timeout comes quickly: the broken bot's own startup time."""
MOVE_MS = 5_000
"""Generous for every other bot and case: a bot dying of its fault under CI load is never a
timeout."""
STARTUP_MS = 20_000
"""Generous for every other bot and case: a healthy bot starting on a loaded machine, or the
flooder writing its gigabyte before `ready`, is no startup timeout."""

CASES = [
    # id, mode, options, the broken bot's own limits, fault kind, phrase of the reason
    ("crash-at-start", "crash_start", "", "", "crash", "boom: crash at start"),
    ("crash-mid-game", "crash_mid", "after=2", "", "crash", "exited (exit code 7)"),
    ("hang", "hang", "", "", "timeout", "no answer to decision"),
    ("slow-start", "slow_start", "", "", "startup_timeout", "no `ready` within 1500 ms"),
    ("garbage-line", "garbage", "", "", "malformed", "which is not a JSON message"),
    ("wrong-schema", "extra_field", "", "", "schema", "unknown field `foo`"),
    ("illegal-action", "illegal", "", "", "illegal", "breaks the rule"),
    ("10-MB-line", "long_line", "", "", "line_too_long", "longer than 1048576 bytes"),
    ("stdout-flood", "stdout_flood", "", "", "line_too_long", "longer than 1048576 bytes"),
    ("stderr-flood-1GB", "flood", "mb=1024", "", None, ""),
    ("closes-stdout", "close_stdout", "", "", "closed", "closed its stdout but is still running"),
    ("leaves-children", "crash_mid", "after=1 children={tmp}/pids", "", "crash", "exit code 7"),
    ("fork-bomb", "fork_bomb", "", "processes = 32", "resource_limit", "processes: exceeded"),
    (
        "memory-hog",
        "memory_hog",
        "",
        "memory_mb = 256",
        "resource_limit",
        "memory: used its 256 MB",
    ),
    ("cpu-hog", "cpu_hog", "", "cpu_s = 1", "resource_limit", "cpu: used"),
]


@pytest.fixture
def marker() -> Iterator[str]:
    """A unique argument carried by every process of the test's bots (children inherit argv)."""
    mark = f"--marker=arena-matrix-{uuid.uuid4().hex}"
    yield mark
    assert processes_with(mark) == [], "a bot process survived"
    assert cgroups.ours() == [], "a cgroup was left"


def processes_with(mark: str) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as file:
                    if mark.encode() in file.read():
                        found.append(int(entry))
            except OSError:
                continue
    return found


async def run_tournament(
    directory: Path,
    marker: str,
    mode: str,
    options: str = "",
    own_limits: str = "",
    sandbox: str = "none",
    broken: Path = BOTS / "broken.py",
) -> Path:
    """Play the three-bot tournament in `directory`; the store's path."""
    file = directory / "cup.toml"
    file.write_text(
        TOURNAMENT.format(
            python=sys.executable,
            bots=BOTS,
            broken=broken,
            mode=mode,
            options=options.replace("{tmp}", str(directory)),
            marker=marker,
            own_limits=own_limits,
            sandbox=sandbox,
            startup_ms=STARTUP_MS,
            move_ms=MOVE_MS,
            own_time={
                "hang": f"time = {{move_ms = {HANG_MOVE_MS}}}",
                "slow_start": f"time = {{startup_ms = {SLOW_STARTUP_MS}}}",
            }.get(mode, ""),
        )
    )
    prepared = prepare(file)
    try:
        runner = Runner(
            prepared.tournament, prepared.store, prepared.players, limits=prepared.limits
        )
        await runner.run()
    finally:
        prepared.close()
    return file.with_suffix(".sqlite")


def faults_by_game(db: Path) -> list[tuple[list[str], list[tuple[str, str, str]]]]:
    """(bot names by seat, [(bot, kind, reason)]) of every game, after checking the store."""
    with sqlite3.connect(db) as connection:
        assert connection.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        names = dict(connection.execute("SELECT id, name FROM bots"))
        games = []
        for (game,) in connection.execute("SELECT id FROM games ORDER BY id").fetchall():
            seats = connection.execute(
                "SELECT bot FROM seats WHERE game = ? ORDER BY seat", (game,)
            ).fetchall()
            faults = connection.execute(
                "SELECT seats.bot, kind, reason FROM faults JOIN seats "
                "ON seats.game = faults.game AND seats.seat = faults.seat WHERE faults.game = ?",
                (game,),
            ).fetchall()
            games.append(
                ([names[bot] for (bot,) in seats], [(names[b], k, r) for b, k, r in faults])
            )
    return games


@pytest.mark.parametrize(
    ("mode", "options", "own_limits", "kind", "phrase"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
@pytest.mark.slow
async def test_broken_bot_in_a_tournament(
    tmp_path: Path,
    marker: str,
    mode: str,
    options: str,
    own_limits: str,
    kind: str | None,
    phrase: str,
) -> None:
    db = await run_tournament(tmp_path, marker, mode, options, own_limits)
    games = faults_by_game(db)
    assert len(games) == 6  # three pairings, one deal, two seatings
    for bots, faults in games:
        if "broken" not in bots or kind is None:
            assert faults == [], "healthy bots must finish their games without a fault"
            continue
        [(bot, fault_kind, reason)] = faults
        assert (bot, fault_kind) == ("broken", kind), reason
        assert phrase in reason
    if mode == "flood":  # every byte went through the referee, and only the cap was kept
        logs = list((tmp_path / "cup.logs").glob("*-broken.log"))
        assert logs and all(log.stat().st_size < 2 << 20 for log in logs)
        dropped = [re.search(rb"\[arena: (\d+) more bytes", log.read_bytes()) for log in logs]
        assert sum(int(found[1]) for found in dropped if found) >= 2 * (1 << 30) - (2 << 20)


@pytest.fixture
def listener() -> Iterator[int]:
    """A TCP port on 127.0.0.1 that accepts connections (outside any sandbox)."""
    with socket.create_server(("127.0.0.1", 0)) as server:
        yield server.getsockname()[1]


@pytest.mark.parametrize("sandbox", ["none", "bwrap"])
@pytest.mark.slow
async def test_sandbox_blocks_the_network(
    tmp_path: Path, marker: str, listener: int, sandbox: str
) -> None:
    db = await run_tournament(tmp_path, marker, "connect", f"port={listener}", sandbox=sandbox)
    broken_faults = [f for _, faults in faults_by_game(db) for f in faults]
    if sandbox == "none":
        assert broken_faults == []  # the connection works without the sandbox
    else:
        assert len(broken_faults) == 4
        assert all(kind == "crash" and "Connection refused" in r for _, kind, r in broken_faults)


@pytest.mark.parametrize("sandbox", ["none", "bwrap"])
@pytest.mark.parametrize("target", ["store", "other-bot", "store-next-to-the-bot"])
@pytest.mark.slow
async def test_sandbox_hides_the_store_and_other_bots(
    tmp_path: Path, marker: str, sandbox: str, target: str
) -> None:
    """The snooping bot reads a file and exits saying how many bytes it got."""
    other = tmp_path / "other"
    other.mkdir()
    (other / "secret.txt").write_text("another bot's private strategy")
    broken, own = BOTS / "broken.py", ""
    if target == "store-next-to-the-bot":  # the bot's files lie beside the store: masked
        for name in ("broken.py", "botlib.py"):
            shutil.copy(BOTS / name, tmp_path)
        broken = tmp_path / "broken.py"
        # Beside the tournament's files a bot sees only the files it names (both of them).
        own = 'files = ["botlib.py"]'
        tmp_path.chmod(0o755)  # a root referee's sandboxed bot has a uid of its own
    path = other / "secret.txt" if target == "other-bot" else tmp_path / "cup.sqlite"
    db = await run_tournament(
        tmp_path, marker, "read", f"path={path}", own, sandbox=sandbox, broken=broken
    )
    reasons = [r for _, faults in faults_by_game(db) for _, kind, r in faults if kind == "crash"]
    assert len(reasons) == 4
    for reason in reasons:
        assert f"{path}" in reason, "the bot ran, and failed to read (or read) the file"
        if sandbox == "none":
            assert "read 0 bytes" not in reason and "bytes of" in reason
        else:
            hidden = ("No such file or directory", "Permission denied")  # absent, or masked
            assert any(word in reason for word in hidden), reason
