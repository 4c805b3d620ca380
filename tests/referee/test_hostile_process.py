"""Hostile bots (tests/bots/hostile.py) against the referee's containment: the default sandbox,
the bots' own uids, nothing outliving a match or a killed referee, and total memory, disk and
CPU limits. Each case runs real subprocess bots."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import msgspec
import pytest
import trio
from patience import Deadline
from refhelp import BOTS, Bots

from protocol.messages import TimeControl
from referee import BotSpec, Limits, cgroups, open_bots, play_match, run_match
from referee.limits import ResourceLimits
from referee.process import resolve_sandbox

HOSTILE = BOTS / "hostile.py"
ROOT = os.geteuid() == 0
SANDBOX = resolve_sandbox("auto").kind == "bwrap"
needs_sandbox = pytest.mark.skipif(not SANDBOX, reason="bubblewrap does not work here")
ROOMY = TimeControl(move_ms=20_000, startup_ms=20_000)


@pytest.fixture(autouse=True)
def no_cgroup_left() -> Iterator[None]:
    yield
    assert cgroups.ours() == [], "a bot's cgroup was left"


def own(spec: BotSpec) -> BotSpec:
    """`spec` with the test bots' directory as its own files (the sandbox binds it)."""
    return msgspec.structs.replace(spec, files=(str(BOTS),))


def hostile(bots: Bots, mode: str, *options: str) -> BotSpec:
    return own(BotSpec(mode, [sys.executable, str(HOSTILE), mode, *options, bots.marker]))


async def stderr_line(handle_stderr: object, prefix: str, timeout_s: float = 20) -> str:
    """The first line of a bot's stderr tail that starts with `prefix` (waited for)."""
    with trio.fail_after(timeout_s):
        while True:
            for line in handle_stderr.tail_lines(50):  # type: ignore[attr-defined]
                if line.startswith(prefix):
                    return line
            await trio.sleep(0.02)


def uid_of(pid: int) -> int:
    with open(f"/proc/{pid}/status") as file:
        for line in file:
            if line.startswith("Uid:"):
                return int(line.split()[1])
    raise AssertionError(f"no Uid line for {pid}")


def bot_programs(bots: Bots) -> list[int]:
    """The marked processes that run Python (not the bwrap that starts them as root)."""
    found = []
    for pid in bots.processes():
        with open(f"/proc/{pid}/cmdline", "rb") as file:
            if not file.read().split(b"\0")[0].endswith(b"bwrap"):
                found.append(pid)
    return found


# ---- 1, 2: the sandbox by default, and a uid of its own ------------------------------------------


@pytest.mark.parametrize("sandbox", ["auto", "none"])
async def test_by_default_a_bot_cannot_touch_the_referee_other_bots_or_the_host(
    bots: Bots, tmp_path: Path, sandbox: str
) -> None:
    """ "auto" (the default) sandboxes the attacker: every attack fails and the victim plays on.
    "none" shows that the attacks are real: the same bot kills its opponent, reads another bot's
    file and the referee's environment, and writes into the store."""
    if sandbox == "auto" and not SANDBOX:
        pytest.skip("bubblewrap does not work here")
    other = tmp_path / "other"
    other.mkdir()
    secret = other / "secret.txt"
    secret.write_text("another bot's private strategy")
    store = tmp_path / "cup.sqlite"
    store.write_bytes(b"SQLite format 3\0")
    limits = (
        Limits(log_dir=str(tmp_path))
        if sandbox == "auto"
        else Limits(log_dir=str(tmp_path), sandbox="none")
    )
    async with open_bots([own(bots.healthy())], limits) as victims:
        victim, _ = await victims[0].ensure_started()
        options = [f"victim={victim.pid}", f"referee={os.getpid()}"]
        options += [f"secret={secret}", f"store={store}"]
        async with open_bots([hostile(bots, "attack", *options)], limits) as attackers:
            await attackers[0].ensure_started()
            line = await stderr_line(attackers[0].stderr, "attacks: ")
            results = dict(item.split("=") for item in line.split()[1:])
            if sandbox == "none":
                assert {
                    k: results[k] for k in ("kill", "secret", "store", "environ")
                } == dict.fromkeys(("kill", "secret", "store", "environ"), "ok"), line
                return
            assert "ok" not in results.values(), line
            assert store.read_bytes() == b"SQLite format 3\0"
            assert victim.exit_status() is None, "the victim is alive"
            outcome = await play_match("azul", {}, 1, [victims[0], attackers[0]], ROOMY)
            assert outcome.faults == [], "nothing was injected into the victim's answers"
    bots.assert_none_left()


