"""What a new user tripped over in `arena match` and friends, as they type it (real processes)."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

from clihelp import ARENA, arena
from patience import Deadline

SILENT = f"""{sys.executable} -c "import sys, time; sys.stdin.readline(); \
print('{{\\"type\\": \\"ready\\"}}', flush=True); time.sleep(60)\""""
"""A bot that says ready and then never answers: it times out at its first decision."""

WAITING = f"""{sys.executable} -c "import os, sys; sys.stdin.readline(); \
print('{{\\"type\\": \\"ready\\"}}', flush=True); sys.stdin.readline(); \
os.execv(sys.executable, [sys.executable, '-c', 'import time; time.sleep(60)', \
sys.argv[1] + '-asked'])\""""
"""A bot that says ready and never answers; once asked for its first decision, its process's
arguments say so (its MARKER argument becomes MARKER-asked), for a test to see from outside
even a sandbox."""


def test_records_are_never_overwritten(tmp_path: Path) -> None:
    # Four matches at once, same seed, same second: four records, none named after the seed.
    argv = [*ARENA, "match", "--game", "5211", "random", "random", "--seed", "7", "--json"]
    runs = [
        subprocess.Popen(argv, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        for _ in range(4)
    ]
    paths = []
    for run in runs:
        out, err = run.communicate(timeout=120)
        assert run.returncode == 0, err
        paths.append(json.loads(out)["record"])
    assert len(set(paths)) == 4
    records = sorted((tmp_path / "arena-records").iterdir())
    assert len(records) == 4
    # game, date, time to the microsecond, a random suffix: no place for the seed (a random
    # suffix may end in 7 by chance, so the test checks the shape, not the digit)
    named = re.compile(r"5211-\d{8}-\d{6}-\d{6}-[0-9a-f]{6}\.jsonl")
    assert all(named.fullmatch(path.name) for path in records), [p.name for p in records]

    record = tmp_path / "game.jsonl"
    record.write_text("precious\n")
    taken = arena(
        "match", "--game", "5211", "random", "random", "--record", record, cwd=tmp_path, code=2
    )
    assert f"--record {record} exists; add --force to overwrite it" in taken.stderr
    assert record.read_text() == "precious\n"
    arena(
        "match", "--game", "5211", "random", "random", "--record", record, "--force", cwd=tmp_path
    )
    assert record.read_text().startswith("{")


def test_a_faulted_seat_is_exit_code_3(tmp_path: Path) -> None:
    done = arena("match", "--game", "5211", "no-such-bot-xyz", "random", cwd=tmp_path, code=3)
    assert "No such file or directory" in done.stdout  # the seat's fault, in the table
    assert arena("match", "--game", "5211", "random", "random", cwd=tmp_path).returncode == 0


def test_version_and_exit_codes_in_help(tmp_path: Path) -> None:
    assert arena("--version", cwd=tmp_path).stdout.startswith("arena 0.")
    helped = arena("--help", cwd=tmp_path).stdout
    assert "exit codes:" in helped and "143" in helped and "a bot faulted" in helped
    assert "exit codes:" in arena("match", "--help", cwd=tmp_path).stdout


def test_a_command_imports_its_own_module_alone_and_a_mistake_lists_them_all() -> None:
    probe = (
        "import sys; from tournaments.cli import build_parser; build_parser(['games', '-h']); "
        "print(sorted(m for m in sys.modules if m.startswith('tournaments.commands.')))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.stdout.strip() == "['tournaments.commands.common', 'tournaments.commands.games']"
    mistaken = subprocess.run([*ARENA, "gmaes"], capture_output=True, text=True)
    assert (
        mistaken.returncode == 2 and "'league'" in mistaken.stderr and "'games'" in mistaken.stderr
    )


def test_impossible_times_are_refused_before_anything_runs(tmp_path: Path) -> None:
    for flag, value, message in [
        ("--move-ms", "-5", "move_ms = -5: must be from 1"),
        ("--move-ms", "0", "(0 would forfeit at once)"),
        ("--bank-ms", "-1", "bank_ms = -1: must be from 0"),
        ("--startup-ms", "0", "startup_ms = 0"),
        ("--move-ms", "fast", "'fast' is not a whole number of ms"),
    ]:
        refused = arena(
            "match", "--game", "5211", "random", "random", flag, value, cwd=tmp_path, code=2
        )
        assert message in refused.stderr, flag
    assert not (tmp_path / "arena-records").exists()


def test_header_shows_the_settings_and_a_timeout_has_no_ms_per_decision(tmp_path: Path) -> None:
    done = arena(
        "match",
        "--game",
        "5211",
        SILENT,
        "random",
        "--move-ms",
        "300",
        "--bank-ms",
        "100",
        "--memory-mb",
        "0",
        "--sandbox",
        "none",
        cwd=tmp_path,
        code=3,
    )
    lines = done.stdout.splitlines()
    header = lines[1]
    assert 'variant="standard"' in header
    assert "300 ms/decision, bank 100 ms" in header
    assert "memory unlimited" in header and "sandbox: none" in header
    silent = next(line for line in lines if line.strip().startswith("0 "))
    assert "timeout" in silent
    assert " – " in silent  # no decision answered: no ms/decision (not the time of the wait)
    assert "1001" not in silent and "400" not in silent.split("timeout")[0]


def test_games_prints_options_as_in_a_tournament_file(tmp_path: Path) -> None:
    table = arena("games", cwd=tmp_path).stdout
    assert "special_factories = false (bool)" in table
    assert 'variant = "standard" ("standard" | "grey")' in table


def test_sigterm_ends_a_match_cleanly(tmp_path: Path) -> None:
    marker = f"marker-{tmp_path.name}"
    waiting = f"{WAITING} {marker}"  # an extra argument that names this test's bot process
    match = subprocess.Popen(
        [*ARENA, "match", "--game", "5211", waiting, "random", "--move-ms", "60000"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = Deadline(60)
    while not _running(f"{marker}-asked"):  # the match waits for its first decision
        assert match.poll() is None and not deadline.passed(), "the bot was never asked"
        time.sleep(0.05)
    match.send_signal(signal.SIGTERM)
    out, err = match.communicate(timeout=30)
    assert match.returncode == 143, err
    assert err.strip().endswith("arena match: terminated (SIGTERM)")
    assert out == ""
    assert not _running(f"{marker}-asked")  # the referee's cleanup killed the bot


def _running(marker: str) -> bool:
    """Whether a live process has `marker` among its arguments (from /proc)."""
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            arguments = cmdline.read_bytes().split(b"\0")
        except OSError:
            continue
        if marker.encode() in arguments:
            return True
    return False
