"""`arena submit` against a real HTTP server on this machine, which records every request and
answers what each test says."""

from __future__ import annotations

import email.parser
import email.policy
import io
import json
import os
import socket
import tarfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tournaments.cli import main

TOKEN = "tok-3f9a1c77e2b54d0c8a6e"
PROXY_VARIABLES = ("http_proxy", "https_proxy", "all_proxy", "no_proxy")


@dataclass
class Field:
    filename: str | None
    data: bytes


@dataclass
class Received:
    method: str
    path: str
    headers: dict[str, str]
    fields: dict[str, Field]


@dataclass
class Server:
    url: str
    requests: list[Received] = field(default_factory=list)
    status: int = 201
    body: bytes = b""
    content_type: str = "application/json"
    headers: dict[str, str] = field(default_factory=dict)

    def answer(self, status: int, body: Any, content_type: str = "application/json") -> None:
        self.status = status
        self.body = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.content_type = content_type


def parse_form(content_type: str, body: bytes) -> dict[str, Field]:
    """The multipart body's fields, read by the standard library's MIME parser."""
    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
        f"Content-Type: {content_type}\r\n\r\n".encode() + body
    )
    assert message.is_multipart() and message.get_content_type() == "multipart/form-data"
    assert not message.defects, message.defects
    fields = {}
    for part in message.iter_parts():
        assert not part.defects, part.defects
        assert part.get_content_disposition() == "form-data"
        name = part.get_param("name", header="content-disposition")
        assert isinstance(name, str) and name not in fields
        data = part.get_payload(decode=True)
        assert isinstance(data, bytes)
        fields[name] = Field(part.get_filename(), data)
    return fields


@pytest.fixture(autouse=True)
def no_proxy_no_token(monkeypatch: pytest.MonkeyPatch) -> None:
    """Requests go straight to the test server, and no token comes from the environment."""
    for name in PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.upper(), raising=False)
    monkeypatch.delenv("ARENA_TOKEN", raising=False)


@pytest.fixture
def server() -> Iterator[Server]:
    state = Server(url="")

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["Content-Length"]))
            state.requests.append(
                Received(
                    "POST",
                    self.path,
                    dict(self.headers.items()),
                    parse_form(self.headers["Content-Type"], body),
                )
            )
            self.send_response(state.status)
            self.send_header("Content-Type", state.content_type)
            self.send_header("Content-Length", str(len(state.body)))
            for key, value in state.headers.items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(state.body)

        def do_GET(self) -> None:
            state.requests.append(Received("GET", self.path, dict(self.headers.items()), {}))
            self.send_error(404)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.url = f"http://127.0.0.1:{httpd.server_address[1]}"
    thread = threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield state
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=10)


def success(name: str, version: int = 3, status: str = "queued") -> dict[str, Any]:
    return {
        "bot": name,
        "version_id": version,
        "number": 2,
        "hash": "9c1d0e5b",
        "status": status,
        "url": f"/bots/{name}",
    }


