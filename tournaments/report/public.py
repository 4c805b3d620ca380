"""What everyone may see of a stored game, once for every public page and file: the league's
game pages and downloads and a published final's report (`write_report(..., public=True)`).

A fault keeps its seat, kind and decision; its reason (which quotes the bot's stderr) becomes
the kind's short description. A seat's command becomes its name (a house bot's command names the
server's interpreter and files). A seat's `start` (its seed) is kept for the viewer's own seats
only: a bot must learn nothing of another seat's randomness.
"""

from __future__ import annotations

import re
from collections.abc import Collection

import msgspec

from referee import FAULT_KINDS
from tournaments.store.results import FinishedGame


def public_reason(kind: str) -> str:
    """What a fault of `kind` is, in the words everyone may read: its description without
    what it says of the private reason ("exit code or signal in the reason, …")."""
    return _NOTE.sub("", FAULT_KINDS.get(kind, "a fault"))


_NOTE = re.compile(r"\s*\([^()]*\)$")
"""A description's closing note on what its reason holds."""


def public_record(record: bytes, own: Collection[int] = ()) -> bytes:
    """A game's record as everyone may see it: each fault's reason is its kind's description
    unless its seat is one of `own` (the viewer's), each seat's command is its name, and only
    the `start` messages of `own` seats are kept."""
    lines = []
    for line in record.splitlines():
        item = msgspec.json.decode(line)
        if isinstance(item, dict) and item.get("type") == "fault" and item.get("seat") not in own:
            item["reason"] = public_reason(str(item.get("kind")))
        elif isinstance(item, dict) and item.get("type") == "header":
            item["commands"] = [[str(name)] for name in item.get("names", [])]
            item["starts"] = [one for one in item.get("starts", []) if one.get("seat") in own]
        lines.append(msgspec.json.encode(item))
    return b"\n".join(lines) + b"\n"


def public_game(game: FinishedGame) -> FinishedGame:
    """A stored game as everyone may see it: each fault's reason is its kind's description."""
    if not game.played.faults:
        return game
    faults = [
        msgspec.structs.replace(fault, reason=public_reason(fault.kind))
        for fault in game.played.faults
    ]
    return msgspec.structs.replace(game, played=msgspec.structs.replace(game.played, faults=faults))