@pytest.mark.skipif(not ROOT, reason="only a root referee switches bots to their own uids")
@needs_sandbox
async def test_as_root_each_sandboxed_bot_runs_as_its_own_unprivileged_uid(
    bots: Bots, tmp_path: Path
) -> None:
    limits = Limits(log_dir=str(tmp_path))
    async with open_bots([own(bots.healthy())], limits) as victims:
        victim, _ = await victims[0].ensure_started()
        options = [f"victim={victim.pid}", f"referee={os.getpid()}"]
        async with open_bots([hostile(bots, "attack", *options)], limits) as attackers:
            await attackers[0].ensure_started()
            line = await stderr_line(attackers[0].stderr, "attacks: ")
            assert "shadow=EACCES" in line, line
            assert "kill=ESRCH" in line and "referee=ESRCH" in line, line
            handles = [victims[0], attackers[0]]
            outcome = await play_match("azul", {}, 1, handles, ROOMY)  # both started: both play
            assert outcome.faults == []
            uids = {uid_of(pid) for pid in bot_programs(bots)}
            assert len(uids) == 2 and 0 not in uids, uids
            assert all(uid >= 1_500_000_000 for uid in uids)
    bots.assert_none_left()


# ---- 3: nothing outlives a match or the referee -------------------------------------------------


@pytest.mark.slow
async def test_sandboxed_and_plain_bots_live_as_long_as_the_referee(
    bots: Bots, tmp_path: Path
) -> None:
    """PDEATHSIG follows the thread that forked: bots forked from a worker thread that idles out
    after 10 s were killed then (bwrap's --die-with-parent)."""
    sandboxed = Limits(log_dir=str(tmp_path), sandbox="bwrap" if SANDBOX else "none")
    plain = Limits(log_dir=str(tmp_path), sandbox="none")
    async with (
        open_bots([own(bots.healthy())], sandboxed) as first,
        open_bots([own(bots.healthy())], plain) as second,
    ):
        handles = [first[0], second[0]]
        for handle in handles:
            await handle.ensure_started()
        await trio.sleep(15)
        assert [handle.process.exit_status() for handle in handles if handle.process] == [
            None,
            None,
        ]
        outcome = await play_match("azul", {}, 2, handles, ROOMY)
        assert outcome.faults == []
        assert [handle.starts for handle in handles] == [1, 1]
    bots.assert_none_left()


REFEREE = """
import sys
import trio
from protocol.messages import TimeControl
from referee import BotSpec, Limits, open_bots, play_match

mode, hostile, bots, marker = sys.argv[1:5]
spec = BotSpec("linger", [sys.executable, hostile, "linger", marker], files=(bots,))
clock = TimeControl(move_ms=600_000, startup_ms=60_000)

async def main() -> None:
    async with open_bots([spec, spec], Limits(sandbox=mode)) as handles:
        if sys.argv[5:] == ["once"]:
            await handles[0].ensure_started()
            return
        await play_match("azul", {}, 1, handles, clock)

trio.run(main)
"""


def daemons(bots: Bots) -> list[int]:
    found = []
    for pid in bots.processes():
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as file:
                if b"time.sleep(1000)" in file.read():
                    found.append(pid)
        except OSError:
            continue
    return found


def wait_for(condition: object, timeout_s: float) -> bool:
    deadline = Deadline(timeout_s)
    while not deadline.passed():
        if condition():  # type: ignore[operator]
            return True
        time.sleep(0.05)
    return False


def workdirs_of(pids: list[int]) -> list[str]:
    top = Path(tempfile.gettempdir())
    return [str(p) for pid in pids for p in top.glob(f"arena-bot-{pid}-*")]


