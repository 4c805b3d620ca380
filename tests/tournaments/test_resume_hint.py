"""The command printed to resume a stopped run is the one that finishes it: it repeats every flag
that changed the schedule or the settings; and a run whose schedule is smaller than what the
store holds says so (issue 23, item 3)."""

from __future__ import annotations

import re
import shlex
import signal
import subprocess
from pathlib import Path

import pytest
from tourhelp import ARENA_CTRL_C, Gate, arena, stored_games

from tournaments.cli import build_parser
from tournaments.commands.tournament import resume_command

TOURNAMENT = """
game = "5211"
deals = 2
seed = 11
concurrency = 1
sandbox = "none"

[participants]
random = "random"
random-twin = "random"

[time]
move_ms = 5000
"""

OVERRIDES = [
    *("--db", "elsewhere.sqlite", "--concurrency", "3", "--executor", "inprocess"),
    *("--deals", "40", "--seed", "9", "--max-seat-sets", "4"),
    *("--move-ms", "4000", "--bank-ms", "100", "--increment-ms", "5", "--startup-ms", "9000"),
    *("--sandbox", "none", "--time-mode", "cpu"),
]


def test_the_hint_repeats_every_flag_that_overrides_the_file() -> None:
    parser = build_parser()
    given = parser.parse_args(["run", "cup league.toml", *OVERRIDES, "-q", "--strict"])
    hint = resume_command(given)
    words = shlex.split(hint)
    assert words[:3] == ["arena", "run", "cup league.toml"]
    again = parser.parse_args(words[1:])
    for flag in OVERRIDES[::2]:
        dest = flag.lstrip("-").replace("-", "_")
        assert getattr(again, dest) == getattr(given, dest), flag
    # `--dask ADDRESS` stands for the executor and its scheduler; nothing given, nothing added.
    dask = parser.parse_args(["run", "cup.toml", "--dask", "tcp://h:8786"])
    assert shlex.split(resume_command(dask))[3:] == ["--dask", "tcp://h:8786"]
    assert resume_command(parser.parse_args(["run", "cup.toml"])) == "arena run cup.toml"


@pytest.mark.slow
def test_an_interrupted_run_resumes_with_its_flags_and_a_smaller_one_says_so(
    tmp_path: Path,
) -> None:
    file = tmp_path / "cup.toml"
    db = file.with_suffix(".sqlite")
    gate = Gate(tmp_path)
    gate.limit(7)  # random-twin's check and 6 games, then it holds
    twin = f"random-twin = {gate.bot('random')}"
    file.write_text(TOURNAMENT.replace('random-twin = "random"', twin))
    flags = ["--deals", "40", "--seed", "9", "--move-ms", "3600000"]  # no held move times out
    runner = subprocess.Popen(
        [*ARENA_CTRL_C, "run", str(file), *flags, "-q"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        gate.wait_held(db, games=6)
        runner.send_signal(signal.SIGINT)
        _, err = runner.communicate(timeout=30)
    finally:  # a failed test leaves no run behind
        if runner.poll() is None:
            runner.kill()
            runner.communicate()
    assert runner.returncode == 130, err
    found = re.search(r"Run `([^`]*)` again to resume", err)
    assert found, err
    hint = shlex.split(found[1])
    assert hint == ["arena", "run", str(file), *flags]
    partial = stored_games(db)
    assert 6 <= partial < 80
    gate.open()

    # What the old hint said: the file's 2 deals. It says that the store holds more.
    smaller = arena("run", file, "--seed", "9", "--move-ms", "3600000", "-q").stderr
    held = re.search(r"the store holds games of deals up to (\d+)", smaller)
    assert held, smaller
    top = int(held[1])
    assert 2 <= top < 40
    assert f"this run's schedule has 2 deals per seat-set; run with --deals {top + 1}" in smaller

    # The hint, as printed, finishes the interrupted run: every game of 40 deals, no warning.
    finished = arena(*hint[1:])
    assert stored_games(db) == 40 * 2
    assert "the store holds" not in finished.stderr
    assert "80 in the schedule" in finished.stderr
