"""`arena submit URL FILE --name NAME`: upload a bot (a file, an archive or a folder) to a league
server, as its author (a bearer token), through the league's client (`commands.client`).

Only the standard library: the multipart body is built here.
"""

from __future__ import annotations

import argparse
import io
import os
import secrets
import stat
import sys
import tarfile
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import msgspec

from protocol.errors import ArenaError
from tournaments.commands.client import (
    TOKEN_VARIABLE,
    base_url,
    find_token,
    request_json,
    send,
    shown,
    shown_log,
)
from tournaments.commands.common import EXIT_ERROR, EXIT_OK, EXIT_USAGE
from tournaments.errors import UsageError
from tournaments.league.api_answers import BotAnswer, VersionAnswer, VersionRow
from tournaments.output import render_json

WAIT_S = 900.0
POLL_S = 1.0
"""How often `--wait` asks for the version's status."""
SKIPPED = frozenset({"__pycache__", ".git"})
"""Names left out of a packed folder, wherever they are (Python's caches, a git checkout)."""

EPILOG = f"""\
environment:
  {TOKEN_VARIABLE}  your author token, used when --token is not given; prefer it to --token,
               which other users of this machine can read in the process list

exit codes:
  {EXIT_OK}    submitted (with --wait: and it passed its check: it plays, or, while the
       season is frozen for its final, it plays from the next season)
  {EXIT_ERROR}    with --wait, the version was rejected (the reason and its log are printed),
       or its bot is disabled by the organisers (said at once);
       or the server failed (5xx), redirected, answered what a league server does not,
       or cannot be reached
  {EXIT_USAGE}    a mistake in the command line (URL, FILE, no token), or the server refused
       the upload (4xx: bad upload, unknown token, another author's bot, too large, rate
       limited; its reason is printed)"""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "submit",
        help="upload a bot to a league server",
        description="Upload a bot to a league server (`POST URL/api/versions`) as a new version "
        "of the bot NAME. FILE is a .zip, a .tar.gz (.tgz) or a single file (such as bot.py), "
        "sent as it is, or a folder, packed into a .tar.gz first: its regular files and "
        "folders, with paths relative to it, leaving out __pycache__ and .git; a symbolic link "
        "in it is refused. On success, the version number the server gave the upload, its "
        "status and the address of the bot's page are printed.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "url",
        metavar="URL",
        help="the league server's address, http:// or https://, with the base path it is "
        "served under if any (https://example.org or https://example.org/league/); no query "
        "or fragment",
    )
    parser.add_argument(
        "file", metavar="FILE", type=Path, help="the bot: a .zip, .tar.gz, .tgz, file or folder"
    )
    parser.add_argument("--name", required=True, help="the bot's name in the league")
    parser.add_argument(
        "--token",
        help=f"your author token (default: the environment variable {TOKEN_VARIABLE}); never "
        "printed",
    )
    parser.add_argument("--json", action="store_true", help="print the server's answer as JSON")
    parser.add_argument(
        "--wait",
        action="store_true",
        help="follow the version until it plays or is rejected, printing each step; exit 0 if "
        "it plays (or will, from the next season, while this one's final plays), 1 if it is "
        "rejected (its reason and its build and check log printed) or its bot is disabled",
    )
    parser.add_argument(
        "--wait-s",
        type=float,
        default=WAIT_S,
        metavar="S",
        help="with --wait, give up after S seconds (default: %(default)s)",
    )
    parser.set_defaults(handler=handle)


@dataclass(frozen=True)
class Upload:
    filename: str
    data: bytes


