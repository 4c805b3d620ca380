"""The league attacked as a hostile author, web visitor and bot would, through HTTP against a real
`arena serve` on loopback with the real bwrap sandbox: as root and as a normal user (where the
sandbox has no uid of its own per bot), with the league kept under `/opt`, a folder the sandbox
binds for the system's runtimes (in a temporary folder when the tests do not run as root).

A spy bot looks for the other author's source, the organiser's private key, the registry and the
league's files everywhere its sandbox lets it (its named paths, and the whole file system but
the system's own folders) and reports in its check log, which its author reads signed in.
"""

from __future__ import annotations

import base64
import html
import json
import os
import re
import shutil
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.request
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from leaguehelp import (
    CLI,
    SERVERS,
    Running,
    as_user,
    page_as,
    python_for,
    server_uid,
    signed_in,
    zipped,
)
from patience import Deadline, stretch

from tournaments.league.files import League

pytestmark = [pytest.mark.slow, pytest.mark.needs("bwrap", "setpriv")]

MARK = os.urandom(6).hex()
ALICE_SOURCE, ALICE_STDERR = f"ALICE-SOURCE-{MARK}", f"ALICE-STDERR-{MARK}"
ORGANISER_KEY = f"ORGANISER-KEY-{MARK}"
SECRETS = [ALICE_SOURCE, ALICE_STDERR, ORGANISER_KEY, "CREATE TABLE authors", "token_hash"]
"""What no bot may read: another author's source and stderr, the organiser's private key, the
registry (its schema), the store and logs (alice's stderr is in them)."""

LEAGUE = """
game = "azul"
players = 2
concurrency = 1
sandbox = "bwrap"

[participants]
house = "random"

[time]
move_ms = 5000

[limits]
memory_mb = 1024
disk_mb = 32

[league]
batch = 2
upload_mb = 2
uploads_per_hour = 200
log_kb = 256
logs_mb = 1
build_s = 60
"""

PLAIN = """\
import json, sys
{extra}
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        {on_start}
        print(json.dumps({{"type": "ready", "name": "plain"}}), flush=True)
    elif message["type"] == "act":
        {on_act}
        print(json.dumps({{"type": "action", "id": message["id"], "index": 0}}), flush=True)
    elif message["type"] == "quit":
        break
"""
"""A bot of the standard library alone (an uploaded bot sees only the system's runtimes)."""

ALICE = PLAIN.format(
    extra=f"# {ALICE_SOURCE}",
    on_start="pass",
    on_act=f"print({ALICE_STDERR!r}, file=sys.stderr, flush=True)",
)

SPY = r"""
import os, sys
wanted = [bytes.fromhex(word) for word in sys.argv[1].split(",")]
found, read = [], 0
SKIP = ("/proc", "/sys", "/dev", "/usr", "/lib", "/lib32", "/lib64", "/libx32", "/bin", "/sbin")

def look(path):
    global read
    try:
        with open(path, "rb") as file:
            data = file.read(1 << 16)
    except OSError:
        return
    read += 1
    found.extend(f"{path}:{word.hex()}" for word in wanted if word in data)

def walk(top):
    top = os.path.abspath(top)
    if not os.path.isdir(top):
        return look(top)
    for folder, folders, files in os.walk(top):
        folders[:] = [f for f in folders if not os.path.join(folder, f).startswith(SKIP)]
        for name in files:
            look(os.path.join(folder, name))

for path in sys.argv[2:]:
    walk(path)
walk("/")
print(f"SPY read {read} files; found: {' '.join(found) or 'nothing'}", file=sys.stderr, flush=True)
sys.exit(3)
"""
"""Reads every path it is given and every file it can reach outside the system folders, and
says what it found of `wanted` (hex, so that its own files do not hold the words), then exits:
its check fails, and its report is in its check log."""


def hexed(words: list[str]) -> str:
    return ",".join(word.encode().hex() for word in words)


