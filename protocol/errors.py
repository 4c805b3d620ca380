"""The one error family of the arena: a refusal the user can act on, and how the CLI ends.

Every layer raises these for what a user gave it (a game id, options, a tournament file, a bot
command, a store, a record), so the front ends — `arena` and the league server — map them in
one place: the message is shown as it is, `exit_code` ends the command and `http_status` is the
server's answer. Anything else is a bug and keeps its traceback. It lives in the bottom layer so
the engines' own refusals (an unknown game, bad options, a player count) belong to it too.
"""

from __future__ import annotations

from typing import ClassVar


class ArenaError(Exception):
    """Something given to the arena cannot be used (a damaged store or record, a rejected bot);
    the message says what, where and what to do."""

    exit_code: ClassVar[int] = 1
    http_status: ClassVar[int] = 500
    """The league's state cannot serve the request (a damaged store): not the client's fault."""


class RequestError(ArenaError):
    """What was asked for is wrong (a flag, an option, a game id, a tournament file): fix the
    request and run again."""

    exit_code: ClassVar[int] = 2
    http_status: ClassVar[int] = 400