def handle(args: argparse.Namespace) -> int:
    base = base_url(args.url)
    if not args.name.strip():
        raise UsageError("--name is empty: give the bot's name in the league")
    token = find_token(args.token)
    upload = read_upload(args.file)
    answer = post(base, token, args.name, upload)
    page = page_url(base, answer)
    if args.json:
        print(render_json(msgspec.to_builtins(answer)))
    else:
        print(
            f"submitted {answer.bot} version {answer.number} ({answer.hash}, status "
            f"{answer.status}): {page}"
        )
    if not args.wait:
        if answer.status in WAITING and not args.json:
            print(
                f"its check is still to come: follow it at {page}, or submit with --wait",
                file=sys.stderr,
            )
        return EXIT_OK
    bot, row = follow(base, token, answer, args.wait_s)
    if bot.disabled:
        held = "waits, neither checked nor played," if row.status in WAITING else "plays no game"
        print(
            f"{answer.bot} is disabled by the organisers: version {row.number} {held} until "
            f"they enable the bot: {page}"
        )
        return EXIT_ERROR
    if row.status == "playing" and bot.frozen_season is not None:
        print(
            f"{answer.bot} version {row.number} passed its check; season {bot.frozen_season} "
            f"is frozen for its final, so it plays from season {bot.frozen_season + 1}: {page}"
        )
        return EXIT_OK
    if row.status == "playing":
        print(f"{answer.bot} version {row.number} plays: {page}")
        return EXIT_OK
    print(f"{answer.bot} version {row.number} was {row.status}: {row.reason or 'no reason given'}")
    for kind, text in (row.logs or {}).items():
        print(f"--- its {kind} log ---\n{shown_log(text, token)}")
    return EXIT_ERROR


WAITING = frozenset({"queued", "building", "checking"})


def follow(
    base: str, token: str, answer: VersionAnswer, wait_s: float
) -> tuple[BotAnswer, VersionRow]:
    """Ask for the uploaded version's status until it is no longer waiting, or at once when
    its bot is disabled (its versions wait unchecked until it is enabled), printing each new
    status on stderr; the bot and the version as its author sees them then (logs included)."""
    deadline = time.monotonic() + wait_s
    seen = answer.status
    while True:
        bot, row = version_row(base, token, answer)
        if row.status != seen:
            print(f"{answer.bot} version {row.number}: {row.status}", file=sys.stderr)
            seen = row.status
        if row.status not in WAITING or bot.disabled:
            return bot, row
        if time.monotonic() > deadline:
            raise ArenaError(
                f"{answer.bot} version {row.number} is still {row.status} after {wait_s:g} s: "
                f"follow it at {page_url(base, answer)}"
            )
        time.sleep(POLL_S)


def version_row(base: str, token: str, answer: VersionAnswer) -> tuple[BotAnswer, VersionRow]:
    """The bot and the uploaded version as `GET /api/bots/NAME` gives them to its author."""
    path = "/api/bots/" + urllib.parse.quote(answer.bot, safe="")
    text = request_json(base, "GET", path, token)
    try:
        bot = msgspec.json.decode(text, type=BotAnswer)
    except msgspec.DecodeError:
        raise ArenaError(f"the server's answer about {answer.bot} is not a bot's") from None
    for row in bot.versions:
        if row.number == answer.number:
            return bot, row
    raise ArenaError(f"the server no longer lists version {answer.number} of {answer.bot}")


def read_upload(path: Path) -> Upload:
    """FILE's bytes under its name, or a folder packed into `<folder>.tar.gz`."""
    try:
        info = path.stat()
    except FileNotFoundError:
        raise UsageError(f"{path}: no such file or folder") from None
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from None
    if stat.S_ISDIR(info.st_mode):
        return Upload(f"{path.resolve().name or 'bot'}.tar.gz", pack(path))
    if not stat.S_ISREG(info.st_mode):
        raise UsageError(f"{path} is not a file or folder: give the bot's file, archive or folder")
    try:
        return Upload(path.name, path.read_bytes())
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from None


