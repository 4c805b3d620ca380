"""The league server for real: `arena serve` on a loopback port, uploads through its API and
`arena submit`, bad uploads and tokens refused with their reasons, the leaderboard against
`arena table`, a SIGKILL mid-ladder, and bot-controlled text that must stay text."""

from __future__ import annotations

import io
import json
import re
import signal
import sys
import tarfile
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from leaguehelp import (
    BOT,
    LEAGUE,
    Running,
    page_as,
    signed_in,
    token,
    zipped,
)
from patience import Deadline

from tournaments.cli import main
from tournaments.league.files import League
from tournaments.store.store import Store

pytestmark = pytest.mark.slow


@pytest.fixture
def league(tmp_path: Path) -> Path:
    file = tmp_path / "cup.toml"
    file.write_text(LEAGUE)
    return file


@pytest.fixture
def served(league: Path) -> Iterator[Running]:
    running = Running(league)
    yield running
    if running.process.poll() is None:
        running.stop()
    else:  # it died during the test: its log says why (shown with the test's failure)
        running.drain.join(timeout=5)
        print(f"arena serve ended with {running.process.returncode}:", *running.log, sep="\n")


def stored_keys(league: Path) -> list[tuple[str, int, int]]:
    with Store(league.with_suffix(".sqlite"), readonly=True) as store:
        return [(game.seat_set, game.deal, game.rotation) for game in store.games()]


