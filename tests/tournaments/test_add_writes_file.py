"""`arena add` writes the new participant into the tournament file, keeping every comment and
the layout, or says plainly that it could not (issue 23, item 14)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from tourhelp import arena

from tournaments.cli import main
from tournaments.plan.config import load
from tournaments.plan.prepare import prepare
from tournaments.plan.tomledit import add_participant

TOURNAMENT = """\
# The club's league.   Two spaces, odd   alignment: all of it must stay.
game = "5211"
deals = 1          # one deal per pairing
sandbox = "none"   # scripts in pytest's private tmp dirs

[participants]     # name = built-in bot or a command line
greedy   = "greedy"          # the yardstick
random = 'random'  # literal string, single quotes

# a comment between the participants and the time
[time]
move_ms = 5000
"""


def added_lines(before: str, after: str) -> list[str]:
    """The lines of `after` that are not in `before`, checking that every line of `before` is
    still there, unchanged and in order."""
    old = before.splitlines(keepends=True)
    new = after.splitlines(keepends=True)
    extra = []
    for line in new:
        if old and line == old[0]:
            old.pop(0)
        else:
            extra.append(line)
    assert not old, f"lines lost or changed: {old}"
    return extra


def test_the_participant_is_written_and_every_comment_kept(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    file = tmp_path / "cup.toml"
    file.write_text(TOURNAMENT)
    assert main(["add", str(file), "newbie", "random", "--no-run"]) == 0
    assert f'added `newbie = "random"` to {file}' in capsys.readouterr().err
    after = file.read_text()
    assert added_lines(TOURNAMENT, after) == ['newbie = "random"\n']
    # Right after the last participant: the comment before [time] stays with [time].
    assert "single quotes\nnewbie = " in after
    assert load(file).participants["newbie"] == "random"


@pytest.mark.parametrize(
    ("before", "after"),
    [
        (  # indented, CRLF: the new line is too
            'game = "azul"\r\n[participants]\r\n  a = "random"  # A\r\n\r\n[time]\r\n',
            'game = "azul"\r\n[participants]\r\n  a = "random"  # A\r\n  new = "greedy"\r\n'
            "\r\n[time]\r\n",
        ),
        (  # an inline table gets it inline
            'game = "azul"\nparticipants = {a = "random", b = "random"}  # two\n',
            'game = "azul"\nparticipants = {a = "random", b = "random", new = "greedy"}  # two\n',
        ),
        (  # only participant tables: a [participants] table of its own, before them
            'game = "azul"\n\n[participants.a]\ncommand = "random"\n\n'
            '[participants.b]\ncommand = "random"\n',
            'game = "azul"\n\n[participants]\nnew = "greedy"\n\n[participants.a]\n'
            'command = "random"\n\n[participants.b]\ncommand = "random"\n',
        ),
    ],
)
def test_other_layouts_keep_theirs(tmp_path: Path, before: str, after: str) -> None:
    file = tmp_path / "cup.toml"
    file.write_bytes(before.encode())
    assert add_participant(file, "new", "greedy") == 'new = "greedy"'
    assert file.read_bytes() == after.encode()
    assert load(file).participants["new"] == "greedy"


@pytest.mark.slow
def test_a_script_is_written_with_its_absolute_path_and_is_the_same_entry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Paths in the file are relative to the file, on the command line to the current directory:
    the file gets the absolute path, so the bot it names is the one that was checked and played
    (the same hash: the next run has nothing left to play)."""
    file = tmp_path / "cup.toml"
    file.write_text(TOURNAMENT)
    bots = tmp_path / "bots"
    bots.mkdir()
    (bots / "mine.py").write_text("from bots.random import choose\nfrom bots.sdk import run\n")
    with (bots / "mine.py").open("a") as script:
        script.write("run(choose)\n")
    monkeypatch.chdir(bots)
    arena("add", file, "mine", f"{sys.executable} mine.py", "-q")
    (line,) = added_lines(TOURNAMENT, file.read_text())
    assert line == f'mine = "{sys.executable} {bots / "mine.py"}"\n'
    assert "0 games played, 6 already stored" in arena("run", file).stderr


def test_an_unwritable_file_is_said_plainly_and_the_bot_still_joins(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    file = tmp_path / "cup.toml"
    file.write_text(TOURNAMENT)

    def refuse(source: object, target: object) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "replace", refuse)
    assert main(["add", str(file), "newbie", "random", "--no-run"]) == 0
    err = capsys.readouterr().err
    assert f"could not write newbie into {file}" in err and "Permission denied" in err
    assert "joins later runs through the store" in err
    assert file.read_text() == TOURNAMENT
    assert not [path for path in tmp_path.iterdir() if path.name.startswith(".")]  # no temporary
    prepared = prepare(file)
    try:
        assert "newbie" in [player.entrant.name for player in prepared.players]
    finally:
        prepared.close()