def pack(folder: Path) -> bytes:
    """The folder as a .tar.gz, in memory: regular files and folders under relative paths, in
    name order; `SKIPPED` names left out; a link, device or FIFO refused."""
    buffer = io.BytesIO()
    files = 0
    with tarfile.open(fileobj=buffer, mode="w:gz", format=tarfile.PAX_FORMAT) as tar:
        pending = [folder]
        while pending:
            current = pending.pop()
            try:
                with os.scandir(current) as scan:
                    entries = sorted(scan, key=lambda entry: entry.name)
            except OSError as exc:
                raise UsageError(f"cannot read {current}: {exc.strerror or exc}") from None
            subfolders = []
            for entry in entries:
                if entry.name in SKIPPED:
                    continue
                path = Path(entry.path)
                name = path.relative_to(folder).as_posix()
                try:
                    if entry.is_symlink():
                        raise UsageError(
                            f"{path} is a symbolic link, and links are not sent (the server "
                            "refuses them): replace it with a copy of what it points to, or "
                            "remove it"
                        )
                    info = entry.stat(follow_symlinks=False)
                    if stat.S_ISDIR(info.st_mode):
                        tar.addfile(member(name, tarfile.DIRTYPE, info))
                        subfolders.append(path)
                    elif stat.S_ISREG(info.st_mode):
                        data = path.read_bytes()
                        tar.addfile(
                            member(name, tarfile.REGTYPE, info, len(data)), io.BytesIO(data)
                        )
                        files += 1
                    else:
                        raise UsageError(
                            f"{path} is neither a regular file nor a folder (a device, FIFO or "
                            "socket): remove it from the bot's folder"
                        )
                except OSError as exc:
                    raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from None
            pending.extend(reversed(subfolders))
    if not files:
        raise UsageError(f"{folder} holds no files to send")
    return buffer.getvalue()


def member(name: str, kind: bytes, info: os.stat_result, size: int = 0) -> tarfile.TarInfo:
    """A tar entry owned by nobody in particular, keeping the permission bits (a bot's
    executable) and the time, nothing else of this machine."""
    entry = tarfile.TarInfo(name)
    entry.type = kind
    entry.size = size
    entry.mode = stat.S_IMODE(info.st_mode) & 0o755
    entry.mtime = int(info.st_mtime)
    return entry


def multipart(fields: dict[str, str], upload: Upload) -> tuple[bytes, str]:
    """A `multipart/form-data` body of the text fields then the file, and its Content-Type.

    Names are escaped as browsers do (HTML's form-data encoding: `"` as %22, CR and LF as
    %0D and %0A); the boundary is random, and drawn again in the unlikely case it occurs in
    the content.
    """
    texts = {key: value.encode() for key, value in fields.items()}
    while True:
        boundary = f"arena-{secrets.token_hex(16)}"
        marker = boundary.encode()
        if marker not in upload.data and not any(marker in value for value in texts.values()):
            break
    parts = []
    for key, value in texts.items():
        parts.append(f'Content-Disposition: form-data; name="{quoted(key)}"\r\n\r\n'.encode())
        parts.append(value)
    filename = quoted(upload.filename)
    parts.append(
        f'Content-Disposition: form-data; name="file"; filename="{filename}"\r\n'
        "Content-Type: application/octet-stream\r\n\r\n".encode()
    )
    parts.append(upload.data)
    body = io.BytesIO()
    for index, part in enumerate(parts):
        if index % 2 == 0:
            body.write(b"--" + marker + b"\r\n")
        body.write(part)
        if index % 2 == 1:
            body.write(b"\r\n")
    body.write(b"--" + marker + b"--\r\n")
    return body.getvalue(), f"multipart/form-data; boundary={boundary}"


def quoted(name: str) -> str:
    return name.replace("\r", "%0D").replace("\n", "%0A").replace('"', "%22")


def post(base: str, token: str, name: str, upload: Upload) -> VersionAnswer:
    """POST the upload to `base/api/versions`; the server's answer, or an error."""
    body, content_type = multipart({"name": name}, upload)
    status, text = send(base, "POST", "/api/versions", token, body, content_type)
    return accepted(status, text, token)


def accepted(status: int, text: bytes, token: str) -> VersionAnswer:
    """The success answer, checked to be what the server's API promises."""
    try:
        return msgspec.json.decode(text, type=VersionAnswer)
    except msgspec.DecodeError:
        snippet = shown(text.decode(errors="replace"), token) or "nothing"
        raise ArenaError(
            f"{status}: the server's answer is not a submitted version (is URL a league "
            f"server?): {snippet}"
        ) from None


def page_url(base: str, answer: VersionAnswer) -> str:
    """The bot's page: the server's `url`, relative to the server's address."""
    page = answer.url or "bots/" + urllib.parse.quote(answer.bot, safe="")
    # Quoted as a browser would (a space in a bot's name), leaving what is quoted already.
    page = urllib.parse.quote(page, safe="/%:@!$&'()*+,;=~?#")
    return urllib.parse.urljoin(base + "/", page.lstrip("/"))