class Arena:
    """A served league with a victim (alice, her bot checked, its games and logs stored, and
    then off the ladder unless a test puts it on), an attacker (mallory), an organiser, and a
    private folder of the organiser's elsewhere (`organiser_dir`)."""

    def __init__(self, top: Path, organiser_dir: Path, uid: int | None, python: str) -> None:
        self.top, self.uid, self.python = top, uid, python
        self.folder = top / "league"
        self.folder.mkdir()
        self.file = self.folder / "cup.toml"
        self.file.write_text(LEAGUE)
        self.organiser_dir = organiser_dir
        key = self.organiser_dir / "id_rsa"
        key.write_text(f"-----BEGIN KEY-----\n{ORGANISER_KEY}\n")
        key.chmod(0o600)
        with League(self.file) as league:
            self.alice = league.registry.new_token("alice")
            self.mallory = league.registry.new_token("mallory")
            self.boss = league.registry.new_token("boss", organiser=True)
            self.registry = league.registry.path
            self.bots = league.bots_dir
        if uid is not None:
            for path in [top, *top.rglob("*"), organiser_dir, key]:
                os.chown(path, uid, uid)
        self.served = Running(self.file, uid, python)
        assert self.served.upload(self.alice, "alicebot", "alice.py", ALICE.encode())[0] == 201
        assert self.status("alicebot")["status"] == "playing"
        self.wait_alice_logged()
        self.alice_plays(False)  # the ladder rests until a test uploads a bot that plays

    def wait_alice_logged(self) -> None:
        """Until a ladder game of alice's is stored with her stderr's log (a secret to look
        for in the store and the logs)."""
        store = self.folder / "cup.sqlite"
        deadline = Deadline(120)
        while True:
            with sqlite3.connect(f"file:{store}?mode=ro", uri=True) as db:
                made = db.execute("SELECT 1 FROM sqlite_master WHERE name = 'logs'").fetchone()
                if made is not None and db.execute("SELECT 1 FROM logs").fetchone() is not None:
                    return
            assert not deadline.passed(), "alice's first ladder game was not stored"
            time.sleep(0.2)

    def alice_plays(self, playing: bool) -> None:
        """Put alice's bot on the ladder or take it off (with the house bot alone, the ladder
        plays nothing): tests whose bots need her as an opponent put her on."""
        with League(self.file) as league:
            league.registry.set_bot_disabled("alicebot", not playing)

    def status(self, bot: str, until: frozenset[str] = frozenset({"playing", "rejected"})) -> Any:
        return self.served.status(bot, set(until), timeout=120)

    def check_log(self, bot: str, token: str) -> str:
        """The bot's page as its signed-in author sees it (its logs included), as text."""
        return html.unescape(page_as(self.served, signed_in(self.served, token), f"/bots/{bot}"))


@pytest.fixture(scope="module", params=SERVERS)
def arena(request: pytest.FixtureRequest) -> Iterator[Arena]:
    uid = server_uid(request.param)
    root = os.geteuid() == 0
    top = Path(tempfile.mkdtemp(prefix="arena-sec-", dir="/opt" if root else None))
    organiser = Path(tempfile.mkdtemp(prefix="arena-organiser-"))
    try:
        python = sys.executable if uid is None else python_for(uid, top)
        made = Arena(top, organiser, uid, python)
        yield made
        made.served.stop()
    finally:
        shutil.rmtree(top, ignore_errors=True)
        shutil.rmtree(organiser, ignore_errors=True)


def worst_latency(served: Running, until: Any) -> float:
    """The slowest answer of the leaderboard's API while `until()` is false."""
    worst = 0.0
    while not until():
        began = time.monotonic()
        with urllib.request.urlopen(served.url + "/api/leaderboard", timeout=60) as answer:
            answer.read()
        worst = max(worst, time.monotonic() - began)
        time.sleep(0.05)
    return worst


def spied(arena: Arena, name: str, command_paths: list[str], build: str | None = None) -> str:
    """Upload a spy as mallory naming `command_paths`; its check log (it is rejected)."""
    command = " ".join(["python3", "spy.py", hexed([*SECRETS, f"OWN-{MARK}"]), *command_paths])
    manifest = f"command = {json.dumps(command)}\n"
    if build is not None:
        manifest += f"build = {json.dumps(build)}\n"
    files = {"bot.toml": manifest.encode(), "spy.py": SPY.encode(), "own.txt": f"OWN-{MARK}"}
    code, answer = arena.served.upload(arena.mallory, name, f"{name}.zip", zipped(files))
    assert code == 201, answer
    done: list[Any] = []

    def checked() -> bool:
        text = arena.served.get(f"/api/bots/{name}")[1]
        newest = json.loads(text)["versions"][-1]
        if newest["status"] in ("playing", "rejected"):
            done.append(newest)
        return bool(done)

    assert worst_latency(arena.served, checked) < 2.0 * stretch()  # nothing freezes the server
    assert done[0]["status"] == "rejected"
    return arena.check_log(name, arena.mallory)