@pytest.mark.slow
@pytest.mark.parametrize("sandbox", ["auto", "none"])
def test_nothing_of_a_bot_outlives_a_referee_killed_with_sigkill(
    bots: Bots, tmp_path: Path, sandbox: str
) -> None:
    """Bots that ignore the end of input and leave a setsid daemon, under a referee killed with
    SIGKILL once both answered `ready` (five times). In the sandbox nothing survives the
    referee by more than 2 s; without it the bots die with the referee (PDEATHSIG) and the
    daemons, still in the dead referee's cgroups, are killed by the next referee to start, which
    also removes the dead referees' working directories."""
    if sandbox == "auto" and not SANDBOX:
        pytest.skip("bubblewrap does not work here")
    script = tmp_path / "kill_me.py"
    script.write_text(REFEREE)
    argv = [sys.executable, str(script), sandbox, str(HOSTILE), str(BOTS), bots.marker]
    dead: list[int] = []
    seen: set[int] = set()
    for _ in range(5):
        referee = subprocess.Popen(argv, cwd=tmp_path)
        before = set(daemons(bots))  # the earlier referees' (without the sandbox)
        try:
            assert wait_for(lambda b=before: len(set(daemons(bots)) - b) >= 2, 30), "no `ready`"
        finally:
            seen.update(bots.processes())
            referee.send_signal(signal.SIGKILL)
            referee.wait()
        dead.append(referee.pid)
        if sandbox == "auto":
            assert wait_for(lambda: not bots.processes(), 2), bots.processes()
        else:
            assert wait_for(lambda: not bot_leaders(bots), 2), "a bot outlived its referee"
    subprocess.run([*argv, "once"], cwd=tmp_path, check=True, timeout=60)
    assert wait_for(lambda: not bots.processes(), 2), bots.processes()
    assert workdirs_of(dead) == []
    reap(seen)


def reap(pids: set[int]) -> None:
    """Orphans of the killed referees were re-parented to this process when it is a child
    subreaper (it ran referees before): reap the ones that are ours."""
    for pid in pids:
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, 0)


def bot_leaders(bots: Bots) -> list[int]:
    return [pid for pid in bots.processes() if pid not in daemons(bots)]


# ---- 4: total memory, disk and CPU -------------------------------------------------------------


@needs_sandbox
@pytest.mark.parametrize("survive", [False, True])
async def test_a_bot_that_fills_its_disk_gets_resource_limit_and_the_host_disk_is_untouched(
    bots: Bots, tmp_path: Path, survive: bool
) -> None:
    """Seen from its death (No space left on device) or, when it carries on, from the free
    space of its /tmp after the decision."""
    free_before = shutil.disk_usage(tempfile.gettempdir()).free
    limits = Limits(log_dir=str(tmp_path), resources=ResourceLimits(disk_mb=64))
    options = ["mb=600", "survive=1"] if survive else ["mb=600"]
    specs = [own(bots.healthy()), hostile(bots, "fill_disk", *options)]
    outcome = await run_match("azul", {}, 1, specs, ROOMY, limits=limits)
    [fault] = outcome.faults
    assert (fault.seat, fault.kind) == (1, "resource_limit"), fault.reason
    assert fault.reason.startswith("disk: filled its 64 MB"), fault.reason
    assert shutil.disk_usage(tempfile.gettempdir()).free > free_before - (200 << 20)
    bots.assert_none_left()


@needs_sandbox
async def test_memory_is_counted_over_all_of_a_bots_processes(bots: Bots, tmp_path: Path) -> None:
    """Eight processes of 64 MB each: within a 256 MB address space each, over 256 MB total."""
    limits = Limits(log_dir=str(tmp_path), resources=ResourceLimits(memory_mb=256))
    specs = [own(bots.healthy()), hostile(bots, "memory", "procs=8", "mb=64")]
    outcome = await run_match("azul", {}, 1, specs, ROOMY, limits=limits)
    [fault] = outcome.faults
    assert (fault.seat, fault.kind) == (1, "resource_limit"), fault.reason
    assert fault.reason.startswith("memory: used its 256 MB total"), fault.reason
    bots.assert_none_left()


@pytest.mark.parametrize("sandbox", ["auto", "none"])
async def test_cpu_of_children_that_already_exited_is_charged(
    bots: Bots, tmp_path: Path, sandbox: str
) -> None:
    if sandbox == "auto" and not SANDBOX:
        pytest.skip("bubblewrap does not work here")
    limits = Limits(log_dir=str(tmp_path), sandbox=sandbox, resources=ResourceLimits(cpu_s=1))  # type: ignore[arg-type]
    specs = [own(bots.healthy()), hostile(bots, "cpu_child", "cpu_s=3")]
    outcome = await run_match("azul", {}, 1, specs, ROOMY, limits=limits)
    [fault] = outcome.faults
    assert (fault.seat, fault.kind) == (1, "resource_limit"), fault.reason
    assert fault.reason.startswith("cpu: used 3."), fault.reason
    bots.assert_none_left()


