"""A league server's client, for the commands authors run against it (`arena submit`, `arena
fetch`): the server's address checked, the author's token found, and requests that never follow
a redirect (it would carry the token to wherever it points), time out, read a bounded answer and
turn a refusal into the error family. Only the standard library.

The token is never printed: not in the output, not in an error, not even when the server
echoes it (`shown`).
"""

from __future__ import annotations

import http.client
import json
import os
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

from protocol.errors import ArenaError, RequestError
from tournaments.errors import UsageError

TOKEN_VARIABLE = "ARENA_TOKEN"
TIMEOUT_S = 120
MAX_ANSWER_BYTES = 1024 * 1024
"""The largest JSON answer read."""
_MAX_REASON_CHARS = 300


def shown_log(text: str, token: str) -> str:
    """A log the server sent, safe to print: the token masked, control characters dropped
    (the lines kept)."""
    text = text.replace(token, "<token>")
    return "\n".join(
        "".join(ch for ch in line if ch.isprintable() or ch == "\t") for line in text.splitlines()
    )


def base_url(text: str) -> str:
    """The server's address without a trailing slash, checked: http(s), a host, no query."""
    parts = urllib.parse.urlsplit(text.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UsageError(
            f"URL {text!r} is not a league server's address: give one starting with http:// "
            "or https://, e.g. https://league.example.org"
        )
    if parts.query or parts.fragment or text.strip().endswith(("?", "#")):
        raise UsageError(
            f"URL {text!r}: give the server's address (with the base path it is served under, "
            "if any), without a query or fragment"
        )
    try:
        parts.port  # noqa: B018 (validates the port)
    except ValueError:
        raise UsageError(f"URL {text!r}: the port is not a number from 0 to 65535") from None
    return urllib.parse.urlunsplit((parts.scheme, parts.netloc, parts.path.rstrip("/"), "", ""))


def find_token(given: str | None) -> str:
    """`--token`, else `$ARENA_TOKEN`, which must be there; checked to fit in a header."""
    token = optional_token(given)
    if token is None:
        raise UsageError(
            f"no token: give --token TOKEN or set {TOKEN_VARIABLE} (the league's organiser "
            "gives each author one)"
        )
    return token


def optional_token(given: str | None) -> str | None:
    """`--token`, else `$ARENA_TOKEN`, else None; checked to fit in a header. Messages never
    show it."""
    where, token = "--token", given
    if token is None:
        where, token = TOKEN_VARIABLE, os.environ.get(TOKEN_VARIABLE)
    if not token:
        return None
    if not (token.isascii() and token.isprintable()) or any(ch.isspace() for ch in token):
        raise UsageError(
            f"the token in {where} is not usable: a token is printable ASCII without spaces; "
            "copy it again"
        )
    return token


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    """Refuse to follow: the request would be sent again, token included, elsewhere."""

    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


def request_json(base: str, method: str, path: str, token: str | None) -> bytes:
    """A JSON answer of the server (as the token's author; anonymous without one), or an
    error."""
    return send(base, method, path, token)[1]


def send(
    base: str,
    method: str,
    path: str,
    token: str | None,
    body: bytes | None = None,
    content_type: str | None = None,
    limit: int = MAX_ANSWER_BYTES,
) -> tuple[int, bytes]:
    """One request to the server with the token (if any) as bearer: (status, answer: at most
    `limit` bytes of it), or an error."""
    headers = {"Accept": "application/json", "User-Agent": "arena"}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    if content_type is not None:
        headers["Content-Type"] = content_type
    request = urllib.request.Request(f"{base}{path}", data=body, method=method, headers=headers)
    opener = urllib.request.build_opener(_NoRedirects)
    try:
        with opener.open(request, timeout=TIMEOUT_S) as response:
            status = response.status
            text = response.read(limit + 1)
            if len(text) > limit:
                raise ArenaError(f"{base}{path}: the answer is over {limit:,} bytes")
    except urllib.error.HTTPError as exc:
        try:
            raise refusal(exc, token) from None
        finally:
            exc.close()
    except TimeoutError:
        raise ArenaError(f"cannot reach {base}: no answer within {TIMEOUT_S} s") from None
    except urllib.error.URLError as exc:
        raise ArenaError(f"cannot reach {base}: {reason(exc.reason)}") from None
    except (OSError, http.client.HTTPException) as exc:
        raise ArenaError(f"cannot reach {base}: {reason(exc)}") from None
    return status, text


def reason(error: object) -> str:
    if isinstance(error, OSError) and error.strerror:
        return error.strerror
    if isinstance(error, TimeoutError):
        return f"no answer within {TIMEOUT_S} s"
    return str(error) or type(error).__name__


def refusal(exc: urllib.error.HTTPError, token: str | None) -> ArenaError:
    """The server's `error` with the status: a RequestError for 4xx, an ArenaError else."""
    code = exc.code
    try:
        text = exc.read(64 * 1024)
    except (OSError, http.client.HTTPException):
        text = b""
    why = None
    try:
        answer = json.loads(text)
    except ValueError:
        answer = None
    if isinstance(answer, dict) and isinstance(answer.get("error"), str) and answer["error"]:
        why = answer["error"]
    if 300 <= code < 400:
        location = exc.headers.get("Location") if exc.headers else None
        where = f" to {shown(location, token)}" if location else ""
        return ArenaError(
            f"{code}: the server redirects{where}; give the address it redirects to as URL "
            "(a redirect is not followed: it would send your token on)"
        )
    message = f"{code}: {shown(why or exc.reason or 'no reason given', token)}"
    return RequestError(message) if 400 <= code < 500 else ArenaError(message)


def shown(text: str, token: str | None) -> str:
    """What the server said, safe to print: one line of printable characters, short, and
    without the token."""
    text = text.replace(token, "<token>") if token else text
    text = " ".join("".join(ch if ch.isprintable() else " " for ch in text).split())
    if len(text) > _MAX_REASON_CHARS:
        text = text[: _MAX_REASON_CHARS - 1] + "…"
    return text