def report(log: str) -> str:
    found = [line for line in log.splitlines() if "SPY read" in line]
    assert found, log[-3000:]
    return found[-1]


@pytest.mark.parametrize(
    "how", ["../..", "the league's folder", "the registry", "the organiser's folder", "endless"]
)
def test_an_upload_reads_nothing_but_its_own_folder(arena: Arena, how: str) -> None:
    named = {
        "../..": ["../..", "../../.."],
        "the league's folder": [str(arena.folder), str(arena.bots)],
        "the registry": [str(arena.registry)],
        "the organiser's folder": [str(arena.organiser_dir), str(arena.top)],
        "endless": ["/proc/self/pagemap", "/dev/zero"],
    }[how]
    name = "spy-" + "".join(char for char in how if char.isalpha())
    line = report(spied(arena, name, named))
    own = f"OWN-{MARK}".encode().hex()
    found = set(line.split("found: ", 1)[1].split())
    assert found == {f"/bot/own.txt:{own}"}, line  # the spy works (it finds its own file)


def test_a_link_made_by_the_build_leads_nowhere(arena: Arena) -> None:
    alice_dir = next(path for path in arena.bots.iterdir() if path.name == "alicebot")
    for target in ("../../alicebot", str(alice_dir)):
        name = f"linker{len(target)}"
        log = spied(arena, name, ["x"], build=f"ln -s {target} x")
        assert "a symbolic link to" in log and "outside the bot's folder" in log
        assert ALICE_SOURCE not in log
        assert json.loads(arena.served.get(f"/api/bots/{name}")[1])["versions"][-1]["reason"] == (
            "the built folder broke the upload rules"
        )


def test_a_build_past_its_disk_is_rejected_and_its_files_are_gone(arena: Arena) -> None:
    free = shutil.disk_usage(arena.top).free
    manifest = b'command = "./bot"\nbuild = "head -c 500000000 /dev/zero > big"\n'
    code, answer = arena.served.upload(
        arena.mallory, "filler", "f.zip", zipped({"bot.toml": manifest})
    )
    assert code == 201, answer
    version = arena.status("filler")
    assert version["status"] == "rejected" and "disk" in version["reason"], version
    assert not (arena.bots / "filler" / version["hash"]).exists()
    assert list((arena.bots / ".staging").iterdir()) == []
    assert free - shutil.disk_usage(arena.top).free < 100_000_000  # not the 500 MB


def raw(
    arena: Arena,
    head: str,
    body_bytes: int,
    chunk: int = 64 * 1024,
    chunked: bool = False,
    opening: bytes = b"",
) -> tuple[str, int]:
    """Send a request's head and the body's `opening` (in an HTTP chunk if `chunked`), then up
    to `body_bytes` more of body while the server has not answered; the status line it
    answered with, and how much body was sent by then."""
    piece = b"x" * chunk
    if chunked:
        piece = f"{chunk:x}\r\n".encode() + piece + b"\r\n"
        opening = f"{len(opening):x}\r\n".encode() + opening + b"\r\n" if opening else b""
    host, port = arena.served.url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=30) as sock:
        sock.sendall(head.encode() + opening)
        sent = 0
        sock.settimeout(0.05)
        answer = b""
        while b"\r\n" not in answer:
            try:
                data = sock.recv(4096)
                if not data:
                    break
                answer += data
                continue
            except TimeoutError:
                pass
            if sent < body_bytes:
                try:
                    sock.sendall(piece)
                except (BrokenPipeError, ConnectionResetError):
                    sock.settimeout(5)
                    continue
                sent += chunk
            else:
                sock.settimeout(10)
        return answer.split(b"\r\n", 1)[0].decode(), sent