async def test_cpu_time_mode_charges_children_that_already_exited(
    bots: Bots, tmp_path: Path
) -> None:
    limits = Limits(log_dir=str(tmp_path), sandbox="none", time_mode="cpu")
    specs = [own(bots.healthy()), hostile(bots, "cpu_child", "cpu_s=0.5")]
    outcome = await run_match("azul", {}, 1, specs, ROOMY, limits=limits)
    assert outcome.faults == []
    assert outcome.think_ms[1] >= 450, outcome.think_ms
    bots.assert_none_left()


# ---- 5: crash reasons -----------------------------------------------------------------------


@pytest.mark.parametrize("sandbox", ["auto", "none"])
async def test_a_crash_reason_quotes_the_first_error_lines_too(
    bots: Bots, tmp_path: Path, sandbox: str
) -> None:
    if sandbox == "auto" and not SANDBOX:
        pytest.skip("bubblewrap does not work here")
    limits = Limits(log_dir=str(tmp_path), sandbox=sandbox)  # type: ignore[arg-type]
    specs = [hostile(bots, "node_crash"), own(bots.healthy())]
    outcome = await run_match("azul", {}, 1, specs, ROOMY, limits=limits)
    [fault] = outcome.faults
    assert fault.kind == "crash"
    assert "Error: Cannot find module '/bots/missing.js'" in fault.reason, fault.reason
    assert "Node.js v20.11.0" in fault.reason, "the last line too"
    assert len(fault.reason) < 3000
    bots.assert_none_left()


@pytest.mark.parametrize("sandbox", ["auto", "none"])
async def test_closing_stdout_is_closed_in_the_sandbox_too(
    bots: Bots, tmp_path: Path, sandbox: str
) -> None:
    if sandbox == "auto" and not SANDBOX:
        pytest.skip("bubblewrap does not work here")
    limits = Limits(log_dir=str(tmp_path), sandbox=sandbox)  # type: ignore[arg-type]
    specs = [own(bots.healthy()), own(bots.broken("close_stdout"))]
    outcome = await run_match("azul", {}, 1, specs, ROOMY, limits=limits)
    [fault] = outcome.faults
    assert (fault.seat, fault.kind) == (1, "closed"), fault.reason
    assert "closed its stdout but is still running" in fault.reason
    bots.assert_none_left()


@needs_sandbox
async def test_a_sandboxed_bot_killed_by_a_signal_is_reported_so(
    bots: Bots, tmp_path: Path
) -> None:
    """bwrap exits with 128 + N when the bot dies of signal N: the reason names the signal."""
    specs = [own(bots.healthy()), own(bots.broken("crash_mid", "after=1", "how=signal"))]
    outcome = await run_match("azul", {}, 1, specs, ROOMY, limits=Limits(log_dir=str(tmp_path)))
    [fault] = outcome.faults
    assert (fault.seat, fault.kind) == (1, "crash"), fault.reason
    assert fault.reason.startswith("exited (killed by signal SIGKILL)"), fault.reason
    bots.assert_none_left()


@needs_sandbox
@pytest.mark.skipif(os.geteuid() != 0, reason="only a root referee runs bots as another uid")
async def test_a_bot_file_its_own_user_cannot_read_is_a_clear_spawn_fault(
    bots: Bots, tmp_path: Path
) -> None:
    """Under a root referee the sandboxed bot is nobody's uid: a script in a private directory
    (pytest's tmp_path is 0700) is refused before the start, with the fix in the reason."""
    script = tmp_path / "mine.py"
    script.write_text((BOTS / "healthy.py").read_text())
    tmp_path.chmod(0o700)
    spec = BotSpec("mine", [sys.executable, str(script), bots.marker], files=(str(script),))
    outcome = await run_match(
        "azul", {}, 1, [spec, bots.healthy()], TimeControl(), limits=Limits(sandbox="bwrap")
    )
    [fault] = outcome.faults
    assert fault.kind == "spawn" and "not readable by the sandboxed bot" in fault.reason
    assert "chmod o+r" in fault.reason
    bots.assert_none_left()