def submit(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> tuple[int, str, str]:
    code = main(["submit", *map(str, argv)])
    out, err = capsys.readouterr()
    assert TOKEN not in out and TOKEN not in err, "the token is never printed"
    return code, out, err


def test_a_single_file_is_uploaded_whole_under_its_name_with_the_bearer_token(
    server: Server, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bot = tmp_path / "bot.py"
    # Every byte value, line ends of both kinds and the like of a boundary: all must arrive.
    content = b"print('hi')\r\n\n--boundary\r\n" + bytes(range(256)) * 4
    bot.write_bytes(content)
    server.answer(201, success("greedy-2", version=7, status="checking"))

    code, out, err = submit(capsys, server.url, bot, "--name", "greedy-2", "--token", TOKEN)

    page = f"{server.url}/bots/greedy-2"
    assert code == 0
    assert err == f"its check is still to come: follow it at {page}, or submit with --wait\n"
    assert out == f"submitted greedy-2 version 2 (9c1d0e5b, status checking): {page}\n"
    [request] = server.requests
    assert (request.method, request.path) == ("POST", "/api/versions")
    assert request.headers["Authorization"] == f"Bearer {TOKEN}"
    assert set(request.fields) == {"name", "file"}
    assert request.fields["name"] == Field(None, b"greedy-2")
    assert request.fields["file"] == Field("bot.py", content)


def test_a_base_path_is_kept_in_the_request_and_the_page_address_is_quoted(
    server: Server, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    archive = tmp_path / "my bot.zip"
    archive.write_bytes(b"PK\x05\x06" + bytes(18))
    server.answer(201, success("zipped bot"))

    code, out, _ = submit(
        capsys, f"{server.url}/league/", archive, "--name", "zipped bot", "--token", TOKEN
    )

    assert code == 0
    page = f"{server.url}/league/bots/zipped%20bot"
    assert out == f"submitted zipped bot version 2 (9c1d0e5b, status queued): {page}\n"
    [request] = server.requests
    assert request.path == "/league/api/versions"
    assert request.fields["name"].data == b"zipped bot"
    assert request.fields["file"] == Field("my bot.zip", archive.read_bytes())


def test_a_folder_is_packed_into_a_tar_gz_of_its_files_and_folders(
    server: Server, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "mybot"
    files = {
        "bot.toml": b'command = "python3 bot.py"\n',
        "bot.py": b"import lib.util\n",
        "lib/util.py": b"X = 1\n",
        "lib/deep/data.bin": bytes(range(256)),
    }
    for name, data in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(data)
    (folder / "bot.py").chmod(0o755)
    (folder / "empty").mkdir()
    for junk in ["__pycache__/bot.cpython-311.pyc", "lib/__pycache__/util.pyc", ".git/HEAD"]:
        (folder / junk).parent.mkdir(parents=True, exist_ok=True)
        (folder / junk).write_bytes(b"junk")
    server.answer(201, success("packed"))

    code, _, err = submit(capsys, server.url, folder, "--name", "packed", "--token", TOKEN)

    assert code == 0 and err.startswith("its check is still to come")
    [request] = server.requests
    upload = request.fields["file"]
    assert upload.filename == "mybot.tar.gz"
    with tarfile.open(fileobj=io.BytesIO(upload.data), mode="r:gz") as tar:
        members = tar.getmembers()
        assert {m.name for m in members if m.isfile()} == set(files)
        assert {m.name for m in members if m.isdir()} == {"lib", "lib/deep", "empty"}
        assert all(m.isfile() or m.isdir() for m in members)
        for name, data in files.items():
            extracted = tar.extractfile(name)
            assert extracted is not None and extracted.read() == data
        assert tar.getmember("bot.py").mode & 0o111, "the executable bit is kept"
        assert not tar.getmember("bot.toml").mode & 0o111


def test_a_symlink_in_the_folder_is_refused_before_any_request(
    server: Server, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "mybot"
    (folder / "lib").mkdir(parents=True)
    (folder / "bot.py").write_text("print(1)\n")
    (folder / "lib" / "secret").symlink_to(Path.home())

    code, out, err = submit(capsys, server.url, folder, "--name", "linked", "--token", TOKEN)

    assert (code, out) == (2, "")
    assert err.startswith("arena submit: error: ") and err.count("\n") == 1
    assert f"{folder / 'lib' / 'secret'} is a symbolic link" in err
    assert server.requests == []


def test_the_token_comes_from_ARENA_TOKEN_unless_given(
    server: Server,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    bot = tmp_path / "bot.py"
    bot.write_text("print(1)\n")
    server.answer(201, success("envbot"))
    monkeypatch.setenv("ARENA_TOKEN", TOKEN)

    assert submit(capsys, server.url, bot, "--name", "envbot")[0] == 0
    assert submit(capsys, server.url, bot, "--name", "envbot", "--token", "other-token")[0] == 0

    first, second = server.requests
    assert first.headers["Authorization"] == f"Bearer {TOKEN}"
    assert second.headers["Authorization"] == "Bearer other-token"


@pytest.mark.parametrize("environment", [None, ""])
def test_a_missing_token_is_refused_before_any_request(
    server: Server,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    environment: str | None,
) -> None:
    if environment is not None:
        monkeypatch.setenv("ARENA_TOKEN", environment)
    bot = tmp_path / "bot.py"
    bot.write_text("print(1)\n")

    code, out, err = submit(capsys, server.url, bot, "--name", "tokenless")

    assert (code, out) == (2, "")
    assert "no token: give --token TOKEN or set ARENA_TOKEN" in err
    assert server.requests == []


@pytest.mark.parametrize(
    ("status", "reason"),
    [
        (400, "bot.exe: a single file must be a script or an ELF executable"),
        (401, "no such token"),
        (403, "greedy belongs to another author"),
        (413, "the upload is over 20 MB"),
        (429, "too many uploads: wait 60 s"),
    ],
)
def test_a_refused_upload_prints_the_servers_reason_and_exits_2(
    server: Server,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    status: int,
    reason: str,
) -> None:
    bot = tmp_path / "bot.py"
    bot.write_text("print(1)\n")
    server.answer(status, {"error": reason})

    code, out, err = submit(capsys, server.url, bot, "--name", "greedy", "--token", TOKEN)

    assert (code, out) == (2, "")
    assert err == f"arena submit: error: {status}: {reason}\n"
    assert len(server.requests) == 1


def test_a_server_that_echoes_the_token_does_not_get_it_printed(
    server: Server, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bot = tmp_path / "bot.py"
    bot.write_text("print(1)\n")
    server.answer(401, {"error": f"no such token: {TOKEN}\x1b[2J"})

    code, _, err = submit(capsys, server.url, bot, "--name", "greedy", "--token", TOKEN)

    # `submit` asserts the token is absent; the terminal escape is neutralised too.
    assert code == 2
    assert err == "arena submit: error: 401: no such token: <token> [2J\n"


@pytest.mark.parametrize(
    ("status", "body", "content_type", "shown"),
    [
        (500, b'{"error": "database is locked"}', "application/json", "500: database is locked"),
        (502, b"<html>nginx</html>", "text/html", "502: Bad Gateway"),
        (503, b'{"detail": "down"}', "application/json", "503: Service Unavailable"),
    ],
)
def test_a_server_failure_exits_1(
    server: Server,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    status: int,
    body: bytes,
    content_type: str,
    shown: str,
) -> None:
    bot = tmp_path / "bot.py"
    bot.write_text("print(1)\n")
    server.answer(status, body, content_type)

    code, out, err = submit(capsys, server.url, bot, "--name", "greedy", "--token", TOKEN)

    assert (code, out) == (1, "")
    assert err == f"arena submit: error: {shown}\n"


def test_an_answer_that_is_not_a_submitted_version_exits_1(
    server: Server, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bot = tmp_path / "bot.py"
    bot.write_text("print(1)\n")
    server.answer(200, b"<html>a web page</html>", "text/html")

    code, out, err = submit(capsys, server.url, bot, "--name", "greedy", "--token", TOKEN)

    assert (code, out) == (1, "")
    assert "the server's answer is not a submitted version" in err and "a web page" in err


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
def test_a_redirect_is_not_followed_with_the_token(
    server: Server, tmp_path: Path, capsys: pytest.CaptureFixture[str], status: int
) -> None:
    bot = tmp_path / "bot.py"
    bot.write_text("print(1)\n")
    server.answer(status, b"", "text/plain")
    server.headers["Location"] = f"{server.url}/elsewhere/api/versions"

    code, out, err = submit(capsys, server.url, bot, "--name", "greedy", "--token", TOKEN)

    assert (code, out) == (1, "")
    assert f"{status}: the server redirects to {server.url}/elsewhere/api/versions" in err
    assert [request.path for request in server.requests] == ["/api/versions"]


def test_a_refused_connection_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bot = tmp_path / "bot.py"
    bot.write_text("print(1)\n")
    # A bound port that is not listening: connections to it are refused, and no other test
    # can take it meanwhile.
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{closed.getsockname()[1]}"

        code, out, err = submit(capsys, url, bot, "--name", "greedy", "--token", TOKEN)

    assert (code, out) == (1, "")
    assert err == f"arena submit: error: cannot reach {url}: {os.strerror(111)}\n"


def test_json_prints_the_servers_answer(
    server: Server, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bot = tmp_path / "bot.py"
    bot.write_text("print(1)\n")
    answer = success("jsonbot", version=12, status="playing")
    server.answer(201, answer)

    code, out, _ = submit(capsys, server.url, bot, "--name", "jsonbot", "--token", TOKEN, "--json")

    assert code == 0
    assert json.loads(out) == answer


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("ftp://example.org", "starting with http:// or https://"),
        ("example.org:8000", "starting with http:// or https://"),
        ("http://", "starting with http:// or https://"),
        ("https://example.org/?league=1", "without a query or fragment"),
        ("https://example.org/#top", "without a query or fragment"),
        ("https://example.org:http/", "the port is not a number"),
    ],
)
def test_a_url_that_is_not_a_servers_address_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], url: str, message: str
) -> None:
    bot = tmp_path / "bot.py"
    bot.write_text("print(1)\n")

    code, out, err = submit(capsys, url, bot, "--name", "greedy", "--token", TOKEN)

    assert (code, out) == (2, "")
    assert err.startswith(f"arena submit: error: URL {url!r}") and message in err


def test_a_missing_file_is_refused_before_any_request(
    server: Server, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "nobot.py"

    code, out, err = submit(capsys, server.url, missing, "--name", "greedy", "--token", TOKEN)

    assert (code, out) == (2, "")
    assert err == f"arena submit: error: {missing}: no such file or folder\n"
    assert server.requests == []


@pytest.mark.parametrize("token", ["two words", "line\nbreak", "tök"])
def test_a_token_that_cannot_be_sent_is_refused_without_showing_it(
    server: Server, tmp_path: Path, capsys: pytest.CaptureFixture[str], token: str
) -> None:
    bot = tmp_path / "bot.py"
    bot.write_text("print(1)\n")

    code, out, err = submit(capsys, server.url, bot, "--name", "greedy", "--token", token)

    assert (code, out) == (2, "")
    assert err == (
        "arena submit: error: the token in --token is not usable: a token is printable ASCII "
        "without spaces; copy it again\n"
    )
    assert server.requests == []