def test_a_request_is_refused_before_its_body_without_a_token_or_over_the_size(
    arena: Arena,
) -> None:
    big = 100 * 1024 * 1024
    head = "POST /api/versions HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; "
    head += "boundary=b\r\n"
    for token, status in ((None, "401"), ("arena_wrong", "401"), (arena.mallory, "413")):
        auth = "" if token is None else f"Authorization: Bearer {token}\r\n"
        line, sent = raw(arena, f"{head}{auth}Content-Length: {big}\r\n\r\n", big)
        assert status in line and sent < 2 * 1024 * 1024, (line, sent)
    # No Content-Length: the body is cut off once it grows past the limit (2 MB and a form),
    # though it is a well-formed file part that never ends.
    auth = f"Authorization: Bearer {arena.mallory}\r\nTransfer-Encoding: chunked\r\n\r\n"
    part = b'--b\r\nContent-Disposition: form-data; name="file"; filename="x.bin"\r\n\r\n'
    line, sent = raw(arena, head + auth, big, chunk=256 * 1024, chunked=True, opening=part)
    assert "413" in line and sent < 4 * 1024 * 1024, (line, sent)
    # A session is a browser's token: the form refuses one without it before its body too.
    line, sent = raw(
        arena, f"POST /submit HTTP/1.1\r\nHost: x\r\nContent-Length: {big}\r\n\r\n", big
    )
    assert "401" in line and sent < 2 * 1024 * 1024, (line, sent)


def test_a_flooding_bots_logs_stop_at_the_cap(arena: Arena) -> None:
    flood = PLAIN.format(
        extra="", on_start="pass", on_act="sys.stderr.write('F' * 200000); sys.stderr.flush()"
    )
    assert arena.served.upload(arena.mallory, "flood", "flood.py", flood.encode())[0] == 201
    assert arena.status("flood")["status"] == "playing"
    store = arena.folder / "cup.sqlite"
    deadline = Deadline(240)
    while True:
        with sqlite3.connect(f"file:{store}?mode=ro", uri=True) as db:
            made = db.execute("SELECT 1 FROM sqlite_master WHERE name = 'logs'").fetchone()
            rows = (
                []
                if made is None
                else db.execute(
                    "SELECT logs.file, logs.bytes, logs.dropped FROM logs JOIN seats ON seats.game "
                    "= logs.game AND seats.seat = logs.seat JOIN bots ON bots.id = seats.bot "
                    "WHERE bots.name = 'flood'"
                ).fetchall()
            )
        if any(dropped for _, _, dropped in rows):
            break
        assert not deadline.passed(), len(rows)
        time.sleep(0.5)
    kept = [(file, size) for file, size, dropped in rows if not dropped]
    assert all(size <= 256 * 1024 + 4096 for _, size in kept)  # a game's cap, and its note
    assert sum(size for _, size in kept) <= 1024 * 1024  # the version's cap
    on_disk = sum((arena.folder / "cup.logs" / file).stat().st_size for file, _ in kept)
    assert on_disk == sum(size for _, size in kept)
    note = (arena.folder / "cup.logs" / kept[0][0]).read_text()
    assert "dropped" in note[-300:] or "cut" in note[-300:], note[-300:]
    page = arena.check_log("flood", arena.mallory)
    assert "Not kept: this version's logs had reached the league's limit." in page
    arena.served.get("/")  # (the league keeps serving)
    with League(arena.file) as league:
        league.registry.set_bot_disabled("flood", True)  # quiet for the tests after


def test_logs_belong_to_their_bot_by_record_not_by_name(arena: Arena) -> None:
    tricky = PLAIN.format(
        extra="", on_start="pass", on_act="print('MINE-OWN-LOG', file=sys.stderr, flush=True)"
    )
    long_name = "m" * 64
    arena.alice_plays(True)
    for name in ("seat0-alicebot", "alicebot-2", long_name):
        assert arena.served.upload(arena.mallory, name, "t.py", tricky.encode())[0] == 201
    for name in ("seat0-alicebot", "alicebot-2", long_name):
        assert arena.status(name)["status"] == "playing"
    session = signed_in(arena.served, arena.mallory)
    deadline = Deadline(180)
    while "MINE-OWN-LOG" not in page_as(arena.served, session, f"/bots/{long_name}"):
        assert not deadline.passed()
        time.sleep(1)
    for name in ("seat0-alicebot", "alicebot-2", long_name):
        assert ALICE_STDERR not in page_as(arena.served, session, f"/bots/{name}")
    deadline = Deadline(180)
    alice = signed_in(arena.served, arena.alice)
    while ALICE_STDERR not in page_as(arena.served, alice, "/bots/alicebot"):
        assert not deadline.passed()
        time.sleep(1)
    assert "MINE-OWN-LOG" not in page_as(arena.served, alice, "/bots/alicebot")
    with League(arena.file) as league:
        for name in ("seat0-alicebot", "alicebot-2", long_name):
            league.registry.set_bot_disabled(name, True)
    arena.alice_plays(False)


