"""A bot laid out as the README shows — its script beside the tournament file — sees, in the
sandbox, its own files and nothing the tools wrote there: not the report, the exports, the CSV
tables, the match records, the store or the logs, whose seeds would tell it the deals. The same
bot unsandboxed finds them all, which shows the search would see them if they were there."""

from __future__ import annotations

import ast
import re
import sqlite3
import sys
from pathlib import Path

import pytest

from tournaments.cli import main

TOURNAMENT = """
game = "5211"
players = 2
deals = 1
seed = 4
concurrency = 1
sandbox = "{sandbox}"

[participants]
greedy = "greedy"
random = "random"
"""

SNOOP = """
import os, sys
from bots.sdk import run

SYSTEM = ("/proc", "/sys", "/dev", "/usr", "/bin", "/sbin", "/lib", "/etc", "/opt")
PYTHON = {os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}
found = []
for root, dirs, files in os.walk(sys.argv[1].removeprefix("root=")):
    if root.startswith(SYSTEM) or any(root.startswith(p) for p in PYTHON):
        dirs[:] = []
        continue
    for name in files:
        path = os.path.join(root, name)
        try:
            with open(path, "rb") as file:
                file.read(1)
        except OSError:
            continue
        found.append(path)
print("READABLE " + repr(found), file=sys.stderr, flush=True)
run(lambda observation, legal, context: 0, name="snoop")
"""


def outputs(directory: Path, capsys: pytest.CaptureFixture[str], sandbox: str) -> Path:
    """Play the tournament in `directory`, then write everything the tools publish beside it:
    the report, the exports, CSV tables and a match record. Its tournament file."""
    directory.chmod(0o755)  # an ordinary directory (pytest makes its own 0700)
    file = directory / "cup.toml"
    file.write_text(TOURNAMENT.format(sandbox=sandbox))
    store = file.with_suffix(".sqlite")
    assert main(["run", str(file), "-q"]) == 0
    assert main(["report", str(store), "-j", "1"]) == 0  # the default: cup-report/
    assert main(["export", str(store), "-o", str(directory / "exported")]) == 0
    assert main(["table", str(store), "-t", "all", "--csv-dir", str(directory / "tables")]) == 0
    record = directory / "match.jsonl"
    argv = ["match", "--game", "5211", "random", "random", "--record", str(record), "-q"]
    assert main([*argv, "--sandbox", "none"]) == 0
    capsys.readouterr()
    return file


def readable_by_snoop(file: Path, root: str) -> list[Path]:
    """Add the snooping bot (its script beside the tournament file) and play its games: every
    file it could read under `root`, by the stderr it left in the logs."""
    snoop = file.with_name("snoop.py")
    snoop.write_text(SNOOP)
    assert main(["add", str(file), "snoop", f"{sys.executable} {snoop} root={root}", "-q"]) == 0
    logs = file.with_suffix(".logs")
    seen: set[Path] = set()
    for log in logs.iterdir():
        for line in re.findall(r"READABLE (\[.*\])", log.read_text()):
            seen |= {Path(path) for path in ast.literal_eval(line)}
    return sorted(seen)


def published(file: Path) -> tuple[set[int], list[Path]]:
    """Every seed the store holds, and every file the tools wrote (the bot's script aside)."""
    with sqlite3.connect(file.with_suffix(".sqlite")) as db:
        seeds = {int(row[0]) for row in db.execute("SELECT seed FROM games")}
    written = [p for p in file.parent.rglob("*") if p.is_file() and p.name != "snoop.py"]
    return seeds, written


def usable(path: Path, seeds: set[int], written: list[Path]) -> bool:
    """Whether `path` is one of the tools' files, or holds one of the seeds."""
    if path in written:
        return True
    try:
        data = path.read_bytes()
    except OSError:
        return False
    return any(str(seed).encode() in data for seed in seeds)


@pytest.mark.slow
def test_a_sandboxed_bot_beside_the_tournament_reads_nothing_the_tools_wrote(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    file = outputs(tmp_path, capsys, "bwrap")
    seen = readable_by_snoop(file, "/")
    seeds, written = published(file)
    assert file.with_name("snoop.py") in seen  # it does read: its own script
    assert len(written) > 10 and seeds
    assert [path for path in seen if usable(path, seeds, written)] == []


@pytest.mark.slow
def test_the_same_bot_unsandboxed_reads_them_all(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    file = outputs(tmp_path, capsys, "none")
    seen = readable_by_snoop(file, str(tmp_path))
    seeds, written = published(file)
    found = [path for path in seen if usable(path, seeds, written)]
    assert any("cup-report" in str(path) for path in found)
    assert any("exported" in str(path) for path in found)
    assert file.with_suffix(".sqlite") in found