def test_uploads_in_each_form_play_on_the_ladder(
    league: Path, served: Running, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    alice = token(league, "alice")
    code, answer = served.upload(alice, "single", "bot.py", BOT.format(pick=0, name="s").encode())
    assert code == 201 and answer["status"] == "queued", answer
    archive = zipped(
        {
            "bot.toml": b'command = "python3 main.py"\n',
            "main.py": BOT.format(pick=0, name="z").encode(),
        }
    )
    (tmp_path / "zipped.zip").write_bytes(archive)
    folder = tmp_path / "folder"
    folder.mkdir()
    (folder / "bot.toml").write_text('command = "python3 main.py"\n')
    (folder / "main.py").write_text(BOT.format(pick="len(legal) - 1", name="f"))
    for name, path in [("zipped", tmp_path / "zipped.zip"), ("folder", folder)]:
        capsys.readouterr()
        code = main(["submit", served.url, str(path), "--name", name, "--token", alice])
        assert code == 0, capsys.readouterr()
    for bot in ("single", "zipped", "folder"):
        assert served.status(bot, {"playing", "rejected"})["status"] == "playing"
    deadline = Deadline(120)
    while {"single", "zipped", "folder"} - {  # each with a line of two games or more
        row["bot"]
        for row in json.loads(served.get("/api/leaderboard")[1])["standings"]
        if row["games"] >= 2
    }:
        assert not deadline.passed()
        time.sleep(0.5)
    code, page = served.get("/")
    assert code == 200 and 'href="/bots/folder"' in page
    code, page = served.get("/bots/folder")
    assert code == 200 and '<svg class="history"' in page  # its rating over time


def test_a_version_that_crashes_in_its_check_is_rejected_with_a_public_reason(
    league: Path, served: Running
) -> None:
    alice = token(league, "alice")
    cannot = served.upload(alice, "nostart", "crash.py", b"import sys\nsys.exit(3)\n")
    assert cannot[0] == 201
    rejected = served.status("nostart", {"playing", "rejected"})
    assert rejected["status"] == "rejected"
    assert rejected["reason"] == "crash during the handshake in its check game against random"
    code, page = served.get("/bots/nostart")
    assert code == 200 and "rejected" in page


def test_bot_controlled_text_stays_text(league: Path, served: Running) -> None:
    alice = token(league, "alice")
    script = "<script>alert(1)</script>"
    crash = f"import sys\nsys.stderr.write({script!r})\nsys.exit(3)\n".encode()
    assert served.upload(alice, "injector", "crash.py", crash)[0] == 201
    assert served.status("injector", {"playing", "rejected"})["status"] == "rejected"
    page = page_as(served, signed_in(served, alice), "/bots/injector")  # its check log
    assert "&lt;script&gt;" in page and script not in page
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        link = tarfile.TarInfo(script)  # its refusal names it, on the form's page
        link.type, link.linkname = tarfile.SYMTYPE, "/etc/passwd"
        archive.addfile(link)
    code, page = served.form_upload(alice, "named", "evil.tar.gz", buffer.getvalue())
    assert code == 400 and 'id="error"' in page
    assert "&lt;script&gt;" in page and script not in page
    code, page = served.form_upload(alice, "formed", "bot.py", b"print('hello')\n")
    assert code == 200 and "<h1>formed</h1>" in page  # redirected to the bot's page
    forged = served.post("/submit", {"name": "forged"}, "bot.py", b"", {})
    assert forged[0] == 401 and "sign in" in forged[1]  # no session
    session = signed_in(served, alice)
    forged = served.post("/submit", {"name": "forged"}, "bot.py", b"", {}, session)
    assert forged[0] == 403 and "another site" in forged[1]  # no CSRF field


def test_the_leaderboard_is_arena_tables_standings(
    league: Path, served: Running, capsys: pytest.CaptureFixture[str]
) -> None:
    alice = token(league, "alice")
    with League(league) as opened:
        boss = opened.registry.new_token("boss", organiser=True)
    served.upload(alice, "first", "bot.py", BOT.format(pick=0, name="first").encode())
    served.status("first", {"playing"})
    deadline = Deadline(120)
    while len(stored_keys(league)) < 10:
        assert not deadline.passed()
        time.sleep(0.3)
    request = urllib.request.Request(
        served.url + "/api/bots/first/disable", b"", {"Authorization": f"Bearer {boss}"}
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        assert response.status == 200  # one bot left: the ladder rests after its round
    while True:  # until the board shows every stored game and no game comes meanwhile
        assert not deadline.passed()
        time.sleep(0.5)
        board = json.loads(served.get("/api/leaderboard")[1])
        games = len(stored_keys(league))
        if board["games"] != games:
            continue
        capsys.readouterr()
        table = ["table", str(league.with_suffix(".sqlite")), "--json", "-t", "standings"]
        assert main(table) == 0
        if len(stored_keys(league)) == games:
            break
    assert board["standings"] == json.loads(capsys.readouterr().out)["standings"]
    code, page = served.get("/")
    assert code == 200 and f"{board['games']} games as of" in page


def test_the_leaderboard_lists_a_version_while_it_is_checked(league: Path, served: Running) -> None:
    alice = token(league, "alice")
    assert "Being checked" not in served.get("/")[1]
    slow = zipped(
        {
            "bot.toml": b'command = "python3 main.py"\nbuild = "sleep 2"\n',
            "main.py": BOT.format(pick=0, name="slow").encode(),
        }
    )
    assert served.upload(alice, "slow", "slow.zip", slow)[0] == 201
    page = served.get("/")[1]  # the same board as before: the page must not be the one kept
    assert re.search(r'"/bots/slow">slow</a>: (queued|building)', page), page
    served.status("slow", {"playing"})
    assert "Being checked" not in served.get("/")[1]


def test_a_killed_server_loses_no_game_and_plays_no_deal_twice(league: Path) -> None:
    alice = token(league, "alice")
    first = Running(league)
    first.upload(alice, "first", "bot.py", BOT.format(pick=0, name="first").encode())
    first.status("first", {"playing"})
    deadline = Deadline(120)
    while len(stored_keys(league)) < 6:
        assert not deadline.passed()
        time.sleep(0.2)
    first.stop(signal.SIGKILL)
    before = stored_keys(league)
    again = Running(league)
    try:
        second = again.upload(alice, "second", "b.py", BOT.format(pick=1, name="2").encode())
        assert second[0] == 201
        again.status("second", {"playing"})
        deadline = Deadline(120)
        while len(stored_keys(league)) < len(before) + 6:
            assert not deadline.passed()
            time.sleep(0.2)
    finally:
        assert again.stop() == 143
    after = stored_keys(league)
    assert set(before) <= set(after)
    assert len(after) == len(set(after))  # no (seat-set, deal, rotation) twice


def test_an_author_sees_only_their_own_bots_logs(league: Path, served: Running) -> None:
    alice, bob = token(league, "alice"), token(league, "bob")
    with League(league) as opened:
        boss = opened.registry.new_token("boss", organiser=True)
    secret = "alice's secret stderr"
    crash = f"import sys\nsys.stderr.write({secret!r})\nsys.exit(3)\n".encode()
    assert served.upload(alice, "crashy", "crash.py", crash)[0] == 201
    assert served.status("crashy", {"playing", "rejected"})["status"] == "rejected"
    assert 'id="logs"' in page_as(served, signed_in(served, alice), "/bots/crashy")
    assert "check" in page_as(served, signed_in(served, alice), "/bots/crashy")
    assert 'id="logs"' not in page_as(served, signed_in(served, bob), "/bots/crashy")
    anonymous = page_as(served, None, "/bots/crashy")
    assert 'id="logs"' not in anonymous and 'href="/signin"' in anonymous
    assert 'id="logs"' in page_as(served, signed_in(served, boss), "/bots/crashy")
    wrong = urllib.request.build_opener()
    with pytest.raises(urllib.error.HTTPError) as refused:  # a forged sign-in: no CSRF cookie
        wrong.open(served.url + "/signin", b"csrf=x&token=" + alice.encode(), timeout=30)
    refused.value.close()
    assert refused.value.code == 403


def test_without_the_server_extra_serve_says_what_to_install(
    league: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delitem(sys.modules, "tournaments.server.serve", raising=False)
    monkeypatch.setitem(sys.modules, "hypercorn", None)  # as if not installed
    monkeypatch.setitem(sys.modules, "hypercorn.trio", None)
    monkeypatch.setitem(sys.modules, "hypercorn.config", None)
    assert main(["serve", str(league)]) == 2
    err = capsys.readouterr().err
    assert "(hypercorn" in err and "is missing" in err and "pip install '.[server]'" in err


@pytest.mark.needs("node")
def test_the_league_page_hands_out_the_rules_the_protocol_and_the_kits(
    league: Path, served: Running, tmp_path: Path
) -> None:
    code, page = served.get("/league")
    assert code == 200
    for link in ("/docs/rules", "/docs/protocol", "/kits/starter-node.zip", "arena submit"):
        assert link in page
    code, rules = served.get("/docs/rules")
    assert code == 200 and "<code>azul</code>" in rules and "pattern line" in rules
    code, protocol = served.get("/docs/protocol")
    assert code == 200 and "The bot protocol" in protocol
    code, page = served.get("/bots/nobody")
    assert code == 404 and "No bot of this name" in page and "Versions" not in page
    code, page = served.get("/bots/random")  # the league file's house bot
    assert code == 200 and "A house bot of the league's file" in page
    assert served.get("/docs/nothing")[0] == 404
    assert served.get("/kits/starter-none.zip")[0] == 404
    with urllib.request.urlopen(served.url + "/kits/starter-node.zip", timeout=30) as response:
        kit = response.read()
        assert response.headers["Content-Type"] == "application/zip"
    # the kit as downloaded is an upload that plays
    code, body = served.upload(token(league, "alice"), "noder", "starter-node.zip", kit)
    assert code == 201, body
    assert served.status("noder", {"playing", "rejected"})["status"] == "playing"


def test_submit_wait_follows_a_version_to_playing_or_rejected(
    league: Path,
    served: Running,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ARENA_TOKEN", token(league, "alice"))
    good, bad = tmp_path / "good.py", tmp_path / "bad.py"
    good.write_text(BOT.format(pick=0, name="good"))
    bad.write_text("import sys\nprint('MY-OWN-OUTPUT', file=sys.stderr)\nsys.exit(3)\n")
    assert main(["submit", served.url, str(good), "--name", "waiter", "--wait"]) == 0
    out, err = capsys.readouterr()
    assert f"waiter version 1 plays: {served.url}/bots/waiter" in out
    assert "waiter version 1: checking" in err or "waiter version 1: playing" in err
    assert main(["submit", served.url, str(bad), "--name", "waiter", "--wait"]) == 1
    out, _ = capsys.readouterr()
    assert "waiter version 2 was rejected: crash during the handshake" in out
    assert "--- its check log ---" in out and "MY-OWN-OUTPUT" in out  # the author's own log


def test_the_pages_say_what_an_author_needs(league: Path, served: Running) -> None:
    """/league: the runtimes with their versions, the limits, a curl example; the leaderboard:
    a playing bot with its author and version before its first game; a bot page: reloading
    while checked; a sign-in outlives a restart."""
    code, page = served.get("/league")
    assert code == 200 and 'id="runtimes"' in page and "<code>python3</code>" in page
    assert "Python 3." in page and "MB of memory" in page and "curl -H" in page
    assert "from bots.sdk" not in page  # uploads do not see the framework
    alice = token(league, "alice")
    slow = "import time\ntime.sleep(3)\n" + BOT.format(pick=0, name="slow")
    assert served.upload(alice, "slowpoke", "bot.py", slow.encode())[0] == 201
    code, page = served.get("/bots/slowpoke")
    assert 'http-equiv="refresh"' in page and 'id="waiting"' in page
    served.status("slowpoke", {"playing"})
    code, page = served.get("/bots/slowpoke")
    assert 'http-equiv="refresh"' not in page
    code, page = served.get("/")
    listed = 'href="/bots/slowpoke">slowpoke</a> (alice, version 1)' in page
    assert listed or "<td>alice</td>" in page  # before its first game, or ranked with it
    opener = signed_in(served, alice)
    assert "Signed in as alice" in page_as(served, opener, "/")
    served.stop()
    again = Running(league)
    try:
        page = page_as(again, opener, "/")
        assert "Signed in as alice" in page and 'id="signed-out"' not in page  # kept
    finally:
        again.stop()


def test_fetch_lists_a_bots_games_and_downloads_its_authors_own_seats(
    league: Path,
    served: Running,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    alice, bob = token(league, "alice"), token(league, "bob")
    assert (
        served.upload(alice, "fetched", "bot.py", BOT.format(pick=0, name="f").encode())[0] == 201
    )
    assert served.status("fetched", {"playing", "rejected"})["status"] == "playing"
    deadline = Deadline(90)
    while not any("fetched" in seats for seats, _, _ in stored_keys(league)):
        assert not deadline.passed(), "no game of the new version was stored"
        time.sleep(0.2)

    monkeypatch.setenv("ARENA_TOKEN", alice)
    mine = tmp_path / "mine"
    args = ["fetch", served.url, "fetched", "--opponent", "random", "--count", "1"]
    assert main([*args, "--out", str(mine)]) == 0
    out = capsys.readouterr().out
    assert "fetched's result" in out and "wrote 2 records" in out
    (bundle,) = mine.glob("season-1-game-*-seat*.jsonl")
    (record,) = set(mine.glob("season-1-game-*.jsonl")) - {bundle}
    assert b'"observations"' in bundle.read_bytes() and b'"observations"' not in record.read_bytes()
    for path in (record, bundle):
        assert main(["replay", str(path)]) == 0, capsys.readouterr()

    monkeypatch.setenv("ARENA_TOKEN", bob)  # another author: the record, never the seats'
    theirs = tmp_path / "theirs"
    game = int(record.name.removeprefix("season-1-game-").removesuffix(".jsonl"))
    same = ["--before", str(game + 1)]  # the same game, though the ladder stored newer ones
    assert main([*args, *same, "--out", str(theirs)]) == 0
    assert [path.name for path in theirs.iterdir()] == [record.name]
    capsys.readouterr()
    assert main(["fetch", served.url, "nobody"]) == 2
    assert "404" in capsys.readouterr().err


def test_a_frozen_league_plays_its_final_and_opens_the_next_season(
    league: Path, served: Running
) -> None:
    alice = token(league, "alice")
    with League(league) as opened:
        boss = opened.registry.new_token("boss", organiser=True)
    assert (
        served.upload(alice, "finalist", "bot.py", BOT.format(pick=0, name="f").encode())[0] == 201
    )
    assert served.status("finalist", {"playing", "rejected"})["status"] == "playing"
    bearer = {"Authorization": f"Bearer {boss}"}
    code, text = served.post("/api/league/freeze", {"budget": "6"}, "none", b"", bearer)
    assert code == 200 and json.loads(text)["number"] == 1
    deadline = Deadline(120)
    while json.loads(served.get("/api/seasons/1")[1])["season"]["published"] is None:
        assert not deadline.passed(), "the final was not published"
        time.sleep(0.2)
    final = json.loads(served.get("/api/seasons/1")[1])["final"]
    assert final["games"] <= 6 and {row["bot"] for row in final["standings"]} == {
        "finalist",
        "random",
    }
    code, page = served.get("/seasons/1")
    assert code == 200 and "Final standings" in page
    assert "Season 1 is frozen" not in served.get("/")[1]
    with League(league) as opened:
        assert opened.registry.season().number == 2