def test_signed_out_pages_and_apis_show_no_output_or_path(arena: Arena) -> None:
    loud = f"import sys\nprint('LOUD-{MARK}', sys.argv, __file__, file=sys.stderr)\nsys.exit(3)\n"
    assert arena.served.upload(arena.mallory, "loud", "loud.py", loud.encode())[0] == 201
    assert arena.status("loud")["status"] == "rejected"
    public = [arena.served.get(path)[1] for path in ("/bots/loud", "/api/bots/loud", "/")]
    public.append(page_as(arena.served, signed_in(arena.served, arena.alice), "/bots/loud"))
    for text in public:
        assert f"LOUD-{MARK}" not in text and str(arena.top) not in text, text[-2000:]
        assert "/bot/" not in text
    assert "crash during the handshake" in public[1]  # what and where, for everyone
    own = arena.check_log("loud", arena.mallory)
    assert f"LOUD-{MARK}" in own  # its author sees it


def viewed(page: str) -> str:
    """The game a viewer page holds, as text (it is packed: zlib, then base64)."""
    packed = re.search(r'\("game","([A-Za-z0-9+/=]+)"\)', page)
    assert packed is not None, page[-500:]
    return zlib.decompress(base64.b64decode(packed[1])).decode()


def test_a_faults_reason_is_its_authors_and_never_on_a_public_page(arena: Arena) -> None:
    """A bot crashing mid-game: its stderr is in its fault's reason, which the game's public
    page, its opponent's author and the signed out never see; no server path shows there."""
    crasher = PLAIN.format(  # its check is one game; it crashes in a process's second
        extra="starts = acts = 0",
        on_start="starts += 1",
        on_act=f"acts += 1\n        if starts == 2 and acts > 30: print('CRASH-{MARK}', "
        "file=sys.stderr); sys.exit(5)",
    )
    arena.alice_plays(True)
    assert arena.served.upload(arena.mallory, "crasher", "c.py", crasher.encode())[0] == 201
    assert arena.status("crasher")["status"] == "playing"
    mine = signed_in(arena.served, arena.mallory)
    deadline = Deadline(120)
    while f"CRASH-{MARK}" not in (own := page_as(arena.served, mine, "/bots/crasher")):
        assert not deadline.passed(), own[-2000:]
        time.sleep(1)
    found = re.search(r'class="fault" href="/seasons/1/games/(\d+)#', own)
    assert found is not None, own[-2000:]
    game = found[1]
    public = [
        viewed(arena.served.get(f"/games/{game}")[1]),
        arena.served.get("/bots/crasher")[1],
        page_as(arena.served, signed_in(arena.served, arena.alice), "/bots/alicebot"),
    ]
    for text in public:
        assert f"CRASH-{MARK}" not in text and str(arena.top) not in text
        assert "/root/" not in text and sys.prefix not in text
    assert '"kind":"crash"' in public[0], public[0][-3000:]  # what happened, for everyone
    with League(arena.file) as league:
        league.registry.set_bot_disabled("crasher", True)
    arena.alice_plays(False)


