"""`arena league` offline: tokens, and disabling and enabling bots and authors on the league's
files (a league whose server will not start is mended this way)."""

from __future__ import annotations

import csv
import stat
from pathlib import Path

import pytest

from tournaments.cli import main
from tournaments.league.files import League, ServeLock

LEAGUE = """
game = "azul"
players = 2

[league]
"""


@pytest.fixture
def league(tmp_path: Path) -> Path:
    file = tmp_path / "cup.toml"
    file.write_text(LEAGUE)
    return file


def test_a_token_is_printed_once_and_a_disabled_authors_says_so(
    league: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["league", "token", str(league), "alice"]) == 0
    out, err = capsys.readouterr()
    first = out.strip()
    assert first.startswith("arena_") and "keep it" in err and "disabled" not in err
    assert main(["league", "disable-author", str(league), "alice"]) == 0
    assert "author alice disabled" in capsys.readouterr().err
    assert main(["league", "token", str(league), "alice"]) == 0
    out, err = capsys.readouterr()
    assert "alice is disabled: this token works once they are enabled" in err
    assert f"arena league enable-author {league} alice" in err
    with League(league) as opened:
        assert opened.registry.author_for(out.strip()) is None
        assert opened.registry.author_for(first) is None
    assert main(["league", "enable-author", str(league), "alice"]) == 0
    with League(league) as opened:
        assert opened.registry.author_for(out.strip()) is not None


def test_a_bot_is_disabled_and_enabled_offline(
    league: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with League(league) as opened:
        author = opened.registry.author_for(opened.registry.new_token("alice"))
        assert author is not None
        version = opened.registry.add_version(author.id, "loop", "h1", "./bot", None)
    assert main(["league", "disable-bot", str(league), "loop"]) == 0
    with League(league) as opened:
        assert opened.registry.queued() == []  # its check waits: it froze the server
    assert main(["league", "enable-bot", str(league), "loop"]) == 0
    with League(league) as opened:
        assert [v.id for v in opened.registry.queued()] == [version.id]
    assert main(["league", "disable-bot", str(league), "nobody"]) == 2
    assert "no uploaded bot named 'nobody'" in capsys.readouterr().err


def test_a_file_without_a_league_table_is_said_to_be_no_league(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    file = tmp_path / "cup.toml"
    file.write_text('game = "azul"\nplayers = 2\n')  # no participants either
    assert main(["league", "token", str(file), "alice"]) == 2
    err = capsys.readouterr().err
    assert "has no [league] table: it is a tournament file" in err
    assert "participants" not in err


def test_freeze_needs_the_server_stopped_and_a_field_for_a_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    file = tmp_path / "cup.toml"
    file.write_text(LEAGUE.replace("[league]", '[participants]\nhouse = "random"\n\n[league]'))
    assert main(["league", "freeze", str(file), "--budget", "100"]) == 2
    assert "a final needs 2 bots for a game; 1 play now" in capsys.readouterr().err
    file.write_text(
        file.read_text().replace('house = "random"', 'house = "random"\nother = "greedy"')
    )
    with League(file) as league, ServeLock(league):
        assert main(["league", "freeze", str(file), "--budget", "100"]) == 2
        err = capsys.readouterr().err
        assert "another `arena serve`" in err and "freeze it from the server's /league page" in err
        assert "uploads twice" not in err
    assert main(["league", "freeze", str(file), "--budget", "100"]) == 0
    assert "season 1 frozen for its final of at most 100 games" in capsys.readouterr().err
    with League(file) as league:
        season = league.registry.season()
        assert (season.number, season.budget) == (1, 100) and season.frozen is not None
    assert main(["league", "freeze", str(file), "--budget", "100"]) == 2
    assert "season 1 is frozen already" in capsys.readouterr().err


def _csv_rows(path: Path) -> dict[str, str]:
    with path.open(newline="") as opened:
        header, *rows = csv.reader(opened)
    assert header == ["name", "token"]
    return dict(rows)


def test_a_roster_gets_its_tokens_in_one_private_file(
    league: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    roster = tmp_path / "class.txt"
    students = [f"student-{i:03d}" for i in range(300)]
    roster.write_text("# autumn class\n" + "\n".join(students) + "\n\n")
    out = tmp_path / "tokens.csv"
    assert (
        main(["league", "token", str(league), "ta", "--roster", str(roster), "--out", str(out)])
        == 0
    )
    assert stat.S_IMODE(out.stat().st_mode) == 0o600
    first = _csv_rows(out)
    assert list(first) == ["ta", *students]
    assert "301 tokens written" in capsys.readouterr().err
    with League(league) as opened:
        signed_in = {name: opened.registry.author_for(token) for name, token in first.items()}
        assert all(author and author.name == name for name, author in signed_in.items())

    again = tmp_path / "more.csv"
    assert main(["league", "token", str(league), "ta", "newcomer", "--out", str(again)]) == 0
    assert list(_csv_rows(again)) == ["newcomer"]  # ta keeps its token
    assert "1 already had a token, kept (--reissue replaces): ta" in capsys.readouterr().err
    reissued = tmp_path / "reissued.csv"
    assert main(["league", "token", str(league), "ta", "--reissue", "--out", str(reissued)]) == 0
    with League(league) as opened:
        assert opened.registry.author_for(first["ta"]) is None
        assert opened.registry.author_for(_csv_rows(reissued)["ta"]) is not None
        assert opened.registry.author_for(first["student-007"]) is not None


def test_a_roster_never_overwrites_a_file_nor_prints_tokens(
    league: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "tokens.csv"
    out.write_text("earlier roster\n")
    assert main(["league", "token", str(league), "ann", "bob", "--out", str(out)]) == 2
    assert "exists: it may hold tokens that cannot be shown again" in capsys.readouterr().err
    assert out.read_text() == "earlier roster\n"
    assert main(["league", "token", str(league), "ann", "bob"]) == 2
    out_text, err = capsys.readouterr()
    assert "add --out" in err and "arena_" not in out_text
    with League(league) as opened:  # no token was made that nobody could read
        assert opened.registry.author("ann") is None


def test_the_help_says_an_author_and_lists_the_leagues_own_exit_codes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        main(["league", "--help"])
    out = capsys.readouterr().out
    assert "disable an author" in out and "enable an author" in out and "a author" not in out
    assert "disable a bot" in out
    assert "exit codes:" in out and "server runs the league" in out
    assert "replay diverges" not in out and "--strict" not in out  # `arena run`'s
