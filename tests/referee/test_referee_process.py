"""Bot processes: command parsing, the scrubbed environment, reuse, restarts, stderr capture,
and that nothing of a bot survives the referee — children, grandchildren, cancellation."""

from __future__ import annotations

import errno
import json
import os
import resource
import sys
from pathlib import Path

import pytest
import trio
from refhelp import BOTS, UNHURRIED, Bots, gone

from protocol.messages import TimeControl
from referee import BotSpec, Limits, open_bots, play_match, run_match
from referee.stderr import StderrLog

# ---- processes --------------------------------------------------------------------------------


async def test_environment_is_scrubbed_and_the_working_directory_private(
    bots: Bots, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SECRET_TOKEN", "do-not-leak")
    monkeypatch.setenv("LC_ALL", "C.UTF-8")
    env_file = tmp_path / "env.json"
    specs = [bots.healthy(f"env_file={env_file}"), bots.healthy()]
    outcome = await run_match(
        "azul", {}, 1, specs, UNHURRIED, limits=Limits(sandbox="none", log_dir=str(tmp_path))
    )
    assert outcome.faults == []
    seen = json.loads(env_file.read_text())
    env, cwd = seen["env"], seen["cwd"]
    assert set(env) <= {"PATH", "HOME", "TMPDIR", "LANG", "LC_ALL", "LC_CTYPE"}
    assert env["LC_ALL"] == "C.UTF-8"
    assert env["HOME"] == env["TMPDIR"] == cwd
    assert cwd != os.getcwd()
    assert not os.path.exists(cwd), "the private working directory is removed with the bot"
    bots.assert_none_left()


async def test_processes_are_reused_across_games(bots: Bots, tmp_path: Path) -> None:
    pid_files = [tmp_path / "pids0", tmp_path / "pids1"]
    specs = [bots.healthy(f"pid_file={path}") for path in pid_files]
    async with open_bots(specs, Limits(sandbox="none", log_dir=str(tmp_path))) as handles:
        assert [handle.pid for handle in handles] == [None, None], "started lazily"
        first: list[int | None] = []
        for seed in range(3):
            outcome = await play_match("azul", {}, seed, handles, UNHURRIED)
            assert outcome.faults == []
            first = first or [handle.pid for handle in handles]
            assert [handle.pid for handle in handles] == first
        assert [handle.starts for handle in handles] == [1, 1]
        assert all(pid is not None and not gone(pid) for pid in first)
    for path, pid in zip(pid_files, first, strict=True):
        assert path.read_text().split() == [str(pid)] * 3
    bots.assert_none_left()


async def test_a_faulty_bot_is_killed_and_restarted_for_the_next_game(
    bots: Bots, tmp_path: Path
) -> None:
    specs = [bots.healthy(), bots.broken("crash_mid", "after=1")]
    async with open_bots(specs, Limits(sandbox="none", log_dir=str(tmp_path))) as handles:
        healthy_pid = None
        for seed in range(2):
            outcome = await play_match("azul", {}, seed, handles, UNHURRIED)
            assert [fault.kind for fault in outcome.faults] == ["crash"]
            assert outcome.result.ranks == [1, 2]
            assert handles[1].pid is None, "the crashed process is gone until the next game"
            healthy_pid = healthy_pid or handles[0].pid
            assert handles[0].pid == healthy_pid
        assert [handle.starts for handle in handles] == [1, 2]
    bots.assert_none_left()


async def test_without_pidfds_a_crash_is_still_a_fault_and_every_bot_is_reaped(
    bots: Bots, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Linux before 5.3, some seccomp filters and valgrind have no pidfd_open: the referee
    polls for the exits it must wait for instead of failing while it kills a bot."""

    def no_pidfd(pid: int, flags: int = 0) -> int:
        raise OSError(errno.ENOSYS, "Function not implemented")

    monkeypatch.setattr(os, "pidfd_open", no_pidfd)
    specs = [bots.healthy(), bots.broken("crash_mid", "after=1")]
    async with open_bots(specs, Limits(sandbox="none", log_dir=str(tmp_path))) as handles:
        for seed in range(2):
            outcome = await play_match("azul", {}, seed, handles, UNHURRIED)
            assert [(fault.seat, fault.kind) for fault in outcome.faults] == [(1, "crash")]
            assert "exited (exit code 7)" in outcome.faults[0].reason
        assert [handle.starts for handle in handles] == [1, 2]
    bots.assert_none_left()


async def test_children_and_grandchildren_die_with_the_bot(bots: Bots, tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    specs = [bots.healthy(), bots.healthy(f"children={pids}")]
    async with open_bots(specs, Limits(sandbox="none", log_dir=str(tmp_path))) as handles:
        outcome = await play_match("azul", {}, 3, handles, UNHURRIED)
        assert outcome.faults == []
        family = [int(pid) for pid in pids.read_text().split()]
        assert len(family) == 3 and not any(gone(pid) for pid in family)
        assert len(bots.processes()) == 4  # two bots, a child, a grandchild
    assert all(gone(pid) for pid in family), "killed and reaped: not even zombies"
    bots.assert_none_left()


async def test_children_of_a_faulty_bot_die_at_the_fault(bots: Bots, tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    specs = [bots.healthy(), bots.broken("hang", f"children={pids}")]
    async with open_bots(specs, Limits(sandbox="none", log_dir=str(tmp_path))) as handles:
        time = [UNHURRIED, TimeControl(move_ms=200, startup_ms=UNHURRIED.startup_ms)]
        outcome = await play_match("azul", {}, 3, handles, time)
        assert [fault.kind for fault in outcome.faults] == ["timeout"]
        family = [int(pid) for pid in pids.read_text().split()]
        assert all(gone(pid) for pid in family), "killed at the fault, not at the end"
    bots.assert_none_left()


async def test_a_death_is_seen_at_once_while_a_child_holds_stdout(
    bots: Bots, tmp_path: Path
) -> None:
    """The bot exits but its child keeps the stdout pipe open: no end of file ever comes, yet
    the referee calls the crash at once rather than waiting out the 30 s allowance."""
    pids = tmp_path / "pids"
    specs = [bots.healthy(), bots.broken("crash_mid", "after=1", f"children={pids}")]
    async with open_bots(specs, Limits(sandbox="none", log_dir=str(tmp_path))) as handles:
        began = trio.current_time()
        outcome = await play_match("azul", {}, 3, handles, TimeControl(move_ms=30_000))
        took = trio.current_time() - began
    (fault,) = outcome.faults
    assert fault.kind == "crash" and fault.seat == 1
    assert fault.reason.startswith("exited (exit code 7) while the referee waited for its answer")
    assert took < 5, f"the crash took {took:.1f} s to be noticed"
    bots.assert_none_left()


async def test_cancellation_kills_every_process(bots: Bots, tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    specs = [bots.healthy(f"children={pids}"), bots.broken("hang")]
    with trio.move_on_after(1.0) as scope:
        await run_match(
            "azul",
            {},
            1,
            specs,
            TimeControl(move_ms=60_000),
            limits=Limits(sandbox="none", log_dir=str(tmp_path)),
        )
    assert scope.cancelled_caught
    assert all(gone(int(pid)) for pid in pids.read_text().split())
    bots.assert_none_left()


async def test_an_error_in_the_block_propagates_as_itself(bots: Bots, tmp_path: Path) -> None:
    with pytest.raises(KeyError, match="mine"):
        async with open_bots(
            [bots.healthy(), bots.healthy()], Limits(sandbox="none", log_dir=str(tmp_path))
        ) as h:
            await play_match("azul", {}, 1, h, UNHURRIED)
            assert len(bots.processes()) == 2
            raise KeyError("mine")
    bots.assert_none_left()


async def test_a_handle_plays_one_seat_at_a_time(bots: Bots, tmp_path: Path) -> None:
    async with open_bots(
        [bots.healthy()], Limits(sandbox="none", log_dir=str(tmp_path))
    ) as handles:
        with pytest.raises(ValueError, match="only one seat"):
            await play_match("azul", {}, 1, [handles[0], handles[0]], UNHURRIED)
    bots.assert_none_left()


async def test_stderr_flood_is_capped_and_never_held_in_memory(bots: Bots, tmp_path: Path) -> None:
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    limits = Limits(sandbox="none", log_dir=str(tmp_path), stderr_cap_bytes=64 * 1024)
    specs = [bots.healthy(), bots.broken("flood")]
    outcome = await run_match("azul", {}, 1, specs, UNHURRIED, limits=limits)
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    assert outcome.faults == []
    log = Path(outcome.logs[1]).read_bytes()
    assert log.startswith(b"eeee")
    assert len(log) < 64 * 1024 + 200
    dropped = 50 * (1 << 20) - 64 * 1024
    assert f"[arena: {dropped} more bytes of stderr dropped".encode() in log
    assert not Path(outcome.logs[0]).exists(), "the healthy bot wrote nothing: no file"
    assert after - before < 30_000, "ru_maxrss is in KiB: the 50 MB must not pass through memory"
    bots.assert_none_left()


@pytest.mark.parametrize("sandbox", ["none", "auto"])
async def test_a_missing_command_is_a_spawn_fault(bots: Bots, tmp_path: Path, sandbox: str) -> None:
    specs = [bots.healthy(), BotSpec("ghost", ["/nonexistent/arena-bot"])]
    limits = Limits(sandbox="none", log_dir=str(tmp_path))
    if sandbox == "auto":  # the healthy bot must be able to run in the sandbox too
        specs[0] = BotSpec("healthy", specs[0].command, files=(str(BOTS),))
        limits = Limits(log_dir=str(tmp_path))
    outcome = await run_match("azul", {}, 1, specs, UNHURRIED, limits=limits)
    [fault] = outcome.faults
    assert (fault.seat, fault.kind, fault.decision) == (1, "spawn", -1)
    assert "could not start `/nonexistent/arena-bot`: No such file or directory" in fault.reason
    assert outcome.result.ranks == [1, 2]
    bots.assert_none_left()


async def test_default_log_dir_is_created(bots: Bots) -> None:
    specs = [bots.healthy(), bots.broken("flood", "mb=1")]
    outcome = await run_match("azul", {}, 1, specs, UNHURRIED, limits=Limits(sandbox="none"))
    assert outcome.faults == []
    assert not os.path.exists(outcome.logs[0])
    assert os.path.getsize(outcome.logs[1]) == 1 << 20
    os.remove(outcome.logs[1])
    os.rmdir(os.path.dirname(outcome.logs[0]))


def test_a_stderr_log_is_made_by_its_first_byte_and_a_lost_directory_is_no_crash(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    log = StderrLog(cap_bytes=8)
    log.open(str(tmp_path / "quiet.log"))
    log.close()
    assert list(tmp_path.iterdir()) == []
    log.open(str(tmp_path / "talks.log"))
    log.write(b"0123456789")
    log.close()
    assert (tmp_path / "talks.log").read_bytes() == (
        b"01234567\n[arena: 2 more bytes of stderr dropped; the log is capped at 8 bytes]\n"
    )
    log.open(str(tmp_path / "removed" / "lost.log"))
    log.write(b"lost\n")  # in the stderr drain: an exception there would end the block
    log.write(b"twice\n")
    log.close()
    assert caplog.text.count("cannot create the stderr log") == 1
    assert log.tail_lines()[-2:] == ["0123456789lost", "twice"], "still kept for crash reasons"


def test_what_a_bot_writes_between_games_opens_the_next_games_log(tmp_path: Path) -> None:
    """Its last words on `end` (the game's log closed) are not lost: held, under the cap, for
    the next game's log, after a note; a game after a quiet gap has no note."""
    log = StderrLog(cap_bytes=20)
    first, second, third = (tmp_path / f"game{n}.log" for n in (1, 2, 3))
    log.open(str(first))
    log.write(b"in game 1\n")
    log.close()
    log.write(b"after game 1\n")
    log.write(b"x" * 30)  # 43 bytes in all: 20 held, 23 over the cap
    log.open(str(second))
    log.write(b"in game 2\n")  # the held bytes count towards this game's cap: 10 more dropped
    log.close()
    log.open(str(third))
    log.write(b"in game 3\n")
    log.close()
    assert first.read_bytes() == b"in game 1\n"
    assert second.read_bytes() == (
        b"[arena: 43 bytes written after the previous game]\n"
        b"after game 1\nxxxxxxx"
        b"\n[arena: 33 more bytes of stderr dropped; the log is capped at 20 bytes]\n"
    )
    assert third.read_bytes() == b"in game 3\n"


TALKER = """
import sys
sys.path.insert(0, sys.argv[1])
import botlib
last = [0, 1]  # the last act id, the game

def answer(message):
    if message["id"] < last[0]:  # ids start again: a new game
        last[1] += 1
    last[0] = message["id"]
    if last[1] == 2:
        sys.stderr.write("".join(f"line {n}\\n" for n in range(1, 13)))
        sys.stderr.flush()
        sys.exit(5)
    return botlib.index(message)

botlib.play(answer, [])
"""


async def test_a_log_file_is_made_only_when_a_bot_writes_to_stderr(
    bots: Bots, tmp_path: Path
) -> None:
    """Quiet bots leave no empty files (10,000 games would leave 20,000); a game's log paths are
    known either way, a file left at one by an interrupted run is not taken for this game's,
    and crash reasons still quote the first and the last stderr lines."""
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "m1-seat0-healthy.log").write_text("from an interrupted run")
    talker = BotSpec("talker", [sys.executable, "-c", TALKER, str(BOTS), bots.marker])
    limits = Limits(sandbox="none", log_dir=str(logs))
    async with open_bots([bots.healthy(), talker], limits) as handles:
        quiet = await play_match("azul", {}, 1, handles, UNHURRIED, match_id="m1")
        assert quiet.faults == []
        assert quiet.logs == [str(logs / "m1-seat0-healthy.log"), str(logs / "m1-seat1-talker.log")]
        assert list(logs.iterdir()) == []
        crashed = await play_match("azul", {}, 2, handles, UNHURRIED, match_id="m2")
    [fault] = crashed.faults
    assert (fault.seat, fault.kind) == (1, "crash"), fault.reason
    assert "exited (exit code 5)" in fault.reason
    assert "; first stderr lines: line 1 | line 2 | line 3 | line 4 | line 5 … " in fault.reason
    assert fault.reason.endswith("last stderr lines: line 8 | line 9 | line 10 | line 11 | line 12")
    assert os.listdir(logs) == ["m2-seat1-talker.log"]
    assert Path(crashed.logs[1]).read_text() == "".join(f"line {n}\n" for n in range(1, 13))
    bots.assert_none_left()


CWD_BOT = """
import os, sys
sys.path.insert(0, sys.argv[1])
import botlib
try:
    open("scratch", "w").close()
    wrote = "ok"
except OSError as exc:
    wrote = str(exc.errno)
with open("data.txt") as file:
    data = file.read()
sys.stderr.write(f"cwd={os.getcwd()} home={os.environ['HOME']} data={data} write={wrote}\\n")
sys.stderr.flush()
botlib.play(botlib.index, [])
"""


@pytest.mark.parametrize("sandbox", ["auto", "none"])
async def test_a_bot_runs_in_its_cwd_read_only_in_the_sandbox(
    bots: Bots, tmp_path: Path, sandbox: str
) -> None:
    """`BotSpec.cwd` replaces the private working directory (HOME stays private); the
    sandbox binds it read-only."""
    own = tmp_path / "mybot"
    own.mkdir()
    (own / "data.txt").write_text("weights")
    command = [sys.executable, "-c", CWD_BOT, str(BOTS), bots.marker]
    spec = BotSpec("cwd", command, files=(str(BOTS),), cwd=str(own))
    limits = Limits(log_dir=str(tmp_path), sandbox=sandbox)  # type: ignore[arg-type]
    async with open_bots([spec], limits) as handles:
        await handles[0].ensure_started()
        with trio.fail_after(20):
            while not (lines := handles[0].stderr.tail_lines()):
                await trio.sleep(0.02)
    words = dict(word.split("=", 1) for word in lines[0].split())
    assert (words["cwd"], words["data"]) == (str(own), "weights")
    assert words["home"] != str(own)
    if sandbox == "none":
        assert words["write"] == "ok" and (own / "scratch").exists()
    else:
        assert words["write"] == str(errno.EROFS) and not (own / "scratch").exists()
    bots.assert_none_left()