def test_organiser_actions_stick_and_end_sessions(arena: Arena) -> None:
    served = arena.served

    def post(path: str) -> int:
        request = urllib.request.Request(
            served.url + path, b"", {"Authorization": f"Bearer {arena.boss}"}, method="POST"
        )
        with urllib.request.urlopen(request, timeout=30) as answer:
            return int(answer.status)

    bot = PLAIN.format(extra="", on_start="pass", on_act="pass")
    assert served.upload(arena.mallory, "sticky", "s.py", bot.encode())[0] == 201
    assert arena.status("sticky")["status"] == "playing"
    assert post("/api/bots/sticky/disable") == 200
    changed = bot.replace("plain", "plain2")
    assert served.upload(arena.mallory, "sticky", "s.py", changed.encode())[0] == 201
    time.sleep(3)  # the checks run at once; a disabled bot's upload waits
    answer = json.loads(served.get("/api/bots/sticky")[1])
    assert answer["disabled"] and answer["versions"][-1]["status"] == "queued"
    table, *unplaced = served.get("/")[1].split("Being checked")[0].split("<h2>")
    assert all("sticky" not in part for part in unplaced)  # not listed as playing
    assert ">sticky</a></td>" not in table  # a row of its games so far says it is disabled
    assert post("/api/bots/sticky/enable") == 200
    assert arena.status("sticky")["status"] == "playing"  # its new version checked and playing
    session = signed_in(served, arena.mallory)
    assert "Signed in as mallory" in page_as(served, session, "/")
    assert post("/api/authors/mallory/disable") == 200
    assert "Signed in as mallory" not in page_as(served, session, "/")
    assert post("/api/authors/mallory/enable") == 200
    assert "Signed in as mallory" not in page_as(served, session, "/")  # ended for good
    session = signed_in(served, arena.mallory)
    with League(arena.file) as league:
        arena.mallory = league.registry.new_token("mallory")  # re-issued: sessions end
    if arena.uid is not None:
        os.chown(arena.registry, arena.uid, arena.uid)
    assert "Signed in as mallory" not in page_as(served, session, "/")
    assert "Signed in as mallory" in page_as(served, signed_in(served, arena.mallory), "/")
    assert post("/api/bots/sticky/disable") == 200  # quiet for the tests after


@pytest.mark.parametrize("name", ["AliceBot", "alicebot.", "alice_bot", "House", "RANDOM"])
def test_look_alike_names_are_refused_naming_the_name(arena: Arena, name: str) -> None:
    code, answer = arena.served.upload(arena.mallory, name, "x.py", b"print(1)\n")
    assert code == 403 and "too close to the league's" in answer["error"], answer


def test_malformed_requests_are_refused_with_a_4xx(arena: Arena) -> None:
    served = arena.served
    bearer = {"Authorization": f"Bearer {arena.mallory}"}
    multipart = {**bearer, "Content-Type": "multipart/form-data; boundary=b"}
    urlencoded = {**bearer, "Content-Type": "application/x-www-form-urlencoded"}
    cases: list[tuple[str, str, bytes, dict[str, str]]] = [
        ("POST", "/api/versions", b"garbage", {**bearer, "Content-Type": "multipart/form-data"}),
        ("POST", "/api/versions", b"--b\r\nbroken", multipart),
        ("POST", "/api/versions", b"a=b", urlencoded),
        ("POST", "/api/versions", b"{}", {**bearer, "Content-Type": "application/json"}),
        ("GET", "/games/99999999999999999999999", b"", {}),
        ("GET", "/games/-1", b"", {}),
        ("GET", "/bots/%00", b"", {}),
        ("GET", "/api/bots/" + "x" * 5000, b"", {}),
        ("POST", "/api/bots/alicebot/explode", b"", bearer),
        ("POST", "/api/authors/nobody/disable", b"", {"Authorization": f"Bearer {arena.boss}"}),
        ("POST", "/signin", b"\xff\xfe", {"Content-Type": "application/x-www-form-urlencoded"}),
        ("POST", "/signout", b"", {}),
    ]  # fmt: skip
    for method, path, body, headers in cases:
        request = urllib.request.Request(served.url + path, body or None, headers, method=method)
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:
                code = answer.status
        except urllib.error.HTTPError as error:
            error.close()
            code = error.code
        assert 400 <= code < 500, (method, path, code)
    code, answer = served.upload(arena.mallory, "newline\n", "x.py", b"print(1)\n")
    assert code == 400 and "bot name" in answer["error"]
    assert not any("newline" in path.name for path in arena.bots.iterdir())


def test_a_second_server_on_the_league_is_refused_naming_the_first(arena: Arena) -> None:
    drop = [] if arena.uid is None else as_user(arena.uid)
    second = subprocess.run(
        [*drop, arena.python, "-c", CLI, "serve", str(arena.file), "--port", "0"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "HOME": str(arena.folder)},
    )
    assert second.returncode != 0
    assert f"another `arena serve` (PID {arena.served.process.pid})" in second.stderr, second.stderr
